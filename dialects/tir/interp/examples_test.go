package interp

import (
	"math"
	"testing"

	"tir/dialects/ir"
)

// The shared examples against direct Go computations with the same
// operation order, compared bit for bit. Explicit conversions stop the Go
// compiler from fusing a multiply and an add (which the spec allows it to
// do otherwise).

func TestLaplacianExample(t *testing.T) {
	fn := exampleFunc(t, "laplacian.tir", "laplacian")
	inp := fill(mustTensor(ir.F32, []Dim{D("I", -1, 6), D("J", -1, 8), D("K", 0, 9)}), pseudo)
	r := run1(t, fn, []*Tensor{inp}, nil)
	checkDims(t, r, D("I", 0, 5), D("J", 0, 7), D("K", 0, 9))
	x := func(i, j, k int64) float32 {
		return float32(at(t, inp, map[string]int64{"I": i, "J": j, "K": k}))
	}
	n := 0
	_ = points(r.Dims, func(c []int64) error {
		i, j, k := c[0], c[1], c[2]
		v := float32(4 * x(i, j, k))
		v = float32(v - x(i+1, j, k))
		v = float32(v - x(i-1, j, k))
		v = float32(v - x(i, j+1, k))
		v = float32(v - x(i, j-1, k))
		if got := r.F64[n]; !sameBits(got, float64(v)) {
			t.Errorf("lap(%d,%d,%d) = %.9g, want %.9g", i, j, k, got, v)
		}
		n++
		return nil
	})
}

func TestLaplacianSymbolicExample(t *testing.T) {
	fn := exampleFunc(t, "laplacian_symbolic.tir", "laplacian")
	const N, M = 6, 5
	inp := fill(mustTensor(ir.F64, []Dim{D("I", 0, N), D("J", 0, M)}), pseudo)
	x := func(i, j int64) float64 { return at(t, inp, map[string]int64{"I": i, "J": j}) }
	for _, syms := range []map[string]int64{{"N": N, "M": M}, nil} { // given, then inferred
		r := run1(t, fn, []*Tensor{inp}, syms)
		checkDims(t, r, D("I", 1, N-1), D("J", 1, M-1))
		n := 0
		_ = points(r.Dims, func(c []int64) error {
			i, j := c[0], c[1]
			v := float64(4 * x(i, j))
			v = v - x(i+1, j) - x(i-1, j) - x(i, j+1) - x(i, j-1)
			if got := r.F64[n]; !sameBits(got, v) {
				t.Errorf("lap(%d,%d) = %.17g, want %.17g", i, j, got, v)
			}
			n++
			return nil
		})
	}
}

func TestHdiffExample(t *testing.T) {
	fn := exampleFunc(t, "hdiff.tir", "hdiff")
	u := fill(mustTensor(ir.F64, []Dim{D("I", -2, 7), D("J", -2, 9)}), pseudo)
	coeff := fill(mustTensor(ir.F64, []Dim{D("I", 0, 5), D("J", 0, 7)}), func(c []int64) float64 {
		return 0.1 + 0.05*pseudo([]int64{c[1], c[0]})
	})
	r := run1(t, fn, []*Tensor{u, coeff}, nil)
	checkDims(t, r, D("I", 0, 5), D("J", 0, 7))

	U := func(i, j int64) float64 { return at(t, u, map[string]int64{"I": i, "J": j}) }
	lap := func(i, j int64) float64 {
		return float64(4*U(i, j)) - U(i+1, j) - U(i-1, j) - U(i, j+1) - U(i, j-1)
	}
	flx := func(i, j int64) float64 {
		f := lap(i+1, j) - lap(i, j)
		if float64(f*(U(i+1, j)-U(i, j))) > 0 {
			return 0
		}
		return f
	}
	fly := func(i, j int64) float64 {
		f := lap(i, j+1) - lap(i, j)
		if float64(f*(U(i, j+1)-U(i, j))) > 0 {
			return 0
		}
		return f
	}
	n := 0
	_ = points(r.Dims, func(c []int64) error {
		i, j := c[0], c[1]
		div := (flx(i, j) - flx(i-1, j)) + (fly(i, j) - fly(i, j-1))
		upd := float64(at(t, coeff, map[string]int64{"I": i, "J": j}) * div)
		want := U(i, j) - upd
		if got := r.F64[n]; !sameBits(got, want) {
			t.Errorf("hdiff(%d,%d) = %.17g, want %.17g", i, j, got, want)
		}
		n++
		return nil
	})
}

func TestTemporariesExample(t *testing.T) {
	fn := exampleFunc(t, "temporaries.tir", "cos_pair")
	x := fill(mustTensor(ir.F32, []Dim{D("I", 0, 100)}), pseudo)
	r := run1(t, fn, []*Tensor{x}, nil)
	checkDims(t, r, D("I", 1, 99))
	for i := int64(1); i < 99; i++ {
		c := func(k int64) float32 { return float32(RoundTo(ir.F32, math.Cos(x.F64[k]))) }
		want := c(i+1) + c(i-1)
		if got := r.F64[i-1]; !sameBits(got, float64(want)) {
			t.Errorf("r(%d) = %g, want %g", i, got, want)
		}
	}
}
