package mathexpand

import (
	"math"
	"math/big"
	"testing"
)

// hpPoly evaluates a polynomial with float64 coefficients in high
// precision.
func hpPoly(c []float64, h *big.Float) *big.Float {
	acc := hpNew(c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		acc = hpAdd(hpMul(acc, h), hpNew(c[i]))
	}
	return acc
}

// TestErfFits checks the interpolated polynomials of erf, with their
// coefficients rounded to the format, against erf in high precision on a
// dense sample: the error they contribute to erf(x) must stay below 2^-(p+3)
// relative (an eighth of an ulp or less), so that the evaluation's
// roundings dominate the measured error.
func TestErfFits(t *testing.T) {
	for _, f := range []*format{binary32, binary64} {
		k := f.k()
		one := hpInt(1)
		worst := 0.0
		check := func(x float64, approx *big.Float) {
			want := hpErf(hpNew(x))
			rel, _ := new(big.Float).Quo(hpSub(approx, want), want).Float64()
			if math.Abs(rel) > worst {
				worst = math.Abs(rel)
			}
			if math.Abs(rel) > math.Ldexp(1, -f.p-3) {
				t.Errorf("%s erf(%v): the polynomial is off by %.3g relative", f.ft, x, rel)
			}
		}
		const n = 300
		for i := 1; i <= n; i++ {
			x := float64(i) / n // (0, 1]
			if x < 1 {
				// The constant term is used as a double word.
				z := hpMul(hpNew(x), hpNew(x))
				c0 := hpAdd(hpNew(k.erfC0[0]), hpNew(k.erfC0[1]))
				F := hpAdd(c0, hpMul(z, hpPoly(k.erfSmall[1:], z)))
				check(x, hpMul(hpNew(x), F))
			}
		}
		for j, iv := range k.erfIv {
			hi := k.erfMax
			if j+1 < len(k.erfIv) {
				hi = k.erfIv[j+1].lo
			}
			for i := 0; i <= n; i++ {
				x := iv.lo + (hi-iv.lo)*float64(i)/n
				xx := hpNew(x)
				R := hpPoly(iv.c, hpSub(xx, hpNew(iv.mid)))
				e := hpExp(new(big.Float).Neg(hpMul(xx, xx)))
				check(x, hpSub(one, hpMul(e, R)))
			}
		}
		t.Logf("%s: largest relative error of the erf polynomials %.3g (2^%.1f)", f.ft, worst, math.Log2(worst))
	}
}

// TestCbrtStart checks the quadratic first approximation of a^(1/3) on
// [1, 8]: relative error below 1/20 (2^-4.3); one Halley step (f32) or two
// (f64) bring it below 2^-12 resp. 2^-36, and the final Newton step to
// twice that.
func TestCbrtStart(t *testing.T) {
	for _, f := range []*format{binary32, binary64} {
		c := f.k().cbrtInit
		worst := 0.0
		for i := 0; i <= 7000; i++ {
			a := 1 + float64(i)/1000
			y := c[0] + a*(c[1]+a*c[2])
			worst = math.Max(worst, math.Abs(y/math.Cbrt(a)-1))
		}
		if worst > 1.0/20 {
			t.Errorf("%s: the first approximation of cbrt is off by %.3g relative", f.ft, worst)
		}
		t.Logf("%s: first approximation of cbrt within %.3g (2^%.1f)", f.ft, worst, math.Log2(worst))
	}
}
