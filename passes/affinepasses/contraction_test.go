package affinepasses

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/passes"
)

// runPipeline parses src, runs a func.func pipeline on it and verifies the
// result.
func runPipeline(t *testing.T, src, pipeline string) *ir.Module {
	t.Helper()
	m := mustParse(t, src)
	p, err := passes.ParsePipeline("builtin.module(func.func(" + pipeline + "))")
	if err != nil {
		t.Fatal(err)
	}
	if err := passes.NewManager(p).Run(m); err != nil {
		t.Fatalf("%s: %v\n%s", pipeline, err, src)
	}
	return m
}

// contractionProgram is a random contraction-shaped nest: an optional row
// loop, a vector loop, a reduction whose body combines loads that use
// the row, the column, both or neither, stored along the contiguous
// dimension. Buffers are 2-D, sized by the test so that every access of
// the original program is in bounds; sizes are the symbols %M, %K, %N (or
// constants).
type contractionProgram struct {
	src       string
	constSize map[string]int64 // sizes written as constants
}

func genContraction(rng *rand.Rand) contractionProgram {
	p := contractionProgram{constSize: map[string]int64{}}
	size := func(name string) string {
		if rng.Intn(3) == 0 {
			c := int64(rng.Intn(23))
			p.constSize[name] = c
			return fmt.Sprint(c)
		}
		return "%" + name
	}
	lo := func() string { return fmt.Sprint(rng.Intn(3)) }
	off := func() string {
		if c := rng.Intn(5) - 1; c > 0 {
			return fmt.Sprintf(" + %d", c)
		}
		return ""
	}
	hasRow := rng.Intn(4) != 0
	var b strings.Builder
	b.WriteString("func.func @f(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %D: memref<?x?xf32>, %E: memref<?x?xf32>, %C: memref<?x?xf32>, %M: index, %K: index, %N: index, %s: f32) {\n")
	b.WriteString("  %cst = arith.constant 0.0 : f32\n  %two = arith.constant 2.5 : f32\n")
	init := []string{"%cst", "%two", "%s"}[rng.Intn(3)]
	ind := "  "
	row := "0"
	if hasRow {
		fmt.Fprintf(&b, "%saffine.for %%m = %s to %s {\n", ind, lo(), size("M"))
		ind += "  "
		row = "%m"
	}
	fmt.Fprintf(&b, "%saffine.for %%n = %s to %s {\n", ind, lo(), size("N"))
	ind += "  "
	fmt.Fprintf(&b, "%s%%r = affine.for %%k = %s to %s iter_args(%%acc = %s) -> (f32) {\n", ind, lo(), size("K"), init)
	in := ind + "  "
	// Loads: A(row, k) broadcast per row, B(k, n) contiguous, D(row, n)
	// contiguous per row, E(0, k) or E(0, n + k) (a convolution).
	vals := []string{}
	load := func(name, subs string) {
		v := fmt.Sprintf("%%v%d", len(vals))
		fmt.Fprintf(&b, "%s%s = affine.load %s[%s] : memref<?x?xf32>\n", in, v, name, subs)
		vals = append(vals, v)
	}
	load("%A", row+off()+", %k"+off())
	load("%B", "%k"+off()+", %n"+off())
	if rng.Intn(2) == 0 {
		load("%D", row+off()+", %n"+off())
	}
	if rng.Intn(2) == 0 {
		load("%E", "0, %k"+off())
	} else if rng.Intn(2) == 0 {
		load("%E", "0, %n + %k"+off())
	}
	for len(vals) > 1 {
		op := []string{"mulf", "mulf", "addf", "subf", "maxf"}[rng.Intn(5)]
		x, y := vals[len(vals)-2], vals[len(vals)-1]
		if rng.Intn(4) == 0 {
			y = []string{"%two", "%s"}[rng.Intn(2)]
		}
		v := fmt.Sprintf("%%w%d", len(vals))
		fmt.Fprintf(&b, "%s%s = arith.%s %s, %s : f32\n", in, v, op, x, y)
		vals = append(vals[:len(vals)-2], v)
	}
	comb := []string{"addf", "addf", "maxf", "subf"}[rng.Intn(4)]
	fmt.Fprintf(&b, "%s%%next = arith.%s %%acc, %s : f32\n", in, comb, vals[0])
	fmt.Fprintf(&b, "%saffine.yield %%next : f32\n%s}\n", in, ind)
	fmt.Fprintf(&b, "%saffine.store %%r, %%C[%s, %%n%s] : memref<?x?xf32>\n", ind, row+off(), off())
	if hasRow {
		fmt.Fprintf(&b, "    } {tir.parallel}\n  } {tir.parallel}\n")
	} else {
		fmt.Fprintf(&b, "  } {tir.parallel}\n")
	}
	b.WriteString("  func.return\n}\n")
	p.src = b.String()
	return p
}

// runContraction runs @f with sizes m, k, n (unless the program has them
// as constants) on buffers large enough for them, filled from seed, and
// returns C.
func runContraction(mod *ir.Module, m, k, n int64, seed int) (*ibuf, error) {
	rng := rand.New(rand.NewSource(int64(seed)))
	dim := max(m, k, n) + 30
	var args []any
	var c *ibuf
	for i := 0; i < 5; i++ {
		b := &ibuf{shape: []int64{dim, 2 * dim}, data: make([]float64, 2*dim*dim)}
		for j := range b.data {
			b.data[j] = float64(rng.Intn(2001)-1000) / 64
			if i == 4 {
				b.data[j] = math.NaN() // C: what is not written stays NaN
			}
		}
		args = append(args, b)
		c = b
	}
	args = append(args, m, k, n, 0.75)
	return c, runFunc(mod.Lookup("f"), args)
}

func sameBuf(got, want *ibuf) string {
	for i := range want.data {
		g, w := got.data[i], want.data[i]
		if math.Float64bits(g) != math.Float64bits(w) {
			return fmt.Sprintf("element (%d, %d): got %v, want %v", int64(i)/want.shape[1], int64(i)%want.shape[1], g, w)
		}
	}
	return ""
}

// TestContractionRandom checks affine-contraction-tile on random
// contraction nests: the transformed program must leave C bitwise as the
// original does (the same operations in the same order of k for every
// element), at sizes that are and are not multiples of the tiles, empty
// ranges included, with every tile shape, blocking and packing.
func TestContractionRandom(t *testing.T) {
	configs := []string{
		"affine-contraction-tile",
		"affine-contraction-tile{rows=3 vectors=2 k-block=5 n-block=8}",
		"affine-contraction-tile{rows=2 vectors=1 k-block=4 n-block=4 pack=false}",
		"affine-contraction-tile{vector-bits=256 registers=16 k-block=0}",
		"affine-contraction-tile{vector-bits=64 rows=1 vectors=3 k-block=7 n-block=6}",
		"affine-contraction-tile{vector-bits=512 registers=32 k-block=3}",
		"affine-contraction-tile{rows=4 vectors=2 k-block=2},affine-licm,affine-scalar-replace,affine-vectorize{width=4},affine-loop-unroll{factor=2}",
	}
	n := 60
	if testing.Short() {
		n = 15
	}
	changed := map[string]int{}
	sizes := [][3]int64{{0, 0, 0}, {1, 1, 1}, {7, 5, 9}, {13, 17, 20}, {16, 8, 32}, {3, 0, 12}, {25, 11, 37}}
	for seed := 0; seed < n; seed++ {
		rng := rand.New(rand.NewSource(int64(seed)))
		p := genContraction(rng)
		base := mustParse(t, p.src)
		orig := printer.Module(base, printer.Options{})
		for _, cfg := range configs {
			m := runPipeline(t, p.src, cfg)
			out := printer.Module(m, printer.Options{})
			if out != orig {
				changed[cfg]++
			}
			for _, sz := range sizes {
				want, err := runContraction(base, sz[0], sz[1], sz[2], seed)
				if err != nil {
					t.Fatalf("seed %d: the original program fails: %v\n%s", seed, err, p.src)
				}
				got, err := runContraction(m, sz[0], sz[1], sz[2], seed)
				if err != nil {
					t.Fatalf("seed %d, %s, sizes %v: the transformed program fails: %v\n--- original\n%s--- transformed\n%s", seed, cfg, sz, err, p.src, out)
				}
				if d := sameBuf(got, want); d != "" {
					t.Fatalf("seed %d, %s, sizes %v: %s\n--- original\n%s--- transformed\n%s", seed, cfg, sz, d, p.src, out)
				}
			}
		}
	}
	for _, cfg := range configs {
		t.Logf("%s changed %d of %d programs", cfg, changed[cfg], n)
		if changed[cfg] < n/2 {
			t.Errorf("%s applied to only %d of %d programs", cfg, changed[cfg], n)
		}
	}
}
