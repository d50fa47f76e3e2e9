package sizeexpr

import (
	"strings"
	"testing"
)

// TestCanonicalForm checks simplification and canonical printing together:
// each input is parsed (which builds it with the constructors) and printed.
func TestCanonicalForm(t *testing.T) {
	tests := []struct{ in, want string }{
		// Linear sums: declaration order, constant last.
		{"M + 2*N - 1", "2*N + M - 1"},
		{"1 + M + N*2 - 2", "2*N + M - 1"},
		{"2*N - N", "N"},
		{"N - N", "0"},
		{"i + 1 - i", "1"},
		{"N * 0", "0"},
		{"0 * (N + M)", "0"},
		{"N - 1", "N - 1"},
		{"-N + 5", "-N + 5"},
		{"5 - N", "-N + 5"},
		{"M - N", "-N + M"},
		{"-3*N - M", "-3*N - M"},
		{"N - 3*M", "N - 3*M"},
		{"-(N - M)", "-N + M"},
		{"-3", "-3"},
		{"0", "0"},
		{"2*(N + 1) - 2", "2*N"},
		{"j + i", "i + j"},
		{"N + i", "N + i"},
		// floordiv / ceildiv / mod.
		{"(2*N + 1) floordiv 2", "N"},
		{"(N + 1) floordiv 2", "(N + 1) floordiv 2"},
		{"N floordiv 2", "N floordiv 2"},
		{"(N + 3) floordiv 2", "(N + 1) floordiv 2 + 1"},
		{"(N - 1) floordiv 2 + 1", "(N + 1) floordiv 2"},
		{"(N - 2) floordiv 2 + 1", "N floordiv 2"},
		{"(4*N + 2) floordiv 4", "N"},
		{"(2*N + 1) floordiv 4", "N floordiv 2"},
		{"(2*N + 4*M + 3) floordiv 2", "N + 2*M + 1"},
		{"(N floordiv 2) floordiv 3", "N floordiv 6"},
		{"(N floordiv 2 + 1) floordiv 3", "(N + 2) floordiv 6"},
		{"N floordiv 1", "N"},
		{"(-N) floordiv 2", "(-N) floordiv 2"},
		{"-N floordiv 2", "(-N) floordiv 2"},
		{"-(N floordiv 2)", "-(N floordiv 2)"},
		{"3*(N floordiv 2)", "3*(N floordiv 2)"},
		{"M - N floordiv 2", "M - N floordiv 2"},
		{"N floordiv 2 - 2*(M mod 3)", "-2*(M mod 3) + N floordiv 2"},
		{"N ceildiv 2", "N ceildiv 2"},
		{"(2*N + 1) ceildiv 2", "N + 1"},
		{"(N + 3) ceildiv 2", "(N + 1) ceildiv 2 + 1"},
		{"(2*N + 1) ceildiv 4", "(N + 1) ceildiv 2"},
		{"(N ceildiv 2) ceildiv 2", "N ceildiv 4"},
		{"N mod 1", "0"},
		{"(2*N + 1) mod 2", "1"},
		{"(2*N + 1) mod 4", "2*(N mod 2) + 1"},
		{"(N + 5) mod 4", "(N + 1) mod 4"},
		{"(N mod 4) mod 2", "N mod 2"},
		{"(N mod 4 + M) mod 2", "(N + M) mod 2"},
		{"max(N, M) floordiv 2", "max(N, M) floordiv 2"},
		// Constant folding with floor semantics.
		{"-7 floordiv 2", "-4"},
		{"-7 mod 2", "1"},
		{"-7 ceildiv 2", "-3"},
		{"7 ceildiv 2", "4"},
		{"7 floordiv 2", "3"},
		{"7 mod 3", "1"},
		{"-6 mod 3", "0"},
		// min / max.
		{"min(N, N + 1)", "N"},
		{"max(N - 1, N + 2)", "N + 2"},
		{"min(N, M)", "min(N, M)"},
		{"min(M, N)", "min(N, M)"},
		{"max(N - 1, 0)", "max(N - 1, 0)"},
		{"max(0, N - 1)", "max(N - 1, 0)"},
		{"min(3, 5)", "3"},
		{"max(3, -5)", "3"},
		{"min(N, min(M, K))", "min(N, M, K)"},
		{"min(min(K, N), min(M, N))", "min(N, M, K)"},
		{"min(N, M, N)", "min(N, M)"},
		{"max(N, 0)", "N"},
		{"min(N, 0)", "0"},
		{"min(N, N + M)", "N"},
		{"max(i, 0)", "max(i, 0)"},
		{"min(i, i - 1)", "i - 1"},
		{"min(N + 1, M + 1, N)", "min(N, M + 1)"},
		{"max(min(N, M), N)", "N"},
		{"min(max(N, M), N)", "N"},
		{"-min(N, M)", "-min(N, M)"},
		{"2*min(N, M) + 1", "2*min(N, M) + 1"},
		{"min(N, M) - min(M, N)", "0"},
		{"min(N, 3) + N floordiv 2 + N", "N + N floordiv 2 + min(N, 3)"},
	}
	for _, tt := range tests {
		got := mustParse(t, tt.in).String()
		if got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDeclarationOrder: the term order follows declaration order, not names.
func TestDeclarationOrder(t *testing.T) {
	n, m := Sym("N", 0), Sym("M", 1)
	e := Add(Add(m, Mul(n, 2)), Const(-1))
	if got, want := e.String(), "2*N + M - 1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	// Declared the other way round, M comes first.
	n2, m2 := Sym("N", 1), Sym("M", 0)
	e2 := Add(Add(m2, Mul(n2, 2)), Const(-1))
	if got, want := e2.String(), "M + 2*N - 1"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := Min(m, n).String(), "min(N, M)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestConstructorErrors(t *testing.T) {
	if _, err := MulExpr(N, M); err == nil || !strings.Contains(err.Error(), "non-affine product") {
		t.Errorf("MulExpr(N, M): err = %v, want non-affine product", err)
	}
	if e, err := MulExpr(Const(3), N); err != nil || e.String() != "3*N" {
		t.Errorf("MulExpr(3, N) = %v, %v", e, err)
	}
	for _, c := range []int64{0, -2} {
		if _, err := FloorDiv(N, c); err == nil {
			t.Errorf("FloorDiv(N, %d): no error", c)
		}
		if _, err := CeilDiv(N, c); err == nil {
			t.Errorf("CeilDiv(N, %d): no error", c)
		}
		if _, err := Mod(N, c); err == nil {
			t.Errorf("Mod(N, %d): no error", c)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("MinOf(): no panic")
		}
	}()
	MinOf()
}

// Every constructor gives an overflowed value, never a wrapped one, when
// its result or an operand does not fit in int64; the value propagates,
// proves nothing, equals nothing, and reading it panics.
func TestOverflowPropagates(t *testing.T) {
	big := Add(N, Const(1<<62))
	maxInt := Const(1<<63 - 1)
	cases := map[string]Expr{
		"Mul":           Mul(big, 4),
		"Add constants": Add(maxInt, Const(1)),
		"Add coefs":     Add(Mul(N, 1<<62), Mul(N, 1<<62)),
		"Neg MinInt64":  Neg(Const(-1 << 63)),
		"Sub":           Sub(Const(-2), maxInt),
	}
	o := cases["Mul"]
	mustDiv := func(e Expr, err error) Expr {
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	cases["Add poison"] = Add(o, N)
	cases["Mul poison"] = Mul(o, 1)
	cases["FloorDiv poison"] = mustDiv(FloorDiv(o, 2))
	cases["CeilDiv poison"] = mustDiv(CeilDiv(o, 3))
	cases["Mod poison"] = mustDiv(Mod(o, 4))
	cases["Min poison"] = Min(N, o)
	cases["Max poison"] = MaxOf(M, o, N)
	cases["Subst into"] = Mul(N, 1<<40).Subst(func(Var) (Expr, bool) { return Const(1 << 40), true })
	cases["Subst poison"] = o.Subst(func(Var) (Expr, bool) { return Const(1), true })
	cases["Simplify"] = Simplify(o)
	cases["MulExpr"] = mustDiv(MulExpr(Const(1<<62), Const(4)))
	for name, e := range cases {
		if !e.Overflowed() {
			t.Errorf("%s: %s did not overflow", name, e)
			continue
		}
		if e.Equal(e) || ProveLE(e, e) || ProveGE(N, e) || ProveLT(e, N) {
			t.Errorf("%s: an overflowed value compares", name)
		}
		if _, ok := Compare(e, N); ok {
			t.Errorf("%s: Compare decided", name)
		}
		if _, err := e.Eval(func(Var) (int64, bool) { return 1, true }); err == nil {
			t.Errorf("%s: Eval gave no error", name)
		}
		if e.CheckLimit() == nil || e.CheckOverflow() == nil {
			t.Errorf("%s: no overflow error", name)
		}
		if _, g := Limit(e, func(Var) bool { return true }); g != Undetermined {
			t.Errorf("%s: Limit is %v", name, g)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Const of an overflowed value did not panic", name)
				}
			}()
			e.Const()
		}()
	}
	// Near the ends without crossing them, nothing overflows.
	if e := Add(maxInt, Const(-1)); e.Overflowed() {
		t.Errorf("2^63 - 2 overflowed")
	}
	if e := Neg(maxInt); e.Overflowed() {
		t.Errorf("-(2^63 - 1) overflowed")
	}
}

func TestCheckLimit(t *testing.T) {
	for _, tt := range []struct {
		e   Expr
		bad string // the integer the error names, "" for none
	}{
		{Const(IndexLimit - 1), ""},
		{Const(-IndexLimit + 1), ""},
		{Add(Mul(N, 1<<40), Const(-(1 << 59))), ""},
		{Const(IndexLimit), "1152921504606846976"},
		{Const(-IndexLimit), "-1152921504606846976"},
		{Mul(N, IndexLimit), "1152921504606846976"},
		{Min(N, Const(1<<61)), "2305843009213693952"},
		// The division keeps its dividend's constant in [0, 3): 2^62 = 3*q + 1.
		{mustExpr(FloorDiv(Add(N, Const(1<<62)), 3)), "1537228672809129301"},
	} {
		err := tt.e.CheckLimit()
		switch {
		case tt.bad == "" && err != nil:
			t.Errorf("%s: %v", tt.e, err)
		case tt.bad != "" && (err == nil || !strings.Contains(err.Error(), tt.bad)):
			t.Errorf("%s: error %v does not name %s", tt.e, err, tt.bad)
		}
	}
	iv := Span(Const(-(1 << 59)), Const(1<<59+1))
	if err := iv.CheckLimit(); err == nil || !strings.Contains(err.Error(), "extent") {
		t.Errorf("%s: extent 2^60 + 1 accepted (%v)", iv, err)
	}
}

func mustExpr(e Expr, err error) Expr {
	if err != nil {
		panic(err)
	}
	return e
}

func TestZeroValue(t *testing.T) {
	var z Expr
	if c, ok := z.Const(); !ok || c != 0 || z.String() != "0" || !z.Equal(Const(0)) || !z.Equal(Sub(N, N)) {
		t.Errorf("zero Expr is not the constant 0")
	}
}

func TestMinMaxOf(t *testing.T) {
	tests := []struct {
		got  Expr
		want string
	}{
		{MinOf(N), "N"},
		{MinOf(K, M, N), "min(N, M, K)"},
		{MaxOf(Const(0), Sub(N, Const(1)), Sub(N, Const(2))), "max(N - 1, 0)"},
		{Max(Const(0), Const(1)), "1"},
		{Min(N, Add(N, Const(1))), "N"},
	}
	for _, tt := range tests {
		if tt.got.String() != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
