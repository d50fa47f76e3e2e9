package mathexpand

import (
	"math"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// cbrt: x = 2^(3q) a with a in [1, 8) (subnormals scaled by 2^(3⌈p/3⌉)
// first), an initial approximation of a^(1/3) by a quadratic interpolating
// it at Chebyshev nodes (relative error 0.039), Halley steps y ← y (y^3 +
// 2a)/(2y^3 + a), which triple the number of correct bits (one for f32,
// two for f64), then a Newton step y ← y - (y^3 - a)/(3y^2), which doubles
// them, with the residual y^3 - a computed exactly (TwoProd). Zeros,
// infinities and NaN are returned unchanged.
func (b *builder) cbrt(x *ir.Value) *ir.Value {
	c := b.f.k()
	p := int64(b.f.p)
	ax := b.abs(x)
	special := b.or(b.eq(ax, b.c(0)), b.notFinite(x))
	axs := b.sel(special, b.c(1), ax)
	shift := int64(3 * ((b.f.p + 2) / 3))
	sub := b.lt(axs, b.c(b.f.minNormal()))
	axs = b.sel(sub, b.mul(axs, b.c(math.Ldexp(1, int(shift)))), axs)
	bits := b.bitsOf(axs)
	e := b.isub(b.iand(b.shru(bits, p-1), b.ci(b.f.expMask())), b.ci(int64(b.f.bias)))
	q := b.ibin(arith.FloorDivSI, e, b.ci(3))
	rem := b.isub(e, b.iadd(q, b.iadd(q, q)))
	mant := b.iand(bits, b.ci(int64(1)<<(p-1)-1))
	a := b.fromBits(b.ior(mant, b.shl(b.iadd(rem, b.ci(int64(b.f.bias))), p-1)))
	q = b.isub(q, b.sel(sub, b.ci(shift/3), b.ci(0)))

	y := b.horner(a, c.cbrtInit)
	halley := 2
	if b.f.is32() {
		halley = 1
	}
	for i := 0; i < halley; i++ {
		y3 := b.mul(b.mul(y, y), y)
		y = b.mul(y, b.div(b.fma(b.c(2), a, y3), b.fma(b.c(2), y3, a)))
	}
	y2 := b.twoProd(y, y)
	y3 := b.twoProd(y2.hi, y)
	y3l := b.fma(y2.lo, y, y3.lo)
	res := b.add(b.sub(y3.hi, a), y3l)
	y = b.sub(y, b.div(res, b.mul(b.c(3), y2.hi)))

	r := b.copysign(b.mul(y, b.pow2(q)), x)
	return b.sel(special, x, r)
}
