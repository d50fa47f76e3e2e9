package sizeexpr

import "testing"

func TestLimit(t *testing.T) {
	growsK := func(v Var) bool { return v.Name == "K" }
	cases := []struct {
		src  string
		want string // "" with g
		g    Growth
	}{
		{"min(K, N + 1)", "N + 1", Finite},
		{"min(K - 1, N)", "N", Finite},
		{"max(K, min(K, N + 1))", "", PlusInf},
		{"K + 1", "", PlusInf},
		{"-K + N", "", MinusInf},
		{"N - 2", "N - 2", Finite},
		{"min(K, N, M) + 3", "min(N, M) + 3", Finite},
		{"max(K, N) - K", "", Undetermined},
		{"K mod 4", "", Undetermined},
		{"(min(K, 2*N) + 1) floordiv 2", "N", Finite},
		{"max(-K, N)", "N", Finite},
	}
	for _, c := range cases {
		lim, g := Limit(mustParse(t, c.src), growsK)
		if g != c.g || (g == Finite && lim.String() != c.want) {
			t.Errorf("Limit(%s) = %s, %d; want %s, %d", c.src, lim, g, c.want, c.g)
		}
	}
}

func TestNondecreasing(t *testing.T) {
	v := Var{Name: "K", Order: 2}
	for src, want := range map[string]bool{
		"K + N": true, "min(K, N) + 1": true, "max(2*K, M)": true, "(K + 1) floordiv 2": true,
		"-K + N": false, "min(-K, N)": false, "K mod 3": false, "N": true,
	} {
		if got := Nondecreasing(mustParse(t, src), v); got != want {
			t.Errorf("Nondecreasing(%s) = %v, want %v", src, got, want)
		}
	}
}
