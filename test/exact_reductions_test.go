package test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/dialects/tir/interp"
	"tir/lower"
	"tir/lower/tollvm"
	"tir/tools/native"
)

// Float reductions that affine-vectorize vectorizes across the loop
// around them (passes/affinepasses/vectorize_outer.go): every lane holds one
// row's accumulator and adds in the row's order, so the compiled results
// must be bitwise the interpreter's, at every size (rows and reductions
// shorter than a vector, full vectors, remainders of both), in every
// -O2/-O3 mode without --fp-reassociate. With it, the sums are
// reassociated and must stay close.

var exactReductionCases = []struct {
	name, src string
	syms      func(n, d int64) map[string]int64
	// transposed: the row reductions read rows, so the vectorized code
	// transposes blocks (shufflevector).
	transposed bool
}{
	{name: "layernorm", src: "def f(float(N, D) X) -> (O) {\n m(n) +=! X(n, d)\n mu(n) = m(n) / D\n v(n) +=! (X(n, d) - mu(n)) * (X(n, d) - mu(n))\n O(n, d) = (X(n, d) - mu(n)) * rsqrt(v(n) / D + 0.00001)\n}", transposed: true},
	{name: "dot rows", src: "def f(float(N, D) X, float(N, D) Y) -> (S) {\n S(n) +=! X(n, d) * Y(n, d)\n}", transposed: true},
	{name: "product rows f64", src: "def f(double(N, D) X) -> (P) {\n P(n) *=! 1.0 + X(n, d) / 4.0\n}", transposed: true},
	{name: "masked sum", src: "def f(float(N, D) X) -> (S) {\n S(n) +=! X(n, d) > 0.25 ? X(n, d) : 0.0\n}", transposed: true},
	{name: "column sums", src: "def f(float(N, D) X) -> (C) {\n C(d) +=! X(n, d)\n}"},
	{name: "middle dimension", src: "def f(float(A, N, D) X) -> (S) {\n S(a, d) +=! X(a, n, d) * X(a, n, d)\n}",
		syms: func(n, d int64) map[string]int64 { return map[string]int64{"A": 3, "N": n, "D": d} }},
	{name: "matrix-vector", src: "def f(float(N, D) W, float(D) x) -> (Y) {\n Y(n) +=! W(n, d) * x(d)\n}", transposed: true},
}

func TestExactVectorReductions(t *testing.T) {
	needToolchain(t)
	sizes := [][2]int64{{1, 1}, {7, 5}, {8, 8}, {9, 17}, {23, 33}, {16, 3}}
	modes := []struct {
		name, cpu, width string
		level            int
		reassoc, v3      bool
	}{
		{name: "O2", level: 2},
		{name: "O2 width 4", level: 2, width: "4"},
		{name: "O2 x86-64-v3", level: 2, cpu: "x86-64-v3", v3: true},
		{name: "O3", level: 3},
		{name: "O2 fp-reassociate", level: 2, reassoc: true},
	}
	for _, c := range exactReductionCases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m, diags := tc.Import("r.tc", c.src)
			if m == nil || diags.HasErrors() {
				t.Fatal(diags)
			}
			text := printer.Module(m, printer.Options{})
			path := filepath.Join(t.TempDir(), "r.tir")
			fn := tcFunc(t, c.src, "f")
			for _, mode := range modes {
				if mode.v3 {
					if level, _, err := tollvm.ResolveCPU("x86_64", "native"); err != nil || (level != "x86-64-v3" && level != "x86-64-v4") {
						continue // this machine does not run x86-64-v3 code
					}
				}
				pl := optPipelineFor(t, mode.level, mode.cpu)
				if mode.reassoc {
					if err := lower.WithReassociate(pl); err != nil {
						t.Fatal(err)
					}
				}
				if mode.width != "" {
					if _, err := pl.SetOption("affine-vectorize", "width", mode.width); err != nil {
						t.Fatal(err)
					}
				}
				llvm, err := native.CompileWith(path, text, pl)
				if err != nil {
					t.Fatalf("%s: %v", mode.name, err)
				}
				lanes := "<8 x "
				if mode.width != "" {
					lanes = "<" + mode.width + " x "
				}
				// (At -O3 affine-contraction-tile takes the reductions
				// stored along a contiguous dimension first, with vectors
				// of its own width.)
				if mode.level == 2 && !strings.Contains(llvm, lanes) || c.transposed && !mode.reassoc && !strings.Contains(llvm, "shufflevector") {
					t.Errorf("%s: the reductions are not vectorized across rows", mode.name)
				}
				prog, err := native.Build(llvm, fn, t.TempDir())
				if err != nil {
					t.Fatalf("%s: build: %v", mode.name, err)
				}
				for k, sz := range sizes {
					syms := map[string]int64{"N": sz[0], "D": sz[1]}
					if c.syms != nil {
						syms = c.syms(sz[0], sz[1])
					}
					args := randomArgs(t, fn, syms, int64(k+1))
					want, err := interp.Run(fn, args, syms)
					if err != nil {
						t.Fatal(err)
					}
					got, _, err := prog.Run(args, syms, 1)
					if err != nil {
						t.Fatalf("%s %v: %v", mode.name, syms, err)
					}
					for r := range want {
						if mode.reassoc {
							// Within a sum's rounding error, relative to
							// the result's largest magnitude.
							scale := 1.0
							for _, w := range want[r].F64 {
								scale = math.Max(scale, math.Abs(w))
							}
							for i, w := range want[r].F64 {
								if g := got[r].F64[i]; !(math.Abs(g-w) <= 1e-4*scale) {
									t.Fatalf("%s %v: result #%d element %d: got %v, want %v", mode.name, syms, r, i, g, w)
								}
							}
							continue
						}
						for i := range want[r].F64 {
							g, w := got[r].F64[i], want[r].F64[i]
							if math.Float64bits(g) != math.Float64bits(w) {
								t.Fatalf("%s %v: result #%d element %d: got %v, want %v (bitwise)", mode.name, syms, r, i, g, w)
							}
						}
					}
				}
			}
		})
	}
}
