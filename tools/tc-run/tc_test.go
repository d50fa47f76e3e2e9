package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"tir/tools/internal/npy"
	"tir/tools/native"
)

// tc-run on Tensor Comprehensions: import warnings are printed and the run
// goes on, and narrow integer tensors go through .npy both ways.

func writeTC(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f.tc")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func haveToolchain(t *testing.T) {
	t.Helper()
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("compiled mode needs LLVM 14: %v", err)
	}
	if _, err := os.Stat("/usr/bin/gcc"); err != nil {
		t.Skip("compiled mode needs gcc")
	}
}

func TestTCWarningsDoNotStopTheRun(t *testing.T) {
	// C's size is only known at run time: the import warns about the
	// precondition and the function checks it on entry.
	file := writeTC(t, "def f(float(I) B, float(K) C, float(J) D) -> (A) {\n  A(i, j) = B(i) * C(i + j) * D(j)\n}\n")
	warning := "f.tc:2:22: warning: precondition on the size of C: index i + j of dimension 0 takes [0:I + J - 1], which must lie inside [0:K] (checked at run time)"
	args := []string{file, "--random", "1", "--arg", "I=3", "--arg", "J=2", "--arg", "K=4"}
	code, stdout, stderr := runTool(append(args, "--interp")...)
	if code != 0 || !strings.Contains(stderr, warning) || !strings.Contains(stdout, "result #0: f32 [3 2] on i[0:3] j[0:2]") {
		t.Errorf("--interp: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if strings.Count(stderr, "warning:") != 1 {
		t.Errorf("the warning is printed %d times:\n%s", strings.Count(stderr, "warning:"), stderr)
	}
	t.Run("compiled", func(t *testing.T) {
		haveToolchain(t)
		code, stdout, stderr := runTool(append(args, "--check")...)
		if code != 0 || !strings.Contains(stderr, warning) || !strings.Contains(stdout, "check: compiled code matches the interpreter on all 6 elements") {
			t.Errorf("--check: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		// A violated precondition is still an error, located in the TC source.
		code, _, stderr = runTool(file, "--random", "1", "--arg", "I=3", "--arg", "J=2", "--arg", "K=3")
		if code != 1 || !strings.Contains(stderr, "compiled @f: ") {
			t.Errorf("K=3: exit %d\n%s", code, stderr)
		}
	})
}

func TestNarrowIntegersThroughNpy(t *testing.T) {
	// uint8 and uint16 are tir's i8 and i16 (docs/tc.md): they accept the
	// unsigned dtypes and give signed results.
	file := writeTC(t, `def f(int8(N) A, uint8(N) B, int16(N) C, uint16(N) D) -> (O, P, Q, R) {
  O(i) = A(i) * 2
  P(i) = B(i) + 1
  Q(i) = C(i) - 1
  R(i) = D(i) * 3
}
`)
	a := writeNpy(t, &npy.Array{Dtype: "int8", Shape: []int{4}, I64: []int64{-128, -3, 5, 100}})
	b := writeNpy(t, &npy.Array{Dtype: "uint8", Shape: []int{4}, I64: []int64{0, 127, 200, 255}})
	c := writeNpy(t, &npy.Array{Dtype: "int16", Shape: []int{4}, I64: []int64{-32768, -1, 0, 32767}})
	d := writeNpy(t, &npy.Array{Dtype: "uint16", Shape: []int{4}, I64: []int64{0, 1, 40000, 65535}})
	// Computed independently: two's complement arithmetic in the width.
	want := []struct {
		dtype string
		vals  []int64
	}{
		{"int8", []int64{0, -6, 10, -56}},        // -128*2 and 100*2 wrap
		{"int8", []int64{1, -128, -55, 0}},       // 127+1, 200 (-56) + 1, 255 (-1) + 1
		{"int16", []int64{32767, -2, -1, 32766}}, // -32768-1 wraps
		{"int16", []int64{0, 3, -11072, -3}},     // 40000*3 = 120000 = -11072 mod 2^16, 65535 (-1) * 3
	}
	for _, mode := range []string{"--interp", "compiled"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			var outs []string
			args := []string{file, "--arg", "A=" + a, "--arg", "B=" + b, "--arg", "C=" + c, "--arg", "D=" + d}
			for i := range want {
				o := filepath.Join(dir, string(rune('0'+i))+".npy")
				outs = append(outs, o)
				args = append(args, "--out", o)
			}
			if mode == "--interp" {
				args = append(args, "--interp")
			} else {
				haveToolchain(t)
				args = append(args, "--check")
			}
			code, stdout, stderr := runTool(args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			for i, w := range want {
				got := readNpy(t, outs[i])
				if got.Dtype != w.dtype || !reflect.DeepEqual(got.I64, w.vals) {
					t.Errorf("result #%d: %s %v, want %s %v", i, got.Dtype, got.I64, w.dtype, w.vals)
				}
			}
		})
	}
	// A dtype of another width is refused, naming both accepted ones.
	wide := writeNpy(t, &npy.Array{Dtype: "int32", Shape: []int{4}, I64: []int64{1, 2, 3, 4}})
	code, _, stderr := runTool(file, "--arg", "A="+wide, "--arg", "B="+b, "--arg", "C="+c, "--arg", "D="+d, "--interp")
	if code != 1 || !strings.Contains(stderr, "argument 'A' expects int8 or uint8, got int32") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}
