package native

import (
	"math"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
)

// Compare counts every element; at a point the reference masks it wants
// 0, even where the reference's data holds something else.
func TestCompareCountsMaskedPoints(t *testing.T) {
	dims := []interp.Dim{{Name: "I", Lo: 0, Hi: 4}}
	want, _ := interp.NewTensor(ir.F32, dims)
	copy(want.F64, []float64{1, 7, 3, 9})
	want.Mask = []bool{false, true, false, true}
	got, _ := interp.NewTensor(ir.F32, dims)
	copy(got.F64, []float64{1, 0, 3, 0})
	d, err := Compare([]*interp.Tensor{got}, []*interp.Tensor{want})
	if err != nil {
		t.Fatal(err)
	}
	if d.Compared != 4 || d.Masked != 2 || d.Mismatch != 0 {
		t.Errorf("zeros at the masked points: %+v, want 4 compared, 2 masked, none differing", d)
	}
	got.F64[3] = 9 // what a clamped read would have found
	d, err = Compare([]*interp.Tensor{got}, []*interp.Tensor{want})
	if err != nil {
		t.Fatal(err)
	}
	if d.Mismatch != 1 || d.Where != "result #0 element 3: got 9, want 0" {
		t.Errorf("a masked point holding 9: %+v, want one mismatch at element 3", d)
	}
}

// MaxNorm measures a difference against the larger of the element and
// the largest finite magnitude of its result; masked points and
// infinities do not make the scale.
func TestCompareMaxNorm(t *testing.T) {
	dims := []interp.Dim{{Name: "I", Lo: 0, Hi: 5}}
	want, _ := interp.NewTensor(ir.F32, dims)
	copy(want.F64, []float64{1e-4, -8, 2, 1e30, math.Inf(1)})
	want.Mask = []bool{false, false, false, true, false}
	got, _ := interp.NewTensor(ir.F32, dims)
	copy(got.F64, []float64{1e-4 + 8e-7, -8, 2.0000008, 0, math.Inf(1)})
	d, err := Compare([]*interp.Tensor{got}, []*interp.Tensor{want})
	if err != nil {
		t.Fatal(err)
	}
	if d.Mismatch != 2 || math.Abs(d.MaxNorm-1e-7) > 1e-12 || d.MaxRel < 7e-3 {
		t.Errorf("%+v: want 2 mismatches, MaxNorm 1e-7 (8e-7 of 8), MaxRel 8e-3", d)
	}
	got.F64[4] = 5 // a finite value where an infinity is wanted
	if d, _ := Compare([]*interp.Tensor{got}, []*interp.Tensor{want}); !math.IsNaN(d.MaxNorm) && d.MaxNorm <= 1e-5 {
		t.Errorf("a finite value for an infinity: MaxNorm %g", d.MaxNorm)
	}
}
