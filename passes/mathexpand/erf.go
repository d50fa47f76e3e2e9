package mathexpand

import (
	"tir/dialects/ir"
)

// erf, odd, computed on |x| with the sign copied back.
//
//   - |x| < 1: erf x = x F(x^2), F(z) = erf(sqrt z)/sqrt z interpolated at
//     Chebyshev nodes of [0, 1] (degree 7 for f32, 13 for f64).
//   - 1 <= |x| < X (X = 3.92 for f32, 5.93 for f64, where erf rounds to 1):
//     erf x = 1 - e^(-x^2) R(x), R(x) = erfc(x) e^(x^2) interpolated on 2
//     (f32) or 4 (f64) intervals; the coefficients of the interval are
//     picked with selects. x^2 is formed exactly (TwoProd) and e^(-x^2)
//     computed as in exp, corrected by (1 - lo). Since erfc(x) <= 0.16
//     there, errors in e^(-x^2) R(x) shrink by at least 6 in the result.
//   - |x| >= X: ±1.
func (b *builder) erf(x *ir.Value) *ir.Value {
	c := b.f.k()
	one := b.c(1)
	ax := b.abs(x)

	// |x| < 1.
	// |x| < 1: x (c0 + z Q(z)) with c0 a double word, z = x^2 exact, and
	// the last two operations in double-word arithmetic.
	as := b.sel(b.lt(ax, one), ax, one)
	zs := b.twoProd(as, as)
	q := b.horner(zs.hi, c.erfSmall[1:])
	tq := b.fma(zs.hi, q, b.mul(zs.lo, q))
	sum := b.fastTwoSum(b.c(c.erfC0[0]), tq)
	pr := b.twoProd(as, sum.hi)
	small := b.add(pr.hi, b.fma(as, b.add(sum.lo, b.c(c.erfC0[1])), pr.lo))

	// 1 <= |x| < X.
	am := b.clamp(ax, 1, c.erfMax)
	n := 0
	for _, iv := range c.erfIv {
		n = max(n, len(iv.c))
	}
	mid := b.c(c.erfIv[0].mid)
	coef := make([]*ir.Value, n)
	for i := range coef {
		coef[i] = b.c(coefAt(c.erfIv[0].c, i))
	}
	for _, iv := range c.erfIv[1:] {
		in := b.ge(am, b.c(iv.lo))
		mid = b.sel(in, b.c(iv.mid), mid)
		for i := range coef {
			coef[i] = b.sel(in, b.c(coefAt(iv.c, i)), coef[i])
		}
	}
	h := b.sub(am, mid)
	R := coef[n-1]
	for i := n - 2; i >= 0; i-- {
		R = b.fma(R, h, coef[i])
	}
	sq := b.twoProd(am, am)
	_, k, r := b.expReduce(b.neg(sq.hi))
	e := b.ldexp(b.add(one, b.expm1Poly(r)), k)
	e = b.fma(e, b.neg(sq.lo), e)
	mid1 := b.sub(one, b.mul(e, R))

	res := b.sel(b.lt(ax, one), small, b.sel(b.lt(ax, b.c(c.erfMax)), mid1, one))
	res = b.copysign(res, x)
	return b.sel(b.isNaN(x), x, res)
}

func coefAt(c []float64, i int) float64 {
	if i < len(c) {
		return c[i]
	}
	return 0
}
