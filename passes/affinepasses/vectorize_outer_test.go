package affinepasses

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/passes"
)

// TestOuterVectorizeRandom generates loops around reductions, the shapes
// affine-vectorize vectorizes across (vectorize_outer.go): float sums,
// products, differences, maxima and minima of elements read along rows,
// down columns or the same for every row, masked or not, several
// accumulators, a second reduction reading the first one's result,
// uniform loads in the reduction, stores down a column (vectorized) or
// along a row (refused), sometimes into the array the reductions read
// (refused when rows depend on each other). Every transformed program must
// leave memory bit for bit as the original does: each lane adds in the
// scalar order.
func TestOuterVectorizeRandom(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 60
	}
	applied := map[int]int{}
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		src := genOuter(rng)
		nArg, mArg := int64(rng.Intn(19)), int64(rng.Intn(19))
		base := mustParse(t, src)
		want, err := runModule(base, nArg, mArg, seed)
		if err != nil {
			t.Fatalf("seed %d: the original program fails: %v\n%s", seed, err, src)
		}
		for _, width := range []int{2, 4, 8} {
			m := &ir.Module{Op: base.Op.Clone(map[*ir.Value]*ir.Value{}), Implicit: base.Implicit}
			p, err := passes.ParsePipeline(fmt.Sprintf("builtin.module(func.func(affine-vectorize{width=%d}))", width))
			if err != nil {
				t.Fatal(err)
			}
			if err := passes.NewManager(p).Run(m); err != nil {
				t.Fatalf("seed %d, width %d: %v\n%s", seed, width, err, src)
			}
			out := printer.Module(m, printer.Options{})
			if strings.Contains(out, fmt.Sprintf("step %d iter_args", width)) || strings.Contains(out, "vector.shuffle") {
				applied[width]++
			}
			got, err := runModule(m, nArg, mArg, seed)
			if err != nil {
				t.Fatalf("seed %d, width %d: the transformed program fails: %v\n--- original\n%s--- transformed\n%s", seed, width, err, src, out)
			}
			if d := diffBufs(got, want, false); d != "" {
				t.Fatalf("seed %d, width %d (n=%d m=%d): %s\n--- original\n%s--- transformed\n%s", seed, width, nArg, mArg, d, src, out)
			}
		}
	}
	for _, w := range []int{2, 4, 8} {
		t.Logf("width %d: vectorized across in %d of %d programs", w, applied[w], n)
		if applied[w] < n/3 {
			t.Errorf("width %d: vectorized across in only %d of %d programs: the generator does not exercise it", w, applied[w], n)
		}
	}
}

// genOuter writes @f: one or two loops over %i, each holding one or two
// reductions over %k and a store of what they computed.
func genOuter(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("func.func @f(%A: memref<20x20xf64>, %B: memref<20x20xf64>, %C: memref<20x20xf64>, %n: index, %m: index, %s: f64) {\n")
	b.WriteString("  %half = arith.constant 0.5 : f64\n  %zero = arith.constant 0.0 : f64\n  %one = arith.constant 1.0 : f64\n")
	id := 0
	name := func(p string) string { id++; return fmt.Sprintf("%%%s%d", p, id) }
	pick := func(xs ...string) string { return xs[rng.Intn(len(xs))] }
	bound := func(lo int) string {
		switch rng.Intn(4) {
		case 0:
			return "%n"
		case 1:
			return "affine_map<()[s0] -> (s0 - 1)>()[%m]"
		}
		return fmt.Sprint(lo + rng.Intn(18-lo))
	}
	off := func() string {
		switch o := rng.Intn(3) - 1; {
		case o > 0:
			return " + 1"
		case o < 0:
			return " - 1"
		}
		return ""
	}
	for l, loops := 0, 1+rng.Intn(2); l < loops; l++ {
		i := name("i")
		fmt.Fprintf(&b, "  affine.for %s = %d to %s {\n", i, 1+rng.Intn(3), bound(2))
		// An element of the row: along it, down the column, or the same
		// for every row.
		elem := func(k string) string {
			arr := pick("%A", "%B")
			switch rng.Intn(5) {
			case 0, 1:
				return fmt.Sprintf("%s[%s%s, %s%s]", arr, i, off(), k, off())
			case 2:
				return fmt.Sprintf("%s[%s%s, %s%s]", arr, k, off(), i, off())
			case 3:
				return fmt.Sprintf("%s[%d, %s%s]", arr, 2+rng.Intn(16), k, off())
			}
			return fmt.Sprintf("%s[%s%s, %d]", arr, i, off(), 2+rng.Intn(16))
		}
		x := name("x")
		fmt.Fprintf(&b, "    %s = affine.load %s : memref<20x20xf64>\n", x, elem(fmt.Sprint(2+rng.Intn(16))))
		prev := ""
		var results []string
		for r, reds := 0, 1+rng.Intn(2); r < reds; r++ {
			k := name("k")
			accs := 1 + rng.Intn(2)
			var names, inits, types []string
			for a := 0; a < accs; a++ {
				names = append(names, name("acc"))
				inits = append(inits, names[a]+" = "+pick(x, "%zero", "%one", "%s"))
				types = append(types, "f64")
			}
			y := name("y")
			res := y
			if accs > 1 {
				res = fmt.Sprintf("%s:%d", y, accs)
			}
			fmt.Fprintf(&b, "    %s = affine.for %s = %d to %s iter_args(%s) -> (%s) {\n", res, k, 1+rng.Intn(3), bound(2),
				strings.Join(inits, ", "), strings.Join(types, ", "))
			v, w := name("v"), name("w")
			fmt.Fprintf(&b, "      %s = affine.load %s : memref<20x20xf64>\n", v, elem(k))
			fmt.Fprintf(&b, "      %s = affine.load %s : memref<20x20xf64>\n", w, elem(k))
			e := pick(v, w)
			if rng.Intn(3) == 0 {
				e = name("e")
				fmt.Fprintf(&b, "      %s = arith.%s %s, %s : f64\n", e, pick("mulf", "subf", "addf"), v, pick(w, x, "%half"))
			}
			if prev != "" && rng.Intn(2) == 0 {
				e2 := name("e")
				fmt.Fprintf(&b, "      %s = arith.subf %s, %s : f64\n", e2, e, prev)
				e = e2
			}
			var yields []string
			for _, acc := range names {
				s := name("s")
				switch op := pick("addf", "addf", "mulf", "subf", "maxf", "minf"); op {
				case "subf":
					fmt.Fprintf(&b, "      %s = arith.subf %s, %s : f64\n", s, acc, e)
				default:
					if rng.Intn(2) == 0 {
						fmt.Fprintf(&b, "      %s = arith.%s %s, %s : f64\n", s, op, acc, e)
					} else {
						fmt.Fprintf(&b, "      %s = arith.%s %s, %s : f64\n", s, op, e, acc)
					}
				}
				if rng.Intn(3) == 0 {
					c, m := name("c"), name("m")
					fmt.Fprintf(&b, "      %s = arith.cmpf %s, %s, %%half : f64\n", c, pick("ogt", "olt"), pick(v, w))
					fmt.Fprintf(&b, "      %s = arith.select %s, %s, %s : f64\n", m, c, s, acc)
					s = m
				}
				yields = append(yields, s)
			}
			fmt.Fprintf(&b, "      affine.yield %s : %s\n    }\n", strings.Join(yields, ", "), strings.Join(types, ", "))
			for a := 0; a < accs; a++ {
				if accs == 1 {
					results = append(results, y)
				} else {
					results = append(results, fmt.Sprintf("%s#%d", y, a))
				}
			}
			prev = results[len(results)-1]
		}
		sum := results[0]
		for _, r := range results[1:] {
			t := name("t")
			fmt.Fprintf(&b, "    %s = arith.addf %s, %s : f64\n", t, sum, r)
			sum = t
		}
		dst := fmt.Sprintf("%%C[%d, %s]", 2+rng.Intn(16), i)
		switch rng.Intn(6) {
		case 0:
			dst = fmt.Sprintf("%%C[%s, %d]", i, 2+rng.Intn(16))
		case 1:
			dst = fmt.Sprintf("%s[%d, %s%s]", pick("%A", "%B"), 2+rng.Intn(16), i, off())
		}
		fmt.Fprintf(&b, "    affine.store %s, %s : memref<20x20xf64>\n  }\n", sum, dst)
	}
	b.WriteString("  func.return\n}\n")
	return b.String()
}
