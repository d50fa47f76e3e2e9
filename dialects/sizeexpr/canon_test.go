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

func TestOverflowPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("no panic on overflow")
		}
	}()
	Mul(Add(N, Const(1<<62)), 4)
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
