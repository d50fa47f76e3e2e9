package main

import (
	"fmt"
	"math"
	"strings"

	"tir/dialects/tir/interp"
)

// summary is the line printed per result, so a run is checkable at a
// glance without opening the .npy files:
//
//	result #0 -> out.npy: f32 [5 7 9] on I[0:5] J[0:7] K[0:9]: min -3.2 max 3.9 mean 0.012
func summary(i int, dest string, t *interp.Tensor) string {
	var b strings.Builder
	fmt.Fprintf(&b, "result #%d", i)
	if dest != "" {
		fmt.Fprintf(&b, " -> %s", dest)
	}
	var dims []string
	for _, d := range t.Dims {
		dims = append(dims, d.String())
	}
	fmt.Fprintf(&b, ": %s %v", t.Elem, t.Shape())
	if len(dims) > 0 {
		fmt.Fprintf(&b, " on %s", strings.Join(dims, " "))
	}
	lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for i := 0; i < t.Len(); i++ {
		if t.Masked(i) {
			continue
		}
		var v float64
		switch {
		case t.F64 != nil:
			v = t.F64[i]
		case t.I64 != nil:
			v = float64(t.I64[i])
		default:
			continue // tuples have no single value
		}
		lo, hi, sum, n = math.Min(lo, v), math.Max(hi, v), sum+v, n+1
	}
	if n > 0 {
		fmt.Fprintf(&b, ": min %.6g max %.6g mean %.6g", lo, hi, sum/float64(n))
	}
	if m := t.MaskedCount(); m > 0 {
		fmt.Fprintf(&b, " (%d masked points, which hold 0)", m)
	}
	return b.String()
}
