package main

import (
	"strings"
	"testing"

	"tir/tools/native"
)

// TestDerivativesEntry: with --derivatives, --entry names @f_vjp or
// @f_jvp, which run in the interpreter and compiled like any function.
func TestDerivativesEntry(t *testing.T) {
	lap := example(t, "laplacian_symbolic.tir")
	code, stdout, stderr := runTool(lap, "--derivatives", "--entry", "laplacian_vjp", "--arg", "N=6", "--arg", "M=5", "--random", "1", "--interp")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	code, _, stderr = runTool(lap, "--entry", "laplacian_vjp", "--arg", "N=6", "--arg", "M=5", "--random", "1", "--interp")
	if code == 0 || !strings.Contains(stderr, "has no tir.func @laplacian_vjp") {
		t.Errorf("without --derivatives: exit %d, %s", code, stderr)
	}
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("compiled mode needs LLVM 14: %v", err)
	}
	for _, entry := range []string{"laplacian_jvp", "laplacian_vjp"} {
		code, stdout, stderr := runTool(lap, "--derivatives", "--entry", entry, "--arg", "N=9", "--arg", "M=7", "--random", "2", "--check")
		if code != 0 || !strings.Contains(stdout, "check: compiled code matches the interpreter") {
			t.Errorf("@%s --check: exit %d\n%s%s", entry, code, stdout, stderr)
		}
	}
}
