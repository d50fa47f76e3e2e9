package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/passes"
	"tir/tools/native"
)

// Programs as mesh and stencil users write them (the semantics issue),
// each run by the interpreter and compiled — at -O2, and with every value
// that is read more than once materialized in a temporary — and compared
// with values computed here by hand.

// materializeAll is -O2 with tir-temporaries at threshold 0: every value
// read at several points lives in a temporary (masks included).
const materializeAll = "builtin.module(tir-inline,canonicalize,cse,tir.func(tir-temporaries{threshold=0}),convert-tir-to-affine," +
	"func.func(affine-licm,affine-loop-unswitch,affine-scalar-replace,affine-vectorize{width=8},affine-loop-unroll{factor=1 unroll-full-threshold=8}),convert-to-llvm)"

// runAllModes runs the only function of src on args in the interpreter and
// compiled three ways, and returns the four result lists.
func runAllModes(t *testing.T, src string, args []*interp.Tensor, syms map[string]int64) map[string][]*interp.Tensor {
	t.Helper()
	out := map[string][]*interp.Tensor{}
	for mode, r := range runModes(t, src, args, syms) {
		if r.err != nil {
			t.Fatalf("%s: %v", mode, r.err)
		}
		out[mode] = r.out
	}
	return out
}

type modeResult struct {
	out []*interp.Tensor
	err error // a failure of the run (a check), not of the build
}

// runModes is runAllModes keeping each mode's run-time error.
func runModes(t *testing.T, src string, args []*interp.Tensor, syms map[string]int64) map[string]modeResult {
	t.Helper()
	all, err := passes.ParsePipeline(materializeAll)
	if err != nil {
		t.Fatal(err)
	}
	return runPipelines(t, src, args, syms, map[string]func(path, src string) (string, error){
		"-O2":              func(path, src string) (string, error) { return native.Compile(path, src, 2, "x86_64") },
		"all materialized": compileWith(all),
		// Parallel loops split among three threads however small (threads_test.go).
		"-O2 --threads": compileWith(threadsPipeline(t)),
	})
}

// compileWith compiles with a pipeline (a mode of runPipelines).
func compileWith(p *passes.Pipeline) func(path, src string) (string, error) {
	return func(path, src string) (string, error) { return native.CompileWith(path, src, p) }
}

// runPipelines runs the only function of src on args in the interpreter
// and compiled by each mode, on three threads where it has parallel loops.
func runPipelines(t *testing.T, src string, args []*interp.Tensor, syms map[string]int64, modes map[string]func(path, src string) (string, error)) map[string]modeResult {
	t.Helper()
	needToolchain(t)
	path := filepath.Join(t.TempDir(), "prog.tir")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, diags := native.Load(path, src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var fn *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			fn = op
		}
	}
	out := map[string]modeResult{}
	ref, err := interp.Run(fn, args, syms)
	out["interpreter"] = modeResult{ref, err}
	for mode, compile := range modes {
		llvm, err := compile(path, src)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		prog, err := native.Build(llvm, fn, t.TempDir())
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		prog.Env = []string{"OMP_NUM_THREADS=3"}
		got, _, err := prog.Run(args, syms, 1)
		out[mode] = modeResult{got, err}
	}
	return out
}

// tensorF64 builds an f64 (or f32) tensor from row-major values.
func tensorOf(t *testing.T, elem ir.Type, dims []interp.Dim, vals []float64) *interp.Tensor {
	t.Helper()
	x, err := interp.NewTensor(elem, dims)
	if err != nil {
		t.Fatal(err)
	}
	if x.Len() != len(vals) {
		t.Fatalf("%d values for %d elements", len(vals), x.Len())
	}
	for i, v := range vals {
		if x.F64 != nil {
			x.F64[i] = v
		} else {
			x.I64[i] = int64(v)
		}
	}
	return x
}

func dim(name string, lo, hi int64) interp.Dim { return interp.Dim{Name: name, Lo: lo, Hi: hi} }

// expectAll checks result #0 of every mode against the values computed by
// hand, element by element (none may be masked).
func expectAll(t *testing.T, results map[string][]*interp.Tensor, want []float64) {
	t.Helper()
	for mode, rs := range results {
		got := rs[0]
		if got.Len() != len(want) {
			t.Fatalf("%s: %d elements, want %d", mode, got.Len(), len(want))
		}
		for i, w := range want {
			g := float64(0)
			if got.F64 != nil {
				g = got.F64[i]
			} else {
				g = float64(got.I64[i])
			}
			if got.Masked(i) || g != w {
				t.Errorf("%s: element %d = %v (masked %v), want %v", mode, i, g, got.Masked(i), w)
			}
		}
	}
}

var i32, f64 = ir.IntegerType{Width: 32}, ir.FloatType{Name: "f64"}

// A masked value that a temporary holds keeps its mask: can_deref says
// false where e2v is -1, in every mode.
func TestMaskThroughTemporary(t *testing.T) {
	const src = `tir.func @f(%v: !tir.tensor<f64, Vertex[0:4]>, %e2v: !tir.tensor<i32, Edge[0:4], E2V[0:2]>) -> !tir.tensor<f64, Edge[0:4]> {
  %g = tir.gather %v [Vertex = %e2v]
  %a = tir.view %g [E2V = 0] : !tir.tensor<f64, Edge[0:4]>
  %b = tir.view %g [E2V = 1] : !tir.tensor<f64, Edge[0:4]>
  %s = tir.add %a, %b
  %ok = tir.can_deref %s
  %hundred = tir.constant 100.0 : f64
  %r = tir.select %ok, %s, %hundred
  tir.return %r : !tir.tensor<f64, Edge[0:4]>
}
`
	v := tensorOf(t, f64, []interp.Dim{dim("Vertex", 0, 4)}, []float64{1, 2, 3, 4})
	e2v := tensorOf(t, i32, []interp.Dim{dim("Edge", 0, 4), dim("E2V", 0, 2)}, []float64{0, 1, -1, 2, 3, 3, 2, -5})
	expectAll(t, runAllModes(t, src, []*interp.Tensor{v, e2v}, nil), []float64{3, 100, 8, 100})
}

// A table with the gathered dimension (Vertex -> Vertex neighbours): the
// table's Vertex is the destination, x's Vertex is read through it.
func TestGatherSameKindTable(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, Vertex[0:4], K[0:2]>, %v2v: !tir.tensor<i32, Vertex[0:4], V2V[0:2]>) -> !tir.tensor<f64, Vertex[0:4], K[0:2]> {
  %n = tir.gather %x [Vertex = %v2v]
  %s = tir.reduce add %n over [V2V]
  tir.return %s : !tir.tensor<f64, Vertex[0:4], K[0:2]>
}
`
	var xs []float64
	for v := 0; v < 4; v++ {
		for k := 0; k < 2; k++ {
			xs = append(xs, float64(10*v+k))
		}
	}
	x := tensorOf(t, f64, []interp.Dim{dim("Vertex", 0, 4), dim("K", 0, 2)}, xs)
	v2v := tensorOf(t, i32, []interp.Dim{dim("Vertex", 0, 4), dim("V2V", 0, 2)}, []float64{1, 2, 0, -1, 3, 9, 2, 2})
	// 0: x1 + x2; 1: x0 (the -1 is skipped); 2: x3 (9 is outside); 3: 2 x2.
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x, v2v}, nil), []float64{30, 32, 0, 1, 30, 31, 40, 42})
}

// A dimension both the table and the operand have, other than the
// gathered one, is one dimension matched by name (vertical indirection:
// g(c, k) = x(Cell = t(c, k), k)).
func TestGatherSharedDimension(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, Cell[0:3], K[0:2]>, %t: !tir.tensor<i32, Cell[0:3], K[0:2]>) -> !tir.tensor<f64, Cell[0:3], K[0:2]> {
  %g = tir.gather %x [Cell = %t]
  tir.return %g : !tir.tensor<f64, Cell[0:3], K[0:2]>
}
`
	x := tensorOf(t, f64, []interp.Dim{dim("Cell", 0, 3), dim("K", 0, 2)}, []float64{0, 1, 10, 11, 20, 21})
	tab := tensorOf(t, i32, []interp.Dim{dim("Cell", 0, 3), dim("K", 0, 2)}, []float64{2, 0, 1, 1, 0, 2})
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x, tab}, nil), []float64{20, 1, 10, 11, 0, 21})
}

// Neighbours of neighbours: a gathered table masks what it gathers where
// its own entries were masked.
func TestGatherOfGather(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, Cell[0:3]>, %c2c: !tir.tensor<i32, Cell[0:3], N[0:2]>) -> !tir.tensor<f64, Cell[0:3]> {
  %c2cm = tir.view %c2c [N = m] : !tir.tensor<i32, Cell[0:3], m[0:2]>
  %t2 = tir.gather %c2cm [Cell = %c2c]
  %g = tir.gather %x [Cell = %t2]
  %s = tir.reduce add %g over [N, m]
  tir.return %s : !tir.tensor<f64, Cell[0:3]>
}
`
	x := tensorOf(t, f64, []interp.Dim{dim("Cell", 0, 3)}, []float64{1, 10, 100})
	c2c := tensorOf(t, i32, []interp.Dim{dim("Cell", 0, 3), dim("N", 0, 2)}, []float64{1, -1, 2, 0, 5, 1})
	// Second neighbours (c2c(c2c(c, n), m)), the masked ones skipped:
	// cell 0: c2c(1) = {2, 0} -> 101; cell 1: c2c(2) = {5 (out), 1}, c2c(0) = {1, -1} -> 20;
	// cell 2: c2c(5) masked, c2c(1) = {2, 0} -> 101.
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x, c2c}, nil), []float64{101, 20, 101})
}

// A gather from an empty tensor masks everything and reads nothing (the
// test driver passes a NULL buffer for an empty tensor).
func TestGatherFromEmpty(t *testing.T) {
	const src = `tir.func @f(%pp: !tir.tensor<f64, Vertex[0:NV]>, %e2v: !tir.tensor<i32, Edge[0:NE], E2V[0:2]>) -> !tir.tensor<f64, Edge[0:NE]> {
  %g = tir.gather %pp [Vertex = %e2v]
  %s = tir.reduce add %g over [E2V]
  %one = tir.constant 1.0 : f64
  %r = tir.add %s, %one
  tir.return %r : !tir.tensor<f64, Edge[0:NE]>
}
`
	pp := tensorOf(t, f64, []interp.Dim{dim("Vertex", 0, 0)}, nil)
	e2v := tensorOf(t, i32, []interp.Dim{dim("Edge", 0, 3), dim("E2V", 0, 2)}, []float64{0, 1, -1, 0, 2, 2})
	expectAll(t, runAllModes(t, src, []*interp.Tensor{pp, e2v}, map[string]int64{"NV": 0, "NE": 3}), []float64{1, 1, 1})
}

// A view's brackets may leave out the dimensions that keep their name:
// [E2V = 1] on Edge x E2V selects neighbour 1 and keeps Edge.
func TestViewImplicitIdentity(t *testing.T) {
	const src = `tir.func @f(%g: !tir.tensor<f64, Edge[0:3], E2V[0:2]>) -> !tir.tensor<f64, Edge[0:3]> {
  %a = tir.view %g [E2V = 1] : !tir.tensor<f64, Edge[0:3]>
  tir.return %a : !tir.tensor<f64, Edge[0:3]>
}
`
	g := tensorOf(t, f64, []interp.Dim{dim("Edge", 0, 3), dim("E2V", 0, 2)}, []float64{1, 2, 3, 4, 5, 6})
	expectAll(t, runAllModes(t, src, []*interp.Tensor{g}, nil), []float64{2, 4, 6})
}

// Every end-to-end program and example, compiled with every value read
// more than once in a temporary (masks too), agrees with the interpreter.
func TestEndToEndAllMaterialized(t *testing.T) {
	needToolchain(t)
	all, err := passes.ParsePipeline(materializeAll)
	if err != nil {
		t.Fatal(err)
	}
	cases := append([]e2eCase(nil), e2eCases...)
	for i := range cases {
		cases[i].file = examplePath(t, cases[i].file)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	for _, f := range files {
		cases = append(cases, readE2ECase(t, f))
	}
	for _, c := range cases {
		c := c
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			m, diags := native.Load(c.file, string(src))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			var fn *ir.Operation
			for _, op := range m.Body().Ops {
				if op.Name == "tir.func" {
					fn = op
				}
			}
			llvm, err := native.CompileWith(c.file, string(src), all)
			if err != nil {
				t.Fatal(err)
			}
			prog, err := native.Build(llvm, fn, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			compareSeeds(t, fn, prog, c, 2)
		})
	}
}

// An argument with an unknown extent that meets a known interval before a
// reduction must have that extent (checked once at entry), never be
// summed over a silently shorter interval.
func TestUnknownExtentInReduction(t *testing.T) {
	const src = `tir.func @dot(%x: !tir.tensor<f64, I[?]>, %w: !tir.tensor<f64, I[0:10]>) -> !tir.tensor<f64> {
  %p = tir.mul %x, %w
  %s = tir.reduce add %p over [I]
  tir.return %s : !tir.tensor<f64>
}
`
	var ws, xs []float64
	want := 0.0
	for i := 0; i < 10; i++ {
		ws = append(ws, float64(i+1))
		xs = append(xs, float64(2*i))
		want += float64((i + 1) * 2 * i)
	}
	w := tensorOf(t, f64, []interp.Dim{dim("I", 0, 10)}, ws)
	short := tensorOf(t, f64, []interp.Dim{dim("I", 0, 8)}, xs[:8])
	const msg = "reduction over I: the extent of argument 'x' dimension I (?_x_I) and 10 must be equal"
	for mode, r := range runModes(t, src, []*interp.Tensor{short, w}, nil) {
		if r.err == nil || !strings.Contains(r.err.Error(), msg) {
			t.Errorf("%s with x on I[0:8]: got %v, want an error containing %q", mode, r.err, msg)
		}
	}
	x := tensorOf(t, f64, []interp.Dim{dim("I", 0, 10)}, xs)
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x, w}, nil), []float64{want})
}

// A size symbol used only in the body is a parameter of the function like
// the others (header, tc-run --arg, interpreter, compiled code).
func TestSymbolOnlyInBody(t *testing.T) {
	const src = `tir.func @shiftq(%x: !tir.tensor<f64, I[0:20]>) -> !tir.tensor<f64, I[0:10]> {
  %y = tir.shift %x [I + Q]
  tir.return %y : !tir.tensor<f64, I[0:10]>
}
`
	var xs, want []float64
	for i := 0; i < 20; i++ {
		xs = append(xs, float64(i*i))
	}
	for i := 0; i < 10; i++ {
		want = append(want, xs[i+3])
	}
	x := tensorOf(t, f64, []interp.Dim{dim("I", 0, 20)}, xs)
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x}, map[string]int64{"Q": 3}), want)
	// Q = 11 reads past x: the output-domain check refuses it in every mode.
	for mode, r := range runModes(t, src, []*interp.Tensor{x}, map[string]int64{"Q": 11}) {
		if r.err == nil || !strings.Contains(r.err.Error(), "computed only on [-Q:-Q + 20]") {
			t.Errorf("%s with Q = 11: got %v", mode, r.err)
		}
	}
}

// An output interval whose upper bound falls below its lower bound for some
// sizes (I[1:N-1] with N = 1 or 0) is empty in every mode: no negative size
// reaches the caller (f_result_shape, entry checks, interpreter).
func TestInvertedOutputIntervalIsEmpty(t *testing.T) {
	const src = `tir.func @lap(%u: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %s = tir.add %e, %w
  tir.return %s : !tir.tensor<f64, I[1:N-1]>
}
`
	for _, n := range []int64{0, 1, 2} {
		var us []float64
		for i := int64(0); i < n; i++ {
			us = append(us, float64(i))
		}
		u := tensorOf(t, f64, []interp.Dim{dim("I", 0, n)}, us)
		// The harness checks f_result_shape against the result type's size.
		expectAll(t, runAllModes(t, src, []*interp.Tensor{u}, map[string]int64{"N": n}), nil)
	}
}

// A stencil function written on its own grid (I[0:N]) applies wherever its
// input lives: the call moves its origin. Applied twice, the second
// difference of i^4 is the fourth difference, 24 everywhere.
func TestComposedStencilFunctions(t *testing.T) {
	const src = `tir.func @lap(%u: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %two = tir.constant 2.0 : f64
  %c = tir.mul %two, %u
  %s = tir.add %e, %w
  %r = tir.sub %s, %c
  tir.return %r : !tir.tensor<f64, I[1:N-1]>
}
tir.func @bilap(%u: !tir.tensor<f64, I[0:M]>) -> !tir.tensor<f64, I[2:M-2]> {
  %l = tir.call @lap(%u)
  %ll = tir.call @lap(%l)
  tir.return %ll : !tir.tensor<f64, I[2:M-2]>
}
`
	var us, want []float64
	for i := 0; i < 12; i++ {
		us = append(us, float64(i*i*i*i))
	}
	for i := 2; i < 10; i++ {
		want = append(want, 24)
	}
	u := tensorOf(t, f64, []interp.Dim{dim("I", 0, 12)}, us)
	expectAll(t, runAllModes(t, src, []*interp.Tensor{u}, map[string]int64{"M": 12}), want)
}
