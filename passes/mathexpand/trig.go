package mathexpand

import (
	"math"

	"tir/dialects/ir"
)

// sin, cos, tan.
//
// Reduction: k = round(x 2/π) (from x 2/π as a double word, so k is the
// nearest integer), r = x - k π/2 with π/2 = c1 + c2 + c3 + c4, four
// constants of p bits (Cody–Waite with fma and error-free transformations):
// r1 = x - k c1 is exact (k c1 and x are multiples of ulp(c1) and |r1| <
// 1), k c2 and k c3 are formed exactly (TwoProd) and summed with TwoSum,
// so r = rh + rl is accurate to about 2^-2p |r| + 2^-3p |k|, enough for
// the closest approach of any argument to a multiple of π/2 (2^-27.8 for
// f32 below 2^22 π). The reduction holds up to |x| = 2^(p-2) π (1.3e7 for
// f32, 7e15 for f64), where k stops being an exact integer; beyond, sin
// and cos stay within [-1, 1] and tan finite, but they are not accurate.
//
// On |r| <= π/4: Taylor polynomials, sin to r^9 (f32) / r^17 (f64) and cos
// to r^10 / r^16, remainders below 2^-28 (f32) and 2^-58 (f64) relative:
//
//	sin(rh + rl) = rh + (rh z P(z) + rl (1 - z/2)),       z = rh^2
//	cos(rh + rl) = w + (((1 - w) - z/2) + (z^2 Q(z) - rh rl)),  w = 1 - z/2
//
// (the rounding of z is carried into the cos correction). The quadrant k
// mod 4 selects ±sin r or ±cos r; tan = sin r / cos r or -cos r / sin r,
// with sin r and cos r as double words and a corrected division.

type trigFunc int

const (
	trigSin trigFunc = iota
	trigCos
	trigTan
)

func (b *builder) trig(x *ir.Value, fn trigFunc) *ir.Value {
	c := b.f.k()
	fin := b.isFinite(x)
	xs := b.sel(fin, x, b.c(0))
	// k = round(x 2/π), with x 2/π as a double word so that k is the
	// nearest integer even where the product has no fraction bits left.
	ph := b.mul(xs, b.c(c.twoOverPi[0]))
	pl := b.fma(xs, b.c(c.twoOverPi[1]), b.fma(xs, b.c(c.twoOverPi[0]), b.neg(ph)))
	kf := b.rint(ph)
	fr := b.add(b.sub(ph, kf), pl)
	kf = b.add(kf, b.sel(b.gt(fr, b.c(0.5)), b.c(1), b.sel(b.lt(fr, b.c(-0.5)), b.c(-1), b.c(0))))
	// The quadrant, computed in floating point so that any k works.
	kq := b.sub(kf, b.mul(b.c(4), b.floor(b.mul(kf, b.c(0.25)))))
	q := b.toInt(b.clamp(kq, 0, 3))
	// r = x - k (c1 + c2 + c3 + c4): every product but the last formed
	// exactly, the terms summed by magnitude with TwoSum (k c2's low part
	// is as large as k c3 and may cancel with it, and both may exceed
	// |r|), only sums of terms below 2^-2p |k| rounded.
	r1 := b.fma(b.neg(kf), b.c(c.pio2[0]), xs) // exact
	a := b.twoProd(kf, b.c(c.pio2[1]))
	bb := b.twoProd(kf, b.c(c.pio2[2]))
	s := b.twoSum(r1, b.neg(a.hi))
	t := b.twoSum(a.lo, bb.hi)
	u := b.twoSum(s.hi, b.neg(t.hi))
	low := b.sub(b.sub(b.add(s.lo, u.lo), t.lo), b.fma(kf, b.c(c.pio2[3]), bb.lo))
	r := b.fastTwoSum(u.hi, low)
	rh, rl := r.hi, r.lo
	// Beyond trigLimit k is no longer exact: keep the result bounded.
	beyond := b.gt(b.abs(xs), b.c(b.f.trigLimit()))
	rh = b.sel(beyond, b.clamp(rh, -1, 1), rh)
	rl = b.sel(beyond, b.c(0), rl)

	z := b.mul(rh, rh)
	// sin r = rh + st, as a double word.
	st := b.fma(b.mul(b.c(-0.5), z), rl, rl)
	st = b.fma(b.mul(rh, z), b.horner(z, c.sinPoly), st)
	sin := b.fastTwoSum(rh, st)
	// cos r = w + ct, as a double word.
	zl := b.fma(rh, rh, b.neg(z))
	hz := b.mul(b.c(0.5), z)
	w := b.sub(b.c(1), hz)
	ct := b.fma(b.mul(z, z), b.horner(z, c.cosPoly), b.neg(b.mul(rh, rl)))
	ct = b.add(b.sub(b.sub(b.sub(b.c(1), w), hz), b.mul(b.c(0.5), zl)), ct)
	cos := b.fastTwoSum(w, ct)

	odd := b.icmp("ne", b.iand(q, b.ci(1)), b.ci(0))
	var res *ir.Value
	switch fn {
	case trigSin:
		v := b.sel(odd, cos.hi, sin.hi)
		negate := b.icmp("ne", b.iand(q, b.ci(2)), b.ci(0))
		res = b.sel(negate, b.neg(v), v)
	case trigCos:
		v := b.sel(odd, sin.hi, cos.hi)
		negate := b.icmp("ne", b.iand(b.iadd(q, b.ci(1)), b.ci(2)), b.ci(0))
		res = b.sel(negate, b.neg(v), v)
	case trigTan:
		// A double-word quotient n/d, rounded once.
		nh := b.sel(odd, b.neg(cos.hi), sin.hi)
		nl := b.sel(odd, b.neg(cos.lo), sin.lo)
		dh := b.sel(odd, sin.hi, cos.hi)
		dl := b.sel(odd, sin.lo, cos.lo)
		qh := b.div(nh, dh)
		rem := b.sub(b.add(b.fma(b.neg(qh), dh, nh), nl), b.mul(qh, dl))
		res = b.add(qh, b.div(rem, dh))
	}
	if fn != trigCos {
		// sin(±0) = ±0, tan(±0) = ±0.
		res = b.sel(b.eq(x, b.c(0)), x, res)
	}
	// ±Inf and NaN give NaN.
	return b.sel(fin, res, b.sub(x, x))
}

// trigLimit is 2^(p-2) π: below it k = round(x 2/π) is exact (|k| <
// 2^(p-1)) and so is the reduction; beyond it sin, cos and tan are finite
// and bounded but inaccurate.
func (f *format) trigLimit() float64 { return math.Ldexp(math.Pi, f.p-2) }
