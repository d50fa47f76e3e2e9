package test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// Messages and small tools (issue 7, item 11): run-time check messages,
// scan dimension order, splats in vectorized code.

// A scan whose init varies along a dimension of its input keeps the
// input's dimension order (I, J, K), so the result's storage order is the
// input's: r(i, j, k) = s0(j) + x(i, j, 0) + ... + x(i, j, k).
func TestScanInitKeepsInputOrder(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, I[0:3], J[0:2], K[0:4]>, %s0: !tir.tensor<f64, J[0:2]>) {
  %r = tir.scan forward along K init %s0 ins(%x) {
  ^bb0(%st, %xv):
    %n = tir.add %st, %xv
    tir.yield %n
  }
  tir.return %r
}`
	var xs []float64
	for n := 0; n < 3*2*4; n++ {
		xs = append(xs, float64(n*n%17)-3)
	}
	x := tensorOf(t, f64, []interp.Dim{dim("I", 0, 3), dim("J", 0, 2), dim("K", 0, 4)}, xs)
	s0 := tensorOf(t, f64, []interp.Dim{dim("J", 0, 2)}, []float64{100, -50})
	var want []float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 2; j++ {
			acc := s0.F64[j]
			for k := 0; k < 4; k++ {
				acc += xs[(i*2+j)*4+k]
				want = append(want, acc)
			}
		}
	}
	results := runAllModes(t, src, []*interp.Tensor{x, s0}, nil)
	for mode, rs := range results {
		var names []string
		for _, d := range rs[0].Dims {
			names = append(names, d.Name)
		}
		if len(names) != 3 || names[0] != "I" || names[1] != "J" || names[2] != "K" {
			t.Errorf("%s: result dimensions %v, want [I J K] (the input's order)", mode, names)
		}
	}
	expectAll(t, results, want)
}

// A scalar read inside a vectorized loop (a 0-d argument) is broadcast
// through a stack slot: the -O2 code calls no allocator, and computes
// alpha * x + y on both sides of the vector loop's remainder.
func TestSplatWithoutAllocation(t *testing.T) {
	const src = `tir.func @axpy(%alpha: !tir.tensor<f32>, %x: !tir.tensor<f32, I[0:N]>, %y: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[0:N]> {
  %a = tir.mul %alpha, %x
  %r = tir.add %a, %y
  tir.return %r : !tir.tensor<f32, I[0:N]>
}`
	needToolchain(t)
	llvm, err := native.Compile("axpy.tir", src, 2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(llvm, "<8 x float>") {
		t.Fatalf("the loop is not vectorized:\n%s", llvm)
	}
	for _, f := range []string{"@aligned_alloc", "@malloc", "@free"} {
		if strings.Contains(llvm, f) {
			t.Errorf("-O2 code calls %s:\n%s", f, llvm)
		}
	}
	const n = 13
	var xs, ys, want []float64
	for i := 0; i < n; i++ {
		xs = append(xs, float64(i)-4)
		ys = append(ys, float64(i*i%7))
		want = append(want, -1.5*xs[i]+ys[i])
	}
	f32 := ir.FloatType{Name: "f32"}
	alpha := tensorOf(t, f32, nil, []float64{-1.5})
	x := tensorOf(t, f32, []interp.Dim{dim("I", 0, n)}, xs)
	y := tensorOf(t, f32, []interp.Dim{dim("I", 0, n)}, ys)
	expectAll(t, runAllModes(t, src, []*interp.Tensor{alpha, x, y}, map[string]int64{"N": n}), want)
}

// A failed assume_shape names the argument, the dimension, the expected
// and the actual extents with their values, word for word the same in the
// interpreter and in compiled code: for an unknown extent (the compiled
// code reads it from the descriptor) and for intervals whose origins
// differ. So does an extent check against an unknown extent.
func TestRunTimeCheckMessages(t *testing.T) {
	cases := []struct {
		src  string
		args []*interp.Tensor
		syms map[string]int64
		want string
	}{
		{`tir.func @f(%a: !tir.tensor<f32, J[0:3], I[2:?]>, %b: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, J[0:3], I[0:N]> {
  %s = tir.assume_shape %a : !tir.tensor<f32, J[0:3], I[2:N + 2]>
  %t = tir.shift %s [I + 2]
  %r = tir.add %t, %b
  tir.return %r : !tir.tensor<f32, J[0:3], I[0:N]>
}`, []*interp.Tensor{zeros(t, dim("J", 0, 3), dim("I", 0, 5)), zeros(t, dim("I", 0, 4))}, map[string]int64{"N": 4},
			"assume_shape: argument 'a' dimension I: expected extent N = 4, got 5"},
		{`tir.func @f(%a: !tir.tensor<f32, I[K:N]>) -> !tir.tensor<f32, I[0:M]> {
  %s = tir.assume_shape %a : !tir.tensor<f32, I[0:M]>
  tir.return %s : !tir.tensor<f32, I[0:M]>
}`, []*interp.Tensor{zeros(t, dim("I", 0, 4))}, map[string]int64{"K": 1, "N": 5, "M": 4},
			"assume_shape: argument 'a' dimension I: expected [0:M] = [0:4], got [1:5]"},
		// An extent that another argument's unknown extent fixes.
		{`tir.func @f(%x: !tir.tensor<f32, I[?]>, %y: !tir.tensor<f32, I[0:?_x_I]>) -> !tir.tensor<f32, I[0:?_x_I]> {
  %r = tir.add %x, %y
  tir.return %r : !tir.tensor<f32, I[0:?_x_I]>
}`, []*interp.Tensor{zeros(t, dim("I", 0, 5)), zeros(t, dim("I", 0, 4))}, nil,
			"argument 'y' dimension I: expected extent ?_x_I = 5, got 4"},
	}
	for _, c := range cases {
		for mode, r := range runModes(t, c.src, c.args, c.syms) {
			var d *ir.Diagnostic
			got := fmt.Sprint(r.err)
			if errors.As(r.err, &d) {
				got = d.Msg
			}
			if got != c.want {
				t.Errorf("%s: got %q, want %q", mode, got, c.want)
			}
		}
	}
}

func zeros(t *testing.T, dims ...interp.Dim) *interp.Tensor {
	t.Helper()
	x, err := interp.NewTensor(ir.FloatType{Name: "f32"}, dims)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
