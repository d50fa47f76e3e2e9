package main

import (
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/internal/npy"
)

// An embedding lookup with tokens outside the table (issue 20): --interp
// and the compiled code in every mode write 0 for those rows, and --check
// counts all 24 elements, saying how many were masked. The expected rows
// are computed here.
func TestCheckCountsMaskedPoints(t *testing.T) {
	file := writeTC(t, "def embed(float(V, D) E, int32(T) tok) -> (O) { O(t, d) = E(tok(t), d) }\n")
	e := &npy.Array{Dtype: "float32", Shape: []int{10, 4}}
	for i := 0; i < 40; i++ {
		e.F64 = append(e.F64, float64(i+1))
	}
	toks := []int64{3, 0, 9, 3, 12, -1}
	tok := &npy.Array{Dtype: "int32", Shape: []int{6}, I64: toks}
	var want []float64
	for _, v := range toks {
		for d := int64(0); d < 4; d++ {
			if v >= 0 && v < 10 {
				want = append(want, float64(4*v+d+1))
			} else {
				want = append(want, 0)
			}
		}
	}
	args := []string{file, "--arg", "E=" + writeNpy(t, e), "--arg", "tok=" + writeNpy(t, tok)}
	for _, mode := range [][]string{{"--interp"}, {"--check"}, {"--check", "--threads"}, {"--check", "--target=nvptx64", "--emulate-gpu"}} {
		name := strings.Join(mode, " ")
		t.Run(name, func(t *testing.T) {
			if mode[0] != "--interp" {
				haveToolchain(t)
			}
			out := filepath.Join(t.TempDir(), "o.npy")
			code, stdout, stderr := runTool(append(append(append([]string(nil), args...), mode...), "--out", out)...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if mode[0] == "--check" && !strings.Contains(stdout, "check: compiled code matches the interpreter on all 24 elements (8 masked points compared with 0; largest difference 0)") {
				t.Errorf("the check does not count every element:\n%s", stdout)
			}
			got := readNpy(t, out)
			for i, w := range want {
				if got.F64[i] != w {
					t.Fatalf("element %d = %v, want %v (all: %v)", i, got.F64[i], w, got.F64)
				}
			}
		})
	}
}
