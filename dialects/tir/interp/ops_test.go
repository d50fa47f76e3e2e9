package interp

import (
	"math"
	"strings"
	"testing"

	"tir/dialects/ir"
)

func TestNablaExample(t *testing.T) {
	fn := exampleFunc(t, "nabla.tir", "nabla")
	const NV, NE = 4, 5
	vf := []Dim{D("Vertex", 0, NV)}
	ef := []Dim{D("Edge", 0, NE)}
	pp := floats(ir.F64, vf, 1, 2, 4, 8)
	sx := floats(ir.F64, ef, 1, 0.5, 0.25, 2, 3)
	sy := floats(ir.F64, ef, -1, 1, 0.75, 0.125, 5)
	vol := floats(ir.F64, vf, 2, 4, 1, 0.5)
	// Edge 4 has a missing second vertex (-1): masked in the E2V sum.
	e2v := ints(ir.I32, []Dim{D("Edge", 0, NE), D("E2V", 0, 2)}, 0, 1, 1, 2, 2, 3, 3, 0, 1, -1)
	v2e := mustTensor(ir.I32, []Dim{D("Vertex", 0, NV), D("V2E", 0, 7)})
	sign := mustTensor(ir.F64, []Dim{D("Vertex", 0, NV), D("V2E", 0, 7)})
	rows := [][]int64{{0, 3}, {0, 1, 4}, {1, 2}, {2, 3, 9}} // 9 is out of range: masked too
	for v, row := range rows {
		for k := 0; k < 7; k++ {
			v2e.I64[v*7+k] = -1
			sign.F64[v*7+k] = float64(1 - 2*((v+k)%2))
			if k < len(row) {
				v2e.I64[v*7+k] = row[k]
			}
		}
	}
	outs, err := Run(fn, []*Tensor{pp, sx, sy, sign, vol, e2v, v2e}, nil)
	if err != nil {
		t.Fatal(err)
	}
	zavg := func(s *Tensor, e int64) float64 {
		sum := 0.0
		for k := int64(0); k < 2; k++ {
			if v := e2v.I64[e*2+k]; v >= 0 && v < NV {
				sum += pp.F64[v]
			}
		}
		return float64(s.F64[e] * float64(0.5*sum))
	}
	for c, s := range []*Tensor{sx, sy} {
		checkDims(t, outs[c], vf...)
		for v := int64(0); v < NV; v++ {
			acc := 0.0
			for k := int64(0); k < 7; k++ {
				if e := v2e.I64[v*7+k]; e >= 0 && e < NE {
					acc += float64(zavg(s, e) * sign.F64[v*7+k])
				}
			}
			want := acc / vol.F64[v]
			if got := outs[c].F64[v]; !sameBits(got, want) {
				t.Errorf("result %d at vertex %d = %.17g, want %.17g", c, v, got, want)
			}
		}
	}
}

func TestTridiagExample(t *testing.T) {
	fn := exampleFunc(t, "tridiag.tir", "solve_tridiag")
	col := []Dim{D("I", 0, 3), D("J", 0, 7), D("K", 0, 5)}
	a := fill(mustTensor(ir.F64, col), func(c []int64) float64 { return 0.3 * pseudo(c) })
	b := fill(mustTensor(ir.F64, col), func(c []int64) float64 { return 3 + pseudo([]int64{c[2], c[1], c[0]}) })
	cc := fill(mustTensor(ir.F64, col), func(c []int64) float64 { return 0.3 * pseudo([]int64{c[1], c[2], c[0]}) })
	d := fill(mustTensor(ir.F64, col), func(c []int64) float64 { return pseudo([]int64{c[0], c[0], c[2], c[1]}) })
	r := run1(t, fn, []*Tensor{a, b, cc, d}, nil)
	checkDims(t, r, col...)
	for i := int64(0); i < 3; i++ {
		for j := int64(0); j < 7; j++ {
			ix := func(k int64) int { return int((i*7+j)*5 + k) }
			var cp, dp [5]float64
			cpPrev, dpPrev := 0.0, 0.0
			for k := int64(0); k < 5; k++ {
				den := b.F64[ix(k)] - float64(a.F64[ix(k)]*cpPrev)
				cp[k] = cc.F64[ix(k)] / den
				dp[k] = (d.F64[ix(k)] - float64(a.F64[ix(k)]*dpPrev)) / den
				cpPrev, dpPrev = cp[k], dp[k]
			}
			above := 0.0
			for k := int64(4); k >= 0; k-- {
				x := dp[k] - float64(cp[k]*above)
				if got := r.F64[ix(k)]; !sameBits(got, x) {
					t.Errorf("x(%d,%d,%d) = %.17g, want %.17g", i, j, k, got, x)
				}
				above = x
			}
			// The solution solves the system (to rounding).
			for k := int64(0); k < 5; k++ {
				lhs := b.F64[ix(k)] * r.F64[ix(k)]
				if k > 0 {
					lhs += a.F64[ix(k)] * r.F64[ix(k-1)]
				}
				if k < 4 {
					lhs += cc.F64[ix(k)] * r.F64[ix(k+1)]
				}
				if math.Abs(lhs-d.F64[ix(k)]) > 1e-12 {
					t.Errorf("row %d of column (%d,%d): residual %g", k, i, j, lhs-d.F64[ix(k)])
				}
			}
		}
	}
}

func TestViewAndPrecondition(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f32, d0[0:7], d1[0:N]>) {
  %y = tir.view %x [d0 = i + k, d1 = 2*j] : !tir.tensor<f32, i[0:5], k[0:3], j[0:4]>
  tir.return %y
}`
	fn := parseFunc(t, src, "f")
	x := fill(mustTensor(ir.F32, []Dim{D("d0", 0, 7), D("d1", 0, 8)}), func(c []int64) float64 { return float64(10*c[0] + c[1]) })
	r := run1(t, fn, []*Tensor{x}, nil)
	checkDims(t, r, D("i", 0, 5), D("k", 0, 3), D("j", 0, 4))
	n := 0
	_ = points(r.Dims, func(c []int64) error {
		if want := float64(10*(c[0]+c[1]) + 2*c[2]); r.F64[n] != want {
			t.Errorf("y%v = %g, want %g", c, r.F64[n], want)
		}
		n++
		return nil
	})
	// With N = 6 the view reads d1 = 6: its run-time precondition fails.
	small := mustTensor(ir.F32, []Dim{D("d0", 0, 7), D("d1", 0, 6)})
	_, err := Run(fn, []*Tensor{small}, nil)
	if err == nil || !strings.Contains(err.Error(), "view precondition failed: argument 'x' dimension d1: d1 = 2*j takes [0:7], outside its [0:N] = [0:6]") {
		t.Errorf("error = %v", err)
	}
}

func TestDomainOps(t *testing.T) {
	src := `tir.func @f(%a: !tir.tensor<f64, I[0:2]>, %b: !tir.tensor<f64, I[2:5], J[0:2]>) {
  %c = tir.concat %a, %b along I
  %s = tir.subset %c [I[1:4]]
  %k = tir.broadcast %s [K[0:2]]
  %p = tir.pos I of %s
  tir.return %c, %k, %p
}`
	fn := parseFunc(t, src, "f")
	a := floats(ir.F64, []Dim{D("I", 0, 2)}, 1, 2)
	b := floats(ir.F64, []Dim{D("I", 2, 5), D("J", 0, 2)}, 30, 31, 40, 41, 50, 51)
	outs, err := Run(fn, []*Tensor{a, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDims(t, outs[0], D("I", 0, 5), D("J", 0, 2))
	if got, want := outs[0].F64, []float64{1, 1, 2, 2, 30, 31, 40, 41, 50, 51}; !equalF(got, want) {
		t.Errorf("concat = %v, want %v", got, want)
	}
	checkDims(t, outs[1], D("I", 1, 4), D("J", 0, 2), D("K", 0, 2))
	if got, want := outs[1].F64, []float64{2, 2, 2, 2, 30, 30, 31, 31, 40, 40, 41, 41}; !equalF(got, want) {
		t.Errorf("subset+broadcast = %v, want %v", got, want)
	}
	checkDims(t, outs[2], D("I", 1, 4))
	if got := outs[2].I64; got[0] != 1 || got[1] != 2 || got[2] != 3 {
		t.Errorf("pos = %v, want [1 2 3]", got)
	}
}

func equalF(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameBits(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestCast(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f64, I[0:4]>, %b: !tir.tensor<i1, I[0:4]>) {
  %i = tir.cast %x : !tir.tensor<i32, I[0:4]>
  %f = tir.cast %i : !tir.tensor<f32, I[0:4]>
  %g = tir.cast %b : !tir.tensor<f32, I[0:4]>
  %n = tir.cast %x : !tir.tensor<i8, I[0:4]>
  tir.return %i, %f, %g, %n
}`
	x := floats(ir.F64, []Dim{D("I", 0, 4)}, -2.7, 2.7, 1e10, math.NaN())
	b := ints(ir.I1, []Dim{D("I", 0, 4)}, 1, 0, 1, 0)
	outs, err := Run(parseFunc(t, src, "f"), []*Tensor{x, b}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].I64; got[0] != -2 || got[1] != 2 || got[2] != math.MaxInt32 || got[3] != 0 {
		t.Errorf("f64 -> i32 = %v", got)
	}
	if got := outs[1].F64; got[0] != -2 || got[2] != float64(float32(math.MaxInt32)) {
		t.Errorf("i32 -> f32 = %v", got)
	}
	if got := outs[2].F64; got[0] != 1 || got[1] != 0 {
		t.Errorf("i1 -> f32 = %v, want 1 for true", got)
	}
	if got := outs[3].I64; got[2] != 127 {
		t.Errorf("1e10 -> i8 = %d, want 127 (saturated)", got[2])
	}
}

func TestGatherMaskAndGuard(t *testing.T) {
	// can_deref + select turn the masked points into a defined value;
	// without the guard the output keeps the mask.
	src := `tir.func @f(%x: !tir.tensor<f64, V[0:3]>, %t: !tir.tensor<i64, E[0:4]>) {
  %g = tir.gather %x [V = %t]
  %m = tir.can_deref %g
  %z = tir.constant -1.0 : f64
  %r = tir.select %m, %g, %z
  %s = tir.add %g, %z
  tir.return %r, %s, %m
}`
	x := floats(ir.F64, []Dim{D("V", 0, 3)}, 10, 20, 30)
	tab := ints(ir.I64, []Dim{D("E", 0, 4)}, 2, -1, 0, 3)
	outs, err := Run(parseFunc(t, src, "f"), []*Tensor{x, tab}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := outs[0].F64, []float64{30, -1, 10, -1}; !equalF(got, want) || outs[0].Mask != nil && outs[0].MaskedCount() != 0 {
		t.Errorf("guarded gather = %v (mask %v), want %v unmasked", got, outs[0].Mask, want)
	}
	if got := outs[1].Mask; len(got) != 4 || got[0] || !got[1] || got[2] || !got[3] {
		t.Errorf("mask of g + -1 = %v, want [false true false true]", got)
	}
	if got := outs[2].I64; got[0] != 1 || got[1] != 0 || got[3] != 0 {
		t.Errorf("can_deref = %v", got)
	}
}

func TestReduceForms(t *testing.T) {
	src := `tir.func @f(%a: !tir.tensor<f32, I[0:2], K[0:3]>, %b: !tir.tensor<f32, K[0:4]>, %n: !tir.tensor<i32, I[0:2], K[0:3]>) {
  %zero = tir.constant 0.0 : f32
  %dot = tir.reduce over [K] init %zero ins(%a, %b) {
  ^bb0(%acc, %av, %bv):
    %m = tir.mul %av, %bv
    %s = tir.add %acc, %m
    tir.yield %s
  }
  %mx = tir.reduce max %n over [K]
  %all = tir.reduce add %n over [I, K]
  %seven = tir.constant 7 : i32
  %mn = tir.reduce min %n over [K] init %seven
  tir.return %dot, %mx, %all, %mn
}`
	fn := parseFunc(t, src, "f")
	a := floats(ir.F32, []Dim{D("I", 0, 2), D("K", 0, 3)}, 0.1, 0.2, 0.3, 1, 2, 3)
	b := floats(ir.F32, []Dim{D("K", 0, 4)}, 0.7, 0.11, 0.13, 99)
	for i := range a.F64 {
		a.F64[i] = RoundTo(ir.F32, a.F64[i])
	}
	for i := range b.F64 {
		b.F64[i] = RoundTo(ir.F32, b.F64[i])
	}
	n := ints(ir.I32, []Dim{D("I", 0, 2), D("K", 0, 3)}, -5, 9, 3, -1, -2, -3)
	outs, err := Run(fn, []*Tensor{a, b, n}, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkDims(t, outs[0], D("I", 0, 2))
	for i := 0; i < 2; i++ {
		acc := float32(0)
		for k := 0; k < 3; k++ { // K[0:3]: the intersection; b's K = 3 is never read
			acc = acc + float32(float32(a.F64[i*3+k])*float32(b.F64[k]))
		}
		if !sameBits(outs[0].F64[i], float64(acc)) {
			t.Errorf("dot[%d] = %.9g, want %.9g", i, outs[0].F64[i], acc)
		}
	}
	if got := outs[1].I64; got[0] != 9 || got[1] != -1 {
		t.Errorf("max = %v, want [9 -1]", got)
	}
	checkDims(t, outs[2])
	if got := outs[2].I64[0]; got != 1 {
		t.Errorf("sum = %d, want 1", got)
	}
	if got := outs[3].I64; got[0] != -5 || got[1] != -3 {
		t.Errorf("min with init 7 = %v, want [-5 -3]", got)
	}
}

// An init that varies along the reduced dimension gives the result that
// dimension, of its own: r(i, k) = c(k) + sum over k' of a(i, k'), in the
// simple form as in the region form (and compiled code).
func TestReduceInitAlongReduced(t *testing.T) {
	src := `tir.func @f(%a: !tir.tensor<f64, I[0:2], K[0:3]>, %c: !tir.tensor<f64, K[0:3]>) {
  %s = tir.reduce add %a over [K] init %c
  %m = tir.reduce max %a over [K] init %c
  %r = tir.reduce over [K] init %c ins(%a) {
  ^bb0(%acc, %ak):
    %n = tir.add %acc, %ak
    tir.yield %n
  }
  tir.return %s, %m, %r
}`
	fn := parseFunc(t, src, "f")
	a := floats(ir.F64, []Dim{D("I", 0, 2), D("K", 0, 3)}, 1, 2, 3, 10, 20, 30)
	c := floats(ir.F64, []Dim{D("K", 0, 3)}, 100, 200, 25)
	outs, err := Run(fn, []*Tensor{a, c}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sum := []float64{106, 206, 31, 160, 260, 85}
	mx := []float64{100, 200, 25, 100, 200, 30}
	for k, want := range [][]float64{sum, mx, sum} {
		checkDims(t, outs[k], D("I", 0, 2), D("K", 0, 3))
		if !equalF(outs[k].F64, want) {
			t.Errorf("result #%d = %v, want %v", k, outs[k].F64, want)
		}
	}
}

func TestCallBindsSymbols(t *testing.T) {
	src := `tir.func @sq(%x: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %y = tir.mul %x, %x
  tir.return %y : !tir.tensor<f64, I[0:N]>
}
tir.func @main(%a: !tir.tensor<f64, I[0:M]>) {
  %r = tir.call @sq(%a)
  %e = tir.shift %r [I + 1]
  %s = tir.add %r, %e
  tir.return %s
}`
	fn := parseFunc(t, src, "main")
	a := floats(ir.F64, []Dim{D("I", 0, 4)}, 1, 2, 3, 4)
	r := run1(t, fn, []*Tensor{a}, nil)
	checkDims(t, r, D("I", 0, 3))
	if want := []float64{5, 13, 25}; !equalF(r.F64, want) {
		t.Errorf("x^2 + x(i+1)^2 = %v, want %v", r.F64, want)
	}
}

func TestAssumeShape(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:8]> {
  %y = tir.assume_shape %x : !tir.tensor<f64, I[0:8]>
  tir.return %y : !tir.tensor<f64, I[0:8]>
}`
	fn := parseFunc(t, src, "f")
	if _, err := Run(fn, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 8)})}, nil); err != nil {
		t.Errorf("N = 8: %v", err)
	}
	_, err := Run(fn, []*Tensor{mustTensor(ir.F64, []Dim{D("I", 0, 7)})}, nil)
	if err == nil || !strings.Contains(err.Error(), "assume_shape: argument 'x' dimension I: expected extent 8, got 7") {
		t.Errorf("N = 7: %v", err)
	}
}

func TestReductionsSkipMaskedPoints(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f64, V[0:3]>, %t: !tir.tensor<i32, E[0:2], N[0:3]>) {
  %g = tir.gather %x [V = %t]
  %p = tir.reduce mul %g over [N]
  %m = tir.reduce min %g over [N]
  %one = tir.constant 1.0 : f64
  %c = tir.reduce over [N] init %one ins(%g) {
  ^bb0(%acc, %gv):
    %s = tir.add %acc, %gv
    %q = tir.mul %s, %s
    tir.yield %q
  }
  tir.return %p, %m, %c
}`
	x := floats(ir.F64, []Dim{D("V", 0, 3)}, 10, 20, 30)
	tab := ints(ir.I32, []Dim{D("E", 0, 2), D("N", 0, 3)}, 0, -1, 2, -1, 3, -1)
	outs, err := Run(parseFunc(t, src, "f"), []*Tensor{x, tab}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := outs[0].F64; got[0] != 300 || got[1] != 1 {
		t.Errorf("product = %v, want [300 1] (masked points skipped, empty gives the identity)", got)
	}
	if got := outs[1].F64; got[0] != 10 || !math.IsInf(got[1], 1) {
		t.Errorf("min = %v, want [10 +Inf]", got)
	}
	// ((1 + 10)^2 + 30)^2 = 151^2; the all-masked row keeps init.
	if got := outs[2].F64; got[0] != 151*151 || got[1] != 1 {
		t.Errorf("region reduction = %v, want [22801 1]", got)
	}
}

// TestCumulativeSums runs a forward and a backward scan over K[0:7] of
// 0..6: prefix sums from the bottom and suffix sums from the top.
func TestCumulativeSums(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<i64, K[0:7]>) {
  %z = tir.constant 0 : i64
  %fw = tir.scan forward along K init %z ins(%x) {
  ^bb0(%s, %xk):
    %n = tir.add %s, %xk
    tir.yield %n
  }
  %bw = tir.scan backward along K init %z ins(%x) {
  ^bb0(%s, %xk):
    %n = tir.add %s, %xk
    tir.yield %n
  }
  tir.return %fw, %bw
}`
	x := ints(ir.I64, []Dim{D("K", 0, 7)}, 0, 1, 2, 3, 4, 5, 6)
	outs, err := Run(parseFunc(t, src, "f"), []*Tensor{x}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{0, 1, 3, 6, 10, 15, 21}, {21, 21, 20, 18, 15, 11, 6}}
	for i, w := range want {
		for k := range w {
			if outs[i].I64[k] != w[k] {
				t.Fatalf("scan #%d = %v, want %v", i, outs[i].I64, w)
			}
		}
	}
}

// TestMaskedInitAndScans: a reduction whose init is masked keeps the mask
// (the region form too, when its body ignores the accumulator), a scan
// skips the steps whose input is masked, and a masked init masks a scan's
// whole column. A function's result holds 0 at its masked points, whatever
// was accumulated there.
func TestMaskedInitAndScans(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f64, V[0:3]>, %t: !tir.tensor<i32, I[0:2]>, %u: !tir.tensor<i32, K[0:4]>, %a: !tir.tensor<f64, I[0:2], K[0:4]>) {
  %g = tir.gather %x [V = %t]
  %s = tir.reduce add %a over [K] init %g
  %l = tir.reduce over [K] init %g ins(%a) {
  ^bb0(%acc, %av):
    tir.yield %av
  }
  %h = tir.gather %x [V = %u]
  %z = tir.constant 0.0 : f64
  %c = tir.scan forward along K init %z ins(%h) {
  ^bb0(%st, %hk):
    %n = tir.add %st, %hk
    tir.yield %n
  }
  %w = tir.scan forward along K init %g ins(%a) {
  ^bb0(%st, %ak):
    %n = tir.add %st, %ak
    tir.yield %n
  }
  tir.return %s, %l, %c, %w
}`
	x := floats(ir.F64, []Dim{D("V", 0, 3)}, 10, 20, 30)
	tab := ints(ir.I32, []Dim{D("I", 0, 2)}, 1, 5)
	steps := ints(ir.I32, []Dim{D("K", 0, 4)}, 0, -1, 2, 3)
	a := floats(ir.F64, []Dim{D("I", 0, 2), D("K", 0, 4)}, 1, 2, 3, 4, 5, 6, 7, 8)
	outs, err := Run(parseFunc(t, src, "f"), []*Tensor{x, tab, steps, a}, nil)
	if err != nil {
		t.Fatal(err)
	}
	check := func(name string, got *Tensor, want []float64, masked []bool) {
		t.Helper()
		for i := range want {
			if got.F64[i] != want[i] || math.Signbit(got.F64[i]) || got.Masked(i) != masked[i] {
				t.Errorf("%s = %v (mask %v), want %v masked at %v", name, got.F64, got.Mask, want, masked)
				return
			}
		}
	}
	// Row 1's init reads V = 5: masked, and written as 0 although the
	// reduction went on adding 5 + 6 + 7 + 8 to it.
	check("reduce add", outs[0], []float64{20 + 1 + 2 + 3 + 4, 0}, []bool{false, true})
	check("region reduce ignoring acc", outs[1], []float64{4, 0}, []bool{false, true})
	// Step 1 reads V = -1 and 3 reads V = 3: both skipped, nothing masked.
	check("scan over a masked input", outs[2], []float64{10, 10, 40, 40}, []bool{false, false, false, false})
	check("scan from a masked init", outs[3], []float64{21, 23, 26, 30, 0, 0, 0, 0}, []bool{false, false, false, false, true, true, true, true})
}
