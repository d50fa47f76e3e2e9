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

// overflowSum is the representation of an expression whose arithmetic
// overflowed int64 (see Overflowed).
var overflowSum = &sum{}

// overflowed is the value every constructor returns when its result, or
// one of its operands, does not fit in int64.
func overflowed() Expr { return Expr{overflowSum} }

// Overflowed reports whether computing e overflowed int64. Such a value
// is no expression: it is equal to nothing (itself included), no
// comparison with it is provable, and asking for its constant, terms or
// variables panics, so that no caller can read a wrapped bound by
// mistake. The places where sizes enter a program (the parsers, type
// inference, the verifier) test it and report the overflow at the input
// that caused it.
func (e Expr) Overflowed() bool { return e.s == overflowSum }

// mustNotOverflow panics when e overflowed: the accessors that would
// otherwise read a meaningless constant or term list call it.
func (e Expr) mustNotOverflow(what string) {
	if e.Overflowed() {
		panic("sizeexpr: " + what + " of an expression whose arithmetic overflowed int64 (test Overflowed first)")
	}
}
