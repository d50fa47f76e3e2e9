package test

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// The arithmetic rules of spec 2.7, checked bit for bit against values
// computed here in Go — by hand, with math/big, or with Go's float32 and
// float64 arithmetic, never by the interpreter — in every mode: the
// interpreter, the compiled CPU code (x86-64, whose IR must also go through
// llc -march=aarch64 and call no helper library), and the GPU kernels run
// under the driver emulator (whose PTX llc -march=nvptx64 makes).

// arithColumn is one argument or result of an arithmetic program: a 1-D
// tensor on dimension dim (I when empty) of element type elem.
type arithColumn struct {
	elem, dim string
	f         []float64
	i         []int64
}

func (c arithColumn) len() int {
	if c.f != nil {
		return len(c.f)
	}
	return len(c.i)
}

func (c arithColumn) dimName() string {
	if c.dim == "" {
		return "I"
	}
	return c.dim
}

// typ is the column's tir type.
func (c arithColumn) typ() string {
	return fmt.Sprintf("!tir.tensor<%s, %s[0:%d]>", c.elem, c.dimName(), c.len())
}

func (c arithColumn) tensor() *interp.Tensor {
	t := &interp.Tensor{Elem: ir.BuiltinScalar(c.elem), Dims: []interp.Dim{{Name: c.dimName(), Lo: 0, Hi: int64(c.len())}}}
	if c.f != nil {
		t.F64 = c.f
	} else {
		t.I64 = c.i
	}
	return t
}

// arithProgram is a function @arith_<name> over columns (a function named
// round would be called by its own code in place of libm's): body uses %a0,
// %a1, ... for the arguments and returns its results, whose expected values
// want lists.
type arithProgram struct {
	name string
	args []arithColumn
	body string
	want []arithColumn
}

func (p arithProgram) source() string {
	var params, results []string
	for k, a := range p.args {
		params = append(params, fmt.Sprintf("%%a%d: %s", k, a.typ()))
	}
	for _, w := range p.want {
		results = append(results, w.typ())
	}
	return fmt.Sprintf("tir.func @arith_%s(%s) -> (%s) {\n%s\n}\n", p.name, strings.Join(params, ", "), strings.Join(results, ", "), p.body)
}

// helperCall matches the helper libraries a compiled program must not need
// (compiler-rt's __gnu_h2f_ieee, __truncsfbf2, __fixsfdi, ...): only libc
// and libm may be called.
var helperCall = regexp.MustCompile(`(?m)^declare .*@(__[\w.]+)\(`)

// checkArith runs p in every mode and compares each result element with
// the expected one: the same bits for floats (any NaN matches a NaN, -0
// does not match +0), the same value for integers.
func checkArith(t *testing.T, p arithProgram) {
	t.Helper()
	needToolchain(t)
	dir := t.TempDir()
	path := filepath.Join(dir, p.name+".tir")
	src := p.source()
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, diags := native.Load(path, src)
	if len(diags) > 0 {
		t.Fatalf("%v\n%s", diags, src)
	}
	var fn *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			fn = op
		}
	}
	cpuDir, gpuDir := filepath.Join(dir, "cpu"), filepath.Join(dir, "gpu")
	for _, d := range []string{cpuDir, gpuDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var args []*interp.Tensor
	for _, a := range p.args {
		args = append(args, a.tensor())
	}

	got, err := interp.Run(fn, args, nil)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	compareArith(t, "interpreter", got, p.want)

	llvm, err := native.Compile(path, src, 2, "x86_64")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	for _, d := range helperCall.FindAllStringSubmatch(llvm, -1) {
		t.Errorf("the compiled code calls the helper %s", d[1])
	}
	prog, err := native.Build(llvm, fn, cpuDir)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	got, _, err = prog.Run(args, nil, 1)
	if err != nil {
		t.Fatalf("compiled: %v", err)
	}
	compareArith(t, "compiled (x86-64)", got, p.want)

	llc, _ := native.Tool("llc")
	if out, err := exec.Command(llc, "-O3", "-march=aarch64", filepath.Join(cpuDir, "module.ll"), "-o", filepath.Join(dir, "a64.s")).CombinedOutput(); err != nil {
		t.Errorf("llc -march=aarch64: %v\n%s", err, out)
	}

	gm, err := native.CompileModule(path, src, 2, "nvptx64")
	if err != nil {
		t.Fatalf("compile for nvptx64: %v", err)
	}
	gprog, err := native.BuildGPU(gm, fn, gpuDir, native.GPUOptions{Emulate: true})
	if _, statErr := os.Stat(filepath.Join(gpuDir, "kernels.ptx")); statErr == nil {
		checkPTX(t, gm, filepath.Join(gpuDir, "kernels.ptx"))
	}
	if err != nil {
		t.Fatalf("GPU build: %v", err)
	}
	got, _, err = gprog.Run(args, nil, 1)
	if err != nil {
		t.Fatalf("GPU (emulated): %v", err)
	}
	compareArith(t, "GPU kernels (emulated)", got, p.want)
}

func compareArith(t *testing.T, mode string, got []*interp.Tensor, want []arithColumn) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, want %d", mode, len(got), len(want))
	}
	for r, w := range want {
		g := got[r]
		if g.Len() != w.len() {
			t.Fatalf("%s: result #%d has %d elements, want %d", mode, r, g.Len(), w.len())
		}
		bad := 0
		for k := 0; k < w.len(); k++ {
			var ok bool
			var gs, ws string
			if w.f != nil {
				a, b := g.F64[k], w.f[k]
				ok = math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
				gs, ws = fmt.Sprint(a), fmt.Sprint(b)
			} else {
				ok = g.I64[k] == w.i[k]
				gs, ws = fmt.Sprint(g.I64[k]), fmt.Sprint(w.i[k])
			}
			if !ok {
				if bad++; bad <= 5 {
					t.Errorf("%s: result #%d element %d: got %s, want %s", mode, r, k, gs, ws)
				}
			}
		}
	}
}

// ---- integers ----

// refDivRem is floor division and the remainder with the divisor's sign,
// computed with math/big and wrapped to w bits; 0 and 0 for a zero
// divisor.
func refDivRem(a, b int64, w int) (int64, int64) {
	if b == 0 {
		return 0, 0
	}
	x, y := big.NewInt(a), big.NewInt(b)
	q, r := new(big.Int).QuoRem(x, y, new(big.Int)) // truncated
	if r.Sign() != 0 && r.Sign() != y.Sign() {
		q.Sub(q, big.NewInt(1))
		r.Add(r, y)
	}
	return refWrap(q, w), refWrap(r, w)
}

// refWrap reduces v modulo 2^w into [-2^(w-1), 2^(w-1)).
func refWrap(v *big.Int, w int) int64 {
	mod := new(big.Int).Lsh(big.NewInt(1), uint(w))
	m := new(big.Int).Mod(v, mod) // in [0, 2^w)
	if m.Cmp(new(big.Int).Rsh(mod, 1)) >= 0 {
		m.Sub(m, mod)
	}
	return m.Int64()
}

func TestArithIntegerDivision(t *testing.T) {
	for _, w := range []int{8, 16, 32, 64} {
		w := w
		t.Run(fmt.Sprintf("i%d", w), func(t *testing.T) {
			lo, hi := -int64(1)<<(w-1), int64(uint64(1)<<(w-1)-1)
			as := []int64{0, 1, -1, 7, -7, 8, -8, lo, hi, lo + 1}
			bs := []int64{0, -1, 1, 2, -2, 3, -3, 7, -7, lo, hi}
			var a, b []int64
			for _, x := range as {
				for _, y := range bs {
					a, b = append(a, x), append(b, y)
				}
			}
			elem := fmt.Sprintf("i%d", w)
			var q, r []int64
			for k := range a {
				qk, rk := refDivRem(a[k], b[k], w)
				q, r = append(q, qk), append(r, rk)
			}
			// Constant divisors are lowered differently (folded guards, a
			// shift for powers of two).
			consts := []int64{0, -1, 4, -3, lo}
			body := "  %q = tir.div %a0, %a1\n  %r = tir.rem %a0, %a1\n"
			results := []string{"%q", "%r"}
			want := []arithColumn{{elem: elem, i: q}, {elem: elem, i: r}}
			for k, c := range consts {
				if c == math.MinInt64 {
					// The parser reads -2^63 as an out-of-range literal.
					body += fmt.Sprintf("  %%c%dp = tir.constant %d : %s\n  %%m%d = tir.constant -1 : %s\n  %%c%d = tir.add %%c%dp, %%m%d\n", k, c+1, elem, k, elem, k, k, k)
				} else {
					body += fmt.Sprintf("  %%c%d = tir.constant %d : %s\n", k, c, elem)
				}
				body += fmt.Sprintf("  %%cq%d = tir.div %%a0, %%c%d\n  %%cr%d = tir.rem %%a0, %%c%d\n", k, k, k, k)
				var cq, cr []int64
				for _, x := range a {
					qk, rk := refDivRem(x, c, w)
					cq, cr = append(cq, qk), append(cr, rk)
				}
				results = append(results, fmt.Sprintf("%%cq%d", k), fmt.Sprintf("%%cr%d", k))
				want = append(want, arithColumn{elem: elem, i: cq}, arithColumn{elem: elem, i: cr})
			}
			checkArith(t, arithProgram{
				name: "divrem_" + elem,
				args: []arithColumn{{elem: elem, i: a}, {elem: elem, i: b}},
				body: body + "  tir.return " + strings.Join(results, ", "),
				want: want,
			})
		})
	}
}

// TestArithIntegerWrap: overflow wraps (two's complement), abs and neg of
// the most negative value are itself, i1 widens to 0 or 1.
func TestArithIntegerWrap(t *testing.T) {
	a := []int64{0, 1, -1, 100, -100, math.MaxInt32, math.MinInt32}
	b := []int64{0, 1, -1, 2147483, -3, math.MaxInt32, -1}
	var sum, prod, neg, abs, lt, lt64 []int64
	for k := range a {
		x, y := big.NewInt(a[k]), big.NewInt(b[k])
		sum = append(sum, refWrap(new(big.Int).Add(x, y), 32))
		prod = append(prod, refWrap(new(big.Int).Mul(x, y), 32))
		neg = append(neg, refWrap(new(big.Int).Neg(x), 32))
		abs = append(abs, refWrap(new(big.Int).Abs(x), 32))
		c := int64(0)
		if a[k] < b[k] {
			c = 1
		}
		lt, lt64 = append(lt, c), append(lt64, c)
	}
	checkArith(t, arithProgram{
		name: "wrap",
		args: []arithColumn{{elem: "i32", i: a}, {elem: "i32", i: b}},
		body: `  %s = tir.add %a0, %a1
  %p = tir.mul %a0, %a1
  %n = tir.neg %a0
  %b = tir.abs %a0
  %l = tir.cmp lt %a0, %a1
  %l32 = tir.cast %l : !tir.tensor<i32, I[0:7]>
  %l64 = tir.cast %l : !tir.tensor<i64, I[0:7]>
  tir.return %s, %p, %n, %b, %l32, %l64`,
		want: []arithColumn{{elem: "i32", i: sum}, {elem: "i32", i: prod}, {elem: "i32", i: neg}, {elem: "i32", i: abs}, {elem: "i32", i: lt}, {elem: "i64", i: lt64}},
	})
}

// refIPow is x**y wrapped to w bits (math/big, modular exponentiation);
// a negative exponent gives the integer part of 1 / x**-y: ±1 for x = ±1,
// else 0 (x = 0 too, as a division by zero gives 0): docs/decisions.md.
func refIPow(x, y int64, w int) int64 {
	if y < 0 {
		switch {
		case x == 1:
			return 1
		case x == -1 && y%2 != 0:
			return -1
		case x == -1:
			return 1
		}
		return 0
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(w))
	base := new(big.Int).Mod(big.NewInt(x), m)
	return refWrap(new(big.Int).Exp(base, big.NewInt(y), m), w)
}

// TestArithIntegerPow: integer pow wraps, and a negative exponent (zero
// base included) gives what the interpreter and the compiled code agree
// on, never an error.
func TestArithIntegerPow(t *testing.T) {
	if refIPow(-2, 3, 8) != -8 || refIPow(2, 8, 8) != 0 || refIPow(3, 5, 8) != refWrap(big.NewInt(243), 8) || refIPow(-1, -3, 32) != -1 || refIPow(0, -1, 32) != 0 || refIPow(2, -1, 32) != 0 {
		t.Fatal("reference pow is wrong")
	}
	for _, w := range []int{8, 32, 64} {
		w := w
		t.Run(fmt.Sprintf("i%d", w), func(t *testing.T) {
			lo, hi := -int64(1)<<(w-1), int64(uint64(1)<<(w-1)-1)
			xs := []int64{0, 1, -1, 2, -2, 3, -3, 7, lo, hi}
			ys := []int64{0, 1, 2, 3, 5, int64(w - 1), -1, -2, -3, hi, lo}
			var a, b, p []int64
			for _, x := range xs {
				for _, y := range ys {
					a, b, p = append(a, x), append(b, y), append(p, refIPow(x, y, w))
				}
			}
			elem := fmt.Sprintf("i%d", w)
			checkArith(t, arithProgram{
				name: "ipow_" + elem,
				args: []arithColumn{{elem: elem, i: a}, {elem: elem, i: b}},
				body: "  %p = tir.pow %a0, %a1\n  tir.return %p",
				want: []arithColumn{{elem: elem, i: p}},
			})
		})
	}
}

// TestArithIntegerLiterals: a literal is read as the signed value of its
// bits (255 : i8 is -1, 2^64 - 1 : i64 is -1), the same in every mode;
// one that does not fit is an error (testdata/diagnostics/constant_int_range.tir).
func TestArithIntegerLiterals(t *testing.T) {
	a := []int64{0, 1, -128, 127}
	b := []int64{0, 7, math.MinInt64, math.MaxInt64}
	var x, y, z []int64
	for k := range a {
		x = append(x, refWrap(big.NewInt(a[k]-1), 8))
		y = append(y, refWrap(big.NewInt(a[k]-128), 8))
		z = append(z, refWrap(new(big.Int).Sub(big.NewInt(b[k]), big.NewInt(1)), 64))
	}
	checkArith(t, arithProgram{
		name: "literals",
		args: []arithColumn{{elem: "i8", i: a}, {elem: "i64", dim: "J", i: b}},
		body: `  %c = tir.constant 255 : i8
  %d = tir.constant -128 : i8
  %e = tir.constant 18446744073709551615 : i64
  %x = tir.add %a0, %c
  %y = tir.add %a0, %d
  %z = tir.add %a1, %e
  tir.return %x, %y, %z`,
		want: []arithColumn{{elem: "i8", i: x}, {elem: "i8", i: y}, {elem: "i64", dim: "J", i: z}},
	})
}

// ---- float to integer casts ----

// refSaturate truncates x toward zero and saturates at the limits of a
// w-bit signed integer (math/big); NaN gives 0.
func refSaturate(x float64, w int) int64 {
	lim := new(big.Int).Lsh(big.NewInt(1), uint(w-1))
	switch {
	case math.IsNaN(x):
		return 0
	case math.IsInf(x, 1):
		return new(big.Int).Sub(lim, big.NewInt(1)).Int64()
	case math.IsInf(x, -1):
		return new(big.Int).Neg(lim).Int64()
	}
	i, _ := big.NewFloat(x).Int(nil) // toward zero
	if i.Cmp(lim) >= 0 {
		return new(big.Int).Sub(lim, big.NewInt(1)).Int64()
	}
	if i.Cmp(new(big.Int).Neg(lim)) < 0 {
		return new(big.Int).Neg(lim).Int64()
	}
	return i.Int64()
}

func TestArithFloatToIntCasts(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	p31, p63 := math.Ldexp(1, 31), math.Ldexp(1, 63)
	f32s := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.9, -1.9, 127.9, 128, -128.9, -129, 32767.5, 32768, -32769,
		p31 - 128, p31, -p31, -p31 - 256, 3e9, -3e9, p63, -p63, 1e20, -1e20, inf, -inf, nan}
	f64s := []float64{0.99999999999, -0.99999999999, 2147483647.9, 2147483648, -2147483648.9, -2147483649,
		p63 - 1024, p63, -p63, -p63 - 2048, 1e300, -1e300, inf, -inf, nan, 5e-324}
	for k, x := range f32s {
		f32s[k] = float64(float32(x))
	}
	var body strings.Builder
	var results []string
	var want []arithColumn
	for s, src := range []struct {
		elem string
		xs   []float64
	}{{"f32", f32s}, {"f64", f64s}} {
		for _, w := range []int{8, 16, 32, 64} {
			name := fmt.Sprintf("%%c%d_%d", s, w)
			fmt.Fprintf(&body, "  %s = tir.cast %%a%d : !tir.tensor<i%d, I[0:%d]>\n", name, s, w, len(src.xs))
			col := arithColumn{elem: fmt.Sprintf("i%d", w), i: nil}
			for _, x := range src.xs {
				col.i = append(col.i, refSaturate(x, w))
			}
			results = append(results, name)
			want = append(want, col)
		}
	}
	// float to i1 is "not zero", and NaN, which converts to 0 (spec 2.7),
	// is false (cmpf one, not une), in f32 and f64.
	i1in := []float64{0, math.Copysign(0, -1), 0.25, -2, inf, nan, -inf, math.Copysign(nan, -1)}
	i1want := []int64{0, 0, 1, 1, 1, 0, 1, 0}
	fmt.Fprintf(&body, "  %%b = tir.cast %%a2 : !tir.tensor<i1, J[0:%d]>\n", len(i1in))
	fmt.Fprintf(&body, "  %%b64 = tir.cast %%a3 : !tir.tensor<i1, J[0:%d]>\n", len(i1in))
	results = append(results, "%b", "%b64")
	want = append(want, arithColumn{elem: "i1", dim: "J", i: i1want}, arithColumn{elem: "i1", dim: "J", i: i1want})
	body.WriteString("  tir.return " + strings.Join(results, ", "))
	checkArith(t, arithProgram{
		name: "casts",
		args: []arithColumn{{elem: "f32", f: f32s}, {elem: "f64", f: f64s}, {elem: "f32", dim: "J", f: i1in}, {elem: "f64", dim: "J", f: i1in}},
		body: body.String(),
		want: want,
	})
}

// ---- rem and round ----

// refRem32 is x - y*floor(x/y) in float32 steps (the explicit conversions
// keep Go from fusing the multiplication and the subtraction).
func refRem32(x, y float32) float32 {
	q := float32(x / y)
	f := float32(math.Floor(float64(q)))
	p := float32(y * f)
	return float32(x - p)
}

func refRem64(x, y float64) float64 {
	f := math.Floor(float64(x / y))
	p := float64(y * f)
	return float64(x - p)
}

func TestArithFloatRem(t *testing.T) {
	x := []float64{7, -7, 7, -7, 5.5, -0.0, 1e10, -1e10, 0.1, 1, math.Inf(1), 3}
	y := []float64{2, 2, -2, -2, 0, 3, 3, 7, 0.03, math.Inf(1), 2, math.Copysign(0, -1)}
	var r32, r64 []float64
	for k := range x {
		x32, y32 := float32(x[k]), float32(y[k])
		r32 = append(r32, float64(refRem32(x32, y32)))
		r64 = append(r64, refRem64(x[k], y[k]))
	}
	// The rule's sign cases, by hand.
	for k, want := range []float64{1, 1, -1, -1} {
		if r32[k] != want || r64[k] != want {
			t.Fatalf("reference rem %g, %g = %g, %g, want %g", x[k], y[k], r32[k], r64[k], want)
		}
	}
	x32 := make([]float64, len(x))
	y32 := make([]float64, len(y))
	for k := range x {
		x32[k], y32[k] = float64(float32(x[k])), float64(float32(y[k]))
	}
	checkArith(t, arithProgram{
		name: "rem",
		args: []arithColumn{{elem: "f32", f: x32}, {elem: "f32", f: y32}, {elem: "f64", f: x}, {elem: "f64", f: y}},
		body: "  %r = tir.rem %a0, %a1\n  %s = tir.rem %a2, %a3\n  tir.return %r, %s",
		want: []arithColumn{{elem: "f32", f: r32}, {elem: "f64", f: r64}},
	})
}

func TestArithRound(t *testing.T) {
	negZero := math.Copysign(0, -1)
	in := []float64{0.5, -0.5, 1.5, -1.5, 2.5, -2.5, float64(float32(0.49999997)), -float64(float32(0.49999997)), 8388609, -0.25, negZero, math.Inf(-1), math.NaN()}
	out := []float64{1, -1, 2, -2, 3, -3, 0, negZero, 8388609, negZero, negZero, math.Inf(-1), math.NaN()}
	in64 := append([]float64{0.49999999999999994, 4503599627370497, -4503599627370495.5}, in...) // f32 values are f64 values
	out64 := append([]float64{0, 4503599627370497, -4503599627370496}, out...)
	checkArith(t, arithProgram{
		name: "round",
		args: []arithColumn{{elem: "f32", f: in}, {elem: "f64", dim: "J", f: in64}},
		body: "  %r = tir.round %a0\n  %s = tir.round %a1\n  tir.return %r, %s",
		want: []arithColumn{{elem: "f32", f: out}, {elem: "f64", dim: "J", f: out64}},
	})
}

// ---- f16 and bf16 ----

// refF16 rounds an f32 to f16 the way NumPy's npy_floatbits_to_halfbits
// does (shifts with the round and sticky bits) and decodes the result:
// an implementation independent of the interpreter's and of the compiled
// code's.
func refF16(f float32) float64 { return refDecodeF16(refF16Bits(f)) }

func refF16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := uint64(b & 0x7fffff)
	switch {
	case exp == 0xff && mant != 0:
		return 0x7e00
	case exp == 0xff || exp-127 > 15:
		return sign | 0x7c00
	case exp == 0:
		return sign // f32 subnormals are far below 2^-25
	}
	full := mant | 0x800000
	e := exp - 127 + 15
	shift := uint(13)
	if e < 1 {
		shift = uint(14 - e)
	}
	if shift > 25 {
		return sign
	}
	m := full >> shift
	rest := full & (1<<shift - 1)
	halfway := uint64(1) << (shift - 1)
	if rest > halfway || (rest == halfway && m&1 == 1) {
		m++
	}
	h := m // subnormal, or 0x400: the smallest normal
	if e >= 1 {
		h = uint64(e)<<10 + m - 0x400 // a carry moves into the exponent
		if h >= 0x7c00 {
			h = 0x7c00
		}
	}
	return sign | uint16(h)
}

// refDecodeF16 is the value of f16 bits.
func refDecodeF16(h uint16) float64 {
	var v float64
	switch e, m := int(h>>10)&0x1f, float64(h&0x3ff); {
	case e == 0x1f && m != 0:
		return math.NaN()
	case e == 0x1f:
		v = math.Inf(1)
	case e == 0:
		v = m * math.Ldexp(1, -24)
	default:
		v = (1 + m/1024) * math.Ldexp(1, e-15)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return v
}

// refBF16 rounds an f32 to bf16 (the high half, nearest-even on the low
// half) and decodes it.
func refBF16(f float32) float64 {
	b := math.Float32bits(f)
	if f != f {
		return math.NaN()
	}
	hi, lo := b>>16, b&0xffff
	if lo > 0x8000 || (lo == 0x8000 && hi&1 == 1) {
		hi++
	}
	return float64(math.Float32frombits(hi << 16))
}

func pow2(e int) float64 { return math.Ldexp(1, e) }

// halfCase is one rounding to a 16-bit type, with the expected value;
// intHalfCase one from an integer.
type halfCase struct{ in, want float64 }

type intHalfCase struct {
	n    int64
	want float64
}

// halfRounding are the rounding cases of both 16-bit types: ties to even
// in both directions, just above and below ties, overflow to infinity,
// subnormals (their ties included), signed zeros, NaN. The f64 and integer
// sources have cases where rounding through f32 first would round twice
// and differ (x + 2^-40 above a tie that f32 rounds onto the tie).
var halfRounding = map[string]map[string][]halfCase{
	"f16": {
		"f32": {
			{1 + pow2(-11), 1}, {1 + 3*pow2(-11), 1 + pow2(-9)}, {1 + pow2(-11) + pow2(-23), 1 + pow2(-10)},
			{65504, 65504}, {65519, 65504}, {65520, math.Inf(1)}, {-65520, math.Inf(-1)}, {1e6, math.Inf(1)},
			{pow2(-24), pow2(-24)}, {pow2(-25), 0}, {-pow2(-25), math.Copysign(0, -1)}, {3 * pow2(-26), pow2(-24)},
			{3 * pow2(-25), pow2(-23)}, {pow2(-25) + pow2(-40), pow2(-24)}, {pow2(-14) - pow2(-25), pow2(-14)},
			{0.1, 0.0999755859375}, {math.Copysign(0, -1), math.Copysign(0, -1)}, {math.Inf(-1), math.Inf(-1)},
			{math.NaN(), math.NaN()}, {pow2(-140), 0},
		},
		"f64": {
			{1 + pow2(-11) + pow2(-40), 1 + pow2(-10)}, {1 + 3*pow2(-11) - pow2(-40), 1 + pow2(-10)},
			{pow2(-25) + pow2(-60), pow2(-24)}, {-(pow2(-25) + pow2(-60)), -pow2(-24)},
			{65519.99999, 65504}, {65520, math.Inf(1)}, {1e300, math.Inf(1)}, {-1e-300, math.Copysign(0, -1)},
			{0.1, 0.0999755859375}, {math.NaN(), math.NaN()},
		},
	},
	"bf16": {
		"f32": {
			{1 + pow2(-8), 1}, {1 + 3*pow2(-8), 1 + pow2(-6)}, {1 + pow2(-8) + pow2(-23), 1 + pow2(-7)},
			{(2 - pow2(-7)) * pow2(127), (2 - pow2(-7)) * pow2(127)}, {(2 - pow2(-8)) * pow2(127), math.Inf(1)},
			{math.MaxFloat32, math.Inf(1)}, {-math.MaxFloat32, math.Inf(-1)},
			{pow2(-133), pow2(-133)}, {pow2(-134), 0}, {-pow2(-134), math.Copysign(0, -1)}, {3 * pow2(-134), pow2(-132)},
			{pow2(-149), 0}, {pow2(-126) - pow2(-134), pow2(-126)}, {0.1, 0.10009765625},
			{math.Copysign(0, -1), math.Copysign(0, -1)}, {math.NaN(), math.NaN()},
		},
		"f64": {
			{1 + pow2(-8) + pow2(-40), 1 + pow2(-7)}, {1 + 3*pow2(-8) - pow2(-40), 1 + pow2(-7)},
			{pow2(-134) + pow2(-170), pow2(-133)}, {1e300, math.Inf(1)}, {-1e-300, math.Copysign(0, -1)},
			{(2 - pow2(-8)) * pow2(127) * (1 - pow2(-30)), (2 - pow2(-7)) * pow2(127)}, {math.NaN(), math.NaN()},
		},
	},
}

// halfFromInts are the conversions from integers to each 16-bit type:
// ties, overflow, and (bf16) values wider than f32's significand.
var halfFromInts = map[string]map[string][]intHalfCase{
	"f16": {
		"i32": {
			{n: 2049, want: 2048}, {n: 2051, want: 2052}, {n: 65504, want: 65504}, {n: 65519, want: 65504},
			{n: 65520, want: math.Inf(1)}, {n: -65520, want: math.Inf(-1)}, {n: 2147483647, want: math.Inf(1)},
			{n: -2147483648, want: math.Inf(-1)}, {n: 0, want: 0}, {n: -3, want: -3},
		},
		"i64": {
			{n: 4097, want: 4096}, {n: 4098, want: 4096}, {n: 4102, want: 4104}, {n: -4102, want: -4104},
			{n: 1 << 40, want: math.Inf(1)}, {n: -(1 << 62), want: math.Inf(-1)},
		},
	},
	"bf16": {
		"i32": {
			{n: 16842753, want: 16908288}, {n: -16842753, want: -16908288}, {n: 257, want: 256}, {n: 259, want: 260},
			{n: 2147483647, want: 2147483648}, {n: -2147483648, want: -2147483648}, {n: 0, want: 0},
		},
		"i64": {
			{n: 1<<60 + 1<<52 + 1, want: pow2(60) + pow2(53)}, {n: -(1<<60 + 1<<52 + 1), want: -(pow2(60) + pow2(53))},
			{n: math.MaxInt64, want: pow2(63)}, {n: math.MinInt64, want: -pow2(63)}, {n: 16842753, want: 16908288},
		},
	},
}

// halfOps are pairs for the arithmetic of each 16-bit type: ties,
// overflow, subnormal results, signed zeros, division by zero.
var halfOps = map[string][][2]float64{
	"f16": {
		{1, pow2(-11)}, {1, 3 * pow2(-11)}, {300, 300}, {65504, 16}, {65504, 15}, {pow2(-14), pow2(-10)},
		{pow2(-14), pow2(-11)}, {-pow2(-14), pow2(-11)}, {1, 3}, {1, 0}, {0, 0}, {-7, 2}, {7, -2}, {1000, 0.0999755859375},
		{0.333251953125, 3}, {-65504, 65504},
	},
	"bf16": {
		{1, pow2(-8)}, {1, 3 * pow2(-8)}, {pow2(126), 10}, {pow2(-126), pow2(-7)}, {pow2(-126), pow2(-8)},
		{-pow2(-126), pow2(-8)}, {1, 3}, {1, 0}, {0, 0}, {-7, 2}, {7, -2}, {1000, 0.10009765625},
	},
}

// halfToInts are 16-bit values for the conversions to integers.
var halfToInts = map[string][]float64{
	"f16":  {65504, -65504, 1.5, -1.5, 255.875, -129, math.Inf(1), math.Inf(-1), math.NaN(), pow2(-24)},
	"bf16": {3019898880, -3019898880, 1.5, -1.5, 40960, -40960, math.Inf(1), math.NaN(), pow2(-133)},
}

func TestArithHalf(t *testing.T) {
	for _, kind := range []string{"f16", "bf16"} {
		kind := kind
		t.Run(kind, func(t *testing.T) {
			ref := refF16
			if kind == "bf16" {
				ref = refBF16
			}
			var args, want []arithColumn
			var body strings.Builder
			var results []string
			add := func(c arithColumn) string {
				args = append(args, c)
				return fmt.Sprintf("%%a%d", len(args)-1)
			}
			// Conversions from every source type, rounding once.
			for i, src := range []string{"f32", "f64", "i32", "i64"} {
				in := arithColumn{elem: src, dim: fmt.Sprintf("C%d", i)}
				out := arithColumn{elem: kind, dim: in.dim}
				for _, c := range halfFromInts[kind][src] {
					in.i = append(in.i, c.n)
					out.f = append(out.f, c.want)
				}
				for _, c := range halfRounding[kind][src] {
					x := c.in
					if src == "f32" {
						x = float64(float32(x))
						// The reference agrees with the hand-written value.
						if r := ref(float32(x)); math.Float64bits(r) != math.Float64bits(c.want) && !math.IsNaN(c.want) {
							t.Fatalf("reference %s(%g) = %g, the table says %g", kind, x, r, c.want)
						}
					}
					in.f = append(in.f, x)
					out.f = append(out.f, c.want)
				}
				a := add(in)
				r := fmt.Sprintf("%%conv%d", i)
				fmt.Fprintf(&body, "  %s = tir.cast %s : %s\n", r, a, out.typ())
				results = append(results, r)
				want = append(want, out)
			}
			// The operations on pairs, each computed in f32 (Go's float32
			// arithmetic) and rounded once by the reference.
			x := arithColumn{elem: kind, dim: "P"}
			y := arithColumn{elem: kind, dim: "P"}
			for _, p := range halfOps[kind] {
				x.f, y.f = append(x.f, p[0]), append(y.f, p[1])
				for _, v := range p {
					if math.Float64bits(ref(float32(v))) != math.Float64bits(v) {
						t.Fatalf("operand %g is not a %s value", v, kind)
					}
				}
			}
			ax, ay := add(x), add(y)
			ops := []struct {
				name string
				f    func(a, b float32) float32
			}{
				{"add", func(a, b float32) float32 { return a + b }},
				{"sub", func(a, b float32) float32 { return a - b }},
				{"mul", func(a, b float32) float32 { return a * b }},
				{"div", func(a, b float32) float32 { return a / b }},
				{"rem", refRem32},
			}
			for _, op := range ops {
				out := arithColumn{elem: kind, dim: "P"}
				for k := range x.f {
					out.f = append(out.f, ref(op.f(float32(x.f[k]), float32(y.f[k]))))
				}
				r := "%" + op.name
				fmt.Fprintf(&body, "  %s = tir.%s %s, %s\n", r, op.name, ax, ay)
				results = append(results, r)
				want = append(want, out)
			}
			// To integers (toward zero, saturating, NaN to 0) and to the
			// wider floats (exact).
			h := arithColumn{elem: kind, dim: "H", f: halfToInts[kind]}
			ah := add(h)
			for _, w := range []int{8, 16, 32} {
				out := arithColumn{elem: fmt.Sprintf("i%d", w), dim: "H"}
				for _, v := range h.f {
					out.i = append(out.i, refSaturate(v, w))
				}
				r := fmt.Sprintf("%%int%d", w)
				fmt.Fprintf(&body, "  %s = tir.cast %s : %s\n", r, ah, out.typ())
				results = append(results, r)
				want = append(want, out)
			}
			for _, wide := range []string{"f32", "f64"} {
				out := arithColumn{elem: wide, dim: "H", f: h.f}
				r := "%" + wide
				fmt.Fprintf(&body, "  %s = tir.cast %s : %s\n", r, ah, out.typ())
				results = append(results, r)
				want = append(want, out)
			}
			body.WriteString("  tir.return " + strings.Join(results, ", "))
			checkArith(t, arithProgram{name: "half_" + kind, args: args, body: body.String(), want: want})
		})
	}
}

// TestArithHalfExhaustive converts every f16 bit pattern to f32 and back
// (through an f16 addition of 0, which must round to itself), and a
// sample of f32 bit patterns (every exponent, random significands, and the
// halfway points of the f16 grid) to f16 and bf16.
func TestArithHalfExhaustive(t *testing.T) {
	var all, wide []float64
	for h := 0; h < 1<<16; h++ {
		v := refDecodeF16(uint16(h))
		all = append(all, v)
		wide = append(wide, v)
	}
	var in, f16s, bf16s []float64
	x := uint32(12345)
	for e := uint32(0); e < 256; e++ {
		for k := 0; k < 64; k++ {
			x = x*1664525 + 1013904223 // a fixed LCG: the same sample every run
			sig := x >> 9
			switch k {
			case 0: // an f16 halfway point (13 dropped bits 1000...0)
				sig = sig&^0x1fff | 0x1000
			case 1: // a bf16 halfway point
				sig = sig&^0xffff | 0x8000
			case 2:
				sig = 0
			}
			for _, sign := range []uint32{0, 1 << 31} {
				f := math.Float32frombits(sign | e<<23 | sig)
				in = append(in, float64(f))
				f16s = append(f16s, refF16(f))
				bf16s = append(bf16s, refBF16(f))
			}
		}
	}
	n, m := len(all), len(in)
	checkArith(t, arithProgram{
		name: "f16_exhaustive",
		args: []arithColumn{{elem: "f16", f: all}, {elem: "f32", dim: "J", f: in}},
		body: fmt.Sprintf(`  %%w = tir.cast %%a0 : !tir.tensor<f32, I[0:%d]>
  %%z = tir.constant 0.0 : f16
  %%s = tir.add %%a0, %%z
  %%h = tir.cast %%a1 : !tir.tensor<f16, J[0:%d]>
  tir.return %%w, %%s, %%h`, n, m),
		want: []arithColumn{{elem: "f32", f: wide}, {elem: "f16", f: addZero(all)}, {elem: "f16", dim: "J", f: f16s}},
	})
	// bf16 crosses the C ABI as its raw bits (uint16_t), as an argument
	// and as a result, on the CPU and through the CUDA host wrapper.
	checkArith(t, arithProgram{
		name: "bf16_sample",
		args: []arithColumn{{elem: "f32", dim: "J", f: in}, {elem: "bf16", dim: "J", f: bf16s}},
		body: fmt.Sprintf(`  %%b = tir.cast %%a0 : !tir.tensor<bf16, J[0:%d]>
  %%z = tir.constant 0.0 : bf16
  %%s = tir.add %%a1, %%z
  %%w = tir.cast %%a1 : !tir.tensor<f32, J[0:%d]>
  tir.return %%b, %%s, %%w`, m, m),
		want: []arithColumn{{elem: "bf16", dim: "J", f: bf16s}, {elem: "bf16", dim: "J", f: addZero(bf16s)}, {elem: "f32", dim: "J", f: bf16s}},
	})
}

// addZero is x + 0 for each x: -0 + 0 is +0.
func addZero(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x + 0
	}
	return out
}
