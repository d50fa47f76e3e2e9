package mathexpand

import (
	"math"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The exponential family: exp, exp2, expm1 (and tanh on top of expm1).
//
// Reduction: x = k log 2 + r with k = round(x / log 2) and |r| <= log(2)/2
// (Cody–Waite: r = x - k c1 - k c2 with log 2 = c1 + c2 + O(2^-2p); the
// first fma is exact, see expReduce). Then e^r - 1 = r + r^2 P(r) with P
// the Taylor polynomial of degree d-2 (d = 7 for f32, 13 for f64), whose
// truncation error on |r| <= 0.3466 is below r^(d+1)/(d+1)! < 2^-27 (f32),
// 2^-57 (f64) relative to e^r, and e^x = 2^k (1 + (e^r - 1)).

// expClamp gives the arguments beyond which e^x overflows (at the top)
// or rounds to zero (at the bottom), with a margin: arguments are clamped
// to them so that k stays in ldexp's range.
func (f *format) expClamp() (lo, hi float64) {
	if f.is32() {
		return -104, 89
	}
	return -746, 710
}

// expReduce returns k (float and integer) and r = x - k log 2 for a
// clamped x (NaN stays NaN in r; k is then 0).
//
// The first step r1 = x - k c1 is exact: c1 is log 2 rounded to p bits, so
// k c1 and x (|x| >= 0.34 whenever k != 0) are multiples of 2^-(p+1), and
// |r1| < 1/2 fits in p bits.
func (b *builder) expReduce(x *ir.Value) (kf, k, r *ir.Value) {
	c := b.f.k()
	lo, hi := b.f.expClamp()
	kf = b.rint(b.mul(x, b.c(c.log2e)))
	kf = b.sel(b.isNaN(kf), b.c(0), kf)
	k = b.safeInt(kf, math.Floor(lo*math.Log2E)-1, math.Ceil(hi*math.Log2E)+1)
	nk := b.neg(kf)
	r1 := b.fma(nk, b.c(c.ln2[0]), x)
	r = b.fma(nk, b.c(c.ln2[1]), r1)
	return kf, k, r
}

// expm1Poly is e^r - 1 = r + r^2 P(r), |r| <= log(2)/2 (plus rounding).
func (b *builder) expm1Poly(r *ir.Value) *ir.Value {
	return b.fma(b.mul(r, r), b.horner(r, b.f.k().expPoly), r)
}

// exp: e^x = 2^k (1 + s), s = e^r - 1. Overflow gives +Inf and underflow
// 0 (through ldexp's final rounding, which also rounds subnormal results
// once); NaN propagates.
func (b *builder) exp(x *ir.Value) *ir.Value {
	lo, hi := b.f.expClamp()
	xc := b.clamp(x, lo, hi)
	_, k, r := b.expReduce(xc)
	return b.ldexp(b.add(b.c(1), b.expm1Poly(r)), k)
}

// expNoFMA is exp for CPUs without fused multiply-add, where llvm.fma is a
// call (to fmaf): the same reduction and polynomial with separately
// rounded products. k = round(x / log 2) comes from adding 1.5 * 2^(p-1)
// (ties to even, no floor: that is a call too without SSE4.1), whose low
// bits are then k. Cody–Waite with log 2 = c1 + c2, c1 short enough that
// k c1 is exact (|k| < 2^8, 2^11): x - k c1 is exact for |x| >= 0.34 as
// with the fma; the products of the polynomial add about half an ulp
// (docs/gpu-math.md).
func (b *builder) expNoFMA(x *ir.Value) *ir.Value {
	c := b.f.k()
	lo, hi := b.f.expClamp()
	xc := b.clamp(x, lo, hi)
	m := 1.5 * math.Ldexp(1, b.f.p-1)
	mb := int64(math.Float64bits(m))
	if b.f.is32() {
		mb = int64(math.Float32bits(float32(m)))
	}
	t := b.add(b.mul(xc, b.c(c.log2e)), b.c(m))
	kf := b.sub(t, b.c(m))
	k := b.isub(b.bitsOf(t), b.ci(mb))
	r := b.sub(b.sub(xc, b.mul(kf, b.c(c.ln2Z[0]))), b.mul(kf, b.c(c.ln2Z[1])))
	p := b.c(c.expPoly[len(c.expPoly)-1])
	for i := len(c.expPoly) - 2; i >= 0; i-- {
		p = b.add(b.mul(p, r), b.c(c.expPoly[i]))
	}
	s := b.add(r, b.mul(b.mul(r, r), p))
	// NaN: k holds garbage, but r and so the result are NaN.
	return b.ldexp(b.add(b.c(1), s), k)
}

// exp2: 2^x = 2^k e^(t log 2), k = round(x), t = x - k exact, t log 2
// formed as a double word rh + rl; e^(rh + rl) = (1 + s)(1 + rl).
func (b *builder) exp2(x *ir.Value) *ir.Value {
	c := b.f.k()
	lo, hi := b.f.expClamp()
	xc := b.clamp(x, lo*math.Log2E, hi*math.Log2E)
	kf := b.rint(xc)
	kf = b.sel(b.isNaN(kf), b.c(0), kf)
	k := b.safeInt(kf, math.Floor(lo*math.Log2E)-1, math.Ceil(hi*math.Log2E)+1)
	t := b.sub(xc, kf)
	return b.ldexp(b.expDW(b.mulDW(dw{t, b.c(0)}, b.constDW(c.ln2))), k)
}

// expDW is e^(r.hi + r.lo) for |r.hi| <= log(2)/2: (1 + s)(1 + lo) =
// 1 + (s + lo (1 + s)).
func (b *builder) expDW(r dw) *ir.Value {
	s := b.expm1Poly(r.hi)
	return b.add(b.c(1), b.add(s, b.fma(r.lo, s, r.lo)))
}

// expm1: e^x - 1 = 2^k (e^r - 1) + (2^k - 1), with the reduced argument
// kept as a double word rh + rl so that the cancellation of the two terms
// for small k (x around ±0.35 to ±1) does not expose the rounding of r:
//
//	e^(rh+rl) - 1 ≈ rh + tail,  tail = rh^2 P(rh) + rl (1 + rh)
//	result = TwoSum(2^k - 1, 2^k rh) + 2^k tail
//
// Below -40 (f64) / -18 (f32) the result rounds to -1; above ~0.99 of the
// overflow threshold the -1 is negligible and 2^k (1 + s) is computed with
// ldexp, which cannot overflow early.
func (b *builder) expm1(x *ir.Value) *ir.Value {
	r := b.expm1DW(x).hi
	// expm1(±0) = ±0 (the polynomial gives +0 for -0).
	return b.sel(b.eq(x, b.c(0)), x, r)
}

// expm1DW is expm1(x) as a double word hi + lo (hi the rounded result),
// NaN propagating through hi.
func (b *builder) expm1DW(x *ir.Value) dw {
	c := b.f.k()
	_, hi := b.f.expClamp()
	low := -40.0
	big := 700.0
	if b.f.is32() {
		low, big = -18, 80
	}
	xc := b.clamp(x, low, hi)
	kf := b.rint(b.mul(xc, b.c(c.log2e)))
	kf = b.sel(b.isNaN(kf), b.c(0), kf)
	k := b.safeInt(kf, math.Floor(low*math.Log2E)-1, math.Ceil(hi*math.Log2E)+1)
	nk := b.neg(kf)
	r1 := b.fma(nk, b.c(c.ln2[0]), xc) // exact
	p := b.twoProd(kf, b.c(c.ln2[1]))
	rs := b.twoSum(r1, b.neg(p.hi))
	rh, rl := rs.hi, b.sub(rs.lo, p.lo)
	tail := b.fma(rl, rh, rl)
	tail = b.fma(b.mul(rh, rh), b.horner(rh, c.expPoly), tail)
	// 2^k (rh + tail) + (2^k - 1): 2^k - 1 is exact for k <= p, and 2^k rh
	// exact, so their sum is formed exactly (TwoSum); for k > p the -1 is
	// added to the low part instead. k <= bias on this path (beyond, 2^k is
	// +Inf and the large path is selected).
	ks := b.ibin(arith.MinSI, k, b.ci(int64(b.f.bias)))
	twok := b.pow2(ks)
	kp := b.icmp("sle", k, b.ci(int64(b.f.p)))
	m1 := b.sel(kp, b.sub(twok, b.c(1)), twok)
	a := b.twoSum(m1, b.mul(twok, rh))
	lo := b.add(b.fma(twok, tail, a.lo), b.sel(kp, b.c(0), b.c(-1)))
	large := b.ldexp(b.add(b.c(1), b.add(rh, tail)), k)
	isBig := b.gt(xc, b.c(big))
	e := b.fastTwoSum(a.hi, lo) // |a.hi| >= |lo| for every k
	return dw{b.sel(isBig, large, e.hi), b.sel(isBig, b.c(0), e.lo)}
}

// tanh: tanh|x| = e/(e + 2) with e = expm1(2|x|) as a double word eh +
// el, e + 2 as a double word d (TwoSum) and the quotient corrected once:
// q = eh/dh, q += (eh - q dh + el - q dl)/dh. |x| is clamped where tanh
// rounds to 1 (and e would overflow); the sign is restored with copysign
// (keeping -0).
func (b *builder) tanh(x *ir.Value) *ir.Value {
	top := 20.0
	if b.f.is32() {
		top = 9.5
	}
	ax := b.abs(x)
	ax = b.sel(b.gt(ax, b.c(top)), b.c(top), ax)
	e := b.expm1DW(b.add(ax, ax))
	d := b.twoSum(b.c(2), e.hi)
	dl := b.add(d.lo, e.lo)
	q := b.div(e.hi, d.hi)
	rem := b.sub(b.add(b.fma(b.neg(q), d.hi, e.hi), e.lo), b.mul(q, dl))
	q = b.add(q, b.div(rem, d.hi))
	return b.copysign(q, x)
}
