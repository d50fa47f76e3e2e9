package main

import (
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/internal/npy"
)

// Results whose extent depends on data (tir.compress, tir.iota): tc-run
// sizes them from the run (compiled: the function's f_result_shape_data)
// and writes .npy files of that shape, interpreted and compiled alike.
const positives = `tir.func @pos(%x: !tir.tensor<f64, I[0:N]>, %lo: !tir.tensor<i64>, %hi: !tir.tensor<i64>, %step: !tir.tensor<i64>) -> (!tir.tensor<f64, I[0:?_r_I]>, !tir.tensor<i64, K[0:?_k_K]>) {
  %z = tir.constant 0.0 : f64
  %m = tir.cmp gt %x, %z
  %r = tir.compress %x, %m along I
  %k = tir.iota %lo, %hi, %step along K
  tir.return %r, %k : !tir.tensor<f64, I[0:?_r_I]>, !tir.tensor<i64, K[0:?_k_K]>
}
`

func TestDataExtentResults(t *testing.T) {
	file := writeTIR(t, positives)
	x := writeNpy(t, &npy.Array{Dtype: "float64", Shape: []int{6}, F64: []float64{3, -1, 0, 2.5, -7, 9}})
	modes(t, func(t *testing.T, mode []string) {
		dir := t.TempDir()
		o1, o2 := filepath.Join(dir, "r.npy"), filepath.Join(dir, "k.npy")
		args := append([]string{file, "--arg", "x=" + x, "--arg", "lo=10", "--arg", "hi=-2", "--arg", "step=-4", "--out", o1, "--out", o2}, mode...)
		code, stdout, stderr := runTool(args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		r, k := readNpy(t, o1), readNpy(t, o2)
		if len(r.Shape) != 1 || r.Shape[0] != 3 || r.F64[0] != 3 || r.F64[1] != 2.5 || r.F64[2] != 9 {
			t.Errorf("compress: shape %v values %v, want [3] [3 2.5 9]", r.Shape, r.F64)
		}
		if len(k.Shape) != 1 || k.Shape[0] != 3 || k.I64[0] != 10 || k.I64[1] != 6 || k.I64[2] != 2 {
			t.Errorf("iota: shape %v values %v, want [3] [10 6 2]", k.Shape, k.I64)
		}
		if !strings.Contains(stdout, "on I[0:3]") || !strings.Contains(stdout, "on K[0:3]") {
			t.Errorf("summary:\n%s", stdout)
		}
	})
}

// --random generates the inputs; the step may be anything, 0 included,
// which every mode refuses with the same message.
func TestDataExtentRandomAndStepZero(t *testing.T) {
	file := writeTIR(t, positives)
	modes(t, func(t *testing.T, mode []string) {
		args := append([]string{file, "--random", "1", "--arg", "N=20", "--arg", "step=3"}, mode...)
		if code, _, stderr := runTool(args...); code != 0 {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		args = append([]string{file, "--random", "1", "--arg", "N=20", "--arg", "step=0"}, mode...)
		code, _, stderr := runTool(args...)
		if code != 1 || !strings.Contains(stderr, "tir.iota value 'k': the step is 0") {
			t.Errorf("step 0: exit %d\n%s", code, stderr)
		}
	})
}
