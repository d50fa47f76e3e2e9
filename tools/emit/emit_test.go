package emit

import (
	"errors"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/sizeexpr"
)

func parse(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, diags := parser.Parse("test.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestCNamer(t *testing.T) {
	n := newCNamer()
	for _, c := range [][2]string{
		{"inp", "inp"}, {"int", "int_"}, {"result", "result"}, {"result", "result_1"},
		{"a.b", "a_b"}, {"0", "arg_0"}, {"int32_t", "int32_t_"}, {"class", "class_"},
	} {
		if got := n.name(c[0]); got != c[1] {
			t.Errorf("name(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

func TestSignedOffset(t *testing.T) {
	n := sizeexpr.Sym("N", 0)
	for _, c := range []struct {
		e     sizeexpr.Expr
		upper bool
		want  string
	}{
		{sizeexpr.Const(0), false, "0"},
		{sizeexpr.Const(0), true, "+0"},
		{sizeexpr.Const(-2), false, "-2"},
		{sizeexpr.Const(3), true, "+3"},
		{n, true, "+N"},
		{sizeexpr.Neg(n), false, "-N"},
		{sizeexpr.Add(n, sizeexpr.Const(2)), true, "+(N + 2)"},
		{sizeexpr.Sub(sizeexpr.Const(-1), n), false, "-(N + 1)"},
	} {
		if got := signedOffset(c.e, c.upper); got != c.want {
			t.Errorf("signedOffset(%s, %v) = %q, want %q", c.e, c.upper, got, c.want)
		}
	}
}

// A gathered operand read at a shift: the gathered dimension is unbounded,
// the other one keeps its halo; an argument only tir.pos looks at is not
// read.
func TestAnalyzeGatherAndPos(t *testing.T) {
	m := parse(t, `tir.func @f(%x: !tir.tensor<f64, V[0:10], K[0:8]>, %tab: !tir.tensor<i32, E[0:6], N[0:2]>,
                 %p: !tir.tensor<f64, E[0:6]>) -> !tir.tensor<f64, E[0:6], N[0:2], K[0:7]> {
  %g = tir.gather %x [V = %tab]
  %s = tir.shift %g [K + 1]
  %i = tir.pos E of %p
  %f = tir.cast %i : !tir.tensor<f64, E[0:6]>
  %r = tir.mul %s, %f
  tir.return %r : !tir.tensor<f64, E[0:6], N[0:2], K[0:7]>
}`)
	fe, err := Analyze(m.Body().Ops[0])
	if err != nil {
		t.Fatal(err)
	}
	x := fe.Args[0]
	if x.Dims[0].Unbounded != "gather" || x.Dims[1].Unbounded != "" || x.Dims[1].Below.String() != "1" || x.Dims[1].Above.String() != "1" {
		t.Errorf("x: %+v", x.Dims)
	}
	if tab := fe.Args[1]; !tab.IsRead || tab.Dims[0].InOutput != true || tab.Dims[1].Interval.String() != "[0:2]" {
		t.Errorf("tab: %+v", tab)
	}
	if fe.Args[2].IsRead {
		t.Errorf("p is only looked at by tir.pos, yet read: %+v", fe.Args[2])
	}
}

func TestNoTirFuncs(t *testing.T) {
	m := parse(t, "")
	for name, f := range map[string]func(*ir.Module) (string, error){"c-header": CHeader, "extents": Extents, "dot": Dot} {
		if _, err := f(m); !errors.Is(err, ErrNoTirFuncs) {
			t.Errorf("%s on an empty module: %v, want ErrNoTirFuncs", name, err)
		}
	}
}

// A function name C cannot declare, or one that clashes with the ABI's
// helper functions, is an error rather than a header that does not
// compile.
func TestHeaderNameErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{`tir.func @int(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}`, "@int is not a C identifier"},
		{`tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}
tir.func @f_error(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  tir.return %a : !tir.tensor<f32, I[0:4]>
}`, "@f_error clashes with the _error function"},
	} {
		_, err := CHeader(parse(t, c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}
