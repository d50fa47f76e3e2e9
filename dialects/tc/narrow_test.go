package tc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
)

// narrowWarnings imports src and returns its narrowed-reduction warnings.
func narrowWarnings(t *testing.T, src string) []*ir.Diagnostic {
	t.Helper()
	m, diags := Import("t.tc", src)
	if m == nil {
		t.Fatalf("import failed: %v", diags)
	}
	var out []*ir.Diagnostic
	for _, d := range diags {
		if d.Severity == ir.SevWarning && strings.HasPrefix(d.Msg, "reduction index ") {
			out = append(out, d)
		}
	}
	return out
}

// TestNarrowedReduction: a reduction variable that inference makes
// provably smaller than a dimension it indexes directly is a warning at
// the access that narrowed it; everything the user fixed on purpose, and
// what cannot be proven, is silent.
func TestNarrowedReduction(t *testing.T) {
	cases := []struct {
		name, src string
		// want are substrings of the one warning expected ("" for none),
		// at line:col.
		want []string
		at   string
	}{
		{"guarded zero padding (issue 20)",
			"def conv(float(N) I, float(3) Wt) -> (O) {\n  O(i) +=! (i + k - 1 >= 0 && i + k - 1 < N) ? I(i + k - 1) * Wt(k) : 0 where i in 0:N\n}",
			[]string{"reduction index k takes [1:2] after range inference", "dimension 0 of Wt ([0:3]) that Wt(k) indexes directly", "narrowed by I(i + k - 1), which keeps k in [1:2]"},
			"2:50"},
		{"symbolic filter: the lower bound 1 > 0 is provable, the upper one is not",
			"def conv(float(N) I, float(W) Wt) -> (O) {\n  O(i) +=! I(i + k - 1) * Wt(k) where i in 0:N\n}",
			[]string{"reduction index k takes [1:min(W, 2)]", "dimension 0 of Wt ([0:W])"}, "2:14"},
		{"two direct accesses of different constant sizes",
			"def dot(float(3) A, float(2) B) -> (O) {\n  O +=! A(k) * B(k)\n}",
			[]string{"reduction index k takes [0:2]", "dimension 0 of A ([0:3]) that A(k) indexes directly", "narrowed by B(k)"}, "2:18"},
		{"the same dimension read twice warns once",
			"def conv(float(N) I, float(3) Wt) -> (O) {\n  O(i) +=! I(i + k - 1) * Wt(k) + Wt(k) where i in 0:N\n}",
			[]string{"narrowed by I(i + k - 1)"}, "2:14"},
		{"the shared conv1d: k is all of Wt", "def conv1d(float(N) I, float(W) Wt) -> (O) {\n  O(i) +=! I(i + k) * Wt(k)\n}", nil, ""},
		{"sizes that cannot be ordered: not provable",
			"def dot(float(M) A, float(N) B) -> (O) {\n  O +=! A(k) * B(k)\n}", nil, ""},
		{"a where clause fixes the range on purpose",
			"def f(float(N) I, float(3) Wt) -> (O) {\n  O(i) +=! I(i + k) * Wt(k) where i in 0:N-1, k in 0:2\n}", nil, ""},
		{"an exists clause narrows on purpose",
			"def f(float(N) I, float(3) Wt) -> (O) {\n  O(i) +=! Wt(k) where i in 0:N, exists I(i + k - 1)\n}", nil, ""},
		{"clamped index: the guard works",
			"def conv(float(N) I, float(3) Wt) -> (O) {\n  O(i) +=! (i + k - 1 >= 0 && i + k - 1 < N) ? I(max(min(i + k - 1, N - 1), 0)) * Wt(k) : 0 where i in 0:N\n}", nil, ""},
		{"padded temporary",
			"def conv(float(N) I, float(3) Wt) -> (O) {\n  P(j) = (j >= 1 && j <= N) ? I(max(min(j - 1, N - 1), 0)) : 0 where j in 0:N+2\n  O(i) +=! P(i + k) * Wt(k)\n}", nil, ""},
		{"an output index narrowed is not a reduction",
			"def f(float(N) I, float(3) Wt) -> (O) {\n  O(k) = I(k + 5) * Wt(k) where exists I(0)\n}", nil, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := narrowWarnings(t, c.src)
			if c.want == nil {
				if len(ws) != 0 {
					t.Fatalf("unexpected warning: %s", ws[0].Msg)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("%d warnings, want 1: %v", len(ws), ws)
			}
			for _, w := range c.want {
				if !strings.Contains(ws[0].Msg, w) {
					t.Errorf("warning lacks %q:\n%s", w, ws[0].Msg)
				}
			}
			if at := ws[0].Loc.String(); !strings.HasSuffix(at, ":"+c.at) {
				t.Errorf("warning at %s, want line:col %s", at, c.at)
			}
		})
	}
}

// TestNarrowedReductionTwoSides: when one access fixes the lower bound and
// another the upper one, the warning names both and notes the second.
func TestNarrowedReductionTwoSides(t *testing.T) {
	src := "def f(float(5) W, float(8) Z, float(4) Y) -> (O) {\n  O +=! W(k) * Z(k - 1) * Y(k + 1)\n}"
	ws := narrowWarnings(t, src)
	if len(ws) != 1 {
		t.Fatalf("%d warnings, want 1: %v", len(ws), ws)
	}
	w := ws[0]
	for _, s := range []string{"reduction index k takes [1:3]", "narrowed by Z(k - 1), which keeps k in [1:9], and Y(k + 1), which keeps k in [-1:3]"} {
		if !strings.Contains(w.Msg, s) {
			t.Errorf("warning lacks %q:\n%s", s, w.Msg)
		}
	}
	if len(w.Notes) != 1 || !strings.Contains(w.Notes[0].Msg, "Y(k + 1) also narrows k") || w.Notes[0].Loc.Col != 29 {
		t.Errorf("want one note at Y(k + 1), col 29; got %v", w.Notes)
	}
}

// TestNoNarrowedReductionInExamples: the shared examples and the TC inputs
// of the tests do not trigger the warning (the diag_* files that expect it
// say so with their own expectations).
func TestNoNarrowedReductionInExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "examples", "*.tc"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "test", "testdata", "tc", "*.tc"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Skip("no TC inputs found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "expected-warning @+1 {{reduction index") {
			continue
		}
		_, diags := Import(f, string(b))
		for _, d := range diags {
			if strings.HasPrefix(d.Msg, "reduction index ") {
				t.Errorf("%s: %s", d.Loc, d.Msg)
			}
		}
	}
}
