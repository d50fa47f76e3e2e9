package driver

import (
	"strings"
	"testing"
)

const symbolicSrc = `tir.func @scale(%a: !tir.tensor<f64, I[0:N], J[0:M]>) -> !tir.tensor<f64, I[0:N], J[0:M]> {
  %x = tir.add %a, %a
  tir.return %x : !tir.tensor<f64, I[0:N], J[0:M]>
}
`

// TestThreadsFlag: --threads sets convert-to-llvm{threads=omp} on the -O
// pipelines and is a usage error elsewhere.
func TestThreadsFlag(t *testing.T) {
	code, out, errOut := runIn(t, symbolicSrc, "-O2", "--threads", "--dump-pass-pipeline")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "threads=omp") {
		t.Errorf("the pipeline does not set threads=omp:\n%s", errOut)
	}
	if !strings.Contains(out, "call void @GOMP_parallel(") {
		t.Errorf("no GOMP_parallel call in the output")
	}
	if code, out, _ := runIn(t, symbolicSrc, "-O2"); code != 0 || strings.Contains(out, "GOMP") {
		t.Errorf("without --threads: exit %d, GOMP in the output: %v", code, strings.Contains(out, "GOMP"))
	}
	for _, args := range [][]string{
		{"--threads"},
		{"--threads", "--convert-tir-to-affine"},
		{"-O2", "--threads", "--target=nvptx64"},
	} {
		if code, _, errOut := runIn(t, symbolicSrc, args...); code != ExitUsage || !strings.Contains(errOut, "threads") {
			t.Errorf("%v: exit %d (want %d), %s", args, code, ExitUsage, errOut)
		}
	}
	if code, _, errOut := runIn(t, symbolicSrc, "--pass-pipeline=builtin.module(convert-tir-to-affine,convert-to-llvm{threads=omp target=nvptx64})"); code != ExitUsage {
		t.Errorf("threads=omp with nvptx64: exit %d, %s", code, errOut)
	}
}
