package interp

import (
	"fmt"
	"math"

	"tir/dialects/ir"
)

// Scalar semantics of the elementwise ops, by element kind (spec 2.7).
// Every float function receives r, the rounding of intermediate steps, and
// rounds after each step of a composite operation (sigmoid, rsqrt, rem)
// exactly as the lowering sequences the steps; the caller rounds the final
// result (see floatRounding).

type floatBinaryFn func(a, b float64) float64
type intBinaryFn func(a, b int64) (int64, error)
type floatUnaryFn func(x float64, r func(float64) float64) float64
type intUnaryFn func(a int64) int64

var floatBinary = map[string]floatBinaryFn{
	"add": func(a, b float64) float64 { return a + b },
	"sub": func(a, b float64) float64 { return a - b },
	"mul": func(a, b float64) float64 { return a * b },
	"div": func(a, b float64) float64 { return a / b },
	// x - y*floor(x/y) in float64 steps; elementwise ops use the stepped
	// form of floatSteppedBinary.
	"rem": func(a, b float64) float64 { return floatRem(a, b, func(x float64) float64 { return x }) },
	// IEEE minimum/maximum: NaN propagates and -0 < +0 (arith.minf).
	"min": Minimum,
	"max": Maximum,
	"pow": math.Pow,
}

// Minimum is IEEE 754's minimum (arith.minf): NaN if either operand is
// NaN, and -0 < +0. Go's math.Min returns -Inf before it looks for a NaN
// (math.Min(-Inf, NaN) is -Inf), which compiled code does not.
func Minimum(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Min(a, b)
}

// Maximum is IEEE 754's maximum (arith.maxf), NaN-propagating like Minimum.
func Maximum(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return math.Max(a, b)
}

// floatTypedBinary are the binary ops whose result depends on the element
// type beyond one rounding: nextafter steps in the element type's own
// format (f16 and bf16 too, which other ops compute in f32).
var floatTypedBinary = map[string]func(elem ir.Type, a, b float64) float64{
	"nextafter": NextAfter,
}

// NextAfter is C's nextafter in the float type elem: the value of elem next
// to a in the direction of b; b when a == b (so nextafter(0, -0) is -0,
// where Go's math.Nextafter gives a), NaN when either is NaN, the smallest
// subnormal of b's sign from a zero. f64 and f32 step as math.Nextafter and
// math.Nextafter32 (f32 in float32, not in float64); f16 and bf16 step by
// their own significand width and minimum exponent (nextBinary).
func NextAfter(elem ir.Type, a, b float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b):
		return a + b
	case a == b:
		return b
	}
	ft, _ := elem.(ir.FloatType)
	switch ft.Name {
	case "f32":
		return float64(math.Nextafter32(float32(a), float32(b)))
	case "f16":
		return nextBinary(a, b, 11, -14)
	case "bf16":
		return nextBinary(a, b, 8, -126)
	}
	return math.Nextafter(a, b)
}

// nextBinary is nextafter(a, b) for a binary format with p significand bits
// (the implicit one included) and minimum normal exponent emin, a != b and
// neither NaN, a representable in it: a step of one quantum of a's binade
// (of the subnormal range below 2^emin), or of the binade below when a is
// a power of two that steps toward zero. Past the largest finite value is
// infinity; from an infinity, the largest finite value.
func nextBinary(a, b float64, p, emin int) float64 {
	tiny := math.Ldexp(1, emin-(p-1))
	if a == 0 {
		return math.Copysign(tiny, b)
	}
	up := (b > a) == (a > 0) // away from zero
	mag := math.Abs(a)
	// The largest finite value: (2 - 2^(1-p)) 2^emax, emax = 1 - emin.
	maxFinite := math.Ldexp(2-math.Ldexp(1, 1-p), 1-emin)
	if math.IsInf(a, 0) {
		return math.Copysign(maxFinite, a)
	}
	frac, e := math.Frexp(mag) // mag = frac 2^e, frac in [0.5, 1)
	exp := max(e-1, emin)
	if !up && frac == 0.5 && e-1 > emin {
		exp-- // 2^k toward zero: the quantum of the binade below
	}
	q := math.Ldexp(1, exp-(p-1))
	if up {
		mag += q
		if mag > maxFinite {
			mag = math.Inf(1)
		}
	} else {
		mag -= q
	}
	return math.Copysign(mag, a)
}

// floatSteppedBinary are the binary ops of several rounded steps.
var floatSteppedBinary = map[string]func(a, b float64, r func(float64) float64) float64{
	"rem": floatRem,
}

// floatRem is x - y*floor(x/y), each step rounded (spec 2.7: the sign of
// the divisor, like the integer rule). The lowering emits the same four
// operations in the same order, without contraction into an fma.
func floatRem(x, y float64, r func(float64) float64) float64 {
	f := math.Floor(r(x / y))
	p := r(float64(y * f)) // the conversion forbids fusing into an fma
	return r(x - p)
}

// floatRounding gives the rounding of an op's result to the element type
// and that of the intermediate steps of a composite op. f16 and bf16 are
// storage and arithmetic types (spec 2.7): each op computes in f32 and the
// f32 result is rounded to the element type once. Other float types round
// every step to themselves.
func floatRounding(elem ir.Type) (final, step func(float64) float64) {
	if isHalf(elem) {
		step = func(x float64) float64 { return float64(float32(x)) }
		final = func(x float64) float64 { return RoundTo(elem, float64(float32(x))) }
		return final, step
	}
	r := func(x float64) float64 { return RoundTo(elem, x) }
	return r, r
}

// isHalf reports whether elem is one of the 16-bit float types.
func isHalf(elem ir.Type) bool {
	ft, ok := elem.(ir.FloatType)
	return ok && (ft.Name == "f16" || ft.Name == "bf16")
}

var intBinary = map[string]intBinaryFn{
	"add": func(a, b int64) (int64, error) { return a + b, nil },
	"sub": func(a, b int64) (int64, error) { return a - b, nil },
	"mul": func(a, b int64) (int64, error) { return a * b, nil },
	"div": floorDiv,
	"rem": floorRem,
	"min": func(a, b int64) (int64, error) { return min(a, b), nil },
	"max": func(a, b int64) (int64, error) { return max(a, b), nil },
	"pow": ipow,
	"and": func(a, b int64) (int64, error) { return a & b, nil },
	"or":  func(a, b int64) (int64, error) { return a | b, nil },
	"xor": func(a, b int64) (int64, error) { return a ^ b, nil },
}

func lib(f func(float64) float64) floatUnaryFn {
	return func(x float64, _ func(float64) float64) float64 { return f(x) }
}

var floatUnary = map[string]floatUnaryFn{
	"neg":   lib(func(x float64) float64 { return -x }),
	"abs":   lib(math.Abs),
	"exp":   lib(math.Exp),
	"log":   lib(math.Log),
	"sqrt":  lib(math.Sqrt),
	"sin":   lib(math.Sin),
	"cos":   lib(math.Cos),
	"tan":   lib(math.Tan),
	"tanh":  lib(math.Tanh),
	"erf":   lib(math.Erf),
	"floor": lib(math.Floor),
	"ceil":  lib(math.Ceil),
	// Half away from zero, like C round (math.round).
	"round": lib(math.Round),
	// 1 / sqrt(x), two rounded steps (what math.rsqrt expands to).
	"rsqrt": func(x float64, r func(float64) float64) float64 { return 1 / r(math.Sqrt(x)) },
	// 1 / (1 + exp(-x)), each step rounded, as the lowering emits it.
	"sigmoid": func(x float64, r func(float64) float64) float64 {
		return 1 / r(1+r(math.Exp(-x)))
	},
}

var intUnary = map[string]intUnaryFn{
	"neg": func(a int64) int64 { return -a },
	"abs": func(a int64) int64 {
		if a < 0 {
			return -a
		}
		return a
	},
	"not": func(a int64) int64 { return ^a },
}

// cmpFloat and cmpInt implement tir.cmp: ordered comparisons (false on
// NaN), except ne, which is true on NaN (arith.cmpf une).
func cmpFloat(pred string, a, b float64) (bool, error) {
	switch pred {
	case "lt":
		return a < b, nil
	case "le":
		return a <= b, nil
	case "gt":
		return a > b, nil
	case "ge":
		return a >= b, nil
	case "eq":
		return a == b, nil
	case "ne":
		return a != b, nil
	}
	return false, fmt.Errorf("unknown comparison predicate %q", pred)
}

func cmpInt(pred string, a, b int64) (bool, error) {
	switch pred {
	case "lt":
		return a < b, nil
	case "le":
		return a <= b, nil
	case "gt":
		return a > b, nil
	case "ge":
		return a >= b, nil
	case "eq":
		return a == b, nil
	case "ne":
		return a != b, nil
	}
	return false, fmt.Errorf("unknown comparison predicate %q", pred)
}
