package affinepasses

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
)

// Random contractions in the shapes ML uses: up to four output loops, up
// to three nested reductions (a convolution's c, kh, kw), operands whose
// subscripts sum loop indices (h + kh), the column index contiguous or in
// another subscript (B[%n, %k]: a transposed operand), an initial value
// read from memory, an epilogue (a bias, a ReLU) between the sum and its
// store. Every buffer is 4-D, ndDim elements along each dimension.
//
// With transposed set, B is always read as B[%n + ..., ..., ..., %rK + c]
// (%rK the innermost reduction), transposed and contiguous along %rK, free
// of the loop above %n (its rows share B), and %n and %rK appear nowhere
// else but in the last subscript of the other accesses: they can then run long enough to fill vectors of 16
// lanes (the dimensions 0 and 3 of the buffers have ndLong elements).

const (
	ndDim   = 16
	ndShort = 10 // the dimensions 1 and 2 of the transposed programs' buffers
	ndLong  = 52 // the dimensions 0 and 3 of the transposed programs' buffers
)

type ndProgram struct {
	src    string
	syms   []string // the index arguments after the buffers and %s
	gather bool     // B is read with %n in another subscript than the last
	shape  []int64  // of every buffer
	long   []string // the symbols of %n and %rK's extents (transposed)
}

func genContractionND(rng *rand.Rand, transposed bool) ndProgram {
	p := ndProgram{shape: []int64{ndDim, ndDim, ndDim, ndDim}}
	if transposed {
		p.shape = []int64{ndLong, ndShort, ndShort, ndLong}
	}
	var b strings.Builder
	nOut := 2 + rng.Intn(3)
	nRed := 1 + rng.Intn(3)
	if transposed {
		nOut, nRed = 2+rng.Intn(2), 1+rng.Intn(2)
	}
	extent := func(name string, maxC int) string {
		if rng.Intn(4) == 0 {
			return fmt.Sprint(1 + rng.Intn(maxC))
		}
		p.syms = append(p.syms, name)
		return "%" + name
	}
	var outs, reds []string
	var outExt, redExt []string
	for i := 0; i < nOut-1; i++ {
		outs = append(outs, fmt.Sprintf("%%o%d", i))
		outExt = append(outExt, extent(fmt.Sprintf("S%d", i), 5))
	}
	maxN := 9
	if transposed {
		maxN = 40
		p.long = append(p.long, "N")
	}
	colExt := extent("N", maxN)
	for i := 0; i < nRed; i++ {
		reds = append(reds, fmt.Sprintf("%%r%d", i))
		if transposed && i == nRed-1 {
			redExt = append(redExt, extent(fmt.Sprintf("R%d", i), 40))
			p.long = append(p.long, fmt.Sprintf("R%d", i))
			continue
		}
		redExt = append(redExt, extent(fmt.Sprintf("R%d", i), 5))
	}
	rK := reds[nRed-1]
	off := func() string {
		if rng.Intn(3) == 0 {
			return " + 1"
		}
		return ""
	}
	// sum is a subscript: up to two of the indices (each index used at
	// most once per access), plus an offset.
	sum := func(pool *[]string) string {
		var terms []string
		for t := rng.Intn(3); t > 0 && len(*pool) > 0; t-- {
			k := rng.Intn(len(*pool))
			terms = append(terms, (*pool)[k])
			*pool = append((*pool)[:k:k], (*pool)[k+1:]...)
		}
		if len(terms) == 0 {
			return fmt.Sprint(rng.Intn(2))
		}
		return strings.Join(terms, " + ") + off()
	}
	access := func(name string, mode int, withReds bool) string {
		// mode 0: no %n; 1: %n contiguous (last subscript); 2: %n elsewhere
		pool := append([]string(nil), outs...)
		if withReds {
			pool = append(pool, reds...)
		}
		if transposed && withReds {
			pool = pool[:len(pool)-1] // %rK: the last subscript only
		}
		if transposed && mode == 2 {
			// B is shared by the rows of the loop above %n (a batch loop
			// further out may still choose the block of B).
			pool = slices.DeleteFunc(pool, func(x string) bool { return x == outs[len(outs)-1] })
		}
		rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
		subs := make([]string, 4)
		nAt := -1
		switch mode {
		case 1:
			nAt = 3
		case 2:
			nAt = 0
			if !transposed {
				nAt = rng.Intn(3)
			}
		}
		for d := range subs {
			if transposed && withReds && d == 3 && mode != 1 {
				subs[d] = rK + off()
				continue
			}
			subs[d] = sum(&pool)
			if d == nAt {
				if strings.ContainsAny(subs[d], "%") {
					subs[d] = "%n + " + subs[d]
				} else {
					subs[d] = "%n" + off()
				}
			}
		}
		return fmt.Sprintf("affine.load %s[%s] : memref<?x?x?x?xf32>", name, strings.Join(subs, ", "))
	}
	b.WriteString("func.func @f(%A: memref<?x?x?x?xf32>, %B: memref<?x?x?x?xf32>, %D: memref<?x?x?x?xf32>, %E: memref<?x?x?x?xf32>, %C: memref<?x?x?x?xf32>, %s: f32")
	for _, s := range p.syms {
		fmt.Fprintf(&b, ", %%%s: index", s)
	}
	b.WriteString(") {\n  %cst = arith.constant 0.0 : f32\n  %two = arith.constant 2.5 : f32\n")
	ind := "  "
	for i, o := range outs {
		fmt.Fprintf(&b, "%saffine.for %s = %d to %s {\n", ind, o, rng.Intn(2), outExt[i])
		ind += "  "
	}
	fmt.Fprintf(&b, "%saffine.for %%n = %d to %s {\n", ind, rng.Intn(2), colExt)
	ind += "  "
	init := []string{"%cst", "%s", "%e"}[rng.Intn(3)]
	if init == "%e" {
		fmt.Fprintf(&b, "%s%%e = %s\n", ind, access("%E", 1, false))
	}
	accs := []string{}
	for i, r := range reds {
		in := init
		if i > 0 {
			in = accs[i-1]
		}
		acc := fmt.Sprintf("%%acc%d", i)
		res := fmt.Sprintf("%%sum%d", i)
		fmt.Fprintf(&b, "%s%s = affine.for %s = %d to %s iter_args(%s = %s) -> (f32) {\n", ind, res, r, rng.Intn(2), redExt[i], acc, in)
		accs = append(accs, acc)
		ind += "  "
	}
	var vals []string
	load := func(name string, mode int) {
		v := fmt.Sprintf("%%v%d", len(vals))
		fmt.Fprintf(&b, "%s%s = %s\n", ind, v, access(name, mode, true))
		vals = append(vals, v)
	}
	load("%A", 0)
	bMode := 1 + rng.Intn(2)
	if transposed {
		bMode = 2
	}
	p.gather = bMode == 2
	load("%B", bMode)
	if rng.Intn(3) == 0 {
		load("%D", rng.Intn(2))
	}
	for len(vals) > 1 {
		op := []string{"mulf", "mulf", "addf", "subf", "maxf"}[rng.Intn(5)]
		x, y := vals[len(vals)-2], vals[len(vals)-1]
		if rng.Intn(5) == 0 {
			y = []string{"%two", "%s"}[rng.Intn(2)]
		}
		v := fmt.Sprintf("%%w%d", len(vals))
		fmt.Fprintf(&b, "%s%s = arith.%s %s, %s : f32\n", ind, v, op, x, y)
		vals = append(vals[:len(vals)-2], v)
	}
	comb := []string{"addf", "addf", "maxf", "subf"}[rng.Intn(4)]
	fmt.Fprintf(&b, "%s%%next = arith.%s %s, %s : f32\n", ind, comb, accs[len(accs)-1], vals[0])
	fmt.Fprintf(&b, "%saffine.yield %%next : f32\n", ind)
	for i := len(reds) - 1; i >= 0; i-- {
		ind = ind[2:]
		fmt.Fprintf(&b, "%s}\n", ind)
		if i > 0 {
			fmt.Fprintf(&b, "%saffine.yield %%sum%d : f32\n", ind, i)
		}
	}
	stored := "%sum0"
	switch rng.Intn(4) {
	case 1: // bias + ReLU
		fmt.Fprintf(&b, "%s%%bias = %s\n", ind, access("%D", rng.Intn(2), false))
		fmt.Fprintf(&b, "%s%%t = arith.addf %%sum0, %%bias : f32\n", ind)
		fmt.Fprintf(&b, "%s%%u = arith.maxf %%t, %%cst : f32\n", ind)
		stored = "%u"
	case 2: // a scale and a select
		fmt.Fprintf(&b, "%s%%t = arith.mulf %%sum0, %%s : f32\n", ind)
		fmt.Fprintf(&b, "%s%%c = arith.cmpf ogt, %%t, %%cst : f32\n", ind)
		fmt.Fprintf(&b, "%s%%u = arith.select %%c, %%t, %%two : f32\n", ind)
		stored = "%u"
	case 3: // the initial value's load used again
		if init == "%e" {
			fmt.Fprintf(&b, "%s%%u = arith.subf %%sum0, %%e : f32\n", ind)
			stored = "%u"
		}
	}
	// The store: each output index in a subscript of its own.
	subs := []string{"0", "0", "0", "%n" + off()}
	perm := rng.Perm(3)
	for i, o := range outs {
		subs[perm[i]] = o + off()
	}
	fmt.Fprintf(&b, "%saffine.store %s, %%C[%s] : memref<?x?x?x?xf32>\n", ind, stored, strings.Join(subs, ", "))
	for range outs {
		ind = ind[2:]
		fmt.Fprintf(&b, "%s} {tir.parallel}\n", ind)
	}
	b.WriteString("  } {tir.parallel}\n  func.return\n}\n")
	p.src = b.String()
	return p
}

// runContractionND runs @f on buffers filled from seed with values of
// very different magnitudes (so that float64 sums depend on their order)
// and returns C, NaN where nothing was stored.
func runContractionND(mod *ir.Module, p ndProgram, sizes map[string]int64, seed int) (*ibuf, error) {
	rng := rand.New(rand.NewSource(int64(seed)))
	var args []any
	var c *ibuf
	size := int64(1)
	for _, d := range p.shape {
		size *= d
	}
	for i := 0; i < 5; i++ {
		b := &ibuf{shape: p.shape, data: make([]float64, size)}
		for j := range b.data {
			b.data[j] = math.Ldexp(float64(rng.Intn(2001)-1000), 12*rng.Intn(4)-6)
			if i == 4 {
				b.data[j] = math.NaN()
			}
		}
		args = append(args, b)
		c = b
	}
	args = append(args, 0.75)
	for _, s := range p.syms {
		args = append(args, sizes[s])
	}
	return c, runFunc(mod.Lookup("f"), args)
}

// TestContractionND checks affine-contraction-tile on random
// contractions with several output loops (the row chosen among them),
// several reductions, transposed operands, prologues and epilogues: the
// transformed program must leave C bitwise as the original does, at
// sizes that fill no tile, some tiles, and tiles with remainders.
func TestContractionND(t *testing.T) {
	configs := []string{
		"affine-contraction-tile{vector-bits=64 rows=2 vectors=2 k-block=2 n-block=4}",
		"affine-contraction-tile{vector-bits=128 rows=3 vectors=2 k-block=3 n-block=8}",
		"affine-contraction-tile{vector-bits=256 rows=2 vectors=1 k-block=0}",
		"affine-contraction-tile{vector-bits=128 rows=2 vectors=3 k-block=2 pack=false}",
		"affine-contraction-tile{vector-bits=256 registers=16 k-block=1 n-block=16 specialize=2}",
		"affine-contraction-tile{vector-bits=64 rows=2 vectors=2 k-block=4},affine-licm,affine-scalar-replace,affine-loop-unroll{factor=2}",
	}
	n := 50
	if testing.Short() {
		n = 15
	}
	changed := map[string]int{}
	gathers := 0
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		p := genContractionND(rng, false)
		base := mustParse(t, p.src)
		orig := printer.Module(base, printer.Options{})
		var runs []map[string]int64
		for r := 0; r < 5; r++ {
			sz := map[string]int64{}
			for _, s := range p.syms {
				switch {
				case s == "N":
					sz[s] = int64([]int{0, 1, 5, 9}[(r+rng.Intn(4))%4])
				case r == 0:
					sz[s] = 1
				case r == 4: // the trip count the nests are specialized for
					sz[s] = []int64{3, 2}[rng.Intn(2)]
				default:
					sz[s] = int64(rng.Intn(6))
				}
			}
			runs = append(runs, sz)
		}
		wants := originalND(t, seed, p, base, runs)
		for _, cfg := range configs {
			out := checkND(t, seed, p, runs, wants, cfg)
			if out != orig {
				changed[cfg]++
				if cfg == configs[0] && p.gather {
					gathers++
				}
			}
		}
	}
	for _, cfg := range configs {
		t.Logf("%s changed %d of %d programs", cfg, changed[cfg], n)
		if changed[cfg] < n/3 {
			t.Errorf("%s applied to only %d of %d programs", cfg, changed[cfg], n)
		}
	}
	t.Logf("%d programs with a transposed operand changed", gathers)
	if gathers < n/10 {
		t.Errorf("only %d programs with a transposed operand changed", gathers)
	}
}

// originalND runs the original program at each size of runs (with the
// buffers of seed*10 + the run's index) and returns C after each.
func originalND(t *testing.T, seed int, p ndProgram, base *ir.Module, runs []map[string]int64) []*ibuf {
	t.Helper()
	var wants []*ibuf
	for i, sz := range runs {
		want, err := runContractionND(base, p, sz, seed*10+i)
		if err != nil {
			t.Fatalf("seed %d: the original program fails at %v: %v\n%s", seed, sz, err, p.src)
		}
		wants = append(wants, want)
	}
	return wants
}

// checkND transforms p with the pipeline cfg, runs it at each size of
// runs and fails unless C is bitwise what the original program left
// (wants); it returns the transformed program.
func checkND(t *testing.T, seed int, p ndProgram, runs []map[string]int64, wants []*ibuf, cfg string) string {
	t.Helper()
	m := runPipeline(t, p.src, cfg)
	out := printer.Module(m, printer.Options{})
	for i, sz := range runs {
		got, err := runContractionND(m, p, sz, seed*10+i)
		if err != nil {
			t.Fatalf("seed %d, %s, sizes %v: the transformed program fails: %v\n--- original\n%s--- transformed\n%s", seed, cfg, sz, err, p.src, out)
		}
		if d := sameBuf4(got, wants[i]); d != "" {
			t.Fatalf("seed %d, %s, sizes %v: %s\n--- original\n%s--- transformed\n%s", seed, cfg, sz, d, p.src, out)
		}
	}
	return out
}

// TestContractionNDTransposed checks the packing of transposed operands
// (B[%n, ..., %rK], contiguous along the innermost reduction) by blocks
// of VL x VL elements transposed with shuffles, at 2, 4, 8 and 16 lanes:
// %n and %rK run up to 40, so that the copies have full blocks, the last
// values of k of a block (k blocks and trip counts that are not multiples
// of VL), full panels and a partial one (its full vectors by blocks, the
// columns past them element by element); the transformed program must
// leave C bitwise as the original does.
func TestContractionNDTransposed(t *testing.T) {
	configs := []string{
		"affine-contraction-tile{vector-bits=64 rows=2 vectors=3 k-block=5 n-block=12}",
		"affine-contraction-tile{vector-bits=128 rows=2 vectors=2 k-block=6 n-block=16}",
		"affine-contraction-tile{vector-bits=256 rows=3 vectors=1 k-block=16 n-block=16}",
		"affine-contraction-tile{vector-bits=256 registers=16 k-block=100}",
		"affine-contraction-tile{vector-bits=512 rows=2 vectors=2 k-block=20 n-block=32}",
		"affine-contraction-tile{vector-bits=512 registers=32}",
		"affine-contraction-tile{vector-bits=256 rows=2 vectors=2 k-block=8},affine-licm,affine-scalar-replace,affine-loop-unroll{factor=2}",
	}
	n := 24
	if testing.Short() {
		n = 8
	}
	shuffled := map[string]int{}
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewSource(int64(1000 + seed)))
		p := genContractionND(rng, true)
		base := mustParse(t, p.src)
		var runs []map[string]int64
		for r := 0; r < 4; r++ {
			sz := map[string]int64{}
			for _, s := range p.syms {
				if slices.Contains(p.long, s) {
					sz[s] = []int64{1, 17, 40, 23, 34}[(r+rng.Intn(2))%5]
					continue
				}
				sz[s] = int64(1 + rng.Intn(3))
			}
			runs = append(runs, sz)
		}
		wants := originalND(t, seed, p, base, runs)
		for _, cfg := range configs {
			if out := checkND(t, seed, p, runs, wants, cfg); strings.Contains(out, "vector.shuffle") {
				shuffled[cfg]++
			}
		}
	}
	for _, cfg := range configs {
		t.Logf("%s: %d of %d programs copy B by transposed blocks", cfg, shuffled[cfg], n)
		if shuffled[cfg] < n/3 {
			t.Errorf("%s: only %d of %d programs copy B by transposed blocks", cfg, shuffled[cfg], n)
		}
	}
}

func sameBuf4(got, want *ibuf) string {
	for i := range want.data {
		g, w := got.data[i], want.data[i]
		if math.Float64bits(g) != math.Float64bits(w) {
			return fmt.Sprintf("element %d: got %v, want %v", i, g, w)
		}
	}
	return ""
}
