package mathexpand

import (
	"math/big"
	"sync"
)

// consts holds the constants and polynomial coefficients of one format,
// computed in high precision on first use (see hp.go) and rounded to the
// format. A pair [2]float64 is a double-word hi + lo; a triple is a
// Cody–Waite split c1 + c2 + c3.
type consts struct {
	log2e   float64    // 1/log 2, to pick the exponent of exp
	ln2     [2]float64 // log 2 (exp, expm1 reduction)
	ln2Z    [2]float64 // log 2 with a short hi: k * hi is exact (log)
	log2eDW [2]float64 // 1/log 2 (log2, pow)
	log10e  [2]float64 // 1/log 10 (log10)
	lg2Z    [2]float64 // log10(2) with a short hi (log10)
	twoOv3  [2]float64 // 2/3 (the s^3 term of pow's logarithm)

	twoOverPi [2]float64 // 2/π, to pick the quadrant
	pio2      []float64  // π/2 in four parts
	pio2DW    [2]float64 // π/2 (atan, atan2)
	piDW      [2]float64 // π (atan2)
	atanC     []float64  // atan's reduction points tan(jπ/12), j = 0..5, rounded
	atanV     [][2]float64
	atanB     []float64 // boundaries tan((2j+1)π/24) between reduction points

	erfSmall []float64  // erf(x)/x as a polynomial in x^2, |x| < 1
	erfC0    [2]float64 // its constant term as a double word
	erfIv    []erfPiece // erfc(x) e^(x^2) on intervals of [1, erfMax)
	erfMax   float64    // erf(x) rounds to 1 from here on
	cbrtInit []float64  // a^(1/3) on [1, 8], a quadratic

	// Taylor coefficients (their truncation errors are bounded in the
	// comments of each expansion).
	expPoly []float64 // 1/2!, 1/3!, ... for (e^r - 1 - r) / r^2
	sinPoly []float64 // -1/3!, 1/5!, ... for (sin r - r) / r^3 in r^2
	cosPoly []float64 // 1/4!, -1/6!, ... for (cos r - 1 + r^2/2) / r^4 in r^2
	lnPoly  []float64 // 2/3, 2/5, ... for log((1+s)/(1-s)) = 2s + s^3 P(s^2)
	atnPoly []float64 // -1/3, 1/5, ... for (atan t - t) / t^3 in t^2
}

// erfPiece is a polynomial in h = x - mid valid for x in [lo, hi).
type erfPiece struct {
	lo, mid float64
	c       []float64
}

var (
	constOnce [2]sync.Once
	constTab  [2]*consts
)

// k returns the constants of a format.
func (f *format) k() *consts {
	i := 0
	if !f.is32() {
		i = 1
	}
	constOnce[i].Do(func() { constTab[i] = f.compute() })
	return constTab[i]
}

// Degrees of the Taylor polynomials and fits per format; the accuracy test
// (test/mathexpand_accuracy_test.go) checks the resulting error bounds.
type degrees struct {
	exp, sin, cos, ln, atn int
	erfSmall               int
	erfPieces              []float64 // boundaries: [1, b1), [b1, b2), ..., up to erfMax
	erfDeg                 []int
}

var (
	deg32 = degrees{exp: 7, sin: 4, cos: 5, ln: 6, atn: 4, erfSmall: 7,
		erfPieces: []float64{1, 2, 3.92}, erfDeg: []int{10, 9}}
	deg64 = degrees{exp: 13, sin: 8, cos: 8, ln: 11, atn: 9, erfSmall: 13,
		erfPieces: []float64{1, 1.75, 2.75, 4, 5.93}, erfDeg: []int{19, 19, 18, 14}}
)

func (f *format) degrees() degrees {
	if f.is32() {
		return deg32
	}
	return deg64
}

func (f *format) compute() *consts {
	d := f.degrees()
	k := &consts{}
	ln2 := hpLog(hpInt(2))
	ln10 := hpLog(hpInt(10))
	one := hpInt(1)
	pi := hpPi()
	// k in log is below the exponent range plus p in magnitude.
	zeros := 11
	if f.is32() {
		zeros = 8
	}
	k.log2e = f.one(hpQuo(one, ln2))
	k.ln2 = f.split(ln2, 0)
	k.ln2Z = f.split(ln2, zeros)
	k.log2eDW = f.split(hpQuo(one, ln2), 0)
	k.log10e = f.split(hpQuo(one, ln10), 0)
	k.lg2Z = f.split(hpQuo(ln2, ln10), zeros)
	k.twoOv3 = f.split(hpQuo(hpInt(2), hpInt(3)), 0)

	k.twoOverPi = f.split(hpQuo(hpInt(2), pi), 0)
	k.pio2 = f.splitN(hpQuo(pi, hpInt(2)), 4)
	k.pio2DW = f.split(hpQuo(pi, hpInt(2)), 0)
	k.piDW = f.split(pi, 0)
	sqrt3 := hpSqrt(hpInt(3))
	tans := []*big.Float{hpInt(0), hpSub(hpInt(2), sqrt3), hpQuo(one, sqrt3), one, sqrt3, hpAdd(hpInt(2), sqrt3)}
	for _, t := range tans {
		c := f.one(t)
		k.atanC = append(k.atanC, c)
		k.atanV = append(k.atanV, f.split(hpAtan(hpNew(c)), 0))
	}
	// The boundaries tan((2j+1)π/24), j = 0..5, halfway (in angle) between
	// the reduction points.
	for j := 0; j < 6; j++ {
		k.atanB = append(k.atanB, f.one(hpTan(hpQuo(hpMul(hpInt(int64(2*j+1)), pi), hpInt(24)))))
	}

	fact := hpInt(1)
	var facts []*big.Float // n! for n = 0..
	for n := int64(0); n <= 40; n++ {
		if n > 0 {
			fact = hpMul(fact, hpInt(n))
		}
		facts = append(facts, fact)
	}
	for n := 2; n <= d.exp; n++ {
		k.expPoly = append(k.expPoly, f.one(hpQuo(one, facts[n])))
	}
	for i := 1; i <= d.sin; i++ { // r^(2i+1) / (2i+1)!
		c := hpQuo(one, facts[2*i+1])
		if i%2 == 1 {
			c.Neg(c)
		}
		k.sinPoly = append(k.sinPoly, f.one(c))
	}
	for i := 2; i <= d.cos; i++ { // r^(2i) / (2i)!
		c := hpQuo(one, facts[2*i])
		if i%2 == 1 {
			c.Neg(c)
		}
		k.cosPoly = append(k.cosPoly, f.one(c))
	}
	for i := 1; i <= d.ln; i++ {
		k.lnPoly = append(k.lnPoly, f.one(hpQuo(hpInt(2), hpInt(int64(2*i+1)))))
	}
	for i := 1; i <= d.atn; i++ {
		c := hpQuo(one, hpInt(int64(2*i+1)))
		if i%2 == 1 {
			c.Neg(c)
		}
		k.atnPoly = append(k.atnPoly, f.one(c))
	}

	// erf(x)/x = F(x^2) on [0, 1]: interpolate F(z) = erf(sqrt z)/sqrt z.
	small := chebFit(func(z *big.Float) *big.Float {
		if z.Sign() == 0 {
			return hpQuo(hpInt(2), hpSqrt(pi))
		}
		x := hpSqrt(z)
		return hpQuo(hpErf(x), x)
	}, 0, 1, d.erfSmall, 0)
	k.erfSmall = f.roundAll(small)
	k.erfC0 = f.split(small[0], 0)
	// erfc(x) e^(x^2) on each interval.
	for i := 0; i+1 < len(d.erfPieces); i++ {
		lo, hi := d.erfPieces[i], d.erfPieces[i+1]
		c := chebFit(func(x *big.Float) *big.Float {
			return hpMul(hpSub(one, hpErf(x)), hpExp(hpMul(x, x)))
		}, lo, hi, d.erfDeg[i], (lo+hi)/2)
		k.erfIv = append(k.erfIv, erfPiece{lo: lo, mid: (lo + hi) / 2, c: f.roundAll(c)})
	}
	k.erfMax = d.erfPieces[len(d.erfPieces)-1]
	k.cbrtInit = f.roundAll(chebFit(func(a *big.Float) *big.Float {
		return hpExp(hpQuo(hpLog(a), hpInt(3)))
	}, 1, 8, 2, 0))
	return k
}

// hpTan is tan(a) for |a| < π/2, as sin/cos by their Taylor series.
func hpTan(a *big.Float) *big.Float {
	sin, cos := hpNew(0), hpNew(0)
	t := hpNew(1) // a^n / n!
	for n := int64(0); n < 4 || !hpSmall(t); n++ {
		if n > 0 {
			t = hpQuo(hpMul(t, a), hpInt(n))
		}
		switch n % 4 {
		case 0:
			cos = hpAdd(cos, t)
		case 1:
			sin = hpAdd(sin, t)
		case 2:
			cos = hpSub(cos, t)
		case 3:
			sin = hpSub(sin, t)
		}
	}
	return hpQuo(sin, cos)
}
