package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/driver"
	"tir/tools/native"
)

const mlirOpt = "/usr/lib/llvm-16/bin/mlir-opt"

// runTCOpt runs the driver in-process and returns stdout.
func runTCOpt(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := driver.Run(args, strings.NewReader(""), &out, &errb); code != 0 {
		t.Fatalf("tc-opt %s: exit %d\n%s", strings.Join(args, " "), code, errb.String())
	}
	return out.String()
}

func pipe(t *testing.T, input string, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Stdin = strings.NewReader(input)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %s rejected our output: %v\n%s\n--- input ---\n%s", filepath.Base(name), strings.Join(args, " "), err, out, input)
	}
}

// TestMLIRInterop feeds every example, in the generic form, after
// convert-tir-to-affine and after gpu-kernel-outlining, to upstream
// mlir-opt 16.
func TestMLIRInterop(t *testing.T) {
	if _, err := os.Stat(mlirOpt); err != nil {
		t.Skipf("upstream MLIR 16 not installed (%s; make deps installs mlir-16-tools)", mlirOpt)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	ops, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	files = append(files, ops...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			pipe(t, runTCOpt(t, "--mlir-print-op-generic", f), mlirOpt, "--allow-unregistered-dialect")
			affine := runTCOpt(t, "--convert-tir-to-affine", f)
			pipe(t, affine, mlirOpt)
			pipe(t, runTCOpt(t, "--convert-tir-to-affine", "--mlir-print-op-generic", f), mlirOpt)
			// Upstream's own lowering of our affine output must work too.
			lowering := []string{"--lower-affine", "--convert-scf-to-cf", "--convert-arith-to-llvm", "--convert-math-to-llvm",
				"--convert-memref-to-llvm", "--convert-func-to-llvm", "--reconcile-unrealized-casts"}
			pipe(t, affine, mlirOpt, lowering...)
			// -O2's scans in lanes (floordiv bounds, a max lower bound) and rows.
			pipe(t, runTCOpt(t, "--convert-tir-to-affine=scan-lanes=4 scan-rows=true", f), mlirOpt, lowering...)
			// The outlined GPU module (spec 4.3) is MLIR's gpu dialect: mlir-opt
			// reads it in both forms, and its own NVVM lowering of our kernels,
			// the peer of convert-to-llvm{target=nvptx64}, accepts them (as -O2
			// makes them: several points per thread, scatter-adds with atomic
			// adds).
			outlined := "--pass-pipeline=builtin.module(tir-inline,canonicalize,cse,tir.func(tir-temporaries),convert-tir-to-affine{scan-columns=false atomic-scatters=true}," +
				"func.func(affine-licm,affine-scalar-replace),gpu-kernel-outlining{coarsen=4},canonicalize,cse)"
			gpuIR := runTCOpt(t, outlined, f)
			pipe(t, gpuIR, mlirOpt)
			pipe(t, runTCOpt(t, outlined, "--mlir-print-op-generic", f), mlirOpt)
			pipe(t, gpuIR, mlirOpt, "--convert-scf-to-cf", "--convert-gpu-to-nvvm")
		})
	}
}

// TestLLVMInterop checks that the default pipeline's LLVM IR passes
// LLVM 14's verifier and llc -O3 for every example, x86_64 and aarch64.
func TestLLVMInterop(t *testing.T) {
	llc, err := native.Tool("llc")
	if err != nil {
		t.Skip(err)
	}
	opt, err := native.Tool("opt")
	if err != nil {
		t.Skip(err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	if len(files) == 0 {
		t.Skip("shared examples not found")
	}
	for _, f := range files {
		for _, target := range []string{"x86_64", "aarch64"} {
			t.Run(filepath.Base(f)+"/"+target, func(t *testing.T) {
				ll := runTCOpt(t, "-O2", "--target="+target, f)
				pipe(t, ll, opt, "-passes=verify", "-disable-output")
				pipe(t, ll, llc, "-O3", "-o", os.DevNull)
			})
		}
	}
}
