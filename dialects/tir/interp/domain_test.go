package interp

import (
	"testing"

	"tir/dialects/ir"
)

func TestBroadcastIntersectsIntervals(t *testing.T) {
	// Spec 2.2: x[-3:5] * (x[1:9], y[5:8]) is on x[1:5], y[5:8].
	src := `tir.func @f(%a: !tir.tensor<i32, x[-3:5]>, %b: !tir.tensor<i32, x[1:9], y[5:8]>) {
  %r = tir.mul %a, %b
  tir.return %r
}`
	fn := parseFunc(t, src, "f")
	a := ints(ir.I32, []Dim{D("x", -3, 5)})
	for i := range a.I64 {
		a.I64[i] = int64(i-3) * 10 // a(x) = 10x
	}
	b := ints(ir.I32, []Dim{D("x", 1, 9), D("y", 5, 8)})
	i := 0
	_ = points(b.Dims, func(c []int64) error {
		b.I64[i] = c[0] + 100*c[1] // b(x, y) = x + 100y
		i++
		return nil
	})
	r := run1(t, fn, []*Tensor{a, b}, nil)
	checkDims(t, r, D("x", 1, 5), D("y", 5, 8))
	i = 0
	_ = points(r.Dims, func(c []int64) error {
		if want := 10 * c[0] * (c[0] + 100*c[1]); r.I64[i] != want {
			t.Errorf("r(%d, %d) = %d, want %d", c[0], c[1], r.I64[i], want)
		}
		i++
		return nil
	})
}

func TestBroadcastScalarAndOrder(t *testing.T) {
	// A 0-d operand broadcasts everywhere; the result takes the first
	// operand's dimension order, then the new ones (J, I here).
	src := `tir.func @f(%a: !tir.tensor<f64, J[0:2]>, %b: !tir.tensor<f64, I[0:3]>) {
  %h = tir.constant 0.5 : f64
  %s = tir.add %a, %b
  %r = tir.mul %s, %h
  tir.return %r
}`
	fn := parseFunc(t, src, "f")
	a := floats(ir.F64, []Dim{D("J", 0, 2)}, 10, 20)
	b := floats(ir.F64, []Dim{D("I", 0, 3)}, 1, 2, 3)
	r := run1(t, fn, []*Tensor{a, b}, nil)
	checkDims(t, r, D("J", 0, 2), D("I", 0, 3))
	want := []float64{5.5, 6, 6.5, 10.5, 11, 11.5}
	for i, w := range want {
		if r.F64[i] != w {
			t.Errorf("r[%d] = %g, want %g", i, r.F64[i], w)
		}
	}
}

func TestShiftReadsAtOffset(t *testing.T) {
	x := ints(ir.I32, []Dim{D("I", 0, 2), D("J", 0, 2)}, 0, 42, 1, 43)
	cases := []struct {
		shift string
		dims  []Dim
		want  int64 // at (I=0, J=0)
	}{
		{"[J + 1]", []Dim{D("I", 0, 2), D("J", -1, 1)}, 42},
		{"[I + 1, J + 1]", []Dim{D("I", -1, 1), D("J", -1, 1)}, 43},
		{"[I + 1]", []Dim{D("I", -1, 1), D("J", 0, 2)}, 1},
		{"[I - 1]", []Dim{D("I", 1, 3), D("J", 0, 2)}, 0},
	}
	for _, c := range cases {
		t.Run(c.shift, func(t *testing.T) {
			src := `tir.func @f(%x: !tir.tensor<i32, I[0:2], J[0:2]>) {
  %y = tir.shift %x ` + c.shift + `
  tir.return %y
}`
			r := run1(t, parseFunc(t, src, "f"), []*Tensor{x}, nil)
			checkDims(t, r, c.dims...)
			p := map[string]int64{"I": 0, "J": 0}
			if c.dims[0].Lo > 0 {
				p["I"] = 1
			}
			i, ok := r.Offset(p)
			if !ok {
				t.Fatalf("%v outside %s", p, r)
			}
			if r.I64[i] != c.want {
				t.Errorf("y%v = %d, want %d", p, r.I64[i], c.want)
			}
		})
	}
}

func TestShiftBySymbol(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f64, I[0:N]>) {
  %y = tir.shift %x [I + K]
  tir.return %y
}`
	x := floats(ir.F64, []Dim{D("I", 0, 5)}, 0, 1, 2, 3, 4)
	r := run1(t, parseFunc(t, src, "f"), []*Tensor{x}, map[string]int64{"K": 2})
	checkDims(t, r, D("I", -2, 3))
	if got := at(t, r, map[string]int64{"I": 0}); got != 2 {
		t.Errorf("y(0) = %g, want x(2) = 2", got)
	}
}

func TestCmpSelect(t *testing.T) {
	// relu with a threshold, on overlapping domains: r = a > b ? a : b on
	// the intersection I[1:3].
	src := `tir.func @f(%a: !tir.tensor<f32, I[0:3]>, %b: !tir.tensor<f32, I[1:4]>) {
  %c = tir.cmp gt %a, %b
  %r = tir.select %c, %a, %b
  %z = tir.constant 0.0 : f64
  %n = tir.cmp lt %a, %z
  tir.return %r, %n
}`
	fn := parseFunc(t, src, "f")
	a := floats(ir.F32, []Dim{D("I", 0, 3)}, -1, 5, -2)
	b := floats(ir.F32, []Dim{D("I", 1, 4)}, 3, 1, 7)
	outs, err := Run(fn, []*Tensor{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDims(t, outs[0], D("I", 1, 3))
	if outs[0].F64[0] != 5 || outs[0].F64[1] != 1 {
		t.Errorf("select = %v, want [5 1]", outs[0].F64)
	}
	checkDims(t, outs[1], D("I", 0, 3))
	if got := outs[1].I64; got[0] != 1 || got[1] != 0 || got[2] != 1 {
		t.Errorf("a < 0.0 = %v, want [1 0 1]", got)
	}
}

func TestOutputDomainRestriction(t *testing.T) {
	// The declared output is smaller than the computed domain, and lists
	// the dimensions in another order; a broadcast dimension is added.
	src := `tir.func @f(%a: !tir.tensor<i64, I[0:4], J[0:2]>) -> !tir.tensor<i64, J[0:2], I[1:3], K[0:2]> {
  tir.return %a : !tir.tensor<i64, J[0:2], I[1:3], K[0:2]>
}`
	a := ints(ir.I64, []Dim{D("I", 0, 4), D("J", 0, 2)}, 0, 1, 10, 11, 20, 21, 30, 31)
	r := run1(t, parseFunc(t, src, "f"), []*Tensor{a}, nil)
	checkDims(t, r, D("J", 0, 2), D("I", 1, 3), D("K", 0, 2))
	want := []int64{10, 10, 20, 20, 11, 11, 21, 21}
	for i, w := range want {
		if r.I64[i] != w {
			t.Fatalf("result %v, want %v", r.I64, want)
		}
	}
}
