package sizeexpr

import (
	"reflect"
	"testing"
)

func envOf(vals map[string]int64) func(Var) (int64, bool) {
	return func(v Var) (int64, bool) {
		x, ok := vals[v.Name]
		return x, ok
	}
}

func TestEval(t *testing.T) {
	tests := []struct {
		e    string
		env  map[string]int64
		want int64
	}{
		{"i floordiv 2", map[string]int64{"i": -7}, -4},
		{"i mod 2", map[string]int64{"i": -7}, 1},
		{"i ceildiv 2", map[string]int64{"i": -7}, -3},
		{"i floordiv 2", map[string]int64{"i": 7}, 3},
		{"i ceildiv 2", map[string]int64{"i": 7}, 4},
		{"(i - 1) mod 3", map[string]int64{"i": 0}, 2},
		{"(i - 6) floordiv 4", map[string]int64{"i": 0}, -2},
		{"2*N + M - 1", map[string]int64{"N": 3, "M": 4}, 9},
		{"min(N, M) - max(N, M)", map[string]int64{"N": 3, "M": 7}, -4},
		{"(N + 1) floordiv 2", map[string]int64{"N": 4}, 2},
	}
	for _, tt := range tests {
		got, err := mustParse(t, tt.e).Eval(envOf(tt.env))
		if err != nil || got != tt.want {
			t.Errorf("%s with %v = %d, %v; want %d", tt.e, tt.env, got, err, tt.want)
		}
	}
	if _, err := mustParse(t, "N + M").Eval(envOf(map[string]int64{"N": 1})); err == nil {
		t.Errorf("Eval with an unbound variable: no error")
	}
	if _, err := mustParse(t, "2*N").Eval(envOf(map[string]int64{"N": 1 << 62})); err == nil {
		t.Errorf("Eval overflow: no error")
	}
}

func TestSubst(t *testing.T) {
	jPlus1 := Add(J, Const(1))
	byJ := func(v Var) (Expr, bool) { return jPlus1, v.Name == "i" }
	tests := []struct{ e, want string }{
		{"i", "j + 1"},
		{"i - j", "1"},
		{"2*i + N", "N + 2*j + 2"},
		{"(i + 1) floordiv 2", "j floordiv 2 + 1"},
		{"(i - 1) mod 2", "j mod 2"},
		{"min(i, j + 1)", "j + 1"},
		{"max(i, N)", "max(N, j + 1)"},
		{"N", "N"},
	}
	for _, tt := range tests {
		if got := mustParse(t, tt.e).Subst(byJ).String(); got != tt.want {
			t.Errorf("%s[i := j + 1] = %s, want %s", tt.e, got, tt.want)
		}
	}
	// Substituting a symbol by a constant folds min and floordiv.
	n4 := func(v Var) (Expr, bool) { return Const(4), v.Name == "N" }
	if got := mustParse(t, "min(N, M) + (N + 1) floordiv 2").Subst(n4).String(); got != "min(M, 4) + 2" {
		t.Errorf("Subst N := 4: %s", got)
	}
}

func TestLinear(t *testing.T) {
	n, m := N.Vars()[0], M.Vars()[0]
	ts, c, ok := mustParse(t, "M + 2*N - 1").Linear()
	if !ok || c != -1 || !reflect.DeepEqual(ts, []Term{{n, 2}, {m, 1}}) {
		t.Errorf("Linear = %v, %d, %v", ts, c, ok)
	}
	if !FromLinear(ts, c).Equal(mustParse(t, "2*N + M - 1")) {
		t.Errorf("FromLinear does not invert Linear")
	}
	if ts, c, ok := Const(5).Linear(); !ok || len(ts) != 0 || c != 5 {
		t.Errorf("Linear(5) = %v, %d, %v", ts, c, ok)
	}
	for _, s := range []string{"N floordiv 2", "min(N, M)", "N + M mod 2"} {
		if _, _, ok := mustParse(t, s).Linear(); ok {
			t.Errorf("Linear(%s) ok", s)
		}
	}
}

func TestIsAffine(t *testing.T) {
	for s, want := range map[string]bool{
		"2*i + j - 1":                true,
		"(i + 1) floordiv 2":         true,
		"i mod 4 + j ceildiv 2":      true,
		"min(i, j)":                  false,
		"(max(i, 0) + 1) floordiv 2": false,
	} {
		if got := mustParse(t, s).IsAffine(); got != want {
			t.Errorf("IsAffine(%s) = %v", s, got)
		}
	}
}

func TestVarsAndFormat(t *testing.T) {
	e := mustParse(t, "j + min(K, M) + (N + i) floordiv 2")
	var names []string
	for _, v := range e.Vars() {
		names = append(names, v.Name)
	}
	if want := []string{"N", "M", "K", "i", "j"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Vars = %v, want %v", names, want)
	}
	// Affine map style: d0 = i, d1 = j; the term order does not change.
	rename := func(v Var) string {
		switch v.Name {
		case "i":
			return "d0"
		case "j":
			return "d1"
		}
		return "s_" + v.Name
	}
	if got, want := mustParse(t, "2*j + i - 1").Format(rename), "d0 + 2*d1 - 1"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
	if got, want := mustParse(t, "(i + N) floordiv 2").Format(rename), "(s_N + d0) floordiv 2"; got != want {
		t.Errorf("Format = %q, want %q", got, want)
	}
}

func TestTermsView(t *testing.T) {
	e := mustParse(t, "3*N - (M + 1) floordiv 2 + min(N, M) + 4")
	ts, c := e.Terms()
	if c != 4 || len(ts) != 3 {
		t.Fatalf("Terms = %v, %d", ts, c)
	}
	if ts[0].Atom.Op() != OpVar || ts[0].Atom.Var().Name != "N" || ts[0].Coef != 3 {
		t.Errorf("term 0 = %v", ts[0])
	}
	if a := ts[1].Atom; a.Op() != OpFloorDiv || a.Divisor() != 2 || a.Operand().String() != "M + 1" || ts[1].Coef != -1 {
		t.Errorf("term 1 = %v", ts[1])
	}
	if a := ts[2].Atom; a.Op() != OpMin || len(a.Args()) != 2 || a.String() != "min(N, M)" {
		t.Errorf("term 2 = %v", ts[2])
	}
	if v, ok := N.AsVar(); !ok || v.Name != "N" || v.Kind != SymbolVar {
		t.Errorf("AsVar(N) = %v, %v", v, ok)
	}
	if _, ok := Mul(N, 2).AsVar(); ok {
		t.Errorf("AsVar(2*N) ok")
	}
}
