package mathexpand

import (
	"math"
	"math/big"
)

// High-precision arithmetic (math/big, 320 bits unless said otherwise) for
// the constants and polynomial coefficients of the expansions: they are
// computed from their definitions when the pass first runs, rounded to the
// target format, and split into hi + lo parts where an expansion needs
// more than one format number. Nothing here runs per op.

const hpPrec = 320

func hpNew(v float64) *big.Float { return new(big.Float).SetPrec(hpPrec).SetFloat64(v) }

func hpInt(n int64) *big.Float { return new(big.Float).SetPrec(hpPrec).SetInt64(n) }

func hpAdd(x, y *big.Float) *big.Float { return new(big.Float).SetPrec(hpPrec).Add(x, y) }
func hpSub(x, y *big.Float) *big.Float { return new(big.Float).SetPrec(hpPrec).Sub(x, y) }
func hpMul(x, y *big.Float) *big.Float { return new(big.Float).SetPrec(hpPrec).Mul(x, y) }
func hpQuo(x, y *big.Float) *big.Float { return new(big.Float).SetPrec(hpPrec).Quo(x, y) }
func hpSqrt(x *big.Float) *big.Float   { return new(big.Float).SetPrec(hpPrec).Sqrt(x) }

// hpTiny is the size below which a series term no longer matters.
var hpTiny = new(big.Float).SetMantExp(big.NewFloat(1), -hpPrec-8)

func hpSmall(t *big.Float) bool { return new(big.Float).Abs(t).Cmp(hpTiny) < 0 }

// hpAtanSmall is atan(x) by its Taylor series x - x^3/3 + ..., for |x| <=
// 1/4.
func hpAtanSmall(x *big.Float) *big.Float {
	x2 := hpMul(x, x)
	sum, pow := hpNew(0), new(big.Float).Copy(x)
	for k := int64(0); ; k++ {
		t := hpQuo(pow, hpInt(2*k+1))
		if k%2 == 1 {
			t.Neg(t)
		}
		sum = hpAdd(sum, t)
		if hpSmall(t) {
			return sum
		}
		pow = hpMul(pow, x2)
	}
}

var hpPiVal *big.Float

// hpPi is π by Machin's formula 16 atan(1/5) - 4 atan(1/239).
func hpPi() *big.Float {
	if hpPiVal == nil {
		a := hpMul(hpInt(16), hpAtanSmall(hpQuo(hpInt(1), hpInt(5))))
		c := hpMul(hpInt(4), hpAtanSmall(hpQuo(hpInt(1), hpInt(239))))
		hpPiVal = hpSub(a, c)
	}
	return hpPiVal
}

// hpAtan is atan(x) for any finite x: atan(x) = π/2 - atan(1/x) above 1,
// then the half-angle reduction atan(x) = 2 atan(x / (1 + sqrt(1 + x^2)))
// down to the series' range.
func hpAtan(x *big.Float) *big.Float {
	if x.Sign() < 0 {
		return new(big.Float).Neg(hpAtan(new(big.Float).Neg(x)))
	}
	if x.Cmp(hpNew(1)) > 0 {
		return hpSub(hpQuo(hpPi(), hpInt(2)), hpAtan(hpQuo(hpInt(1), x)))
	}
	scale := int64(1)
	for x.Cmp(hpNew(0.25)) > 0 {
		x = hpQuo(x, hpAdd(hpInt(1), hpSqrt(hpAdd(hpInt(1), hpMul(x, x)))))
		scale *= 2
	}
	return hpMul(hpInt(scale), hpAtanSmall(x))
}

// hpAtanh is atanh(x) = x + x^3/3 + x^5/5 + ..., for |x| <= 1/3.
func hpAtanh(x *big.Float) *big.Float {
	x2 := hpMul(x, x)
	sum, pow := hpNew(0), new(big.Float).Copy(x)
	for k := int64(0); ; k++ {
		t := hpQuo(pow, hpInt(2*k+1))
		sum = hpAdd(sum, t)
		if hpSmall(t) {
			return sum
		}
		pow = hpMul(pow, x2)
	}
}

// hpLog is the natural logarithm of x > 0: x = 2^e m with m in [2/3, 4/3),
// log m = 2 atanh((m-1)/(m+1)).
func hpLog(x *big.Float) *big.Float {
	m := new(big.Float).SetPrec(hpPrec)
	e := x.MantExp(m) // x = m 2^e, m in [1/2, 1)
	if m.Cmp(hpQuo(hpInt(2), hpInt(3))) < 0 {
		m.SetMantExp(m, 1)
		e--
	}
	ln2 := hpMul(hpInt(2), hpAtanh(hpQuo(hpInt(1), hpInt(3)))) // log 2 = 2 atanh(1/3)
	s := hpQuo(hpSub(m, hpInt(1)), hpAdd(m, hpInt(1)))
	return hpAdd(hpMul(hpInt(int64(e)), ln2), hpMul(hpInt(2), hpAtanh(s)))
}

// hpExp is e^x: e^(x/2^k) by its Taylor series, squared k times.
func hpExp(x *big.Float) *big.Float {
	k := 0
	r := new(big.Float).Copy(x)
	for new(big.Float).Abs(r).Cmp(hpNew(1.0/64)) > 0 {
		r = hpQuo(r, hpInt(2))
		k++
	}
	sum, t := hpNew(1), hpNew(1)
	for n := int64(1); ; n++ {
		t = hpQuo(hpMul(t, r), hpInt(n))
		sum = hpAdd(sum, t)
		if hpSmall(t) {
			break
		}
	}
	for ; k > 0; k-- {
		sum = hpMul(sum, sum)
	}
	return sum
}

// hpErf is erf(x) = 2/sqrt(π) Σ (-1)^n x^(2n+1) / (n! (2n+1)) for |x| <= 7,
// summed with 256 guard bits to absorb the cancellation of the series.
func hpErf(x *big.Float) *big.Float {
	const prec = hpPrec + 256
	n := func() *big.Float { return new(big.Float).SetPrec(prec) }
	x2 := n().Mul(x, x)
	sum, pow := n().SetInt64(0), n().Set(x)
	tiny := new(big.Float).SetMantExp(big.NewFloat(1), -prec)
	for k := int64(0); ; k++ {
		t := n().Quo(pow, n().SetInt64(2*k+1))
		if k%2 == 1 {
			t.Neg(t)
		}
		sum.Add(sum, t)
		if new(big.Float).Abs(t).Cmp(tiny) < 0 && k > 4 {
			break
		}
		pow.Mul(pow, x2)
		pow.Quo(pow, n().SetInt64(k+1))
	}
	twoOverSqrtPi := hpQuo(hpInt(2), hpSqrt(hpPi()))
	return hpMul(sum, twoOverSqrtPi)
}

// roundTo rounds v to p significant bits (to nearest, ties to even) and
// returns it as a float64 (exact for p <= 53 and normal results).
func roundTo(v *big.Float, p int) float64 {
	r, _ := new(big.Float).SetPrec(uint(p)).SetMode(big.ToNearestEven).Set(v).Float64()
	return r
}

// split is v as hi + lo, each rounded to the format; hi keeps p - zeros
// significant bits, so that hi times an integer below 2^zeros is exact.
func (f *format) split(v *big.Float, zeros int) [2]float64 {
	hi := roundTo(v, f.p-zeros)
	lo := roundTo(hpSub(v, hpNew(hi)), f.p)
	return [2]float64{hi, lo}
}

// splitN is v as c1 + c2 + ... + cn, each rounded to the format.
func (f *format) splitN(v *big.Float, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = roundTo(v, f.p)
		v = hpSub(v, hpNew(out[i]))
	}
	return out
}

// one rounds v to the format.
func (f *format) one(v *big.Float) float64 { return roundTo(v, f.p) }

// chebFit returns the coefficients, in the monomial basis of h = x -
// origin, of the polynomial of degree n that interpolates fn at the n+1
// Chebyshev nodes of [lo, hi] (rounded to float64; fn is evaluated exactly
// there):
// within a small factor of the best (minimax) polynomial of that degree.
// The interpolation problem is solved with Newton's divided differences in
// high precision, then expanded into powers of h.
func chebFit(fn func(*big.Float) *big.Float, lo, hi float64, n int, origin float64) []*big.Float {
	mid, hw := (lo+hi)/2, (hi-lo)/2
	xs := make([]*big.Float, n+1) // nodes, as h = x - origin
	dd := make([]*big.Float, n+1) // divided differences, in place
	for k := 0; k <= n; k++ {
		h := mid - origin + hw*math.Cos(math.Pi*(float64(k)+0.5)/float64(n+1))
		xs[k] = hpNew(h)
		dd[k] = fn(hpAdd(hpNew(origin), xs[k]))
	}
	for j := 1; j <= n; j++ {
		for k := n; k >= j; k-- {
			dd[k] = hpQuo(hpSub(dd[k], dd[k-1]), hpSub(xs[k], xs[k-j]))
		}
	}
	// p(h) = dd[0] + (h - x0)(dd[1] + (h - x1)(dd[2] + ...)), expanded from
	// the innermost factor outwards.
	coef := []*big.Float{dd[n]}
	for k := n - 1; k >= 0; k-- {
		next := make([]*big.Float, len(coef)+1)
		for i := range next {
			next[i] = hpNew(0)
		}
		for i, c := range coef {
			next[i+1] = hpAdd(next[i+1], c)
			next[i] = hpSub(next[i], hpMul(c, xs[k]))
		}
		next[0] = hpAdd(next[0], dd[k])
		coef = next
	}
	return coef
}

// roundAll rounds coefficients to the format.
func (f *format) roundAll(cs []*big.Float) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = f.one(c)
	}
	return out
}
