package interp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"tir/dialects/ir"
)

// TestNextAfter: tir.nextafter in each float type, against values written
// from the formats (powers of two), not from a library's nextafter.
func TestNextAfter(t *testing.T) {
	p := math.Ldexp
	inf, nan := math.Inf(1), math.NaN()
	negZero := math.Copysign(0, -1)
	cases := []struct {
		elem       string
		a, b, want float64
	}{
		{"f64", 1, 2, 1 + p(1, -52)},
		{"f64", 1, 0, 1 - p(1, -53)},
		{"f64", -1, -2, -1 - p(1, -52)},
		{"f64", -1, 5, -1 + p(1, -53)},
		{"f64", 0, 1, p(1, -1074)},
		{"f64", 0, -1, -p(1, -1074)},
		{"f64", negZero, 1, p(1, -1074)},
		{"f64", p(1, -1074), 0, 0},
		{"f64", p(1, -1022), 0, p(1, -1022) - p(1, -1074)},
		{"f64", math.MaxFloat64, inf, inf},
		{"f64", inf, 0, math.MaxFloat64},
		{"f64", 3, 3, 3},
		// a == b gives b, as C: the sign of a zero is b's.
		{"f64", 0, negZero, negZero},
		{"f32", 1, 2, 1 + p(1, -23)},
		{"f32", 1, 0, 1 - p(1, -24)},
		{"f32", 0, 1, p(1, -149)},
		{"f32", 0, -1, -p(1, -149)},
		{"f32", p(1, -126), 0, p(1, -126) - p(1, -149)},
		{"f32", math.MaxFloat32, inf, inf},
		{"f32", -inf, 0, -math.MaxFloat32},
		{"f16", 1, 2, 1 + p(1, -10)},
		{"f16", 1, 0, 1 - p(1, -11)},
		{"f16", 0, 1, p(1, -24)},
		{"f16", p(1, -14), 0, p(1, -14) - p(1, -24)},
		{"f16", 65504, inf, inf},
		{"f16", inf, 0, 65504},
		{"f16", -2, -inf, -2 - p(1, -9)},
		{"bf16", 1, 2, 1 + p(1, -7)},
		{"bf16", 1, 0, 1 - p(1, -8)},
		{"bf16", 0, -1, -p(1, -133)},
		{"bf16", p(1, -126), 1, p(1, -126) + p(1, -133)},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%g_%g", c.elem, c.a, c.b), func(t *testing.T) {
			elem := ir.BuiltinScalar(c.elem)
			r := run1(t, binaryFunc(t, "nextafter", c.elem), []*Tensor{floats(elem, nil, c.a), floats(elem, nil, c.b)}, nil)
			if !sameBits(r.F64[0], c.want) {
				t.Errorf("nextafter(%g, %g) : %s = %.17g, want %.17g", c.a, c.b, c.elem, r.F64[0], c.want)
			}
		})
	}
	for _, elem := range []string{"f64", "f32", "f16", "bf16"} {
		e := ir.BuiltinScalar(elem)
		for _, ab := range [][2]float64{{nan, 1}, {1, nan}, {nan, nan}} {
			r := run1(t, binaryFunc(t, "nextafter", elem), []*Tensor{floats(e, nil, ab[0]), floats(e, nil, ab[1])}, nil)
			if !math.IsNaN(r.F64[0]) {
				t.Errorf("nextafter(%g, %g) : %s = %g, want NaN", ab[0], ab[1], elem, r.F64[0])
			}
		}
	}
}

// TestNextBinary checks the stepping of f16 and bf16 (nextBinary) with the
// parameters of f32 and f64 against math.Nextafter32 and math.Nextafter, on
// powers of two, subnormals, the extremes and random values.
func TestNextBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for e := -1080; e <= 1030; e++ {
		xs = append(xs, math.Ldexp(1, e), -math.Ldexp(1, e), math.Ldexp(1.5, e))
	}
	xs = append(xs, math.MaxFloat64, -math.MaxFloat64, math.MaxFloat32, math.Inf(1), math.Inf(-1), math.SmallestNonzeroFloat64)
	for range 20000 {
		xs = append(xs, math.Float64frombits(rng.Uint64()))
	}
	targets := []float64{0, math.Copysign(0, -1), 1, -1, math.Inf(1), math.Inf(-1)}
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		for _, y := range targets {
			if x == y {
				continue
			}
			if got, want := nextBinary(x, y, 53, -1022), math.Nextafter(x, y); !sameBits(got, want) {
				t.Fatalf("f64 nextBinary(%g, %g) = %g, want %g", x, y, got, want)
			}
			x32 := float32(x)
			if float64(x32) == y || math.IsNaN(float64(x32)) {
				continue
			}
			if got, want := nextBinary(float64(x32), y, 24, -126), float64(math.Nextafter32(x32, float32(y))); !sameBits(got, want) {
				t.Fatalf("f32 nextBinary(%g, %g) = %g, want %g", x32, y, got, want)
			}
		}
	}
}
