package affinepasses

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/passes"
)

// TestRandomPrograms generates loop nests that update memory in place
// (loop-carried dependences of every direction, aliasing through shared
// arrays, temporaries, reductions, triangular loops), runs every pass on
// them and compares the memory the transformed program leaves with the
// original's, bit for bit, with the interpreter of interp_test.go. It is
// the check that the legality tests refuse what they must: a pass that
// reorders a dependence changes the result. Reductions (sums, maxima,
// minima, masked or not, alone or side by side) are vectorized when their
// result does not depend on the order; float sums too with reassociate,
// whose results are compared within a sum's rounding error. Without it,
// the loops around the other reductions are vectorized across (one
// iteration per lane, vectorize_outer.go), bit for bit like the rest.
func TestRandomPrograms(t *testing.T) {
	configs := []string{
		"affine-loop-tile{sizes=2,3}",
		"affine-loop-tile{sizes=5}",
		"affine-loop-unroll{factor=3}",
		"affine-loop-unroll{factor=1 unroll-full-threshold=6}",
		"affine-loop-unroll{factor=2 unroll-full-threshold=3}",
		"affine-vectorize{width=4}",
		"affine-vectorize{width=2}",
		"affine-vectorize{width=4 reassociate=true}",
		"affine-vectorize{width=4 outer=false}",
		"affine-loop-fusion",
		"affine-loop-fusion{max-shift=3}",
		"affine-licm",
		"affine-scalar-replace",
		"affine-loop-fusion{max-shift=2},affine-scalar-replace,affine-licm,affine-loop-tile{sizes=4,4},affine-vectorize{width=2},affine-loop-unroll{factor=2}",
	}
	n := 400
	if testing.Short() {
		n = 50
	}
	changed := map[string]int{}
	// across counts the programs a loop of which affine-vectorize
	// vectorized across with transposed blocks (outer=true).
	across := 0
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		src := genProgram(rng)
		nArg, mArg := int64(rng.Intn(18)), int64(rng.Intn(19))
		base := mustParse(t, src)
		want, err := runModule(base, nArg, mArg, seed)
		if err != nil {
			t.Fatalf("seed %d: the original program fails: %v\n%s", seed, err, src)
		}
		orig := printer.Module(base, printer.Options{})
		for _, cfg := range configs {
			m := &ir.Module{Op: base.Op.Clone(map[*ir.Value]*ir.Value{}), Implicit: base.Implicit}
			p, err := passes.ParsePipeline("builtin.module(func.func(" + cfg + "))")
			if err != nil {
				t.Fatal(err)
			}
			if err := passes.NewManager(p).Run(m); err != nil {
				t.Fatalf("seed %d, %s: %v\n%s", seed, cfg, err, src)
			}
			out := printer.Module(m, printer.Options{})
			if out != orig {
				changed[cfg]++
			}
			if cfg == "affine-vectorize{width=4}" && strings.Contains(out, "vector.shuffle") {
				across++
			}
			got, err := runModule(m, nArg, mArg, seed)
			if err != nil {
				t.Fatalf("seed %d, %s: the transformed program fails: %v\n--- original\n%s--- transformed\n%s", seed, cfg, err, src, out)
			}
			if d := diffBufs(got, want, strings.Contains(cfg, "reassociate")); d != "" {
				t.Fatalf("seed %d, %s (n=%d m=%d): %s\n--- original\n%s--- transformed\n%s", seed, cfg, nArg, mArg, d, src, out)
			}
		}
	}
	for _, cfg := range configs {
		t.Logf("%s changed %d of %d programs", cfg, changed[cfg], n)
		if changed[cfg] == 0 {
			t.Errorf("%s never applied: the generator does not exercise it", cfg)
		}
	}
	t.Logf("affine-vectorize{width=4} vectorized across rows (shuffles) in %d programs", across)
	if across == 0 {
		t.Errorf("affine-vectorize never vectorized a reduction across rows: the generator does not exercise it")
	}
}

func mustParse(t *testing.T, src string) *ir.Module {
	m, diags := parser.Parse("random.mlir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	return m
}

// runModule runs @f on three 20x20 arrays filled from seed.
func runModule(mod *ir.Module, n, m int64, seed int) ([]*ibuf, error) {
	rng := rand.New(rand.NewSource(int64(seed) * 7919))
	var bufs []*ibuf
	var args []any
	for k := 0; k < 3; k++ {
		b := &ibuf{shape: []int64{20, 20}, data: make([]float64, 400)}
		for i := range b.data {
			b.data[i] = float64(rng.Intn(2001)-1000) / 256
		}
		bufs = append(bufs, b)
		args = append(args, b)
	}
	args = append(args, n, m, 0.75)
	return bufs, runFunc(mod.Lookup("f"), args)
}

// diffBufs compares the arrays bit for bit, or, for reassociated sums,
// within 1e-9 of the values' magnitude (the arrays hold small dyadic
// values, whose sums are mostly exact in any order).
func diffBufs(got, want []*ibuf, reassociated bool) string {
	for k := range want {
		for i := range want[k].data {
			g, w := got[k].data[i], want[k].data[i]
			if reassociated && math.Abs(g-w) <= 1e-9*math.Max(1, math.Abs(w)) {
				continue
			}
			if math.Float64bits(g) != math.Float64bits(w) {
				return fmt.Sprintf("array #%d element (%d, %d): got %v, want %v", k, i/20, i%20, g, w)
			}
		}
	}
	return ""
}

// genProgram writes a random function of 1 to 4 loop nests over %A, %B,
// %C (20x20) and temporaries. Induction variables range within [2, 18)
// and subscripts add offsets in [-2, 2], so every access is in bounds.
func genProgram(rng *rand.Rand) string {
	g := &gen{rng: rng, arrays: []string{"%A", "%B", "%C"}}
	var b strings.Builder
	b.WriteString("func.func @f(%A: memref<20x20xf64>, %B: memref<20x20xf64>, %C: memref<20x20xf64>, %n: index, %m: index, %s: f64) {\n")
	b.WriteString("  %half = arith.constant 0.5 : f64\n")
	var temps []string
	for k, nests := 0, 1+rng.Intn(4); k < nests; k++ {
		if rng.Intn(4) == 0 {
			t := fmt.Sprintf("%%T%d", len(temps))
			temps = append(temps, t)
			fmt.Fprintf(&b, "  %s = memref.alloc() : memref<20x20xf64>\n", t)
			g.arrays = append(g.arrays, t)
		}
		g.nest(&b, "  ", nil, 1+rng.Intn(2))
	}
	for _, t := range temps {
		fmt.Fprintf(&b, "  memref.dealloc %s : memref<20x20xf64>\n", t)
	}
	b.WriteString("  func.return\n}\n")
	return b.String()
}

type gen struct {
	rng    *rand.Rand
	arrays []string
	ids    int
	// uppers are the upper bounds of the previous nest, reused half of
	// the time so that sibling nests run over the same domain (fusion).
	uppers  []string
	written string // the array the previous statement stored to
}

func (g *gen) id(prefix string) string {
	g.ids++
	return fmt.Sprintf("%%%s%d", prefix, g.ids)
}

func (g *gen) upper(ivs []string) string {
	switch r := g.rng.Intn(6); {
	case r == 0:
		return "%n"
	case r == 1:
		return "affine_map<()[s0] -> (s0 - 1)>()[%m]"
	case r == 2 && len(ivs) > 0:
		return fmt.Sprintf("affine_map<(d0) -> (d0 + 1)>(%s)", ivs[len(ivs)-1])
	}
	return fmt.Sprint(4 + g.rng.Intn(14))
}

// sub is a subscript: an induction variable plus an offset, or a constant.
func (g *gen) sub(ivs []string) string {
	if len(ivs) == 0 || g.rng.Intn(5) == 0 {
		return fmt.Sprint(2 + g.rng.Intn(16))
	}
	iv := ivs[g.rng.Intn(len(ivs))]
	switch off := g.rng.Intn(5) - 2; {
	case off > 0:
		return fmt.Sprintf("%s + %d", iv, off)
	case off < 0:
		return fmt.Sprintf("%s - %d", iv, -off)
	}
	return iv
}

// access picks an array (often the one written last, to make producers
// and consumers) and subscripts (often the innermost induction variable
// last, to make contiguous accesses).
func (g *gen) access(ivs []string) string {
	a := g.arrays[g.rng.Intn(len(g.arrays))]
	if g.written != "" && g.rng.Intn(3) == 0 {
		a = g.written
	}
	if len(ivs) > 0 && g.rng.Intn(2) == 0 {
		last := ivs[len(ivs)-1]
		if off := g.rng.Intn(3) - 1; off != 0 {
			last = fmt.Sprintf("%s + %d", last, off)
		}
		return fmt.Sprintf("%s[%s, %s]", a, g.sub(ivs[:len(ivs)-1]), last)
	}
	return fmt.Sprintf("%s[%s, %s]", a, g.sub(ivs), g.sub(ivs))
}

func (g *gen) nest(b *strings.Builder, ind string, ivs []string, depth int) {
	iv := g.id("i")
	lower := 2
	up := g.upper(ivs)
	if lvl := len(ivs); lvl < len(g.uppers) && g.rng.Intn(2) == 0 && !strings.Contains(g.uppers[lvl], "(d0)") {
		up = g.uppers[lvl]
	} else if g.rng.Intn(3) == 0 {
		lower = 3
	}
	if len(ivs) == 0 {
		g.uppers = nil
	}
	g.uppers = append(g.uppers, up)
	fmt.Fprintf(b, "%saffine.for %s = %d to %s {\n", ind, iv, lower, up)
	ivs = append(ivs, iv)
	in := ind + "  "
	if depth > 1 {
		g.nest(b, in, ivs, depth-1)
		if g.rng.Intn(4) == 0 {
			g.nest(b, in, ivs, depth-1)
		}
	} else {
		for s, stmts := 0, 1+g.rng.Intn(3); s < stmts; s++ {
			g.stmt(b, in, ivs)
		}
	}
	fmt.Fprintf(b, "%s}\n", ind)
}

func (g *gen) stmt(b *strings.Builder, ind string, ivs []string) {
	x, y, r := g.id("x"), g.id("y"), g.id("r")
	fmt.Fprintf(b, "%s%s = affine.load %s : memref<20x20xf64>\n", ind, x, g.access(ivs))
	if g.rng.Intn(4) == 0 {
		y = g.reduction(b, ind, ivs, x, y)
	} else {
		fmt.Fprintf(b, "%s%s = affine.load %s : memref<20x20xf64>\n", ind, y, g.access(ivs))
	}
	op := []string{"arith.addf", "arith.mulf", "arith.subf"}[g.rng.Intn(3)]
	switch g.rng.Intn(6) {
	case 0, 1:
		y = "%half"
	case 2:
		y = "%s"
	}
	fmt.Fprintf(b, "%s%s = %s %s, %s : f64\n", ind, r, op, x, y)
	dst := g.access(ivs)
	g.written = dst[:strings.IndexByte(dst, '[')]
	fmt.Fprintf(b, "%saffine.store %s, %s : memref<20x20xf64>\n", ind, r, dst)
}

// reduction writes `y = affine.for %k ... iter_args(...)`: one or two
// accumulators starting at x, each combining it (addf, maxf or minf) with
// an element loaded at a subscript of %k, or with a second element, some
// masked (a select on a compare keeps the accumulator). The loop runs to a
// constant, or to a bound from g.upper (remainders, triangular loops). It
// returns the value the statement goes on with.
func (g *gen) reduction(b *strings.Builder, ind string, ivs []string, x, y string) string {
	k, v, w := g.id("k"), g.id("v"), g.id("w")
	up := fmt.Sprint(3 + g.rng.Intn(12))
	if g.rng.Intn(3) == 0 {
		up = g.upper(ivs)
	}
	accs := 1 + g.rng.Intn(2)
	var names, types []string
	for a := 0; a < accs; a++ {
		names = append(names, g.id("acc"))
		types = append(types, "f64")
	}
	var inits []string
	for _, n := range names {
		inits = append(inits, n+" = "+x)
	}
	res := y
	if accs > 1 {
		res = y + ":2"
	}
	fmt.Fprintf(b, "%s%s = affine.for %s = 2 to %s iter_args(%s) -> (%s) {\n", ind, res, k, up, strings.Join(inits, ", "), strings.Join(types, ", "))
	fmt.Fprintf(b, "%s  %s = affine.load %s : memref<20x20xf64>\n", ind, v, g.access(append(ivs, k)))
	fmt.Fprintf(b, "%s  %s = affine.load %s : memref<20x20xf64>\n", ind, w, g.access(append(ivs, k)))
	var yields []string
	for _, acc := range names {
		e := []string{v, w}[g.rng.Intn(2)]
		comb := []string{"arith.addf", "arith.addf", "arith.maxf", "arith.minf"}[g.rng.Intn(4)]
		s := g.id("s")
		if g.rng.Intn(2) == 0 {
			fmt.Fprintf(b, "%s  %s = %s %s, %s : f64\n", ind, s, comb, acc, e)
		} else {
			fmt.Fprintf(b, "%s  %s = %s %s, %s : f64\n", ind, s, comb, e, acc)
		}
		if g.rng.Intn(3) == 0 {
			c, m := g.id("c"), g.id("m")
			fmt.Fprintf(b, "%s  %s = arith.cmpf ogt, %s, %%half : f64\n", ind, c, []string{v, w}[g.rng.Intn(2)])
			fmt.Fprintf(b, "%s  %s = arith.select %s, %s, %s : f64\n", ind, m, c, s, acc)
			s = m
		}
		yields = append(yields, s)
	}
	fmt.Fprintf(b, "%s  affine.yield %s : %s\n%s}\n", ind, strings.Join(yields, ", "), strings.Join(types, ", "), ind)
	if accs == 1 {
		return y
	}
	// Both results count: their sum is the value the statement uses.
	sum := g.id("y")
	fmt.Fprintf(b, "%s%s = arith.addf %s#0, %s#1 : f64\n", ind, sum, y, y)
	return sum
}
