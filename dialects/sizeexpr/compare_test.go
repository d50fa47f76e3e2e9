package sizeexpr

import "testing"

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		cmp  int
		ok   bool
	}{
		{"N", "N", 0, true},
		{"N", "N + 1", -1, true},
		{"N + 2", "N - 1", 1, true},
		{"3", "5", -1, true},
		{"N", "M", 0, false},    // independent symbols
		{"N", "0", 0, false},    // N >= 0 but N = 0 is possible
		{"N + 1", "0", 1, true}, // N >= 0
		{"-N - 1", "0", -1, true},
		{"N + M + 1", "N", 1, true},
		{"i", "0", 0, false},    // dims have no sign
		{"i", "j", 0, false},    // dims
		{"i + 1", "i", 1, true}, // dims cancel
		{"i + N", "i - 1", 1, true},
		{"min(N, M)", "N", 0, false}, // only <= is provable
		{"min(N, M)", "N + 1", -1, true},
		{"max(N, M) + 1", "min(N, M)", 1, true},
		{"N ceildiv 2", "N + 1", -1, true},
		{"(N + 1) floordiv 2", "N + 1", -1, true},
		{"min(N, M) - 1", "min(N - 1, M - 1)", 0, true},
		{"N mod 4", "4", -1, true},
		{"N mod 4", "-1", 1, true},
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a), mustParse(t, tt.b)
		cmp, ok := Compare(a, b)
		if cmp != tt.cmp || ok != tt.ok {
			t.Errorf("Compare(%s, %s) = %d, %v; want %d, %v", tt.a, tt.b, cmp, ok, tt.cmp, tt.ok)
		}
	}
}

func TestProve(t *testing.T) {
	tests := []struct {
		a, b           string
		le, lt, ge, gt bool
	}{
		{"0", "N", true, false, false, false},
		{"N", "N + M", true, false, false, false},
		{"N floordiv 2", "N", true, false, false, false},
		{"N ceildiv 2", "N", true, false, false, false},
		{"N floordiv 2", "N ceildiv 2", true, false, false, false},
		{"(N + 1) floordiv 2", "N floordiv 2", false, false, true, false},
		{"min(N, M)", "max(N, M)", true, false, false, false},
		{"max(N, M)", "N + M", true, false, false, false},
		{"N mod 4", "3", true, false, false, false},
		{"N mod 4", "4", true, true, false, false},
		{"i", "i + N", true, false, false, false},
		{"i", "N", false, false, false, false},
		{"min(N, M) - 1", "min(N - 1, M - 1)", true, false, true, false},
		{"2*N", "N", false, false, true, false},
		{"1", "0", false, false, true, true},
	}
	for _, tt := range tests {
		a, b := mustParse(t, tt.a), mustParse(t, tt.b)
		got := [4]bool{ProveLE(a, b), ProveLT(a, b), ProveGE(a, b), ProveGT(a, b)}
		want := [4]bool{tt.le, tt.lt, tt.ge, tt.gt}
		if got != want {
			t.Errorf("%s vs %s: LE LT GE GT = %v, want %v", tt.a, tt.b, got, want)
		}
		if eq := ProveEQ(a, b); eq != (tt.le && tt.ge) {
			t.Errorf("ProveEQ(%s, %s) = %v", tt.a, tt.b, eq)
		}
	}
}

// TestCaseSplitBudget: many independent min atoms exceed the case budget;
// the prover must give up (false), not take exponential time.
func TestCaseSplitBudget(t *testing.T) {
	e := Const(0)
	for k := 0; k < 20; k++ {
		v := Sym("S"+string(rune('a'+k)), 100+k)
		e = Add(e, Min(v, Add(v, Sym("T", 200))))
	}
	// e >= 0 holds but needs 2^20 cases.
	_ = ProveGE(e, Const(0))
}
