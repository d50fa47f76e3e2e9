package mathexpand

import "math"

// ConstantsForTest returns, for a few constants of the expansions, the
// value computed in high precision (summed from its parts), Go's float64
// value and the relative tolerance (the precision of two format numbers,
// the first one short for ln2Z and lg2Z, or of the interpolant for erf's
// constant term).
func ConstantsForTest() map[string][3]float64 {
	out := map[string][3]float64{}
	for _, f := range []*format{binary32, binary64} {
		k := f.k()
		sum := 0.0
		for _, c := range k.pio2 {
			sum += c
		}
		p := f.ft.Name + " "
		tol, fit := 1e-15, 1e-15
		if f.is32() {
			tol, fit = 0x1p-38, 1e-9
		}
		out[p+"pi/2"] = [3]float64{sum, math.Pi / 2, tol}
		out[p+"ln2"] = [3]float64{k.ln2[0] + k.ln2[1], math.Ln2, tol}
		out[p+"ln2 short"] = [3]float64{k.ln2Z[0] + k.ln2Z[1], math.Ln2, tol}
		out[p+"log2e"] = [3]float64{k.log2eDW[0] + k.log2eDW[1], math.Log2E, tol}
		out[p+"log10e"] = [3]float64{k.log10e[0] + k.log10e[1], 1 / math.Ln10, tol}
		out[p+"log10(2)"] = [3]float64{k.lg2Z[0] + k.lg2Z[1], math.Log10(2), tol}
		out[p+"2/pi"] = [3]float64{k.twoOverPi[0] + k.twoOverPi[1], 2 / math.Pi, tol}
		out[p+"pi"] = [3]float64{k.piDW[0] + k.piDW[1], math.Pi, tol}
		out[p+"atan(tan(5pi/12))"] = [3]float64{k.atanV[5][0] + k.atanV[5][1], math.Atan(k.atanC[5]), tol}
		out[p+"erf c0"] = [3]float64{k.erfC0[0] + k.erfC0[1], 2 / math.SqrtPi, fit}
	}
	return out
}
