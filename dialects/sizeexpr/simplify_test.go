package sizeexpr

import (
	"math/rand"
	"testing"
)

func TestSimplify(t *testing.T) {
	cases := []struct{ in, want string }{
		// A negated min or max becomes the other one.
		{"-min(N - 1, 0)", "max(-N + 1, 0)"},
		{"-max(N, M)", "min(-N, -M)"},
		// Terms move into a min or max, where the prover folds them.
		{"-N + max(N, 2*N - 1)", "max(N - 1, 0)"},
		{"-N + max(N, 1)", "max(-N + 1, 0)"},
		{"N - min(N, M)", "max(N - M, 0)"},
		{"M + 2 - min(M + 1, N)", "max(-N + M + 2, 1)"},
		{"-A + min(N + A, M + B)", "min(N, M + B - A)"},
		// Inside min, max and divisions too.
		{"min(-N + max(N, 2*N - 1), K)", "min(max(N - 1, 0), K)"},
		{"(-N + max(N, 2*N + 1)) floordiv 2", "(N + 1) floordiv 2"},
		// Already simple: unchanged.
		{"N - 1", "N - 1"},
		{"max(N - 1, 0)", "max(N - 1, 0)"},
		{"2*min(N, M) - N", "2*min(N, M) - N"},
		{"N - 1 + N floordiv 2", "N - 1 + N floordiv 2"},
		// Ties go to the single term.
		{"-A + max(A, B)", "max(-A + B, 0)"},
	}
	names := map[string]Expr{"N": N, "M": M, "K": K, "A": Sym("A", 3), "B": Sym("B", 4), "i": I, "j": J}
	look := func(n string) (Expr, bool) { e, ok := names[n]; return e, ok }
	for _, c := range cases {
		e, err := Parse(c.in, look)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.in, err)
		}
		want, err := Parse(c.want, look)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.want, err)
		}
		if got := Simplify(e); !got.Equal(want) {
			t.Errorf("Simplify(%s) = %s, want %s", e, got, want)
		}
	}
}

// TestPropertySimplify: Simplify keeps the value, never prints longer than
// its input (apart from the negation penalty) and is idempotent.
func TestPropertySimplify(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for n := 0; n < 5000; n++ {
		tree := genTree(r, 4)
		e := tree.build(t)
		s := Simplify(e)
		for k := 0; k < 8; k++ {
			env := randEnv(r)
			got, err := s.Eval(envOf(env))
			if err != nil {
				t.Fatalf("%v -> %v: Eval: %v", e, s, err)
			}
			if want := tree.eval(env); got != want {
				t.Fatalf("Simplify(%v) = %v: with %v got %d, want %d", e, s, env, got, want)
			}
		}
		if simplifyCost(s) > simplifyCost(e) {
			t.Fatalf("Simplify(%v) = %v is costlier", e, s)
		}
		if again := Simplify(s); simplifyCost(again) > simplifyCost(s) {
			t.Fatalf("Simplify(%v) = %v, then %v", e, s, again)
		}
	}
}
