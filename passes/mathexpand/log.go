package mathexpand

import (
	"math"

	"tir/dialects/ir"
)

// The logarithm family: log, log2, log10, log1p (and pow's logarithm in
// pow.go).
//
// Reduction: x = 2^k m with m in [sqrt(1/2), sqrt(2)), read from the bits
// (subnormals are scaled by 2^p first), and f = m - 1 (exact). Then
// log(1+f) = 2 atanh(s) with s = f/(2+f), |s| <= 0.1716:
//
//	log(1+f) = f - f^2/2 + s (f^2/2 + R),  R = 2s^2/3 + 2s^4/5 + ...
//
// (the identity 2s = f - s f rewritten so that f, exact, comes first). R is
// the Taylor series of atanh truncated after s^(2d) (d = 6 for f32, 11 for
// f64; the remainder is below s^(2d+2)/(2d+3) < 2^-39 resp. 2^-65
// relative, which pow's logarithm needs).
// f - f^2/2 is formed as hi + lo (f^2/2 through fma), so log(1+f) comes
// out as a double word and k log 2 (log 2 with a short hi part, so that k
// times it is exact) is added with one final rounding.

type logBase int

const (
	logE logBase = iota
	log2
	log10
)

// logParts returns k (as a float) and f = m - 1 for a positive finite x.
func (b *builder) logParts(x *ir.Value) (kf, f *ir.Value) {
	p := b.f.p
	sub := b.lt(x, b.c(b.f.minNormal()))
	xs := b.sel(sub, b.mul(x, b.c(math.Ldexp(1, p))), x)
	adj := b.sel(sub, b.c(float64(-p)), b.c(0))
	// i = bits(x) - bits(sqrt(1/2)): its exponent field is k, its
	// mantissa added back to bits(sqrt(1/2)) gives m in [sqrt(1/2), sqrt(2)).
	var sq int64
	if b.f.is32() {
		sq = int64(math.Float32bits(float32(math.Sqrt2 / 2)))
	} else {
		sq = int64(math.Float64bits(math.Sqrt2 / 2))
	}
	i := b.isub(b.bitsOf(xs), b.ci(sq))
	k := b.shrs(i, int64(p-1))
	mant := b.iand(i, b.ci(int64(1)<<(p-1)-1))
	m := b.fromBits(b.iadd(mant, b.ci(sq)))
	kf = b.add(b.toFloat(k), adj)
	return kf, b.sub(m, b.c(1))
}

// log1pF is log(1+f) for |f| <= 0.42 as an unevaluated sum hi + lo.
func (b *builder) log1pF(f *ir.Value) dw {
	c := b.f.k()
	s := b.div(f, b.add(b.c(2), f))
	z := b.mul(s, s)
	R := b.mul(z, b.horner(z, c.lnPoly))
	hf := b.mul(b.c(0.5), f)
	h := b.twoProd(hf, f) // f^2/2 exactly
	t := b.mul(s, b.add(h.hi, R))
	hi := b.sub(f, h.hi)
	lo := b.add(b.sub(b.sub(b.sub(f, hi), h.hi), h.lo), t)
	return dw{hi, lo}
}

// logCombine adds k times the logarithm of 2 in the wanted base to the
// logarithm hi + lo of m (natural), with one final rounding.
func (b *builder) logCombine(kf *ir.Value, l dw, base logBase) *ir.Value {
	c := b.f.k()
	switch base {
	case log2:
		p := b.mulDW(l, b.constDW(c.log2eDW))
		s := b.fastTwoSum(kf, p.hi) // |k| >= 1 > |p.hi|, or k = 0
		return b.add(s.hi, b.add(s.lo, p.lo))
	case log10:
		p := b.mulDW(l, b.constDW(c.log10e))
		a := b.mul(kf, b.c(c.lg2Z[0])) // exact
		s := b.fastTwoSum(a, p.hi)     // |a| >= 0.30 > |p.hi|, or k = 0
		return b.add(s.hi, b.add(s.lo, b.fma(kf, b.c(c.lg2Z[1]), p.lo)))
	}
	a := b.mul(kf, b.c(c.ln2Z[0])) // exact
	s := b.fastTwoSum(a, l.hi)     // |a| >= 0.69 > |l.hi|, or k = 0
	return b.add(s.hi, b.add(s.lo, b.fma(kf, b.c(c.ln2Z[1]), l.lo)))
}

// log, log2, log10: x < 0 and NaN give NaN, ±0 gives -Inf, +Inf gives
// +Inf.
func (b *builder) log(x *ir.Value, base logBase) *ir.Value {
	inf := b.c(math.Inf(1))
	ok := b.and(b.gt(x, b.c(0)), b.lt(x, inf))
	xs := b.sel(ok, x, b.c(1))
	kf, f := b.logParts(xs)
	r := b.logCombine(kf, b.log1pF(f), base)
	r = b.sel(b.eq(x, inf), inf, r)
	r = b.sel(b.eq(x, b.c(0)), b.c(math.Inf(-1)), r)
	r = b.sel(b.lt(x, b.c(0)), b.c(math.NaN()), r)
	return b.sel(b.isNaN(x), x, r)
}

// log1p: u = 1 + x rounded, with its rounding error e = (1 + x) - u
// (Fast2Sum, larger operand first) added as e/u to log u: log(1+x) =
// log(u) + log(1 + e/u). x = -1 gives -Inf, x < -1 NaN, ±0 ±0.
func (b *builder) log1p(x *ir.Value) *ir.Value {
	inf := b.c(math.Inf(1))
	one := b.c(1)
	ok := b.and(b.gt(x, b.c(-1)), b.lt(x, inf))
	xs := b.sel(ok, x, b.c(0))
	u := b.add(one, xs)
	e := b.sel(b.lt(b.abs(xs), one), b.add(b.sub(one, u), xs), b.add(b.sub(xs, u), one))
	kf, f := b.logParts(u)
	l := b.log1pF(f)
	l.lo = b.add(l.lo, b.div(e, u))
	r := b.logCombine(kf, l, logE)
	r = b.sel(b.eq(x, b.c(0)), x, r)
	r = b.sel(b.eq(x, inf), inf, r)
	r = b.sel(b.eq(x, b.c(-1)), b.c(math.Inf(-1)), r)
	r = b.sel(b.lt(x, b.c(-1)), b.c(math.NaN()), r)
	return b.sel(b.isNaN(x), x, r)
}
