package test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/lower/tollvm"
	"tir/passes/mathexpand"
	"tir/tools/native"
)

// The accuracy of the expand-math pass (passes/mathexpand): every expanded
// function, in f32 and f64, is applied elementwise to a memref by a
// func.func parsed from text, expanded, emitted for x86_64 with tollvm,
// compiled with llc -O2 and gcc with a generated C driver, and run on a
// deterministic set of inputs per domain: special values, points in every
// binade of the domain and uniform random points.
//
// References: for f32, Go's math package in float64 (accurate to about one
// f64 ulp, i.e. 2^-29 f32 ulp), unrounded; for f64, glibc's long double
// functions (expl, sinl, powl, ... with a 64-bit significand, accurate to
// about 2^-10 f64 ulp) evaluated in the C driver and passed back as the
// rounded double and the remainder in ulps. Go's math package is not a
// good enough reference for f64: its errors reach one ulp and more (Pow).
// The error of a result is |got - ref| / ulp(ref) with ulp(ref) the spacing
// of the format at ref (subnormal spacing below the normal range): 0.5
// means correctly rounded. NaN, infinities and zeros (with their sign) must
// match the rounded reference exactly, in every domain; the ulp bounds of
// mxFuncs (those of docs/gpu-math.md) are asserted on the main domains and
// the others are logged.
//
// The same expansion on vector operands must give bit-identical results.
// TestCPUMathAccuracy measures CPU code the same way, compiled by
// convert-to-llvm for x86-64-v3 (math=auto expands there), with the
// native square root and reciprocal square root besides.
// TIR_MATH_SWEEP=N multiplies the number of random points by N (2000 per
// domain by default; N = 250 gives 500,000 per domain in about 20 s, the
// numbers of docs/gpu-math.md).

type mxFormat struct {
	name string // f32, f64
	p    int    // precision
	emin int    // exponent of the smallest normal
	c    string // C type
	size int    // bytes
}

var (
	mxF32 = mxFormat{"f32", 24, -126, "float", 4}
	mxF64 = mxFormat{"f64", 53, -1022, "double", 8}
)

func (f mxFormat) round(v float64) float64 {
	if f.p == 24 {
		return float64(float32(v))
	}
	return v
}

func (f mxFormat) max() float64 {
	if f.p == 24 {
		return math.MaxFloat32
	}
	return math.MaxFloat64
}

// ulp is the spacing of the format at |v|.
func (f mxFormat) ulp(v float64) float64 {
	v = math.Abs(v)
	e := f.emin
	if v != 0 && !math.IsInf(v, 0) {
		_, exp := math.Frexp(v) // v = m 2^exp, m in [0.5, 1)
		e = max(exp-1, f.emin)
	}
	return math.Ldexp(1, e-f.p+1)
}

// mxDomain is a set of inputs. xs come from the signed range [lo, hi]:
// half uniform, half spread over the binades of |x| that meet the range;
// ys (binary functions) from y(r, x). list is added as is.
type mxDomain struct {
	name   string
	main   bool
	lo, hi float64
	n      int
	y      func(r *rand.Rand, x float64) float64
	list   [][2]float64
}

type mxFunc struct {
	op    string // math.exp
	nargs int
	cref  string                     // long double reference in C (f64)
	ref   func(x, y float64) float64 // Go reference (f32)
	doms  func(f mxFormat) []mxDomain
	bound [2]float64 // max ulp asserted on main domains, f32 and f64
	// bounded: |result| <= 1 for every finite argument (sin, cos).
	bounded bool
}

func (fn mxFunc) name() string { return strings.TrimPrefix(fn.op, "math.") }

func unary(f func(float64) float64) func(x, y float64) float64 {
	return func(x, _ float64) float64 { return f(x) }
}

// pick returns the f32 or f64 value.
func pick(f mxFormat, v32, v64 float64) float64 {
	if f.p == 24 {
		return v32
	}
	return v64
}

// specials are the values every unary function is checked on.
func specials(f mxFormat, extra ...float64) [][2]float64 {
	tiny := math.Ldexp(1, f.emin-f.p+1)
	vs := []float64{0, math.Inf(1), math.NaN(), tiny, math.Ldexp(1, f.emin), f.max(), 1, 0.5, 2, 1e-3, 10, 100}
	vs = append(vs, extra...)
	var out [][2]float64
	for _, v := range vs {
		out = append(out, [2]float64{f.round(v), 0}, [2]float64{f.round(-v), 0})
	}
	return out
}

// specialPairs combines special values for binary functions.
func specialPairs(f mxFormat) [][2]float64 {
	vs := []float64{0, math.Inf(1), math.NaN(), 1, 0.5, 2, 3, 2.5, math.Ldexp(1, f.emin-f.p+1), f.max()}
	var all []float64
	for _, v := range vs {
		all = append(all, f.round(v), f.round(-v))
	}
	var out [][2]float64
	for _, x := range all {
		for _, y := range all {
			out = append(out, [2]float64{x, y})
		}
	}
	return out
}

func mxSpecials(list [][2]float64) mxDomain { return mxDomain{name: "special values", list: list} }

var mxFuncs = []mxFunc{
	{op: "math.exp", nargs: 1, cref: "expl", ref: unary(math.Exp), bound: [2]float64{1.5, 1.5},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "normal results", main: true, lo: pick(f, -87.3, -708.3), hi: pick(f, 88.72, 709.78)},
				{name: "subnormal results", lo: pick(f, -103.9, -745.1), hi: pick(f, -87.4, -708.4)},
				mxSpecials(specials(f, 88.7228, 88.7229, -103.97, -104, 709.782712893384, 709.7828, -745.13321910194122, -745.14)),
			}
		}},
	{op: "math.exp2", nargs: 1, cref: "exp2l", ref: unary(math.Exp2), bound: [2]float64{1.5, 1.5},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "normal results", main: true, lo: pick(f, -126, -1022), hi: pick(f, 127.99, 1023.99)},
				{name: "subnormal results", lo: pick(f, -150, -1075), hi: pick(f, -126, -1022)},
				mxSpecials(specials(f, 128, -149, -150, 1024, -1074, -1075, 0.3, -0.7)),
			}
		}},
	{op: "math.expm1", nargs: 1, cref: "expm1l", ref: unary(math.Expm1), bound: [2]float64{1.5, 1.5},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "[-1, 1]", main: true, lo: -1, hi: 1},
				{name: "all finite results", main: true, lo: pick(f, -30, -60), hi: pick(f, 88.72, 709.78)},
				mxSpecials(specials(f, 88.7228, 88.7229, 709.782712893384, 709.7828, -40, -1000, 1e-30)),
			}
		}},
	{op: "math.log", nargs: 1, cref: "logl", ref: unary(math.Log), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "(0, max]", main: true, lo: 0, hi: f.max()},
				{name: "[0.5, 2]", main: true, lo: 0.5, hi: 2},
				mxSpecials(specials(f, 0.999, 1.001, math.Sqrt2, math.Sqrt2/2)),
			}
		}},
	{op: "math.log2", nargs: 1, cref: "log2l", ref: unary(math.Log2), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "(0, max]", main: true, lo: 0, hi: f.max()},
				{name: "[0.5, 2]", main: true, lo: 0.5, hi: 2},
				mxSpecials(specials(f, 1024, 0.999, 1.001)),
			}
		}},
	{op: "math.log10", nargs: 1, cref: "log10l", ref: unary(math.Log10), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "(0, max]", main: true, lo: 0, hi: f.max()},
				{name: "[0.5, 2]", main: true, lo: 0.5, hi: 2},
				mxSpecials(specials(f, 1000, 1e6, 0.999, 1.001)),
			}
		}},
	{op: "math.log1p", nargs: 1, cref: "log1pl", ref: unary(math.Log1p), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "(-1, max]", main: true, lo: -1, hi: f.max()},
				{name: "[-0.5, 1]", main: true, lo: -0.5, hi: 1},
				mxSpecials(specials(f, -0.999, -1e-30, 1e-30, -0.5)),
			}
		}},
	{op: "math.powf", nargs: 2, cref: "powl", ref: math.Pow, bound: [2]float64{1.5, 1.5},
		doms: func(f mxFormat) []mxDomain {
			lmax := pick(f, 125, 1020)
			ex := pick(f, 20, 60)
			return []mxDomain{
				{name: "x in [2^-20, 2^20] (f32) / [2^-60, 2^60] (f64), normal results", main: true,
					lo: math.Ldexp(1, -int(ex)), hi: math.Ldexp(1, int(ex)),
					y: func(r *rand.Rand, x float64) float64 {
						l := math.Abs(math.Log2(x))
						if l < 1e-3 {
							l = 1e-3
						}
						return (2*r.Float64() - 1) * math.Min(lmax/l, pick(f, 1e6, 1e12)) * math.Pow(r.Float64(), 4)
					}},
				{name: "x near 1, large y", main: true, lo: 1 - 1.0/64, hi: 1 + 1.0/64,
					y: func(r *rand.Rand, x float64) float64 {
						l := math.Max(math.Abs(math.Log2(x)), math.Ldexp(1, -f.p+1))
						return (2*r.Float64() - 1) * lmax / l
					}},
				{name: "x < 0, integer y", main: true, lo: -64, hi: -1.0 / 64,
					y: func(r *rand.Rand, x float64) float64 {
						l := math.Abs(math.Log2(-x))
						return math.Round((2*r.Float64() - 1) * math.Min(lmax/math.Max(l, 1.0/64), 1000))
					}},
				mxSpecials(specialPairs(f)),
			}
		}},
	{op: "math.sin", nargs: 1, cref: "sinl", ref: unary(math.Sin), bound: [2]float64{1, 1},
		doms: trigDomains, bounded: true},
	{op: "math.cos", nargs: 1, cref: "cosl", ref: unary(math.Cos), bound: [2]float64{1, 1},
		doms: trigDomains, bounded: true},
	{op: "math.tan", nargs: 1, cref: "tanl", ref: unary(math.Tan), bound: [2]float64{1, 1},
		doms: trigDomains},
	{op: "math.tanh", nargs: 1, cref: "tanhl", ref: unary(math.Tanh), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -30, hi: 30},
				{name: "[-1, 1]", main: true, lo: -1, hi: 1},
				mxSpecials(specials(f, 0.55, 9, 9.5, 19, 20, 21, 1e-30)),
			}
		}},
	{op: "math.atan", nargs: 1, cref: "atanl", ref: unary(math.Atan), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -f.max(), hi: f.max()},
				{name: "[-4, 4]", main: true, lo: -4, hi: 4},
				mxSpecials(specials(f, 0.1317, 0.2679, 0.4142, 0.5774, 0.7673, 1.3032, 1.7321, 2.4142, 3.7321, 7.5958, 1e30)),
			}
		}},
	{op: "math.atan2", nargs: 2, cref: "atan2l", ref: math.Atan2, bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all quadrants, |log2|y/x|| <= 60", main: true, lo: -f.max(), hi: f.max(),
					y: func(r *rand.Rand, x float64) float64 {
						y := x * math.Ldexp(0.5+r.Float64(), r.Intn(121)-60)
						if r.Intn(2) == 0 {
							y = -y
						}
						return f.round(y)
					}},
				{name: "all pairs", lo: -f.max(), hi: f.max(),
					y: func(r *rand.Rand, x float64) float64 { return f.round(mxRandom(r, f, -f.max(), f.max())) }},
				mxSpecials(specialPairs(f)),
			}
		}},
	{op: "math.erf", nargs: 1, cref: "erfl", ref: unary(math.Erf), bound: [2]float64{1.5, 1.5},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -7, hi: 7},
				{name: "[-1, 1]", main: true, lo: -1, hi: 1},
				mxSpecials(specials(f, 0.999, 1.001, 1.75, 2.75, 3.92, 4, 5.93, 6, 1e-30)),
			}
		}},
	{op: "math.cbrt", nargs: 1, cref: "cbrtl", ref: unary(math.Cbrt), bound: [2]float64{1, 1},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -f.max(), hi: f.max()},
				mxSpecials(specials(f, 8, 27, 1000, -64, 3)),
			}
		}},
	{op: "math.roundeven", nargs: 1, cref: "rintl", ref: unary(math.RoundToEven), bound: [2]float64{0, 0},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -f.max(), hi: f.max()},
				{name: "[-10, 10]", main: true, lo: -10, hi: 10},
				mxSpecials(specials(f, 0.49999997, 1.5, 2.5, 3.5, -0.5, math.Ldexp(1, f.p-1)-0.5, math.Ldexp(1, f.p-2)+0.5)),
			}
		}},
}

// mxPi is π to 80 digits, for the test points next to multiples of π/2.
var mxPi, _ = new(big.Float).SetPrec(300).SetString("3.1415926535897932384626433832795028841971693993751058209749445923078164062862089986")

// mxHardF32 are the f32 arguments in [π/4, 2^22 π] closest to a multiple
// of π/2 (|x - kπ/2| from 2^-27.8 to 2^-23.8), found by an exhaustive
// search in double-double arithmetic: the hardest cases of the reduction.
var mxHardF32 = []float64{
	252.89821, 505.79642, 4.712389, 52516.434, 1011.59283, 2.7096755e+06, 9.424778, 105032.87,
	2023.1857, 267058.94, 14.137167, 5.419351e+06, 1.5707964, 18.849556, 8.1290265e+06,
	2238.3848, 23.561945, 210065.73, 4046.3713, 534117.9,
}

// trigDomains: the reduction is exact up to 2^(p-2) π (1.3e7 for f32, 7e15
// for f64), where the error bounds are asserted; beyond, the results are
// only checked to be bounded.
func trigDomains(f mxFormat) []mxDomain {
	lim := math.Ldexp(math.Pi, f.p-2)
	var near [][2]float64
	add := func(x float64) {
		for _, v := range []float64{x, math.Nextafter(x, math.Inf(1)), math.Nextafter(x, math.Inf(-1))} {
			if f.p == 24 {
				v = float64(float32(v))
			}
			near = append(near, [2]float64{v, 0}, [2]float64{-v, 0})
		}
	}
	if f.p == 24 {
		for _, x := range mxHardF32 {
			add(float64(math.Nextafter32(float32(x), float32(x))))
		}
	}
	// The float nearest to k π/2 for k spread over [1, 2^(p-1)).
	r := rand.New(rand.NewSource(7))
	pio2 := new(big.Float).SetPrec(300).Quo(mxPi, big.NewFloat(2))
	for i := 0; i < 200; i++ {
		k := math.Floor(math.Ldexp(1+r.Float64(), r.Intn(f.p-1)))
		x, _ := new(big.Float).SetPrec(300).Mul(pio2, big.NewFloat(k)).Float64()
		if f.p == 24 {
			x32, _ := new(big.Float).SetPrec(300).Mul(pio2, big.NewFloat(k)).Float32()
			x = float64(x32)
		}
		if x < lim {
			add(x)
		}
	}
	return []mxDomain{
		{name: fmt.Sprintf("|x| < 2^%d π", f.p-2), main: true, lo: -lim, hi: lim},
		{name: "[-π, π]", main: true, lo: -math.Pi, hi: math.Pi},
		{name: "next to multiples of π/2", main: true, list: near},
		{name: fmt.Sprintf("|x| >= 2^%d π (bounded only)", f.p-2), lo: lim, hi: f.max()},
		mxSpecials(specials(f, math.Pi, math.Pi/2, math.Pi/4, 1e5, 1e9)),
	}
}

// mxRandom is a random value in [lo, hi]: uniform or log-uniform (by
// binade of the magnitude), half and half.
func mxRandom(r *rand.Rand, f mxFormat, lo, hi float64) float64 {
	if r.Intn(2) == 0 {
		return f.round(lo + (hi-lo)*r.Float64())
	}
	for {
		// A binade 2^e of |x| that meets the range, e from the smallest
		// subnormal to the largest finite exponent.
		emax := math.Ilogb(math.Max(math.Abs(lo), math.Abs(hi)))
		emin := f.emin - f.p + 1
		if lo > 0 {
			emin = max(emin, math.Ilogb(lo))
		} else if hi < 0 {
			emin = max(emin, math.Ilogb(-hi))
		}
		e := emin + r.Intn(emax-emin+1)
		v := math.Ldexp(1+r.Float64(), e)
		if r.Intn(2) == 0 {
			v = -v
		}
		v = f.round(v)
		if v >= lo && v <= hi {
			return v
		}
	}
}

// mxInputs generates the inputs of one domain.
func mxInputs(d mxDomain, f mxFormat, fn mxFunc, seed int64, scale int) [][2]float64 {
	out := append([][2]float64(nil), d.list...)
	if d.lo == 0 && d.hi == 0 {
		return out
	}
	r := rand.New(rand.NewSource(seed))
	n := d.n
	if n == 0 {
		n = 2000
	}
	for i := 0; i < n*scale; i++ {
		x := mxRandom(r, f, d.lo, d.hi)
		var y float64
		if fn.nargs == 2 {
			y = f.round(d.y(r, x))
		}
		out = append(out, [2]float64{x, y})
	}
	return out
}

// mxModule is the MLIR of one function per op: scalar (@k_NAME) and on
// vector<WxT> (@k_NAME_v, n a multiple of w).
func mxModule(f mxFormat, funcs []mxFunc, w int) string {
	var b strings.Builder
	vt := fmt.Sprintf("vector<%dxT>", w)
	for _, fn := range funcs {
		args := "%x: memref<?xT>"
		loads := "    %a = affine.load %x[%i] : memref<?xT>\n"
		vloads := "    %a = affine.vector_load %x[%i] : memref<?xT>, " + vt + "\n"
		opnds, types := "%a", "T"
		if fn.nargs == 2 {
			args += ", %y: memref<?xT>"
			loads += "    %b = affine.load %y[%i] : memref<?xT>\n"
			vloads += "    %b = affine.vector_load %y[%i] : memref<?xT>, " + vt + "\n"
			opnds, types = "%a, %b", "T, T"
		}
		for _, vec := range []bool{false, true} {
			name, ld, step, et := "k_"+fn.name(), loads, "", "T"
			st := "    affine.store %r, %out[%i] : memref<?xT>\n"
			if vec {
				name, ld, step, et = name+"_v", vloads, fmt.Sprintf(" step %d", w), vt
				st = "    affine.vector_store %r, %out[%i] : memref<?xT>, " + vt + "\n"
			}
			ts := strings.ReplaceAll(types, "T", et)
			fmt.Fprintf(&b, "func.func @%s(%s, %%out: memref<?xT>) {\n", name, args)
			b.WriteString("  %c0 = arith.constant 0 : index\n  %n = memref.dim %x, %c0 : memref<?xT>\n")
			fmt.Fprintf(&b, "  affine.for %%i = 0 to %%n%s {\n%s", step, ld)
			fmt.Fprintf(&b, "    %%r = \"%s\"(%s) {fastmath = #arith.fastmath<none>} : (%s) -> %s\n", fn.op, opnds, ts, et)
			b.WriteString(st + "  }\n  return\n}\n\n")
		}
	}
	return strings.ReplaceAll(b.String(), "T", f.name)
}

// mxDriver is the C program: for every function it reads n and the inputs
// from argv[1], calls the scalar and the vector kernels and writes both
// results (and, for f64, the long double reference as hi, lo) to argv[2].
func mxDriver(f mxFormat, funcs []mxFunc) string {
	var b strings.Builder
	fmt.Fprintf(&b, `#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
typedef %[1]s T;
typedef struct { T *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } desc;
static desc mk(T *p, int64_t n) { desc d = {p, p, 0, {n}, {1}}; return d; }
static void rd(void *p, size_t sz, size_t n, FILE *f) { if (fread(p, sz, n, f) != n) { fprintf(stderr, "short read\n"); exit(2); } }
static void wr(const void *p, size_t sz, size_t n, FILE *f) { if (fwrite(p, sz, n, f) != n) { fprintf(stderr, "short write\n"); exit(2); } }
/* L - hi in ulps of hi (the spacing of doubles at hi, 2^-1074 at least),
   so that the low part survives for results near the underflow range. */
static double ulps(long double L, double hi) {
  if (!isfinite(hi)) return 0;
  int e = hi == 0 ? -1074 : ilogb(hi) - 52;
  if (e < -1074) e = -1074;
  return (double)((L - (long double)hi) / ldexpl(1, e));
}
static long double rsqrtl(long double x) { return 1.0L / sqrtl(x); }
`, f.c)
	for _, fn := range funcs {
		ps := "desc *, desc *"
		if fn.nargs == 2 {
			ps = "desc *, desc *, desc *"
		}
		fmt.Fprintf(&b, "int32_t k_%s(%s);\nint32_t k_%s_v(%s);\n", fn.name(), ps, fn.name(), ps)
	}
	b.WriteString(`int main(int argc, char **argv) {
  FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[2], "wb");
  if (!in || !out) return 2;
  int64_t n;
  T *x, *y, *r, *rv;
  desc dx, dy, dr, drv;
`)
	for _, fn := range funcs {
		fmt.Fprintf(&b, "  rd(&n, 8, 1, in);\n  x = malloc(n * sizeof(T)); y = malloc(n * sizeof(T)); r = malloc(n * sizeof(T)); rv = malloc(n * sizeof(T));\n")
		b.WriteString("  rd(x, sizeof(T), n, in); rd(y, sizeof(T), n, in);\n  dx = mk(x, n); dy = mk(y, n); dr = mk(r, n); drv = mk(rv, n);\n")
		call := "&dx, &dr"
		callv := "&dx, &drv"
		if fn.nargs == 2 {
			call, callv = "&dx, &dy, &dr", "&dx, &dy, &drv"
		}
		fmt.Fprintf(&b, "  if (k_%s(%s) || k_%s_v(%s)) { fprintf(stderr, \"k_%s failed\\n\"); return 1; }\n", fn.name(), call, fn.name(), callv, fn.name())
		b.WriteString("  wr(r, sizeof(T), n, out); wr(rv, sizeof(T), n, out);\n")
		if f.p == 53 {
			arg := "(long double)x[i]"
			if fn.nargs == 2 {
				arg += ", (long double)y[i]"
			}
			fmt.Fprintf(&b, "  for (int64_t i = 0; i < n; i++) { long double L = %s(%s); double hi = (double)L, lo = ulps(L, hi); wr(&hi, 8, 1, out); wr(&lo, 8, 1, out); }\n", fn.cref, arg)
		}
		b.WriteString("  free(x); free(y); free(r); free(rv);\n")
	}
	b.WriteString("  fclose(out);\n  return 0;\n}\n")
	return b.String()
}

// mxAllowedCalls are the functions an expanded kernel may call: the math
// intrinsics every backend selects, and snprintf for the ABI's argument
// checks.
var mxAllowedCalls = regexp.MustCompile(`^(llvm\.(fma|fabs|floor|sqrt|copysign)\.(v4)?f(32|64)|snprintf)$`)

// mxResult is the error of one domain.
type mxResult struct {
	fn      mxFunc
	dom     mxDomain
	n       int
	maxUlp  float64
	x, y    float64
	got     float64
	ref     float64
	failure string // a special value or a vector lane that is wrong
}

func TestMathExpandAccuracy(t *testing.T) {
	needToolchain(t)
	mxCheck(t, mxMode{pass: true, funcs: mxFuncs, width: 4, allowed: mxAllowedCalls})
}

// mxMode says how the functions are compiled: expanded by expand-math and
// emitted for generic x86-64 (pass), or emitted by convert-to-llvm for the
// CPU, whose math=auto expands them itself (lower/tollvm/cpumath.go: all
// of them with FMA instructions, exp without fma elsewhere), on vectors of
// width lanes.
type mxMode struct {
	pass    bool
	cpu     string
	funcs   []mxFunc
	width   int
	allowed *regexp.Regexp // the functions the module may call
}

// mxNative are the functions CPU code computes with an instruction: the
// square root correctly rounded, and its reciprocal as a division of it
// (two roundings, as the interpreter computes it: a relative error below
// 2^(1-p), so below 2 ulp).
var mxNative = []mxFunc{
	{op: "math.sqrt", nargs: 1, cref: "sqrtl", ref: unary(math.Sqrt), bound: [2]float64{0.5, 0.5},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -f.max(), hi: f.max()},
				mxSpecials(specials(f, 4, 2, 1e-40)),
			}
		}},
	{op: "math.rsqrt", nargs: 1, cref: "rsqrtl", ref: unary(func(x float64) float64 { return 1 / math.Sqrt(x) }), bound: [2]float64{2, 2},
		doms: func(f mxFormat) []mxDomain {
			return []mxDomain{
				{name: "all reals", main: true, lo: -f.max(), hi: f.max()},
				mxSpecials(specials(f, 4, 2, 1e-40)),
			}
		}},
}

// mxCPUAllowedCalls: on a CPU with FMA, llc selects each of these
// intrinsics as an instruction (roundeven is not expanded there);
// mxGenericAllowedCalls: on generic x86-64 (no fma, no floor, which would
// be calls there).
var (
	mxCPUAllowedCalls     = regexp.MustCompile(`^(llvm\.(fma|fabs|floor|sqrt|copysign|roundeven)\.(v8)?f(32|64)|snprintf)$`)
	mxGenericAllowedCalls = regexp.MustCompile(`^(llvm\.(fabs|sqrt|copysign)\.(v8)?f(32|64)|snprintf)$`)
)

// TestCPUMathAccuracy measures the math functions of CPU code built for
// x86-64-v3 (AVX2 and FMA) by the default convert-to-llvm (math=auto):
// the expansions in scalar code and on vector<8xT>, which must give the
// same bits, and the native square root. It runs where this machine can
// execute x86-64-v3 code.
func TestCPUMathAccuracy(t *testing.T) {
	needToolchain(t)
	if level, _, err := tollvm.ResolveCPU("x86_64", "native"); err != nil || (level != "x86-64-v3" && level != "x86-64-v4") {
		t.Skipf("this machine does not run x86-64-v3 code (%s %v)", level, err)
	}
	mxCheck(t, mxMode{cpu: "x86-64-v3", funcs: append(append([]mxFunc(nil), mxFuncs...), mxNative...), width: 8, allowed: mxCPUAllowedCalls})
}

// TestCPUMathAccuracyNoFMA measures the math of generic x86-64 code (SSE2,
// no FMA instructions), where convert-to-llvm expands exp without fma and
// leaves the other functions to libm: exp in scalars and on vector<8xT>,
// the same bits in both, and the native square roots.
func TestCPUMathAccuracyNoFMA(t *testing.T) {
	needToolchain(t)
	if _, _, err := tollvm.ResolveCPU("x86_64", "native"); err != nil {
		t.Skipf("this machine does not run x86-64 code (%v)", err)
	}
	funcs := append([]mxFunc{mxFuncs[0]}, mxNative...)
	if funcs[0].op != "math.exp" {
		t.Fatal("mxFuncs[0] is not exp")
	}
	mxCheck(t, mxMode{funcs: funcs, width: 8, allowed: mxGenericAllowedCalls})
}

// mxCheck measures every function of the mode in f32 and f64 and asserts
// the bounds.
func mxCheck(t *testing.T, mode mxMode) {
	scale := 1
	if s := os.Getenv("TIR_MATH_SWEEP"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("TIR_MATH_SWEEP=%q: want a positive integer", s)
		}
		scale = n
	}
	for _, f := range []mxFormat{mxF32, mxF64} {
		f := f
		t.Run(f.name, func(t *testing.T) {
			t.Parallel()
			results := mxRun(t, f, scale, mode)
			var lines []string
			for _, r := range results {
				mark := " "
				if r.dom.main {
					mark = "*"
				}
				lines = append(lines, fmt.Sprintf("%s %-10s %-55s n=%-7d max %.3g ulp at a=%v b=%v (got %v, want %v)",
					mark, r.fn.name(), r.dom.name, r.n, r.maxUlp, r.x, r.y, r.got, r.ref))
				if r.failure != "" {
					t.Errorf("%s %s, %s: %s", f.name, r.fn.op, r.dom.name, r.failure)
				}
				bound := r.fn.bound[0]
				if f.p == 53 {
					bound = r.fn.bound[1]
				}
				if r.dom.main && r.maxUlp > bound {
					t.Errorf("%s %s, %s: max error %.3g ulp at a=%v b=%v (got %v, want %v) exceeds the documented %g ulp",
						f.name, r.fn.op, r.dom.name, r.maxUlp, r.x, r.y, r.got, r.ref, bound)
				}
			}
			t.Logf("%s accuracy (* = asserted domain):\n%s", f.name, strings.Join(lines, "\n"))
		})
	}
}

// mxRun builds, runs and measures every function of the mode in format f.
func mxRun(t *testing.T, f mxFormat, scale int, mode mxMode) []mxResult {
	funcs, w := mode.funcs, mode.width
	m, diags := parser.Parse("mathexpand_"+f.name+".mlir", mxModule(f, funcs, w))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if mode.pass {
		if err := mathexpand.Expand(m.Op); err != nil {
			t.Fatal(err)
		}
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	llvm, err := tollvm.Emit(m, tollvm.Options{Target: "x86_64", CPU: mode.cpu})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range regexp.MustCompile(`(?m)^declare .*?@([\w.]+)\(`).FindAllStringSubmatch(llvm, -1) {
		if !mode.allowed.MatchString(d[1]) {
			t.Errorf("the expanded module calls %s", d[1])
		}
	}
	dir := t.TempDir()
	ll, obj := filepath.Join(dir, "m.ll"), filepath.Join(dir, "m.o")
	if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
		t.Fatal(err)
	}
	llc, err := native.Tool("llc")
	if err != nil {
		t.Fatal(err)
	}
	if !mode.pass {
		// Every intrinsic must be an instruction: no call but the
		// argument checks' snprintf (and the kernels' own bodies).
		out, err := exec.Command(llc, "-O2", "-relocation-model=pic", ll, "-o", "-").CombinedOutput()
		if err != nil {
			t.Fatalf("llc: %v\n%s", err, out)
		}
		for _, c := range regexp.MustCompile(`(?m)^\s*(?:call|jmp)q?\s+([\w.@]+)`).FindAllStringSubmatch(string(out), -1) {
			if !strings.HasPrefix(c[1], "snprintf") && !strings.HasPrefix(c[1], ".L") && !strings.HasPrefix(c[1], "k_") {
				t.Errorf("the code built for %s calls %s", mode.cpu, c[1])
			}
		}
	}
	if out, err := exec.Command(llc, "-O2", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("llc: %v\n%s", err, out)
	}
	csrc, exe := filepath.Join(dir, "driver.c"), filepath.Join(dir, "run")
	if err := os.WriteFile(csrc, []byte(mxDriver(f, funcs)), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-O2", "-o", exe, csrc, obj, "-lm").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}

	// Inputs: the domains of each function, concatenated.
	type span struct {
		dom        mxDomain
		start, end int
	}
	var input []byte
	var spans [][]span
	var inputs [][][2]float64
	for i, fn := range funcs {
		var all [][2]float64
		var ss []span
		for j, d := range fn.doms(f) {
			xs := mxInputs(d, f, fn, int64(1000*i+j+1), scale)
			ss = append(ss, span{d, len(all), len(all) + len(xs)})
			all = append(all, xs...)
		}
		for len(all)%w != 0 { // the vector kernel takes w at a time
			all = append(all, [2]float64{1, 1})
		}
		spans, inputs = append(spans, ss), append(inputs, all)
		input = binary.LittleEndian.AppendUint64(input, uint64(len(all)))
		for k := 0; k < 2; k++ {
			for _, v := range all {
				input = mxAppend(input, f, v[k])
			}
		}
	}
	inFile, outFile := filepath.Join(dir, "in.bin"), filepath.Join(dir, "out.bin")
	if err := os.WriteFile(inFile, input, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(exe, inFile, outFile).CombinedOutput(); err != nil {
		t.Fatalf("driver: %v\n%s", err, out)
	}
	output, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}

	var results []mxResult
	pos := 0
	next := func(size int) float64 {
		var v float64
		if size == 4 {
			v = float64(math.Float32frombits(binary.LittleEndian.Uint32(output[pos:])))
		} else {
			v = math.Float64frombits(binary.LittleEndian.Uint64(output[pos:]))
		}
		pos += size
		return v
	}
	for i, fn := range funcs {
		n := len(inputs[i])
		got, gotv := make([]float64, n), make([]float64, n)
		for k := range got {
			got[k] = next(f.size)
		}
		for k := range gotv {
			gotv[k] = next(f.size)
		}
		refHi, refLo := make([]float64, n), make([]float64, n)
		for k := range refHi {
			if f.p == 53 {
				refHi[k], refLo[k] = next(8), next(8)
			} else {
				refHi[k] = fn.ref(inputs[i][k][0], inputs[i][k][1])
			}
		}
		for _, s := range spans[i] {
			res := mxResult{fn: fn, dom: s.dom, n: s.end - s.start}
			for k := s.start; k < s.end; k++ {
				x, y := inputs[i][k][0], inputs[i][k][1]
				g := got[k]
				if math.Float64bits(g) != math.Float64bits(gotv[k]) && !(math.IsNaN(g) && math.IsNaN(gotv[k])) {
					res.failure = fmt.Sprintf("a=%v b=%v: vector lane gives %v, scalar %v", x, y, gotv[k], g)
				}
				e, bad := mxError(f, g, refHi[k], refLo[k])
				if fn.bounded && !math.IsInf(x, 0) && !math.IsNaN(x) && !(math.Abs(g) <= 1) {
					bad = "out of [-1, 1]"
				}
				if fn.op == "math.tan" && !math.IsInf(x, 0) && !math.IsNaN(x) && (math.IsInf(g, 0) || math.IsNaN(g)) {
					bad = "not finite"
				}
				if bad != "" && res.failure == "" {
					res.failure = fmt.Sprintf("a=%v b=%v: got %v, want %v (%s)", x, y, g, f.round(refHi[k]), bad)
				}
				if e > res.maxUlp || (res.x == 0 && res.y == 0 && e == res.maxUlp) {
					res.maxUlp, res.x, res.y, res.got, res.ref = e, x, y, g, refHi[k]
				}
			}
			results = append(results, res)
		}
	}
	return results
}

func mxAppend(b []byte, f mxFormat, v float64) []byte {
	if f.size == 4 {
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)))
	}
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
}

// mxError is the error of got in ulps of the reference hi + lo (lo given
// in ulps of hi), and a description when got is wrong beyond ulps: NaN, an
// infinity or a zero (with its sign) where the rounded reference differs.
func mxError(f mxFormat, got, hi, lo float64) (float64, string) {
	want := f.round(hi)
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		if math.IsNaN(want) != math.IsNaN(got) {
			return math.Inf(1), "NaN mismatch"
		}
		return 0, ""
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		if got != want {
			return math.Inf(1), "infinity mismatch"
		}
		return 0, ""
	case want == 0 && got == 0:
		if math.Signbit(want) != math.Signbit(got) {
			return math.Inf(1), "sign of zero"
		}
		return 0, ""
	}
	return math.Abs((got-hi)/f.ulp(hi) - lo), ""
}

// mxKernels is a gpu.module with one kernel per function, applying it to
// element thread_id.x of its memref arguments, in the given element types.
func mxKernels(elems ...string) string {
	var b strings.Builder
	b.WriteString("module attributes {gpu.container_module} {\n  gpu.module @kernels {\n")
	for _, t := range elems {
		for _, fn := range mxFuncs {
			opnds, types := "%a", "T"
			load := "        %a = memref.load %x[%i] : memref<?xT>\n"
			if fn.nargs == 2 {
				opnds, types = "%a, %b", "T, T"
				load += "        %b = memref.load %y[%i] : memref<?xT>\n"
			}
			fmt.Fprintf(&b, "    gpu.func @k_%s_T(%%x: memref<?xT>, %%y: memref<?xT>, %%out: memref<?xT>, %%n: index) kernel {\n", fn.name())
			b.WriteString("      %i = gpu.thread_id  x\n      %in = arith.cmpi slt, %i, %n : index\n      scf.if %in {\n" + load)
			fmt.Fprintf(&b, "        %%r = \"%s\"(%s) {fastmath = #arith.fastmath<none>} : (%s) -> T\n", fn.op, opnds, types)
			b.WriteString("        memref.store %r, %out[%i] : memref<?xT>\n      }\n      gpu.return\n    }\n")
			s := b.String()
			b.Reset()
			b.WriteString(strings.ReplaceAll(s, "T", t))
		}
	}
	b.WriteString("  }\n}\n")
	return b.String()
}

// TestMathExpandNVPTX checks that expanded kernels in f16, f32 and f64 go
// through LLVM 14's NVPTX backend (llc -march=nvptx64 -mcpu=sm_80 fails
// with "Cannot select" or "Undefined external symbol" on llvm.exp,
// llvm.sin, llvm.pow, ... and libm calls), and through ptxas when `make
// deps` fetched it.
func TestMathExpandNVPTX(t *testing.T) {
	needToolchain(t)
	m, diags := parser.Parse("kernels.mlir", mxKernels("f16", "f32", "f64"))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if err := mathexpand.Expand(m.Op); err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	llvm, err := tollvm.Emit(m, tollvm.Options{Target: "nvptx64"})
	if err != nil {
		t.Fatalf("tollvm nvptx64: %v", err)
	}
	for _, d := range regexp.MustCompile(`(?m)^declare .*?@([\w.]+)\(`).FindAllStringSubmatch(llvm, -1) {
		if !mxAllowedCalls.MatchString(d[1]) && !strings.HasPrefix(d[1], "llvm.nvvm.") {
			t.Errorf("the expanded kernels call %s", d[1])
		}
	}
	dir := t.TempDir()
	ll, ptx := filepath.Join(dir, "k.ll"), filepath.Join(dir, "k.ptx")
	if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
		t.Fatal(err)
	}
	llc, err := native.Tool("llc")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(llc, "-O2", "-march=nvptx64", "-mcpu=sm_80", ll, "-o", ptx).CombinedOutput(); err != nil {
		t.Fatalf("llc -march=nvptx64: %v\n%s", err, out)
	}
	ptxas, err := native.PTXAS()
	if err != nil {
		t.Logf("ptxas not found, PTX not assembled: %v", err)
		return
	}
	if out, err := exec.Command(ptxas, "-arch=sm_80", ptx, "-o", filepath.Join(dir, "k.cubin")).CombinedOutput(); err != nil {
		t.Fatalf("ptxas: %v\n%s", err, out)
	}
}
