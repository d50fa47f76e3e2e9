package interp

import (
	"math"

	"tir/dialects/ir"
)

// Integers are signless, as in MLIR: iN values are kept sign-extended in an
// int64 and wrapped at N bits after every operation (two's complement, no
// undefined overflow). Operations that depend on the sign (div, rem, min,
// max, cmp, abs) read them as signed. i1 is stored as 0 or 1 but reads as
// signed too (true is -1 as a 1-bit signed integer), which is what the
// compiled arith.cmpi/minsi/floordivsi code does.

// width is the bit width of an integer element type (0 for others).
func width(elem ir.Type) int {
	if t, ok := elem.(ir.IntegerType); ok {
		return t.Width
	}
	return 0
}

// wrap reduces v modulo 2^w into the storage representation.
func wrap(v int64, w int) int64 {
	switch {
	case w >= 64:
		return v
	case w == 1:
		return v & 1
	}
	s := uint(64 - w)
	return v << s >> s
}

// signed reads a stored value as a signed integer of width w.
func signed(v int64, w int) int64 {
	if w == 1 {
		return -(v & 1)
	}
	return v
}

// floorDiv rounds the quotient toward negative infinity (TC, Halide).
// Division by zero gives 0 (Halide's convention, spec 2.7), and the most
// negative value divided by -1 wraps (two's complement), as in the compiled
// code; neither is an error. The error result is kept for the uniform
// signature of intBinary.
func floorDiv(a, b int64) (int64, error) {
	switch b {
	case 0:
		return 0, nil
	case -1:
		return -a, nil // wraps for the most negative value
	}
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q, nil
}

// floorRem is the remainder with the sign of the divisor, so that
// a == floorDiv(a, b)*b + floorRem(a, b); the remainder by zero is 0.
func floorRem(a, b int64) (int64, error) {
	if b == 0 || b == -1 {
		return 0, nil
	}
	r := a % b
	if r != 0 && (r < 0) != (b < 0) {
		r += b
	}
	return r, nil
}

// ipow is a**b with wrapping multiplication. A negative exponent gives the
// integer part of 1 / a**-b: 1 and -1 give ±1, every other base 0 — zero
// included, as a division by zero gives 0 (spec 2.7's rule for div; see
// docs/decisions.md). The lowering (tiraffine intPow) computes the same.
func ipow(a, b int64) (int64, error) {
	if b < 0 {
		switch a {
		case 1:
			return 1, nil
		case -1:
			if b%2 == 0 {
				return 1, nil
			}
			return -1, nil
		}
		return 0, nil
	}
	r := int64(1)
	for b > 0 {
		if b&1 != 0 {
			r *= a
		}
		a *= a
		b >>= 1
	}
	return r, nil
}

// floatToInt converts toward zero (fptosi), saturating at the limits of
// width w and giving 0 for NaN (spec 2.7; the compiled code clamps before
// its fptosi). Floats convert to i1 as "not zero", NaN as false.
func floatToInt(x float64, w int) int64 {
	if w == 1 {
		if x != 0 && !math.IsNaN(x) {
			return 1
		}
		return 0
	}
	if math.IsNaN(x) {
		return 0
	}
	x = math.Trunc(x)
	hi := math.Ldexp(1, w-1) // 2^(w-1), exact
	switch {
	case x >= hi:
		return wrap(int64(uint64(1)<<(w-1)-1), w)
	case x < -hi:
		return wrap(int64(uint64(1)<<(w-1)), w)
	}
	return int64(x)
}

// intIdentity gives the identity of an integer reduction at width w.
func intIdentity(kind string, w int) int64 {
	switch kind {
	case "mul":
		return 1
	case "and":
		return wrap(-1, w)
	case "min": // the largest value
		if w == 1 {
			return 0 // false (0) is the largest 1-bit signed value
		}
		return wrap(int64(uint64(1)<<(w-1)-1), w)
	case "max": // the smallest value
		if w == 1 {
			return 1
		}
		return wrap(int64(uint64(1)<<(w-1)), w)
	}
	return 0 // add, or
}
