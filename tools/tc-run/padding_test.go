package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/internal/npy"
)

// Zero padding in TC (docs/tc.md, "Zero padding"): the guarded idiom that
// range inference narrows warns on tc-run's stderr and computes the centre
// tap only; the two ways the docs give compute the padded sum, in the
// interpreter and in compiled code, without a warning.

const paddingGuarded = `def conv(float(N) I, float(3) Wt) -> (O) {
  O(i) +=! (i + k - 1 >= 0 && i + k - 1 < N) ? I(i + k - 1) * Wt(k) : 0 where i in 0:N
}
`

var paddingFixed = map[string]string{
	"clamped": `def conv(float(N) I, float(3) Wt) -> (O) {
  O(i) +=! (i + k - 1 >= 0 && i + k - 1 < N) ? I(max(min(i + k - 1, N - 1), 0)) * Wt(k) : 0 where i in 0:N
}
`,
	"temporary": `def conv(float(N) I, float(3) Wt) -> (O) {
  P(j) = (j >= 1 && j <= N) ? I(max(min(j - 1, N - 1), 0)) : 0 where j in 0:N+2
  O(i) +=! P(i + k) * Wt(k)
}
`,
}

// paddedCorrelation is out[i] = sum over k of w[k] * x[i + k - 1], with x
// zero outside its points (NumPy's np.correlate(x, w, "same") for 3 taps).
func paddedCorrelation(x, w []float64) []float64 {
	out := make([]float64, len(x))
	for i := range x {
		for k := range w {
			if j := i + k - 1; j >= 0 && j < len(x) {
				out[i] += float64(float32(w[k] * x[j]))
			}
		}
	}
	return out
}

func paddingInputs(t *testing.T) (x, w []float64, xf, wf string) {
	t.Helper()
	// Small integers: every sum is exact in f32, so results compare exactly.
	x = []float64{3, -1, 4, 1, -5, 9, 2, -6, 5, 3, 5}
	w = []float64{2, -7, 1}
	xf = writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{len(x)}, F64: x})
	wf = writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{len(w)}, F64: w})
	return
}

func TestPaddingGuardWarnsAndNarrows(t *testing.T) {
	x, w, xf, wf := paddingInputs(t)
	file := writeTC(t, paddingGuarded)
	out := filepath.Join(t.TempDir(), "o.npy")
	code, stdout, stderr := runTool(file, "--arg", "I="+xf, "--arg", "Wt="+wf, "--out", out, "--interp")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	warning := "f.tc:2:50: warning: reduction index k takes [1:2] after range inference, narrower than dimension 0 of Wt ([0:3]) that Wt(k) indexes directly; narrowed by I(i + k - 1)"
	if !strings.Contains(stderr, warning) || strings.Count(stderr, "warning:") != 1 {
		t.Errorf("stderr lacks the warning, once:\n%s", stderr)
	}
	// What the narrowed range computes: the centre tap alone, which is
	// not the padded sum.
	centre := make([]float64, len(x))
	for i := range x {
		centre[i] = w[1] * x[i]
	}
	got := readNpy(t, out).F64
	sameFloats(t, got, centre)
	if equalFloats(got, paddedCorrelation(x, w)) {
		t.Fatal("the inputs do not tell the centre tap from the padded sum")
	}
}

func TestPaddingThatWorks(t *testing.T) {
	x, w, xf, wf := paddingInputs(t)
	want := paddedCorrelation(x, w)
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "tc.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range paddingFixed {
		t.Run(name, func(t *testing.T) {
			// The docs show this very function.
			if !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), strings.Join(strings.Fields(src), " ")) {
				t.Errorf("docs/tc.md does not show:\n%s", src)
			}
			file := writeTC(t, src)
			for _, mode := range []string{"--interp", "compiled"} {
				args := []string{file, "--arg", "I=" + xf, "--arg", "Wt=" + wf}
				if mode == "--interp" {
					args = append(args, "--interp")
				} else {
					haveToolchain(t)
				}
				out := filepath.Join(t.TempDir(), "o.npy")
				code, stdout, stderr := runTool(append(args, "--out", out)...)
				if code != 0 || strings.Contains(stderr, "warning:") {
					t.Fatalf("%s: exit %d\n%s%s", mode, code, stdout, stderr)
				}
				sameFloats(t, readNpy(t, out).F64, want)
			}
		})
	}
	if s := strings.Join(strings.Fields(paddingGuarded), " "); !strings.Contains(strings.Join(strings.Fields(string(doc)), " "), s) {
		t.Errorf("docs/tc.md does not show the guarded version:\n%s", paddingGuarded)
	}
}
