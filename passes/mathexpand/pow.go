package mathexpand

import (
	"math"

	"tir/dialects/ir"
)

// pow(x, y) = 2^(y log2|x|), with the sign of x for an odd integer y.
//
// The error of the result is the absolute error of y log2|x| (times log 2),
// and |y log2|x|| reaches ~1075 (f64) before the result overflows or
// underflows: log2|x| is needed to ~p+11 bits. It is computed as a double
// word: x = 2^k m as for log, s = f/(2+f) as a double word (the division
// corrected with an fma residual), and
//
//	log m = 2s + (2/3) s^3 + s^5 (2/5 + 2/7 s^2 + ...)
//
// with the first two terms in double-word arithmetic (2/3 s^3 is up to 1%
// of the result) and the tail (below 2^-10 of it) in working precision;
// then log2|x| = k + log(m)/log 2, y times it as a double word z, and 2^z
// as in exp2 with the low part of z folded into the reduced argument.
func (b *builder) pow(x, y *ir.Value) *ir.Value {
	c := b.f.k()
	zero, one := b.c(0), b.c(1)
	inf := b.c(math.Inf(1))
	ax := b.abs(x)
	finX := b.and(b.gt(ax, zero), b.lt(ax, inf))
	axs := b.sel(finX, ax, one)
	finY := b.lt(b.abs(y), inf)
	ys := b.sel(finY, y, zero)

	// log2|x| as a double word L.
	kf, f := b.logParts(axs)
	d := b.fastTwoSum(b.c(2), f)
	sh := b.div(f, d.hi)
	sl := b.div(b.sub(b.fma(b.neg(sh), d.hi, f), b.mul(sh, d.lo)), d.hi)
	z := b.twoProd(sh, sh)
	zl := b.fma(b.add(sh, sh), sl, z.lo)
	s3 := b.twoProd(z.hi, sh)
	s3l := b.fma(z.hi, sl, b.fma(zl, sh, s3.lo))
	t3 := b.mulDW(dw{s3.hi, s3l}, b.constDW(c.twoOv3))
	tail := b.mul(b.mul(s3.hi, z.hi), b.horner(z.hi, c.lnPoly[1:]))
	a := b.fastTwoSum(b.add(sh, sh), t3.hi)
	lo := b.add(b.add(a.lo, b.add(sl, sl)), b.add(t3.lo, tail))
	lm := b.fastTwoSum(a.hi, lo)
	p := b.mulDW(lm, b.constDW(c.log2eDW))
	s := b.fastTwoSum(kf, p.hi)
	L := b.fastTwoSum(s.hi, b.add(s.lo, p.lo))

	// z = y L as a double word, clamped where 2^z overflows or underflows.
	zp := b.twoProd(ys, L.hi)
	zz := b.fastTwoSum(zp.hi, b.fma(ys, L.lo, zp.lo))
	lim := 1100.0
	if b.f.is32() {
		lim = 160
	}
	// Decided on the product's high part: when it overflows, the low parts
	// are Inf - Inf.
	out := b.gt(b.abs(zp.hi), b.c(lim))
	zh := b.clamp(b.sel(out, zp.hi, zz.hi), -lim, lim)
	zlo := b.sel(out, zero, zz.lo)
	kz := b.rint(zh)
	kz = b.sel(b.isNaN(kz), zero, kz)
	k := b.safeInt(kz, -lim-1, lim+1)
	v := b.add(b.sub(zh, kz), zlo)
	r := b.ldexp(b.expDW(b.mulDW(dw{v, zero}, b.constDW(c.ln2))), k)

	// Sign and special cases (C99 F.9.4.4), the later selects winning.
	yInt := b.and(b.eq(b.floor(y), y), finY)
	hy := b.mul(y, b.c(0.5))
	yOdd := b.and(yInt, b.ne(b.floor(hy), hy))
	xNeg := b.lt(x, zero)
	r = b.sel(b.and(xNeg, yOdd), b.neg(r), r)
	notInt := b.or(b.ne(b.floor(y), y), b.notFinite(y))
	r = b.sel(b.and(xNeg, notInt), b.c(math.NaN()), r)
	// x = ±0 or ±Inf: |x|^y is 0 or Inf, negative for odd y and x < 0.
	xInf := b.eq(ax, inf)
	zi := b.or(b.eq(ax, zero), xInf)
	big := b.ne(b.sel(xInf, one, zero), b.sel(b.lt(y, zero), one, zero))
	mag := b.sel(big, inf, zero)
	r = b.sel(zi, b.copysign(mag, b.sel(yOdd, x, one)), r)
	// y = ±Inf: 1 for |x| = 1, else 0 or Inf by |x| < 1 and the sign of y.
	lt1 := b.lt(ax, one)
	yPos := b.gt(y, zero)
	infRes := b.sel(b.ne(b.sel(lt1, one, zero), b.sel(yPos, one, zero)), inf, zero)
	infRes = b.sel(b.eq(ax, one), one, infRes)
	r = b.sel(b.notFinite(y), infRes, r)
	r = b.sel(b.or(b.isNaN(x), b.isNaN(y)), b.add(x, y), r)
	return b.sel(b.or(b.eq(y, zero), b.eq(x, one)), one, r)
}
