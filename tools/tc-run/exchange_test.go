package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/internal/npy"
	"tir/tools/native"
)

// Small tools (issue 7, item 11): 0-d arguments from numbers, the --check
// verdict, f16 and bf16 through .npy.

func writeTIR(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.tir")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// modes runs f once with --interp and, when the toolchain is there, once
// compiled with --check.
func modes(t *testing.T, f func(t *testing.T, mode []string)) {
	t.Run("interp", func(t *testing.T) { f(t, []string{"--interp"}) })
	t.Run("compiled", func(t *testing.T) {
		haveToolchain(t)
		f(t, []string{"--check"})
	})
}

func TestScalarArgumentsFromNumbers(t *testing.T) {
	file := writeTIR(t, `tir.func @axpy(%alpha: !tir.tensor<f32>, %k: !tir.tensor<i32>, %on: !tir.tensor<i1>, %x: !tir.tensor<f32, I[0:N]>, %n: !tir.tensor<i32, I[0:N]>) -> (!tir.tensor<f32, I[0:N]>, !tir.tensor<i32, I[0:N]>) {
  %a = tir.mul %alpha, %x
  %z = tir.constant 0.0 : f32
  %s = tir.select %on, %a, %z
  %m = tir.mul %k, %n
  tir.return %s, %m : !tir.tensor<f32, I[0:N]>, !tir.tensor<i32, I[0:N]>
}`)
	x := writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{3}, F64: []float64{1, -2, 4}})
	n := writeNpy(t, &npy.Array{Dtype: "int32", Shape: []int{3}, I64: []int64{1, -2, 7}})
	modes(t, func(t *testing.T, mode []string) {
		dir := t.TempDir()
		o0, o1 := filepath.Join(dir, "s.npy"), filepath.Join(dir, "m.npy")
		args := append([]string{file, "--arg", "alpha=0.5", "--arg", "k=-3", "--arg", "on=true", "--arg", "x=" + x, "--arg", "n=" + n, "--out", o0, "--out", o1}, mode...)
		code, stdout, stderr := runTool(args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if got := readNpy(t, o0); got.Dtype != "float32" || !equalFloats(got.F64, []float64{0.5, -1, 2}) {
			t.Errorf("alpha * x = %s %v, want float32 [0.5 -1 2]", got.Dtype, got.F64)
		}
		if got := readNpy(t, o1); got.Dtype != "int32" || len(got.I64) != 3 || got.I64[0] != -3 || got.I64[1] != 6 || got.I64[2] != -21 {
			t.Errorf("k * n = %s %v, want int32 [-3 6 -21]", got.Dtype, got.I64)
		}
	})
	// A 0-d argument also still takes a .npy file.
	alpha := writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{}, F64: []float64{2}})
	if code, stdout, stderr := runTool(file, "--arg", "alpha="+alpha, "--arg", "k=1", "--arg", "on=1", "--arg", "x="+x, "--arg", "n="+n, "--interp"); code != 0 || !strings.Contains(stdout, "min -4 max 8") {
		t.Errorf("alpha from a file: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, c := range []struct {
		arg, want string
	}{
		{"alpha=fast", "argument 'alpha' is a 0-d f32 tensor: pass a number (--arg alpha=0.5) or a .npy file, not 'fast'"},
		{"k=0.5", "argument 'k' is a 0-d i32 tensor: pass an integer, not '0.5'"},
		{"k=many", "argument 'k' is a 0-d i32 tensor: pass an integer (--arg k=3) or a .npy file, not 'many'"},
		{"k=5000000000", "argument 'k' is a 0-d i32 tensor: 5000000000 does not fit 32 bits"},
		{"on=2", "argument 'on' is a 0-d i1 tensor: pass 0, 1, true or false (or a .npy file), not '2'"},
		{"beta=0.5", "@axpy has no argument or size symbol 'beta' (arguments: alpha, k, on, x, n; size symbols: N)"},
	} {
		code, _, stderr := runTool(file, "--arg", c.arg, "--random", "1", "--arg", "N=3", "--interp")
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("--arg %s: exit %d, want 2 and %q\n%s", c.arg, code, c.want, stderr)
		}
	}
	// A missing 0-d argument's hint shows a value of its type (issue 24,
	// item 6); one with dimensions keeps the .npy hint.
	bound := map[string]string{"alpha": "alpha=0.5", "k": "k=1", "on": "on=1", "x": "x=" + x, "n": "n=" + n}
	for _, c := range []struct {
		missing, want string
	}{
		{"alpha", "missing argument 'alpha' (!tir.tensor<f32>) of @axpy: pass a number (--arg alpha=0.7), --arg alpha=FILE.npy or --random SEED"},
		{"k", "missing argument 'k' (!tir.tensor<i32>) of @axpy: pass an integer (--arg k=3), --arg k=FILE.npy or --random SEED"},
		{"on", "missing argument 'on' (!tir.tensor<i1>) of @axpy: pass a boolean (--arg on=true), --arg on=FILE.npy or --random SEED"},
		{"x", "missing argument 'x' (!tir.tensor<f32, I[0:N]>) of @axpy: pass --arg x=FILE.npy or --random SEED"},
	} {
		args := []string{file, "--interp"}
		for _, name := range []string{"alpha", "k", "on", "x", "n"} {
			if name != c.missing {
				args = append(args, "--arg", bound[name])
			}
		}
		code, _, stderr := runTool(args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("without %s: exit %d, want 2 and %q\n%s", c.missing, code, c.want, stderr)
		}
	}
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestCheckVerdict(t *testing.T) {
	cases := []struct {
		d    native.Diff
		ok   bool
		want string
	}{
		{native.Diff{Compared: 10}, true, "check: compiled code matches the interpreter on all 10 elements (largest difference 0)"},
		{native.Diff{Compared: 10, Mismatch: 1, MaxAbs: 1e-7, MaxRel: 2e-7, Where: "result #0 element 3: got 0.5000001, want 0.5"}, true,
			"check: 1 of 10 elements differ; largest difference 1e-07 (relative 2e-07) at result #0 element 3: got 0.5000001, want 0.5: within the tolerance (relative 1e-05)"},
		{native.Diff{Compared: 10, Mismatch: 2, MaxAbs: 0.5, MaxRel: 1, Where: "result #1 element 0: got 1, want 0.5"}, false,
			"check: 2 of 10 elements differ; largest difference 0.5 (relative 1) at result #1 element 0: got 1, want 0.5: beyond the tolerance (relative 1e-05)"},
		{native.Diff{Compared: 10, Mismatch: 1, MaxAbs: math.NaN(), MaxRel: math.NaN(), Where: "result #0 element 0: got NaN, want 1"}, false,
			"beyond the tolerance (relative 1e-05)"},
		// Masked points are among the elements counted, and said to be.
		{native.Diff{Compared: 24, Masked: 8}, true, "check: compiled code matches the interpreter on all 24 elements (8 masked points compared with 0; largest difference 0)"},
		{native.Diff{Compared: 24, Masked: 8, Mismatch: 4, MaxAbs: 1, MaxRel: 1, Where: "result #0 element 16: got 1, want 0"}, false,
			"check: 4 of 24 elements differ (8 masked points compared with 0); largest difference 1 (relative 1) at result #0 element 16: got 1, want 0: beyond"},
	}
	for _, c := range cases {
		line, ok := checkLine(c.d, "")
		if ok != c.ok || !strings.Contains(line, c.want) {
			t.Errorf("checkLine(%+v) = %q, %v; want %q, %v", c.d, line, ok, c.want, c.ok)
		}
	}
	// With flags that round differently, a difference is measured
	// against the result's largest magnitude: a result that cancels to
	// near 0 may differ by much of itself, a large one may not.
	cancel := native.Diff{Compared: 10, Mismatch: 1, MaxAbs: 1e-7, MaxRel: 1e-3, MaxNorm: 1e-7, Where: "result #0 element 3: got 0.0001001, want 0.0001"}
	if line, ok := checkLine(cancel, ""); ok {
		t.Errorf("without reordering flags a relative 1e-3 passed: %s", line)
	}
	line, ok := checkLine(cancel, "--fp-contract=fast")
	if want := "largest difference 1e-07 (relative 0.001, 1e-07 of the result's largest magnitude) at result #0 element 3: got 0.0001001, want 0.0001: within the tolerance (1e-05 of the result's largest magnitude, for --fp-contract=fast)"; !ok || !strings.Contains(line, want) {
		t.Errorf("checkLine(cancel, fast) = %q, %v; want %q", line, ok, want)
	}
	far := native.Diff{Compared: 10, Mismatch: 1, MaxAbs: 1e-3, MaxRel: 1e-3, MaxNorm: 1e-4, Where: "result #0 element 0: got 1.001, want 1"}
	if line, ok := checkLine(far, "--fp-reassociate"); ok || !strings.Contains(line, "beyond the tolerance") {
		t.Errorf("checkLine(far, reassociate) = %q, %v; want beyond", line, ok)
	}
	nan := native.Diff{Compared: 10, Mismatch: 1, MaxAbs: math.NaN(), MaxRel: math.NaN(), MaxNorm: math.NaN(), Where: "result #0 element 0: got NaN, want 1"}
	if line, ok := checkLine(nan, "--fp-reassociate"); ok {
		t.Errorf("a NaN passed: %s", line)
	}
}

// f16 goes through .npy as float16 both ways; bf16 as float32, rounded to
// nearest-even bf16 on reading and written exactly. The expected values
// are computed here: each op rounds its f32 result once (spec 2.7).
func TestHalfFloatsThroughNpy(t *testing.T) {
	file := writeTIR(t, `tir.func @f(%h: !tir.tensor<f16, I[0:4]>, %b: !tir.tensor<bf16, I[0:4]>) -> (!tir.tensor<f16, I[0:4]>, !tir.tensor<bf16, I[0:4]>) {
  %two = tir.constant 2.0 : f16
  %h2 = tir.mul %h, %two
  %one = tir.constant 1.0 : bf16
  %b1 = tir.add %b, %one
  tir.return %h2, %b1 : !tir.tensor<f16, I[0:4]>, !tir.tensor<bf16, I[0:4]>
}`)
	h := writeNpy(t, &npy.Array{Dtype: "float16", Shape: []int{4}, F64: []float64{1.5, -0.25, 40000, math.Ldexp(1, -24)}})
	// bf16 has 8 significant bits: 1 + 2^-8 is a tie between 1 and 1 +
	// 2^-7 (to even: 1); 1 + 3*2^-8 one between 1 + 2^-7 and 1 + 2^-6 (to
	// even: 1 + 2^-6); -2.3 rounds to -147 * 2^-6 = -2.296875.
	b := writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{4}, F64: []float64{1 + math.Ldexp(1, -8), 1 + 3*math.Ldexp(1, -8), 3, -2.3}})
	wantH := []float64{3, -0.5, math.Inf(1), math.Ldexp(1, -23)} // 80000 overflows f16
	wantB := []float64{2, 2 + math.Ldexp(1, -6), 4, -1.296875}   // all exact in bf16
	modes(t, func(t *testing.T, mode []string) {
		dir := t.TempDir()
		o0, o1 := filepath.Join(dir, "h.npy"), filepath.Join(dir, "b.npy")
		code, stdout, stderr := runTool(append([]string{file, "--arg", "h=" + h, "--arg", "b=" + b, "--out", o0, "--out", o1}, mode...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
		}
		if got := readNpy(t, o0); got.Dtype != "float16" || !equalFloats(got.F64, wantH) {
			t.Errorf("f16: %s %v, want float16 %v", got.Dtype, got.F64, wantH)
		}
		if got := readNpy(t, o1); got.Dtype != "float32" || !equalFloats(got.F64, wantB) {
			t.Errorf("bf16: %s %v, want float32 %v", got.Dtype, got.F64, wantB)
		}
	})
	wrong := writeNpy(t, &npy.Array{Dtype: "float64", Shape: []int{4}, F64: []float64{1, 2, 3, 4}})
	if code, _, stderr := runTool(file, "--arg", "h="+h, "--arg", "b="+wrong, "--interp"); code != 1 || !strings.Contains(stderr, "argument 'b' expects float32, got float64") {
		t.Errorf("bf16 from float64: exit %d\n%s", code, stderr)
	}
}
