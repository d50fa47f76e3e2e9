package tc

import (
	"strings"
	"testing"

	"tir/dialects/ir"
)

// inferAll imports src and returns the inferred ranges of every statement
// (one line each, "i in [lo:hi], ...") and the diagnostics.
func inferAll(t *testing.T, src string) ([]string, ir.DiagList) {
	t.Helper()
	ast, diags := Parse("t.tc", src)
	if ast == nil {
		t.Fatalf("parse: %v", diags)
	}
	im := newImporter("t.tc", ast)
	var out []string
	im.inferred = func(_ *Assign, vars []string, rs ranges) { out = append(out, rs.String(vars)) }
	im.module()
	im.diags.Sort()
	return out, im.diags
}

// TestWorkedResults reproduces the table of spec 03, row by row.
func TestWorkedResults(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // the ranges of the last statement; "" for an error
		diag      string // a diagnostic substring, "" for none
	}{
		{"shifted sum", "def f(float(I) B, float(I) C) -> (A) {\n A(i) = B(i) + C(i-2)\n}",
			"i in [2:I]", ""},
		{"matmul", "def f(float(M, K) A, float(K, N) B) -> (C) {\n C(m,n) +=! A(m,r_k) * B(r_k,n)\n}",
			"m in [0:M], n in [0:N], r_k in [0:K]", ""},
		{"convolution in two rounds", "def f(float(N) B, float(W) K) -> (A) {\n A(i) += B(i + k) * K(k)\n}",
			"i in [0:N - W + 1], k in [0:W]", ""},
		{"reversed", "def f(float(I) B) -> (A) {\n A(i) = B(10 - i)\n}",
			"i in [-I + 11:11]", ""},
		{"stride 2", "def f(float(I) B) -> (A) {\n A(i) = B(2*i)\n}",
			"i in [0:(I + 1) floordiv 2]", ""},
		{"stride 2, two reads", "def f(float(I) B) -> (A) {\n A(i) = B(2*i) + B(2*i+1)\n}",
			"i in [0:I floordiv 2]", ""},
		{"where on a reduction variable", "def f(float(I) B) -> (A) {\n A(i) +=! B(2*i + k) where k in 0:2\n}",
			"i in [0:I floordiv 2], k in [0:2]", ""},
		{"dynamic stride", "def f(float(I) B, float(L) S) -> (A) {\n A(i) = B(S(0)*i)\n}",
			"", "cannot infer the range of 'i'"},
		{"exists", "def f(float(N) A, float c) -> (B) {\n B(i) = c where exists A(i)\n}",
			"i in [0:N]", ""},
		{"precondition", "def f(float(I) B, float(K) C, float(J) D) -> (A) {\n A(i, j) = B(i) * C(i + j) * D(j)\n}",
			"i in [0:I], j in [0:J]", "precondition on the size of C"},
		{"origin kept", "def f(float(I) B) -> (A) {\n A(i) = B(i - 1)\n}",
			"i in [1:I + 1]", ""},
		{"backward convolution", "def f(float(N, M, OH) dO, float(M, C, KH) W) -> (dI) {\n dI(n,c,h) +=! dO(n,m,h - kh) * W(m,c,kh)\n}",
			"n in [0:N], c in [0:C], h in [KH - 1:OH], m in [0:M], kh in [0:KH]", ""},
		{"where", "def f() -> (O) {\n O(i, j) = 3 where i in 4:8, j in 3:20\n}",
			"i in [4:8], j in [3:20]", ""},
		{"empty where", "def f() -> (O) {\n O(i) = 3 where i in 8:4\n}",
			"", "empty range 8:4 for 'i' (never a negative size)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, diags := inferAll(t, c.src)
			if c.want == "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), c.diag) {
					t.Fatalf("want an error %q, got %v (ranges %v)", c.diag, diags, got)
				}
				return
			}
			if diags.HasErrors() || len(got) == 0 {
				t.Fatalf("unexpected errors: %v", diags)
			}
			if last := got[len(got)-1]; last != c.want {
				t.Errorf("got  %s\nwant %s", last, c.want)
			}
			if c.diag == "" && len(diags) > 0 {
				t.Errorf("unexpected diagnostics: %v", diags)
			}
			if c.diag != "" && !strings.Contains(diags.Error(), c.diag) {
				t.Errorf("diagnostics %v lack %q", diags, c.diag)
			}
		})
	}
}

// TestRounds checks the finer points of the algorithm.
func TestRounds(t *testing.T) {
	cases := []struct{ name, src, want string }{
		// A where range is never narrowed by an access: the access
		// becomes a precondition (here provable).
		{"where first", "def f(float(N) A) -> (B) {\n B(i) = A(i) where i in 1:N\n}", "i in [1:N]"},
		// A negative coefficient, solved for i once j is resolved: -i + j
		// must stay in [0, N) for every j in [0, M).
		{"negative coefficient", "def f(float(N) A, float(M) C) -> (B) {\n B(i, j) +=! A(-i + j) * C(j)\n}", "i in [-N + M:1], j in [0:M]"},
		{"coefficient 3", "def f(float(N) A) -> (B) {\n B(i) = A(3*i + 2)\n}", "i in [0:N floordiv 3]"},
		{"negative stride", "def f(float(N) A) -> (B) {\n B(i) = A(-2*i)\n}", "i in [(-N + 1) ceildiv 2:1]"},
		{"size in the index", "def f(float(N) A) -> (B) {\n B(i) = A(N - 1 - i)\n}", "i in [0:N]"},
		{"T.k in a where", "def f(float(N, M) A) -> (B) {\n B(i) +=! A(i, j) where j in 0:A.1 - 1\n}", "i in [0:N], j in [0:M - 1]"},
		{"intersection with min", "def f(float(N) A, float(M) C) -> (B) {\n B(i) = A(i) + C(i)\n}", "i in [0:min(N, M)]"},
		{"chained statements", "def f(float(N) A) -> (B, D) {\n B(i) = A(i - 1)\n D(j) = B(j + 1)\n}", "j in [0:N]"},
		{"data-dependent index resolved elsewhere", "def f(float(J) B, int32(I) C) -> (A) {\n A(i) = B(C(i))\n}", "i in [0:I]"},
		// Semantics round 2.
		{"constant sizes", "def f(float(10, N) A, float(3) K) -> (B) {\n B(i, j) +=! A(i + k, j) * K(k)\n}", "i in [0:8], j in [0:N], k in [0:3]"},
		{"integer cast of an index", "def f(float(N) A) -> (B) {\n B(i) = A(int64(i + 1))\n}", "i in [-1:N - 1]"},
		{"in-place update takes the existing range", "def f(float(N) A) -> (B) {\n B(i) = A(i - 1)\n B(i) += 1\n}", "i in [1:N + 1]"},
		{"in-place update intersects", "def f(float(N) A, float(M) C) -> (B) {\n B(i) = A(i)\n B(i) *= C(i)\n}", "i in [0:min(N, M)]"},
		{"in-place reduction", "def f(float(N) A, float(M, K) C) -> (B) {\n B(i) = A(i)\n B(i) += C(i, k)\n}", "i in [0:min(N, M)], k in [0:K]"},
		{"'!' replaces the value", "def f(float(N) A, float(M, K) C) -> (B) {\n B(i) = A(i)\n B(i) +=! C(i, k)\n}", "i in [0:M], k in [0:K]"},
		{"where binding in an index", "def f(float(N) A) -> (B) {\n B(i) = A(j) where j = N - 1 - i\n}", "i in [0:N]"},
		{"where binding with a reduction variable", "def f(float(N, M) A) -> (B) {\n B(i) +=! t where t = A(i, k)\n}", "i in [0:N], k in [0:M]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, diags := inferAll(t, c.src)
			if diags.HasErrors() || len(got) == 0 {
				t.Fatalf("errors: %v", diags)
			}
			if last := got[len(got)-1]; last != c.want {
				t.Errorf("got  %s\nwant %s", last, c.want)
			}
		})
	}
}
