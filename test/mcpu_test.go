package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/native"
)

// --mcpu writes target-cpu (and the host's features for native) into the
// LLVM IR, so that llc -O3 without flags uses the CPU's instructions: the
// vectorized loop of a 1-D kernel uses 256-bit registers for x86-64-v3
// and not for the generic target.
func TestMCPU(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	src := writeFile(t, dir, "axpy.tir", `tir.func @axpy(%a: !tir.tensor<f32>, %x: !tir.tensor<f32, I[0:N]>, %y: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[0:N]> {
  %ax = tir.mul %a, %x
  %r = tir.add %ax, %y
  tir.return %r : !tir.tensor<f32, I[0:N]>
}
`)
	llc, err := native.Tool("llc")
	if err != nil {
		t.Fatal(err)
	}
	asm := func(args ...string) (string, string) {
		t.Helper()
		llvm := runTCOpt(t, append(args, src)...)
		ll := filepath.Join(dir, "k.ll")
		if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(llc, "-O3", ll, "-o", "-").CombinedOutput()
		if err != nil {
			t.Fatalf("llc: %v\n%s", err, out)
		}
		return llvm, string(out)
	}
	llvm, s := asm("-O2", "--mcpu=x86-64-v3")
	if !strings.Contains(llvm, `"target-cpu"="x86-64-v3"`) || !strings.Contains(s, "%ymm") {
		t.Errorf("--mcpu=x86-64-v3: want target-cpu in the IR and ymm registers in llc's code")
	}
	if llvm, s := asm("-O2"); strings.Contains(llvm, "target-cpu") || strings.Contains(s, "%ymm") {
		t.Errorf("without --mcpu: want generic code")
	}
	if llvm, _ := asm("-O2", "--mcpu", "native"); !strings.Contains(llvm, `"target-cpu"="x86-64`) {
		t.Errorf("--mcpu native: want the host's x86-64 level:\n%s", llvm)
	}
	for _, bad := range [][]string{{"-O2", "--mcpu=znver9", src}, {"-O2", "--target=nvptx64", "--mcpu=znver3", src}, {"--convert-tir-to-affine", "--mcpu=znver3", src}} {
		if code, _, stderr := runBin(t, "", bad...); code != 2 || !strings.Contains(stderr, "mcpu") && !strings.Contains(stderr, "CPU") {
			t.Errorf("%v: exit %d, want a usage error:\n%s", bad, code, stderr)
		}
	}
}
