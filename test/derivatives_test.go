package test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/passes/derivatives"
	"tir/tools/native"
)

// The checks of the tangent-linear and adjoint functions tir-derivatives
// adds (docs/derivatives.md), all through the reference interpreter:
//
//   - the dot-product test <J v, w> = <v, J^T w> with random x, v, w,
//     relative difference at most 1e-12 in f64;
//   - the Taylor test: |f(x + h v) - f(x) - h J v| shrinks as h^2 (slope
//     2 +- 0.1 over the last 5 of 7 halvings of h), or stays at rounding
//     level for a linear function;
//
// on f64 versions of the shared examples and on testdata/derivatives,
// which has a program for every rule; then derivatives computed
// independently here, and the compiled functions at -O0 and -O2 against
// the interpreter.

// derivCase is a program to check: a file, the size symbols, the
// dot-product tolerance and whether the Taylor test applies (not through
// f32 roundings).
type derivCase struct {
	file   string
	syms   map[string]int64
	tol    float64
	taylor bool
}

// derivExamples are the shared examples, checked in f64.
var derivExamples = []derivCase{
	{file: "laplacian.tir"},
	{file: "laplacian_symbolic.tir", syms: map[string]int64{"N": 9, "M": 7}},
	{file: "hdiff.tir"},
	{file: "temporaries.tir"},
	{file: "nabla.tir", syms: map[string]int64{"NV": 23, "NE": 31}},
	{file: "tridiag.tir"},
	{file: "matmul.tc", syms: map[string]int64{"M": 5, "K": 7, "N": 4}},
	{file: "conv1d.tc", syms: map[string]int64{"N": 12, "W": 3}},
	{file: "fcrelu.tc", syms: map[string]int64{"B": 3, "M": 5, "N": 4}},
}

// tcFloat are TC's float types other than double.
var tcFloat = regexp.MustCompile(`\b(float|float32|half|float16|bfloat16)\b`)

// toF64 makes an example compute in f64.
func toF64(path, src string) string {
	if strings.HasSuffix(path, ".tc") {
		return tcFloat.ReplaceAllString(src, "double")
	}
	return strings.NewReplacer("f32", "f64", "bf16", "f64", "f16", "f64").Replace(src)
}

// differentiateFile differentiates (differentiate) a shared example,
// named by its file name, or a program by its path from test/, in f64
// (toF64). It returns the module and the path it read.
func differentiateFile(t *testing.T, name string) (*ir.Module, string) {
	t.Helper()
	path := name
	if !strings.Contains(path, string(filepath.Separator)) {
		path = examplePath(t, path)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return differentiate(t, path, toF64(path, string(src))), path
}

// differentiate loads a program, adds the derivative functions and
// returns the module re-read from its printed text (what tc-opt
// --derivatives prints is what runs). A program with an op the pass does
// not handle yet is skipped, naming it.
func differentiate(t *testing.T, path, src string) *ir.Module {
	t.Helper()
	m, diags := native.Load(path, src)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if err := derivatives.Run(m, derivatives.Options{JVP: true, VJP: true}); err != nil {
		if strings.Contains(err.Error(), "cannot differentiate") {
			t.Skipf("not differentiable yet: %v", err)
		}
		t.Fatal(err)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("the derivative functions do not verify: %v\n%s", err, printer.Module(m, printer.Options{}))
	}
	text := printer.Module(m, printer.Options{})
	again, diags := parser.Parse(path+".derivatives.tir", text)
	if len(diags) > 0 {
		t.Fatalf("the printed derivative functions do not parse: %v\n%s", diags, text)
	}
	return again
}

// randomLike is a tensor of t's element type and dimensions with values
// in [-1, 1).
func randomLike(t *interp.Tensor, rng *rand.Rand) *interp.Tensor {
	out, _ := interp.NewTensor(t.Elem, t.Dims)
	for i := range out.F64 {
		out.F64[i] = interp.RoundTo(t.Elem, rng.Float64()*2-1)
	}
	return out
}

func dot(a, b *interp.Tensor) float64 {
	s := 0.0
	for i := range a.F64 {
		s += a.F64[i] * b.F64[i]
	}
	return s
}

func isFloatTensor(ty ir.Type) bool {
	tt, ok := tir.AsTensor(ty)
	return ok && ir.IsFloat(tt.Elem)
}

// derivResult is what the checks of one function measured.
type derivResult struct {
	dotRel float64   // |<Jv, w> - <v, J^T w>| / max(|.|)
	slopes []float64 // log2 of successive Taylor residual ratios
	linear bool      // the residual stayed at rounding level
	resid  float64   // the largest Taylor residual, relative to |f(x)|
	h0     float64   // the first step of the Taylor test
}

// taylorOK reports whether the last five halvings of h have slope 2 +- 0.1
// (the first of the seven may still cross a kink).
func (r derivResult) taylorOK() bool {
	if r.linear || r.slopes == nil {
		return true
	}
	for _, s := range r.slopes[len(r.slopes)-5:] {
		if !(math.Abs(s-2) <= 0.1) {
			return false
		}
	}
	return true
}

func (r derivResult) String() string {
	s := fmt.Sprintf("dot-product rel. diff %.1e", r.dotRel)
	if r.linear {
		return s + fmt.Sprintf(", linear (Taylor residual %.1e of |f|)", r.resid)
	}
	if r.slopes == nil {
		return s
	}
	parts := make([]string, len(r.slopes))
	for i, x := range r.slopes {
		parts[i] = fmt.Sprintf("%.3f", x)
	}
	return s + fmt.Sprintf(", Taylor slopes from h = %.0e: ", r.h0) + strings.Join(parts, " ")
}

// checkFunction runs the dot-product and Taylor tests on @name of a module
// that holds @name_jvp and @name_vjp.
func checkFunction(t *testing.T, m *ir.Module, name string, c derivCase, seed int64) derivResult {
	t.Helper()
	f, fj, fv := m.Lookup(name), m.Lookup(name+"_jvp"), m.Lookup(name+"_vjp")
	if f == nil || fj == nil || fv == nil {
		t.Fatalf("@%s, @%s_jvp or @%s_vjp is missing", name, name, name)
	}
	ft, _ := tir.FuncType(f)
	rng := rand.New(rand.NewSource(seed * 7919))
	args := randomIntRange(t, f, c.syms, seed, -1, 5)
	var diffArgs []int
	var v []*interp.Tensor
	for i, in := range ft.Inputs {
		if isFloatTensor(in) {
			diffArgs = append(diffArgs, i)
			v = append(v, randomLike(args[i], rng))
		}
	}
	y0, err := interp.Run(f, args, c.syms)
	if err != nil {
		t.Fatalf("@%s: %v", name, err)
	}
	var diffRes []int
	var w []*interp.Tensor
	for j, r := range ft.Results {
		if isFloatTensor(r) {
			diffRes = append(diffRes, j)
			w = append(w, randomLike(y0[j], rng))
		}
	}
	jv, err := interp.Run(fj, append(append([]*interp.Tensor(nil), args...), v...), c.syms)
	if err != nil {
		t.Fatalf("@%s_jvp: %v", name, err)
	}
	if len(jv) != len(y0)+len(diffRes) {
		t.Fatalf("@%s_jvp returns %d values, want %d", name, len(jv), len(y0)+len(diffRes))
	}
	for j := range y0 {
		if d, _ := native.Compare(jv[j:j+1], y0[j:j+1]); d.Mismatch > 0 {
			t.Fatalf("@%s_jvp's primal result #%d differs from @%s's", name, j, name)
		}
	}
	tangents := jv[len(y0):]
	ct, err := interp.Run(fv, append(append([]*interp.Tensor(nil), args...), w...), c.syms)
	if err != nil {
		t.Fatalf("@%s_vjp: %v", name, err)
	}
	if len(ct) != len(diffArgs) {
		t.Fatalf("@%s_vjp returns %d values, want %d", name, len(ct), len(diffArgs))
	}
	a, b := 0.0, 0.0
	for k := range w {
		a += dot(tangents[k], w[k])
	}
	for k := range v {
		b += dot(v[k], ct[k])
	}
	res := derivResult{dotRel: math.Abs(a-b) / math.Max(math.Max(math.Abs(a), math.Abs(b)), 1e-300)}
	if !c.taylor {
		return res
	}
	norm := 0.0
	for _, j := range diffRes {
		for _, x := range y0[j].F64 {
			if !math.IsInf(x, 0) && !math.IsNaN(x) {
				norm += x * x
			}
		}
	}
	norm = math.Sqrt(norm)
	// residuals at h0, h0/2, ... h0/128.
	residuals := func(h float64) []float64 {
		var resid []float64
		for k := 0; k < 8; k++ {
			xh := append([]*interp.Tensor(nil), args...)
			for n, i := range diffArgs {
				p := randomLike(args[i], rng)
				for e := range p.F64 {
					p.F64[e] = args[i].F64[e] + h*v[n].F64[e]
				}
				xh[i] = p
			}
			yh, err := interp.Run(f, xh, c.syms)
			if err != nil {
				t.Fatalf("@%s at x + h v: %v", name, err)
			}
			r := 0.0
			for n, j := range diffRes {
				if len(yh[j].F64) != len(y0[j].F64) {
					// An extent computed from data moved (a compress's
					// mask flipped): a step too large for this point.
					r = math.NaN()
					break
				}
				for e := range yh[j].F64 {
					// A point where f is not finite (a remainder by 0 is
					// NaN by definition) has no Taylor expansion.
					d := yh[j].F64[e] - y0[j].F64[e] - h*tangents[n].F64[e]
					if !math.IsInf(y0[j].F64[e], 0) && !math.IsNaN(y0[j].F64[e]) && !math.IsNaN(d) && !math.IsInf(d, 0) {
						r += d * d
					}
				}
			}
			resid = append(resid, math.Sqrt(r))
			h /= 2
		}
		return resid
	}
	// A function with comparisons (a flux limiter, a max) is smooth only
	// between its kinks: a step h that crosses one spoils the slope, so
	// a smaller h0 is tried before giving up.
	for _, h0 := range []float64{1e-2, 1e-3, 1e-4, 1e-5} {
		resid := residuals(h0)
		res.h0, res.resid, res.slopes = h0, 0, nil
		for _, r := range resid {
			res.resid = math.Max(res.resid, r/math.Max(norm, 1e-300))
		}
		if res.resid < 1e-11 {
			res.linear = true
			return res
		}
		for k := 1; k < len(resid); k++ {
			res.slopes = append(res.slopes, math.Log2(resid[k-1]/resid[k]))
		}
		if res.taylorOK() {
			break
		}
	}
	return res
}

// derivFunctions lists the functions of a module that have both
// derivative functions, in module order.
func derivFunctions(m *ir.Module) []string {
	var out []string
	for _, op := range m.Body().Ops {
		n := ir.SymbolName(op)
		if op.Is(tir.Func) && m.Lookup(n+"_jvp") != nil && m.Lookup(n+"_vjp") != nil {
			out = append(out, n)
		}
	}
	return out
}

// checkProgram runs the tests on every differentiated function of a
// program with three seeds and fails beyond the tolerances.
func checkProgram(t *testing.T, path, src string, c derivCase) {
	t.Helper()
	m := differentiate(t, path, src)
	names := derivFunctions(m)
	if len(names) == 0 {
		t.Skip("no function has a float argument and result")
	}
	tol := c.tol
	if tol == 0 {
		tol = 1e-12
	}
	for _, name := range names {
		worst := derivResult{}
		for seed := int64(1); seed <= 3; seed++ {
			r := checkFunction(t, m, name, c, seed)
			if !(r.dotRel <= tol) {
				t.Errorf("@%s seed %d: dot-product test: relative difference %.3g > %.0e", name, seed, r.dotRel, tol)
			}
			if !r.taylorOK() {
				t.Errorf("@%s seed %d: Taylor test: slopes %v, want 2 +- 0.1 over the last five halvings", name, seed, r.slopes)
			}
			if seed == 1 || r.dotRel > worst.dotRel {
				worst.dotRel = r.dotRel
			}
			if seed == 1 {
				worst.slopes, worst.linear, worst.resid, worst.h0 = r.slopes, r.linear, r.resid, r.h0
			}
		}
		t.Logf("@%s: %v (worst dot-product difference over 3 seeds; slopes of seed 1)", name, worst)
	}
}

func TestDerivativesExamples(t *testing.T) {
	for _, c := range derivExamples {
		c := c
		t.Run(c.file, func(t *testing.T) {
			path := examplePath(t, c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c.taylor = true
			checkProgram(t, path, toF64(path, string(src)), c)
		})
	}
}

// TestDerivativesRules checks testdata/derivatives, a program per rule.
// `// SYMS: N=9` binds size symbols, `// TOL: 1e-5` loosens the
// dot-product test (f32 on the way), `// TAYLOR: off` leaves out the
// Taylor test.
func TestDerivativesRules(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "derivatives", "*.tir"))
	if len(files) == 0 {
		t.Fatal("no programs in testdata/derivatives")
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			e := readE2ECase(t, f)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkProgram(t, f, string(src), derivCase{file: f, syms: e.syms, tol: e.tol, taylor: !strings.Contains(string(src), "// TAYLOR: off")})
		})
	}
}

// TestDerivativesEndToEnd runs the checks on the programs of
// testdata/e2e computed in f64; a program with an op not handled yet is
// skipped, naming it.
func TestDerivativesEndToEnd(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	if len(files) == 0 {
		t.Fatal("no end-to-end programs")
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			e := readE2ECase(t, f)
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			checkProgram(t, f, toF64(f, string(src)), derivCase{file: f, syms: e.syms, taylor: true})
		})
	}
}

// TestDerivativesTC runs the checks on the TC programs of testdata/tc
// (their diagnostics files aside), read as double, every size symbol
// bound to 6; a function whose run fails a precondition at those sizes is
// left out, and said so.
func TestDerivativesTC(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "tc", "*.tc"))
	if len(files) == 0 {
		t.Fatal("no TC programs")
	}
	for _, f := range files {
		if strings.HasPrefix(filepath.Base(f), "diag_") {
			continue
		}
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, diags := native.Load(f, toF64(f, string(src))); diags.HasErrors() {
				t.Skipf("the program is refused (it shows a diagnostic): %v", diags)
			}
			m := differentiate(t, f, toF64(f, string(src)))
			names := derivFunctions(m)
			if len(names) == 0 {
				t.Skip("no function has a float argument and result")
			}
			for _, name := range names {
				fn := m.Lookup(name)
				syms := map[string]int64{}
				for _, s := range interp.Symbols(fn) {
					syms[s] = 6
				}
				if _, err := interp.Run(fn, randomIntRange(t, fn, syms, 1, 0, 5), syms); err != nil {
					t.Logf("@%s left out: %v", name, err)
					continue
				}
				c := derivCase{file: f, syms: syms, taylor: true}
				for seed := int64(1); seed <= 2; seed++ {
					r := checkFunction(t, m, name, c, seed)
					if math.IsNaN(r.dotRel) {
						t.Logf("@%s seed %d left out: derivatives not finite (a log or sqrt of a negative)", name, seed)
						continue
					}
					if !(r.dotRel <= 1e-12) {
						t.Errorf("@%s seed %d: dot-product test: relative difference %.3g", name, seed, r.dotRel)
					}
					if !r.taylorOK() {
						t.Errorf("@%s seed %d: Taylor test: slopes %v", name, seed, r.slopes)
					}
					if seed == 1 {
						t.Logf("@%s: %v", name, r)
					}
				}
			}
		})
	}
}

// gradient runs @name_vjp of a one-function program on the given inputs
// and cotangents (f64 values, declared domains).
func gradient(t *testing.T, src, file string, syms map[string]int64, inputs [][]float64, cotangents [][]float64) [][]float64 {
	t.Helper()
	name := strings.TrimSuffix(file, ".tc")
	if name == file {
		file += ".tir"
	}
	m := differentiate(t, file, src)
	fv := m.Lookup(name + "_vjp")
	args := argTensors(t, fv, syms, append(append([][]float64(nil), inputs...), cotangents...))
	out, err := interp.Run(fv, args, syms)
	if err != nil {
		t.Fatal(err)
	}
	var res [][]float64
	for _, o := range out {
		res = append(res, o.F64)
	}
	return res
}

// argTensors makes fv's arguments from their values, in the order of its
// points (integer tensors from whole numbers), at the sizes syms gives.
func argTensors(t *testing.T, fv *ir.Operation, syms map[string]int64, vals [][]float64) []*interp.Tensor {
	t.Helper()
	ft, _ := tir.FuncType(fv)
	if len(vals) != len(ft.Inputs) {
		t.Fatalf("%d arguments, got %d lists of values", len(ft.Inputs), len(vals))
	}
	var args []*interp.Tensor
	for i, in := range ft.Inputs {
		tt, _ := tir.AsTensor(in)
		dims, err := interp.EvalDims(tt, syms)
		if err != nil {
			t.Fatal(err)
		}
		a, _ := interp.NewTensor(tt.Elem, dims)
		if len(vals[i]) != a.Len() {
			t.Fatalf("argument #%d has %d points, got %d values", i, a.Len(), len(vals[i]))
		}
		for k, x := range vals[i] {
			if a.F64 != nil {
				a.F64[k] = x
			} else {
				a.I64[k] = int64(x)
			}
		}
		args = append(args, a)
	}
	return args
}

func near(a, b []float64, tol float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

// TestDerivativesIndependent compares gradients with ones computed here
// by hand, and fixes the choices at the points where a function is not
// differentiable.
func TestDerivativesIndependent(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	randv := func(n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = rng.Float64()*2 - 1
		}
		return v
	}
	t.Run("sum of squares", func(t *testing.T) {
		const src = `tir.func @ss(%x: !tir.tensor<f64, I[0:7]>) -> !tir.tensor<f64> {
  %y = tir.mul %x, %x
  %s = tir.reduce add %y over [I]
  tir.return %s : !tir.tensor<f64>
}`
		x := randv(7)
		g := gradient(t, src, "ss", nil, [][]float64{x}, [][]float64{{1}})
		want := make([]float64, 7)
		for i := range x {
			want[i] = 2 * x[i]
		}
		if !near(g[0], want, 1e-15) {
			t.Errorf("d/dx sum(x*x) = %v, want 2x = %v", g[0], want)
		}
	})
	t.Run("fold from an init along the reduced dimension", func(t *testing.T) {
		// r(i, k) = Horner's fold over k' of x(i, k') with z(i), from
		// c(k): c(k) z^n + sum over k' of x(i, k') z^(n-1-k').
		const src = `tir.func @h(%x: !tir.tensor<f64, I[0:2], K[0:3]>, %z: !tir.tensor<f64, I[0:2]>, %c: !tir.tensor<f64, K[0:3]>) -> !tir.tensor<f64, I[0:2], K[0:3]> {
  %r = tir.reduce over [K] init %c ins(%x, %z) {
  ^bb0(%acc, %xv, %zv):
    %m = tir.mul %acc, %zv
    %s = tir.add %m, %xv
    tir.yield %s
  }
  tir.return %r : !tir.tensor<f64, I[0:2], K[0:3]>
}`
		const ni, n = 2, 3
		x, z, c, w := randv(ni*n), randv(ni), randv(n), randv(ni*n)
		g := gradient(t, src, "h", nil, [][]float64{x, z, c}, [][]float64{w})
		dx, dz, dc := make([]float64, ni*n), make([]float64, ni), make([]float64, n)
		for i := 0; i < ni; i++ {
			for k := 0; k < n; k++ {
				gk := w[i*n+k]
				dc[k] += gk * math.Pow(z[i], n)
				dz[i] += gk * n * c[k] * math.Pow(z[i], n-1)
				for kk := 0; kk < n; kk++ {
					dx[i*n+kk] += gk * math.Pow(z[i], float64(n-1-kk))
					if e := n - 2 - kk; e >= 0 {
						dz[i] += gk * float64(n-1-kk) * x[i*n+kk] * math.Pow(z[i], float64(e))
					}
				}
			}
		}
		for k, want := range [][]float64{dx, dz, dc} {
			if !near(g[k], want, 1e-14) {
				t.Errorf("cotangent #%d = %v, want %v", k, g[k], want)
			}
		}
	})
	t.Run("fold over two dimensions in their order", func(t *testing.T) {
		// Horner's rule over [I, J] (I slowest) and over [J, I]: the sum
		// of a(i, j) x^e with e = 11 - 4i - j, or 11 - 3j - i.
		for _, order := range []string{"I, J", "J, I"} {
			src := `tir.func @h(%a: !tir.tensor<f64, I[0:3], J[0:4]>, %x: !tir.tensor<f64>) -> !tir.tensor<f64> {
  %z = tir.constant 0.0 : f64
  %r = tir.reduce over [` + order + `] init %z ins(%a) {
  ^bb0(%acc, %av):
    %m = tir.mul %acc, %x
    %s = tir.add %m, %av
    tir.yield %s
  }
  tir.return %r : !tir.tensor<f64>
}`
			a, x := randv(12), randv(1)
			g := gradient(t, src, "h", nil, [][]float64{a, x}, [][]float64{{1}})
			da, dx := make([]float64, 12), 0.0
			for i := 0; i < 3; i++ {
				for j := 0; j < 4; j++ {
					e := 11 - 4*i - j
					if order == "J, I" {
						e = 11 - 3*j - i
					}
					da[i*4+j] = math.Pow(x[0], float64(e))
					if e > 0 {
						dx += a[i*4+j] * float64(e) * math.Pow(x[0], float64(e-1))
					}
				}
			}
			if !near(g[0], da, 1e-14) || !near(g[1], []float64{dx}, 1e-13) {
				t.Errorf("over [%s]: d/da = %v, d/dx = %v; want %v, %v", order, g[0], g[1], da, dx)
			}
		}
	})
	t.Run("laplacian is self-adjoint", func(t *testing.T) {
		// The 1-D Laplacian from I[0:N] to I[1:N-1] is the symmetric
		// matrix tridiag(1, -2, 1) once its result is padded with zeros:
		// its adjoint applies the same stencil to the padded cotangent.
		const src = `tir.func @lap(%u: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %two = tir.constant 2.0 : f64
  %c = tir.mul %two, %u
  %s = tir.add %e, %w
  %r = tir.sub %s, %c
  tir.return %r : !tir.tensor<f64, I[1:N-1]>
}`
		const n = 10
		u, w := randv(n), randv(n-2)
		g := gradient(t, src, "lap", map[string]int64{"N": n}, [][]float64{u}, [][]float64{w})
		pad := func(i int) float64 {
			if i < 1 || i > n-2 {
				return 0
			}
			return w[i-1]
		}
		want := make([]float64, n)
		for i := range want {
			want[i] = pad(i-1) + pad(i+1) - 2*pad(i)
		}
		if !near(g[0], want, 1e-15) {
			t.Errorf("adjoint of the laplacian: %v, want %v", g[0], want)
		}
	})
	t.Run("matmul", func(t *testing.T) {
		// dA = dC B^T, dB = A^T dC, through the TC import's views.
		src, err := os.ReadFile(examplePath(t, "matmul.tc"))
		if err != nil {
			t.Fatal(err)
		}
		const M, K, N = 3, 4, 5
		a, b, dc := randv(M*K), randv(K*N), randv(M*N)
		g := gradient(t, toF64("matmul.tc", string(src)), "matmul.tc", map[string]int64{"M": M, "K": K, "N": N}, [][]float64{a, b}, [][]float64{dc})
		da, db := make([]float64, M*K), make([]float64, K*N)
		for m := 0; m < M; m++ {
			for k := 0; k < K; k++ {
				for n := 0; n < N; n++ {
					da[m*K+k] += dc[m*N+n] * b[k*N+n]
					db[k*N+n] += a[m*K+k] * dc[m*N+n]
				}
			}
		}
		if !near(g[0], da, 1e-14) || !near(g[1], db, 1e-14) {
			t.Errorf("matmul: got dA %v dB %v, want %v %v", g[0], g[1], da, db)
		}
	})
	t.Run("conv1d", func(t *testing.T) {
		src, err := os.ReadFile(examplePath(t, "conv1d.tc"))
		if err != nil {
			t.Fatal(err)
		}
		const N, W = 9, 3
		in, wt, do := randv(N), randv(W), randv(N-W+1)
		g := gradient(t, toF64("conv1d.tc", string(src)), "conv1d.tc", map[string]int64{"N": N, "W": W}, [][]float64{in, wt}, [][]float64{do})
		di, dw := make([]float64, N), make([]float64, W)
		for i := 0; i < N-W+1; i++ {
			for k := 0; k < W; k++ {
				di[i+k] += do[i] * wt[k]
				dw[k] += do[i] * in[i+k]
			}
		}
		if !near(g[0], di, 1e-14) || !near(g[1], dw, 1e-14) {
			t.Errorf("conv1d: got dI %v dW %v, want %v %v", g[0], g[1], di, dw)
		}
	})
	t.Run("tridiagonal solve", func(t *testing.T) {
		// x = A^-1 d per column, so the cotangent of d is A^-T w: the
		// adjoint of the Thomas algorithm's two scans is the transposed
		// tridiagonal solve, computed here by Gaussian elimination.
		src, err := os.ReadFile(examplePath(t, "tridiag.tir"))
		if err != nil {
			t.Fatal(err)
		}
		const cols, K = 3 * 7, 5
		a, b, c, d, w := randv(cols*K), randv(cols*K), randv(cols*K), randv(cols*K), randv(cols*K)
		for i := range b {
			b[i] += 4 // diagonally dominant: well conditioned
		}
		g := gradient(t, string(src), "solve_tridiag", nil, [][]float64{a, b, c, d}, [][]float64{w})
		want := make([]float64, cols*K)
		for col := 0; col < cols; col++ {
			// M = A^T, augmented with w.
			var m [K][K + 1]float64
			for k := 0; k < K; k++ {
				at := col*K + k
				m[k][k] = b[at]
				if k > 0 {
					m[k-1][k] = a[at] // A[k][k-1]
				}
				if k < K-1 {
					m[k+1][k] = c[at] // A[k][k+1]
				}
				m[k][K] = w[at]
			}
			for p := 0; p < K; p++ {
				for r := p + 1; r < K; r++ {
					f := m[r][p] / m[p][p]
					for q := p; q <= K; q++ {
						m[r][q] -= f * m[p][q]
					}
				}
			}
			for r := K - 1; r >= 0; r-- {
				x := m[r][K]
				for q := r + 1; q < K; q++ {
					x -= m[r][q] * want[col*K+q]
				}
				want[col*K+r] = x / m[r][r]
			}
		}
		if !near(g[3], want, 1e-13) {
			t.Errorf("cotangent of d: %v, want A^-T w = %v", g[3], want)
		}
	})
	t.Run("gather through a table", func(t *testing.T) {
		// The transpose of a gather adds the cotangent of every table entry
		// into the point it names; masked entries (-1, 9) add nothing.
		src, err := os.ReadFile(filepath.Join("testdata", "derivatives", "gather.tir"))
		if err != nil {
			t.Fatal(err)
		}
		const NV, NE = 6, 7
		pp, w, g := randv(NV), randv(NE*2), randv(NE)
		e2v := []float64{0, 1, 1, 2, -1, 3, 5, 5, 4, 9, 2, 0, 3, 3}
		m := differentiate(t, "gather.tir", string(src))
		fv := m.Lookup("edges_vjp")
		syms := map[string]int64{"NV": NV, "NE": NE}
		out, err := interp.Run(fv, argTensors(t, fv, syms, [][]float64{pp, w, e2v, g}), syms)
		if err != nil {
			t.Fatal(err)
		}
		dpp, dw := make([]float64, NV), make([]float64, NE*2)
		for e := 0; e < NE; e++ {
			for k := 0; k < 2; k++ {
				v := int(e2v[e*2+k])
				if v < 0 || v >= NV {
					continue
				}
				dpp[v] += w[e*2+k] * g[e]
				dw[e*2+k] = pp[v] * g[e]
			}
		}
		if !near(out[0].F64, dpp, 1e-14) || !near(out[1].F64, dw, 1e-14) {
			t.Errorf("got dpp %v dw %v, want %v %v", out[0].F64, out[1].F64, dpp, dw)
		}
	})
	t.Run("scan from a masked init", func(t *testing.T) {
		// r(c, k) = x(t(c)) + a(c, 0) + ... + a(c, k), masked (0 in the
		// result) in the columns whose entry names no point of V: those
		// take part in nothing. dx(v) sums the cotangent over the columns
		// that read v; da(c, k) is the cotangent summed over k' >= k, 0
		// in a masked column.
		const src = `tir.func @s(%x: !tir.tensor<f64, V[0:3]>, %t: !tir.tensor<i32, C[0:4]>, %a: !tir.tensor<f64, C[0:4], K[0:3]>) -> !tir.tensor<f64, C[0:4], K[0:3]> {
  %g = tir.gather %x [V = %t]
  %r = tir.scan forward along K init %g ins(%a) {
  ^bb0(%st, %ak):
    %n = tir.add %st, %ak
    tir.yield %n
  }
  tir.return %r : !tir.tensor<f64, C[0:4], K[0:3]>
}`
		x, a, w := randv(3), randv(12), randv(12)
		tab := []float64{2, -1, 2, 5}
		m := differentiate(t, "s.tir", src)
		fv := m.Lookup("s_vjp")
		out, err := interp.Run(fv, argTensors(t, fv, nil, [][]float64{x, tab, a, w}), nil)
		if err != nil {
			t.Fatal(err)
		}
		dx, da := make([]float64, 3), make([]float64, 12)
		for c := 0; c < 4; c++ {
			v := int(tab[c])
			if v < 0 || v >= 3 {
				continue
			}
			sum := 0.0
			for k := 2; k >= 0; k-- {
				sum += w[c*3+k]
				da[c*3+k] = sum
			}
			dx[v] += sum
		}
		if !near(out[0].F64, dx, 1e-14) || !near(out[1].F64, da, 1e-14) {
			t.Errorf("got dx %v da %v, want %v %v", out[0].F64, out[1].F64, dx, da)
		}
	})
	// The choices at non-differentiable points (spec 6.2).
	const red = `tir.func @r(%x: !tir.tensor<f64, I[0:2], K[0:3]>, %c: !tir.tensor<f64, I[0:2]>) -> (!tir.tensor<f64, I[0:2]>, !tir.tensor<f64, I[0:2]>, !tir.tensor<f64, I[0:2]>, !tir.tensor<f64>) {
  %mx = tir.reduce max %x over [K]
  %mn = tir.reduce min %x over [K] init %c
  %p = tir.reduce mul %x over [K]
  %g = tir.reduce max %x over [K, I]
  tir.return %mx, %mn, %p, %g : !tir.tensor<f64, I[0:2]>, !tir.tensor<f64, I[0:2]>, !tir.tensor<f64, I[0:2]>, !tir.tensor<f64>
}`
	t.Run("reduce ties and zeros", func(t *testing.T) {
		// Row 0: 1 3 3 (max tied at k = 1 and 2; min 1, init 1 ties it).
		// Row 1: 2 0 5 (one zero factor).
		x := []float64{1, 3, 3, 2, 0, 5}
		c := []float64{1, 7}
		one := []float64{1, 1}
		zero := []float64{0, 0}
		type want struct{ dx, dc []float64 }
		cases := []struct {
			name string
			ct   [][]float64
			want want
		}{
			{"max: first attaining point", [][]float64{one, zero, zero, {0}}, want{[]float64{0, 1, 0, 0, 0, 1}, []float64{0, 0}}},
			{"min with init: the init wins a tie", [][]float64{zero, one, zero, {0}}, want{[]float64{0, 0, 0, 0, 1, 0}, []float64{1, 0}}},
			{"mul with one zero factor", [][]float64{zero, zero, one, {0}}, want{[]float64{9, 3, 3, 0, 10, 0}, []float64{0, 0}}},
			{"max over two dimensions: first in index order", [][]float64{zero, zero, zero, {1}}, want{[]float64{0, 0, 0, 0, 0, 1}, []float64{0, 0}}},
		}
		for _, tc := range cases {
			g := gradient(t, red, "r", nil, [][]float64{x, c}, tc.ct)
			if !near(g[0], tc.want.dx, 0) || !near(g[1], tc.want.dc, 0) {
				t.Errorf("%s: got dx %v dc %v, want %v %v", tc.name, g[0], g[1], tc.want.dx, tc.want.dc)
			}
		}
	})
	t.Run("a fold: Horner's rule", func(t *testing.T) {
		// p(x) = (((a0 x + a1) x + a2) x + a3), a fold the reduce rule cannot
		// split: differentiated as a scan. dp/da_k = x^(3-k), dp/dx = p'(x).
		const src = `tir.func @h(%a: !tir.tensor<f64, K[0:4]>, %x: !tir.tensor<f64>) -> !tir.tensor<f64> {
  %z = tir.constant 0.0 : f64
  %r = tir.reduce over [K] init %z ins(%a) {
  ^bb0(%acc, %ak):
    %m = tir.mul %acc, %x
    %s = tir.add %m, %ak
    tir.yield %s
  }
  tir.return %r : !tir.tensor<f64>
}`
		a := []float64{2, -3, 0.5, 7}
		x := 1.5
		g := gradient(t, src, "h", nil, [][]float64{a, {x}}, [][]float64{{1}})
		wantA := []float64{x * x * x, x * x, x, 1}
		wantX := 3*a[0]*x*x + 2*a[1]*x + a[2]
		if !near(g[0], wantA, 1e-15) || !near(g[1], []float64{wantX}, 1e-15) {
			t.Errorf("got da %v dx %v, want %v %v", g[0], g[1], wantA, wantX)
		}
	})
	t.Run("a fold over an empty interval", func(t *testing.T) {
		// With L = 0 the fold is its init: dr/dc = 1, and the scan it
		// becomes is read below its interval, at the init.
		const src = `tir.func @e(%a: !tir.tensor<f64, K[0:L]>, %c: !tir.tensor<f64>) -> !tir.tensor<f64> {
  %r = tir.reduce over [K] init %c ins(%a) {
  ^bb0(%acc, %ak):
    %m = tir.mul %acc, %acc
    %s = tir.add %m, %ak
    tir.yield %s
  }
  tir.return %r : !tir.tensor<f64>
}`
		g := gradient(t, src, "e", map[string]int64{"L": 0}, [][]float64{{}, {0.75}}, [][]float64{{2}})
		if len(g[0]) != 0 || !near(g[1], []float64{2}, 0) {
			t.Errorf("got da %v dc %v, want [] [2]", g[0], g[1])
		}
		g = gradient(t, src, "e", map[string]int64{"L": 1}, [][]float64{{0.5}, {0.75}}, [][]float64{{2}})
		if !near(g[0], []float64{2}, 0) || !near(g[1], []float64{2 * 2 * 0.75}, 0) {
			t.Errorf("L = 1: got da %v dc %v, want [2] [3]", g[0], g[1])
		}
	})
	t.Run("elementwise ties and kinks", func(t *testing.T) {
		const src = `tir.func @e(%a: !tir.tensor<f64, I[0:3]>, %b: !tir.tensor<f64, I[0:3]>) -> (!tir.tensor<f64, I[0:3]>, !tir.tensor<f64, I[0:3]>, !tir.tensor<f64, I[0:3]>, !tir.tensor<f64, I[0:3]>) {
  %mn = tir.min %a, %b
  %mx = tir.max %a, %b
  %ab = tir.abs %a
  %fl = tir.floor %b
  tir.return %mn, %mx, %ab, %fl : !tir.tensor<f64, I[0:3]>, !tir.tensor<f64, I[0:3]>, !tir.tensor<f64, I[0:3]>, !tir.tensor<f64, I[0:3]>
}`
		a := []float64{1, 0, -2}
		b := []float64{1, 2, -3}
		one, zero := []float64{1, 1, 1}, []float64{0, 0, 0}
		// min: tie at 0 goes to a; a < b at 1; b < a at 2.
		g := gradient(t, src, "e", nil, [][]float64{a, b}, [][]float64{one, zero, zero, zero})
		if !near(g[0], []float64{1, 1, 0}, 0) || !near(g[1], []float64{0, 0, 1}, 0) {
			t.Errorf("min: got %v %v", g[0], g[1])
		}
		g = gradient(t, src, "e", nil, [][]float64{a, b}, [][]float64{zero, one, zero, zero})
		if !near(g[0], []float64{1, 0, 1}, 0) || !near(g[1], []float64{0, 1, 0}, 0) {
			t.Errorf("max: got %v %v", g[0], g[1])
		}
		g = gradient(t, src, "e", nil, [][]float64{a, b}, [][]float64{zero, zero, one, one})
		if !near(g[0], []float64{1, 0, -1}, 0) || !near(g[1], zero, 0) {
			t.Errorf("abs (0 at 0) and floor (0): got %v %v", g[0], g[1])
		}
	})
}

// tridiagSyms sizes the symbolic solvers of bench/kernels.
var tridiagSyms = map[string]int64{"N": 3, "M": 6, "L": 7}

// TestDerivativesCompiled runs @f_jvp and @f_vjp compiled at -O0 and -O2
// against the interpreter on the same inputs.
func TestDerivativesCompiled(t *testing.T) {
	needToolchain(t)
	cases := []struct {
		path string
		syms map[string]int64
		tol  float64
	}{
		{path: "laplacian_symbolic.tir", syms: map[string]int64{"N": 11, "M": 9}},
		{path: "hdiff.tir"},
		{path: "matmul.tc", syms: map[string]int64{"M": 5, "K": 7, "N": 6}},
		{path: filepath.Join("testdata", "derivatives", "reduce.tir")},
		{path: filepath.Join("testdata", "derivatives", "reduce_region.tir"), tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "reduce_init_along.tir"), tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "fold.tir"), syms: map[string]int64{"L": 6}, tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "fold_dims.tir"), syms: map[string]int64{"N": 3}, tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "view.tir")},
		{path: filepath.Join("testdata", "derivatives", "view_symbolic.tir"), syms: map[string]int64{"N": 3, "L": 4}, tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "math.tir"), tol: 1e-12},
		{path: "tridiag.tir"},
		{path: "nabla.tir", syms: map[string]int64{"NV": 23, "NE": 31}},
		{path: filepath.Join("testdata", "derivatives", "gather.tir"), syms: map[string]int64{"NV": 6, "NE": 7}, tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "scan.tir"), tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "scan_masked.tir"), tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "scan_masked_init.tir"), tol: 1e-12},
		{path: filepath.Join("testdata", "derivatives", "scan_captured.tir"), tol: 1e-12},
		// Steps that read the state at other points of J (level by
		// level), bodies that read an input there.
		{path: filepath.Join("testdata", "derivatives", "scan_body.tir"), tol: 1e-12},
		// The three formulations of the solver: scans in columns with
		// lanes (M = 6: a group of four and two left), rows (K outermost).
		{path: filepath.Join("bench", "kernels", "tridiag.tir"), syms: tridiagSyms},
		{path: filepath.Join("bench", "kernels", "tridiag_2scans.tir"), syms: tridiagSyms},
		{path: filepath.Join("bench", "kernels", "tridiag_kout.tir"), syms: tridiagSyms},
		{path: filepath.Join("testdata", "e2e", "domain_ops.tir"), syms: map[string]int64{"N": 9}},
		// -O2 splits the outer loops of the padded cotangents' nests at
		// every piece when the domain is wider than its edges (each edge
		// row vectorized), and keeps the tests in the edges otherwise:
		// wide domains, and domains a row or two narrower than their
		// edges (lap3d's takes wrong values if the split nest runs there).
		{path: filepath.Join("bench", "kernels", "hdiff.tir"), syms: map[string]int64{"N": 6, "M": 11}},
		{path: filepath.Join("bench", "kernels", "hdiff.tir"), syms: map[string]int64{"N": 1, "M": 9}},
		{path: filepath.Join("bench", "kernels", "lap3d_f64.tir"), syms: map[string]int64{"N": 5, "M": 4, "L": 9}},
		{path: filepath.Join("bench", "kernels", "lap3d_f64.tir"), syms: map[string]int64{"N": 1, "M": 3, "L": 9}},
	}
	for _, c := range cases {
		c := c
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			t.Parallel() // each case compiles and runs its own functions
			m, _ := differentiateFile(t, c.path)
			text := printer.Module(m, printer.Options{})
			names := derivFunctions(m)
			var fns []string
			for _, n := range names {
				fns = append(fns, n+"_jvp", n+"_vjp")
			}
			sort.Strings(fns)
			for _, level := range []int{0, 2} {
				for _, name := range fns {
					// One function per module: llc reads only what it runs.
					one, diags := parser.Parse("derivatives.tir", text)
					if len(diags) > 0 {
						t.Fatal(diags)
					}
					for _, op := range append([]*ir.Operation(nil), one.Body().Ops...) {
						if ir.SymbolName(op) != name {
							one.Body().Remove(op)
						}
					}
					llvm, err := native.Compile("derivatives.tir", printer.Module(one, printer.Options{}), level, "x86_64")
					if err != nil {
						t.Fatalf("-O%d @%s: %v", level, name, err)
					}
					fn := m.Lookup(name)
					prog, err := native.Build(llvm, fn, t.TempDir())
					if err != nil {
						t.Fatalf("-O%d @%s: build: %v", level, name, err)
					}
					args := randomIntRange(t, fn, c.syms, 3, -1, 5)
					want, err := interp.Run(fn, args, c.syms)
					if err != nil {
						t.Fatalf("@%s: interpreter: %v", name, err)
					}
					got, _, err := prog.Run(args, c.syms, 1)
					if err != nil {
						t.Fatalf("-O%d @%s: %v", level, name, err)
					}
					d, err := native.Compare(got, want)
					if err != nil {
						t.Fatal(err)
					}
					if d.Mismatch > 0 && d.MaxNorm > c.tol {
						t.Errorf("-O%d @%s: %d of %d elements differ (largest %.3g, relative to the result %.3g) at %s",
							level, name, d.Mismatch, d.Compared, d.MaxAbs, d.MaxNorm, d.Where)
					}
				}
			}
		})
	}
}

// TestDerivativesGPUEmulated compiles @f_jvp and @f_vjp for nvptx64 at -O2
// (kernels outlined, run on the CPU by the driver emulator) and compares
// them with the interpreter.
func TestDerivativesGPUEmulated(t *testing.T) {
	needToolchain(t)
	cases := []struct {
		file string
		syms map[string]int64
	}{
		{"laplacian_symbolic.tir", map[string]int64{"N": 11, "M": 9}},
		{"hdiff.tir", nil},
		{"tridiag.tir", nil},
		{"matmul.tc", map[string]int64{"M": 5, "K": 7, "N": 6}},
		// Adjoint scans whose states' components go to temporaries, to
		// results, or nowhere (leavesRead), and are summed.
		{filepath.Join("bench", "kernels", "tridiag_2scans.tir"), tridiagSyms},
	}
	for _, c := range cases {
		c := c
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			m, _ := differentiateFile(t, c.file)
			text := printer.Module(m, printer.Options{})
			gm, err := native.CompileModule("derivatives.tir", text, 2, "nvptx64")
			if err != nil {
				t.Fatalf("compile for nvptx64: %v", err)
			}
			for _, n := range derivFunctions(m) {
				for _, name := range []string{n + "_jvp", n + "_vjp"} {
					fn := m.Lookup(name)
					prog, err := native.BuildGPU(gm, fn, t.TempDir(), native.GPUOptions{Emulate: true})
					if err != nil {
						t.Fatalf("@%s: build: %v", name, err)
					}
					args := randomIntRange(t, fn, c.syms, 5, -1, 5)
					want, err := interp.Run(fn, args, c.syms)
					if err != nil {
						t.Fatalf("@%s: interpreter: %v", name, err)
					}
					got, _, err := prog.Run(args, c.syms, 1)
					if err != nil {
						t.Fatalf("@%s: %v", name, err)
					}
					d, err := native.Compare(got, want)
					if err != nil {
						t.Fatal(err)
					}
					if d.Mismatch > 0 && d.MaxNorm > 1e-12 {
						t.Errorf("@%s: %d of %d elements differ (largest %.3g, relative to the result %.3g) at %s",
							name, d.Mismatch, d.Compared, d.MaxAbs, d.MaxNorm, d.Where)
					}
				}
			}
		})
	}
}

// TestDerivativesThreads runs @f_jvp and @f_vjp compiled with --threads
// (every parallel loop forked, three threads) against the interpreter,
// bit for bit, and checks that their code has no atomic operation.
func TestDerivativesThreads(t *testing.T) {
	needToolchain(t)
	cases := []struct {
		path string
		syms map[string]int64
		tol  float64 // exp: the compiled expansion and Go's math differ in the last bit
	}{
		{"laplacian_symbolic.tir", map[string]int64{"N": 11, "M": 9}, 0},
		{"hdiff.tir", nil, 0},
		{"tridiag.tir", nil, 0},
		{"nabla.tir", map[string]int64{"NV": 23, "NE": 31}, 0},
		{filepath.Join("testdata", "derivatives", "gather.tir"), map[string]int64{"NV": 6, "NE": 7}, 1e-12},
		{filepath.Join("bench", "kernels", "tridiag_2scans.tir"), tridiagSyms, 0},
		{filepath.Join("bench", "kernels", "tridiag_kout.tir"), tridiagSyms, 0},
	}
	for _, c := range cases {
		c := c
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			t.Parallel() // each case builds and runs its own functions
			m, _ := differentiateFile(t, c.path)
			llvm, err := native.CompileWith("derivatives.tir", printer.Module(m, printer.Options{}), threadsPipeline(t))
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			for _, n := range derivFunctions(m) {
				for _, name := range []string{n + "_jvp", n + "_vjp"} {
					// The runtime's buffer helpers take a lock; the
					// computation itself has no atomic operation.
					if body := llvmFunction(llvm, name+".body"); body == "" {
						t.Errorf("@%s.body not found in the LLVM IR", name)
					} else if strings.Contains(body, "atomicrmw") || strings.Contains(body, "cmpxchg") {
						t.Errorf("@%s uses atomic operations", name)
					}
					fn := m.Lookup(name)
					prog, err := native.Build(llvm, fn, t.TempDir())
					if err != nil {
						t.Fatalf("@%s: build: %v", name, err)
					}
					prog.Env = []string{"OMP_NUM_THREADS=3"}
					args := randomIntRange(t, fn, c.syms, 7, -1, 5)
					want, err := interp.Run(fn, args, c.syms)
					if err != nil {
						t.Fatalf("@%s: interpreter: %v", name, err)
					}
					got, _, err := prog.Run(args, c.syms, 1)
					if err != nil {
						t.Fatalf("@%s: %v", name, err)
					}
					d, err := native.Compare(got, want)
					if err != nil {
						t.Fatal(err)
					}
					if d.Mismatch > 0 && d.MaxNorm > c.tol {
						t.Errorf("@%s with 3 threads: %d of %d elements differ (largest %.3g) at %s", name, d.Mismatch, d.Compared, d.MaxAbs, d.Where)
					}
				}
			}
		})
	}
}

// llvmFunction is the text of one function's definition in LLVM IR ("" when
// absent).
func llvmFunction(llvm, name string) string {
	i := strings.Index(llvm, "@"+name+"(")
	if i < 0 {
		return ""
	}
	rest := llvm[i:]
	if j := strings.Index(rest, "\ndefine "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestDerivativesASan builds @f_jvp and @f_vjp of the programs with
// scans and gathers with AddressSanitizer (-O2) and runs them on random
// inputs and on tables with -1, negative, huge and out-of-range entries.
func TestDerivativesASan(t *testing.T) {
	needASan(t)
	cases := []struct {
		path string
		syms map[string]int64
		tol  float64
	}{
		{"tridiag.tir", nil, 0},
		{"nabla.tir", map[string]int64{"NV": 23, "NE": 31}, 0},
		{filepath.Join("testdata", "derivatives", "gather.tir"), map[string]int64{"NV": 6, "NE": 7}, 1e-12},
		{filepath.Join("bench", "kernels", "tridiag_2scans.tir"), tridiagSyms, 0},
		{filepath.Join("bench", "kernels", "tridiag_kout.tir"), tridiagSyms, 0},
	}
	for _, c := range cases {
		c := c
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			t.Parallel() // each case builds and runs its own functions
			m, _ := differentiateFile(t, c.path)
			text := printer.Module(m, printer.Options{})
			for _, n := range derivFunctions(m) {
				for _, name := range []string{n + "_jvp", n + "_vjp"} {
					one, diags := parser.Parse("derivatives.tir", text)
					if len(diags) > 0 {
						t.Fatal(diags)
					}
					for _, op := range append([]*ir.Operation(nil), one.Body().Ops...) {
						if ir.SymbolName(op) != name {
							one.Body().Remove(op)
						}
					}
					file := filepath.Join(t.TempDir(), name+".tir")
					if err := os.WriteFile(file, []byte(printer.Module(one, printer.Options{})), 0o644); err != nil {
						t.Fatal(err)
					}
					fn, prog := buildASan(t, file, nil)
					e := e2eCase{file: file, syms: c.syms, tol: c.tol}
					compareSeeds(t, fn, prog, e, 2)
					if hasIntegerInput(fn) {
						asanCompare(t, fn, prog, e, c.syms, specialIntArgs(t, fn, c.syms, 5), "tables with -1, negative and huge entries")
					}
				}
			}
		})
	}
}
