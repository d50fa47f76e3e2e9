package sizeexpr

import "math"

// Integer helpers with the semantics of the tir dialect: division rounds
// toward negative infinity (floordiv), or toward positive infinity
// (ceildiv), and mod has the sign of the (always positive) divisor. Go's /
// and % truncate toward zero, which is wrong for negative operands.

// floorDivInt returns floor(a / c) for c > 0.
func floorDivInt(a, c int64) int64 {
	q := a / c
	if a%c != 0 && a < 0 {
		q--
	}
	return q
}

// ceilDivInt returns ceil(a / c) for c > 0.
func ceilDivInt(a, c int64) int64 {
	q := a / c
	if a%c != 0 && a > 0 {
		q++
	}
	return q
}

// floorModInt returns a - c*floor(a / c), which is in [0, c) for c > 0.
func floorModInt(a, c int64) int64 {
	r := a % c
	if r < 0 {
		r += c
	}
	return r
}

// gcd returns the greatest common divisor of |a| and |b| (gcd(0, 0) = 0).
func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// addOK returns a + b and whether it did not overflow.
func addOK(a, b int64) (int64, bool) {
	s := a + b
	// Overflow iff a and b have the same sign and s has the other one.
	return s, (a >= 0) != (b >= 0) || (s >= 0) == (a >= 0)
}

// mulOK returns a * b and whether it did not overflow.
func mulOK(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	if (a == -1 && b == math.MinInt64) || (b == -1 && a == math.MinInt64) {
		return 0, false
	}
	p := a * b
	return p, p/b == a
}

// overflow is the panic value of constructors whose result does not fit in
// an int64 (see the package comment).
const overflow = "sizeexpr: int64 overflow in size expression"

func mustAdd(a, b int64) int64 {
	s, ok := addOK(a, b)
	if !ok {
		panic(overflow)
	}
	return s
}

func mustMul(a, b int64) int64 {
	p, ok := mulOK(a, b)
	if !ok {
		panic(overflow)
	}
	return p
}
