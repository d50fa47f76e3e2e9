package mathexpand

import (
	"math"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// atan and atan2.
//
// Reduction: for u = |x| (or |y|/|x|), pick the nearest of the points c_j
// = tan(jπ/12), j = 0..5, and ∞ (j = 6), by comparing u with tan((2j+1)
// π/24); then
//
//	atan u = atan c_j + atan t,  t = (u - c_j)/(1 + u c_j)   (j < 6)
//	atan u = π/2 + atan t,       t = -1/u                    (j = 6)
//
// with |t| <= tan(π/24) = 0.1317. c_j is c_j rounded and atan(c_j) its
// exact arctangent as a double word, so the rounding of c_j costs nothing.
// Numerator and denominator are formed exactly as double words (TwoProd,
// TwoSum) and t = th + tl by a corrected division. atan t = t + t^3 P(t^2)
// with P the Taylor series to t^(2d+1) (d = 4 for f32, 9 for f64; the
// remainder is below t^(2d+2)/(2d+3) < 2^-32 resp. 2^-63 relative). The
// sum atan c_j + th is formed with TwoSum, everything else added to its
// low part.

// atanSum is an arctangent as the unevaluated sum vh + th + lo: atan c_j
// (hi part), the reduced argument t (hi part), and everything else.
type atanSum struct {
	vh, th, lo *ir.Value // atan = vh + th + lo, |th| <= 0.14, lo small
}

// atanRatio is atan(num/den) for finite num, den >= 0, not both zero.
func (b *builder) atanRatio(num, den *ir.Value) atanSum {
	c := b.f.k()
	zero := b.c(0)
	var cj, vh, vl *ir.Value = zero, zero, zero
	var last *ir.Value
	for j := 0; j < 6; j++ {
		// num/den > tan((2j+1)π/24), compared without dividing.
		gt := b.gt(num, b.mul(den, b.c(c.atanB[j])))
		if j < 5 {
			cj = b.sel(gt, b.c(c.atanC[j+1]), cj)
			vh = b.sel(gt, b.c(c.atanV[j+1][0]), vh)
			vl = b.sel(gt, b.c(c.atanV[j+1][1]), vl)
		} else {
			last = gt
			vh = b.sel(gt, b.c(c.pio2DW[0]), vh)
			vl = b.sel(gt, b.c(c.pio2DW[1]), vl)
		}
	}
	// t = (num - c den)/(den + c num), or -den/num for j = 6, with both
	// parts as double words.
	p := b.twoProd(cj, den)
	n := b.twoSum(num, b.neg(p.hi))
	nh, nl := n.hi, b.sub(n.lo, p.lo)
	q := b.twoProd(cj, num)
	d := b.twoSum(den, q.hi)
	dh, dl := d.hi, b.add(d.lo, q.lo)
	nh = b.sel(last, b.neg(den), nh)
	nl = b.sel(last, zero, nl)
	dh = b.sel(last, num, dh)
	dl = b.sel(last, zero, dl)
	th := b.div(nh, dh)
	rem := b.sub(b.add(b.fma(b.neg(th), dh, nh), nl), b.mul(th, dl))
	tl := b.div(rem, dh)
	z := b.mul(th, th)
	tail := b.fma(b.neg(tl), z, tl)
	tail = b.fma(b.mul(th, z), b.horner(z, c.atnPoly), tail)
	return atanSum{vh: vh, th: th, lo: b.add(vl, tail)}
}

// atan: odd, so computed on |x| with the sign copied back (atan(-0) = -0,
// atan(±Inf) = ±π/2, NaN propagates).
func (b *builder) atan(x *ir.Value) *ir.Value {
	// atan rounds to ±π/2 beyond 2^(p+3); clamping keeps 1/|x| finite
	// and nonzero.
	ax := b.abs(x)
	top := math.Ldexp(1, b.f.p+3)
	ax = b.sel(b.gt(ax, b.c(top)), b.c(top), ax)
	a := b.atanRatio(ax, b.c(1))
	s := b.twoSum(a.vh, a.th)
	r := b.add(s.hi, b.add(s.lo, a.lo))
	return b.copysign(r, x)
}

// atan2(y, x): atan(|y|/|x|) from the scaled magnitudes (the larger one
// brought to [1, 2) by its exponent, so that no product overflows), then
// π - that for x < 0 (or x = -0), and the sign of y. Zeros and infinities
// are replaced by the pair of magnitudes that gives the C99 angle (0,
// π/2, π/4); NaN propagates.
func (b *builder) atan2(y, x *ir.Value) *ir.Value {
	c := b.f.k()
	zero, one := b.c(0), b.c(1)
	inf := b.c(math.Inf(1))
	ax, ay := b.abs(x), b.abs(y)
	xi, yi := b.eq(ax, inf), b.eq(ay, inf)
	// Infinities: both → (1, 1); one → (1, 0) or (0, 1).
	ax2 := b.sel(xi, one, b.sel(yi, zero, ax))
	ay2 := b.sel(yi, one, b.sel(xi, zero, ay))
	// Both zero: (1, 0), the angle 0 (then π for x < 0).
	bothZero := b.and(b.eq(ax2, zero), b.eq(ay2, zero))
	ax2 = b.sel(bothZero, one, ax2)
	// NaN: any finite pair, the result is replaced below.
	nan := b.or(b.isNaN(x), b.isNaN(y))
	ax2 = b.sel(nan, one, ax2)
	ay2 = b.sel(nan, one, ay2)
	// Scale by 2^-e, e the exponent of the larger.
	m := b.sel(b.gt(ax2, ay2), ax2, ay2)
	p := int64(b.f.p)
	e := b.iand(b.shru(b.bitsOf(m), p-1), b.ci(b.f.expMask()))
	field := b.isub(b.ci(int64(2*b.f.bias)), e)
	field = b.ibin(arith.MaxSI, field, b.ci(1))
	scale := b.fromBits(b.shl(field, p-1))
	a := b.atanRatio(b.mul(ay2, scale), b.mul(ax2, scale))
	// x < 0 (sign bit set): π - atan = (π_h - vh) + (π_l - lo) - th.
	xneg := b.icmp("slt", b.bitsOf(x), b.ci(0))
	pv := b.twoSum(b.c(c.piDW[0]), b.neg(a.vh))
	bh := b.sel(xneg, pv.hi, a.vh)
	bl := b.sel(xneg, b.add(pv.lo, b.sub(b.c(c.piDW[1]), a.lo)), a.lo)
	th := b.sel(xneg, b.neg(a.th), a.th)
	s := b.twoSum(bh, th)
	r := b.add(s.hi, b.add(s.lo, bl))
	r = b.copysign(r, y)
	return b.sel(nan, b.add(x, y), r)
}
