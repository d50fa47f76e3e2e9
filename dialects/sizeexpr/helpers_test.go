package sizeexpr

import "testing"

// Test variables: symbols declared N, M, K (in that order), then dims i, j.
var (
	N = Sym("N", 0)
	M = Sym("M", 1)
	K = Sym("K", 2)
	I = Dim("i", 10)
	J = Dim("j", 11)
)

var testNames = map[string]Expr{"N": N, "M": M, "K": K, "i": I, "j": J}

func lookupTest(name string) (Expr, bool) {
	e, ok := testNames[name]
	return e, ok
}

// mustParse parses src with the test variables.
func mustParse(t *testing.T, src string) Expr {
	t.Helper()
	e, err := Parse(src, lookupTest)
	if err != nil {
		t.Fatalf("Parse(%q): %v", src, err)
	}
	return e
}
