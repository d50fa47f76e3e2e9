package randprog

import (
	"math"
	"testing"
)

// Masked points that reach results in every way the rules of docs/tir.md
// name, run in every mode: the interpreter's values are checked against
// values worked out here, and every mode must give them (Verdict compares
// every point, a masked one with 0).
func TestMaskedResultsEveryMode(t *testing.T) {
	const src = `tir.func @masked(%x: !tir.tensor<f64, V[0:3]>, %t: !tir.tensor<i32, I[0:2]>, %u: !tir.tensor<i64, K[0:4]>, %a: !tir.tensor<f64, I[0:2], K[0:4]>) {
  %g = tir.gather %x [V = %t]
  %two = tir.constant 2.0 : f64
  %e = tir.mul %g, %two
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
  tir.return %e, %s, %l, %c, %w
}
`
	// x = 10 20 30; t = 1, 5 (row 1 masked); u = 0, -1, 2, 3 (steps 1
	// and 3 masked); a = 1..8.
	p := Fixed("masked", src, nil, []float64{10, 20, 30}, []float64{1, 5}, []float64{0, -1, 2, 3}, []float64{1, 2, 3, 4, 5, 6, 7, 8})
	want := [][]float64{
		{40, 0},                      // 2 * x[1]; row 1 masked: 0
		{20 + 1 + 2 + 3 + 4, 0},      // init masked: masked, although 5..8 were added to it
		{4, 0},                       // the body ignores acc; still masked
		{10, 10, 40, 40},             // masked steps skipped: nothing masked
		{21, 23, 26, 30, 0, 0, 0, 0}, // a masked init masks the whole column
	}
	c, err := NewCase(p)
	if err != nil {
		t.Fatal(err)
	}
	if c.WantErr != "" {
		t.Fatalf("interpreter: %s", c.WantErr)
	}
	for r, w := range want {
		for i, v := range w {
			if g := c.Want[r].F64[i]; g != v || math.Signbit(g) {
				t.Errorf("interpreter: result #%d element %d = %v, want %v", r, i, g, v)
			}
		}
	}
	vs := verdicts(t, p, Modes)
	for _, m := range Modes {
		if v := vs[m.Name]; v != "" {
			t.Errorf("%s: %s", m.Name, v)
		}
	}
}
