package main

import (
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/internal/npy"
)

// Shape inference (issue 9): a 3-point stencil on an argument of unknown
// extent, whose output I[1:N-1] needs it on I[0:N]. It runs on .npy
// inputs that cover [0:N] (exactly, or with points to spare) and refuses a
// short one, interpreted and compiled, with the same message naming the
// argument, the dimension and both intervals.
const stencilUnknown = `tir.func @st(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %x [I + 1]
  %w = tir.shift %x [I - 1]
  %s = tir.add %e, %w
  %r = tir.sub %s, %x
  tir.return %r : !tir.tensor<f64, I[1:N-1]>
}
`

func TestInferredExtentFromNpy(t *testing.T) {
	file := writeTIR(t, stencilUnknown)
	vec := func(n int) string {
		a := &npy.Array{Dtype: "float64", Shape: []int{n}}
		for i := 0; i < n; i++ {
			a.F64 = append(a.F64, float64(i*i))
		}
		return writeNpy(t, a)
	}
	modes(t, func(t *testing.T, mode []string) {
		for _, n := range []int{10, 13} {
			out := filepath.Join(t.TempDir(), "o.npy")
			args := append([]string{file, "--arg", "x=" + vec(n), "--arg", "N=10", "--out", out}, mode...)
			code, _, stderr := runTool(args...)
			if code != 0 {
				t.Fatalf("x on [0:%d]: exit %d\n%s", n, code, stderr)
			}
			got := readNpy(t, out)
			if len(got.F64) != 8 {
				t.Fatalf("x on [0:%d]: %d results, want 8", n, len(got.F64))
			}
			for k, v := range got.F64 {
				i := float64(k + 1)
				if want := (i+1)*(i+1) + (i-1)*(i-1) - i*i; v != want {
					t.Errorf("x on [0:%d]: r(%v) = %v, want %v", n, i, v, want)
				}
			}
		}
		args := append([]string{file, "--arg", "x=" + vec(8), "--arg", "N=10", "--out", filepath.Join(t.TempDir(), "o.npy")}, mode...)
		code, _, stderr := runTool(args...)
		const msg = "argument 'x' dimension I: needs [0:N] = [0:10], got [0:8]"
		if code != 1 || !strings.Contains(stderr, msg) {
			t.Errorf("short x: exit %d, stderr:\n%s\nwant exit 1 and %q", code, stderr, msg)
		}
	})
}
