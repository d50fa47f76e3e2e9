package interp

import (
	"math"
	"math/big"

	"tir/dialects/ir"
)

// Floats are computed in float64 and rounded to the element type after every
// operation. For +, -, *, / and sqrt this is exactly the IEEE operation of
// the narrower type (float64 carries more than twice the precision of f32,
// f16 and bf16 plus two bits, so the double rounding is innocuous): compiled
// code that performs the same operations in the same order gives
// bit-identical results. f16 and bf16 compute every op in f32 and round the
// f32 result once (spec 2.7; floatRounding), which for these operations is
// again the correctly rounded result. Transcendental functions (exp, sin,
// pow, ...) are float64 library results rounded once; a compiled libm may
// differ by an ulp.

// RoundTo rounds x to the nearest value of the float type elem, ties to
// even, with overflow to infinity and gradual underflow, as a conversion to
// that type would. Non-float types return x unchanged.
func RoundTo(elem ir.Type, x float64) float64 {
	ft, ok := elem.(ir.FloatType)
	if !ok {
		return x
	}
	switch ft.Name {
	case "f32":
		return float64(float32(x))
	case "f16":
		return roundBinary(x, 11, -14, math.Ldexp(2047, 5))
	case "bf16":
		return roundBinary(x, 8, -126, math.Ldexp(255, 120))
	}
	return x
}

// roundBinary rounds to a binary format with p significand bits (including
// the implicit one), minimum normal exponent emin and largest finite value
// max. The quantum of the binade of x (or of the subnormal range) divides x
// exactly in float64, so RoundToEven on the scaled value is the correct
// rounding.
func roundBinary(x float64, p, emin int, max float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	a := math.Abs(x)
	_, e := math.Frexp(a) // a in [2^(e-1), 2^e)
	exp := e - 1
	if exp < emin {
		exp = emin
	}
	q := math.Ldexp(1, exp-(p-1))
	r := math.RoundToEven(a/q) * q
	if r > max {
		r = math.Inf(1)
	}
	return math.Copysign(r, x)
}

// precision is the significand width of a float type, for exact integer
// conversions.
func precision(ft ir.FloatType) uint {
	switch ft.Name {
	case "f16":
		return 11
	case "bf16":
		return 8
	case "f32":
		return 24
	}
	return 53
}

// intToFloat converts a (signed) integer to the float type with one correct
// rounding, as sitofp does: going through float64 first would round twice
// for magnitudes above 2^53.
func intToFloat(v int64, elem ir.Type) float64 {
	ft, _ := elem.(ir.FloatType)
	if v > -(1<<53) && v < 1<<53 {
		return RoundTo(elem, float64(v))
	}
	f := new(big.Float).SetPrec(precision(ft)).SetMode(big.ToNearestEven).SetInt64(v)
	r, _ := f.Float64()
	return RoundTo(elem, r) // only overflow (f16) remains to apply
}

// HalfToFloat decodes IEEE binary16 bits.
func HalfToFloat(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * math.Ldexp(1024+frac, exp-25)
}

// FloatToHalf encodes x as IEEE binary16 bits, rounding to nearest-even
// first (the identity on a value already rounded to f16); every NaN
// becomes the quiet NaN 0x7e00, as the compiled code stores it.
func FloatToHalf(x float64) uint16 {
	x = RoundTo(ir.F16, x)
	var sign uint16
	if math.Signbit(x) {
		sign = 0x8000
	}
	a := math.Abs(x)
	switch {
	case math.IsNaN(x):
		return 0x7e00
	case math.IsInf(a, 1) || a > 65504:
		return sign | 0x7c00
	case a < math.Ldexp(1, -14):
		return sign | uint16(math.RoundToEven(math.Ldexp(a, 24)))
	}
	_, e := math.Frexp(a)
	exp := e - 1
	frac := math.RoundToEven(math.Ldexp(a, 10-exp)) - 1024
	return sign | uint16(exp+15)<<10 | uint16(frac)
}

// BFloat16ToFloat decodes bfloat16 bits: the high half of an IEEE binary32.
func BFloat16ToFloat(h uint16) float64 {
	return float64(math.Float32frombits(uint32(h) << 16))
}

// FloatToBFloat16 encodes x as bfloat16 bits, rounding to nearest-even
// (the identity on a value already rounded to bf16); every NaN becomes the
// quiet NaN 0x7fc0, as the compiled code stores it.
func FloatToBFloat16(x float64) uint16 {
	if math.IsNaN(x) {
		return 0x7fc0
	}
	return uint16(math.Float32bits(float32(RoundTo(ir.BF16, x))) >> 16)
}
