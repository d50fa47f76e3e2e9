package derivatives

import (
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// TestEveryOpHasARule fails on a tir op that has neither a derivative
// rule nor a place in the list of ops not differentiable yet: a new op
// must say how it is differentiated.
func TestEveryOpHasARule(t *testing.T) {
	for _, op := range tir.Ops() {
		_, ok := op.Derivative()
		why := op.DerivativeNotYet()
		switch {
		case ok && why != "":
			t.Errorf("%s has a derivative rule and is listed as not differentiable yet", op.Name)
		case !ok && why == "":
			t.Errorf("%s has no derivative rule and is not listed as not differentiable yet (dialects/tir/derivative_rules.go)", op.Name)
		}
	}
}

func parse(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, diags := parser.Parse("test.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	return m
}

func names(m *ir.Module) string {
	var out []string
	for _, op := range m.Body().Ops {
		out = append(out, ir.SymbolName(op))
	}
	return strings.Join(out, " ")
}

const twoFuncs = `tir.func @f(%x: !tir.tensor<f64, I[0:4]>, %k: !tir.tensor<i32, I[0:4]>) -> !tir.tensor<f64, I[0:4]> {
  %y = tir.mul %x, %x
  tir.return %y : !tir.tensor<f64, I[0:4]>
}
tir.func @n(%k: !tir.tensor<i32, I[0:4]>) -> !tir.tensor<i32, I[0:4]> {
  tir.return %k : !tir.tensor<i32, I[0:4]>
}`

func TestSelection(t *testing.T) {
	cases := []struct {
		opts Options
		want string // the functions after the pass, or the error
	}{
		{Options{JVP: true, VJP: true}, "f f_jvp f_vjp n"},
		{Options{JVP: true}, "f f_jvp n"},
		{Options{VJP: true, Functions: []string{"f"}}, "f f_vjp n"},
		{Options{VJP: true, Functions: []string{"n"}}, "error: tir-derivatives: @n has no differentiable argument"},
		{Options{VJP: true, Functions: []string{"g"}}, "error: tir-derivatives: no tir.func @g in the module"},
	}
	for _, c := range cases {
		m := parse(t, twoFuncs)
		got := ""
		if err := Run(m, c.opts); err != nil {
			got = "error: " + err.Error()
		} else {
			got = names(m)
			if err := ir.Verify(m.Op, nil); err != nil {
				t.Fatal(err)
			}
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%+v: got %q, want %q", c.opts, got, c.want)
		}
	}
}

// TestSignatures checks the argument and result orders of spec 6.1: an
// integer argument gets no tangent, an integer result no tangent nor
// cotangent.
func TestSignatures(t *testing.T) {
	m := parse(t, `tir.func @f(%a: !tir.tensor<f64, I[0:4]>, %k: !tir.tensor<i32, I[0:4]>, %b: !tir.tensor<f32, J[0:2]>) -> (!tir.tensor<i32, I[0:4]>, !tir.tensor<f32, I[0:4], J[0:2]>) {
  %c = tir.cast %a : !tir.tensor<f32, I[0:4]>
  %p = tir.mul %c, %b
  tir.return %k, %p : !tir.tensor<i32, I[0:4]>, !tir.tensor<f32, I[0:4], J[0:2]>
}`)
	if err := Run(m, Options{JVP: true, VJP: true}); err != nil {
		t.Fatal(err)
	}
	sig := func(name string) string {
		ft, _ := tir.FuncType(m.Lookup(name))
		return ft.String()
	}
	a, k, b := "!tir.tensor<f64, I[0:4]>", "!tir.tensor<i32, I[0:4]>", "!tir.tensor<f32, J[0:2]>"
	r := "!tir.tensor<f32, I[0:4], J[0:2]>"
	if got, want := sig("f_jvp"), "("+strings.Join([]string{a, k, b, a, b}, ", ")+") -> ("+k+", "+r+", "+r+")"; got != want {
		t.Errorf("@f_jvp: %s, want %s", got, want)
	}
	if got, want := sig("f_vjp"), "("+strings.Join([]string{a, k, b, r}, ", ")+") -> ("+a+", "+b+")"; got != want {
		t.Errorf("@f_vjp: %s, want %s", got, want)
	}
}

// TestCotangentsOnTheUnion: a value read at two offsets gets two
// contributions on different domains; their sum covers both (the
// broadcasting rule would intersect them), and points nobody reads get 0.
func TestCotangentsOnTheUnion(t *testing.T) {
	m := parse(t, `tir.func @f(%u: !tir.tensor<f64, I[0:6]>) -> !tir.tensor<f64, I[0:5]> {
  %e = tir.shift %u [I + 1]
  %s = tir.sub %e, %u
  tir.return %s : !tir.tensor<f64, I[0:5]>
}
tir.func @g(%u: !tir.tensor<f64, I[0:8]>) -> !tir.tensor<f64, I[2:5]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 2]
  %s = tir.add %e, %w
  tir.return %s : !tir.tensor<f64, I[2:5]>
}`)
	if err := Run(m, Options{VJP: true}); err != nil {
		t.Fatal(err)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	run := func(name string, n int, w []float64) []float64 {
		u, _ := interp.NewTensor(ir.F64, []interp.Dim{{Name: "I", Lo: 0, Hi: int64(n)}})
		d, _ := interp.NewTensor(ir.F64, []interp.Dim{{Name: "I", Lo: 0, Hi: int64(len(w))}})
		copy(d.F64, w)
		out, err := interp.Run(m.Lookup(name), []*interp.Tensor{u, d}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out[0].F64
	}
	// f: s(i) = u(i+1) - u(i) on [0:5]: du(j) = w(j-1) - w(j).
	if got, want := run("f_vjp", 6, []float64{1, 2, 3, 4, 5}), []float64{-1, -1, -1, -1, -1, 5}; !equal(got, want) {
		t.Errorf("@f_vjp: %v, want %v", got, want)
	}
	// g: s(i) = u(i+1) + u(i-2) on [2:5]: u(3..5) and u(0..2) are read.
	if got, want := run("g_vjp", 8, []float64{1, 2, 3}), []float64{1, 2, 3, 1, 2, 3, 0, 0}; !equal(got, want) {
		t.Errorf("@g_vjp: %v, want %v", got, want)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFunctionUnchanged: @f itself is left as it was.
func TestFunctionUnchanged(t *testing.T) {
	m := parse(t, twoFuncs)
	before := m.Lookup("f")
	ops := len(before.Regions[0].Entry().Ops)
	if err := Run(m, Options{JVP: true, VJP: true}); err != nil {
		t.Fatal(err)
	}
	if m.Lookup("f") != before || len(before.Regions[0].Entry().Ops) != ops {
		t.Error("@f changed")
	}
}
