package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/tools/emit"
	"tir/tools/native"
)

// The GPU build of every example and end-to-end program, run without a
// GPU: the outlined kernels compiled for the CPU execute under the CUDA
// driver emulator (tools/native/csrc/fakecuda.c), called through the
// generated host wrapper exactly as on a GPU, and are compared with the
// interpreter.

type gpuCase struct {
	e2eCase
	name string
}

// gpuCases are the examples with sizes that are not multiples of the block
// sizes (32 x 8, 256), every program of testdata/e2e, and the mapping cases
// of testdata/gpu (grid-stride loops, dimensions folded into z).
func gpuCases(t *testing.T) []gpuCase {
	var cs []gpuCase
	for _, c := range e2eCases {
		cs = append(cs, gpuCase{e2eCase: e2eCase{file: examplePath(t, c.file), syms: c.syms, tol: c.tol}, name: c.file})
	}
	cs = append(cs,
		gpuCase{e2eCase: e2eCase{file: examplePath(t, "laplacian_symbolic.tir"), syms: map[string]int64{"N": 37, "M": 45}}, name: "laplacian_symbolic.tir N=37 M=45"},
		gpuCase{e2eCase: e2eCase{file: examplePath(t, "nabla.tir"), syms: map[string]int64{"NV": 300, "NE": 517}}, name: "nabla.tir NV=300 NE=517"},
		// An empty output domain: one block, every thread guarded off.
		gpuCase{e2eCase: e2eCase{file: examplePath(t, "laplacian_symbolic.tir"), syms: map[string]int64{"N": 2, "M": 9}}, name: "laplacian_symbolic.tir N=2 M=9"},
	)
	e2e, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	mapping, _ := filepath.Glob(filepath.Join("testdata", "gpu", "*.tir"))
	for _, f := range append(e2e, mapping...) {
		c := gpuCase{e2eCase: readE2ECase(t, f), name: filepath.Base(f)}
		cs = append(cs, c)
	}
	return cs
}

func compileGPU(t *testing.T, path string) (*ir.Operation, *ir.Module) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, diags := native.Load(path, string(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var fn *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			fn = op
		}
	}
	gm, err := native.CompileModule(path, string(src), 2, "nvptx64")
	if err != nil {
		t.Fatalf("compile for nvptx64: %v", err)
	}
	return fn, gm
}

func TestGPUEmulatedMatchesInterpreter(t *testing.T) {
	needToolchain(t)
	for _, c := range gpuCases(t) {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fn, gm := compileGPU(t, c.file)
			dir := t.TempDir()
			prog, err := native.BuildGPU(gm, fn, dir, native.GPUOptions{Emulate: true})
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			checkPTX(t, gm, filepath.Join(dir, "kernels.ptx"))
			compareSeeds(t, fn, prog, c.e2eCase, 2)
		})
	}
}

// TestGPUHostWrapperWithoutDriver: the wrapper compiles with gcc -Wall
// -Werror on its own and, without a CUDA driver, returns the documented
// code and message — after the argument checks, which give the CPU build's
// codes and messages.
func TestGPUHostWrapperWithoutDriver(t *testing.T) {
	needToolchain(t)
	_, gm := compileGPU(t, examplePath(t, "laplacian.tir"))
	host, err := emit.CUDAHost(gm, emit.CUDAHostOptions{Source: "laplacian.tir"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const main = `#include <stdio.h>
#include <stdint.h>
typedef struct { float *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } d3;
int32_t laplacian(const void *, void *);
const char *laplacian_error(int32_t);
static float dev[1]; /* a device pointer the wrapper never reaches the driver with */
int main(void) {
  d3 in = {dev, dev, 0, {7, 9, 9}, {81, 9, 1}}, out = {dev, dev, 0, {5, 7, 9}, {63, 9, 1}};
  int32_t rc = laplacian(&in, &out);
  printf("%d: %s\\n", rc, laplacian_error(rc));
  out.sizes[1] = 6;
  rc = laplacian(&in, &out);
  printf("%d: %s\\n", rc, laplacian_error(rc));
  return 0;
}
`
	for name, text := range map[string]string{"host.c": host, "main.c": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "main")
	if out, err := exec.Command("gcc", "-Wall", "-Werror", "-O2", "-o", exe, filepath.Join(dir, "main.c"), filepath.Join(dir, "host.c"), "-ldl", "-lpthread").CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "TIR_CUDA_DRIVER="+filepath.Join(dir, "libcuda-missing.so.1"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"2001: no CUDA driver: cannot load " + filepath.Join(dir, "libcuda-missing.so.1"),
		"6: argument 'result' dimension J: expected extent 7, got 6",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// checkPTX checks the PTX llc made of a module's kernels: one .entry per
// gpu.func kernel, accepted by ptxas for sm_90 (CUDA 11.8's ptxas, fetched
// by make deps).
func checkPTX(t *testing.T, gm *ir.Module, ptxPath string) {
	t.Helper()
	ptx, err := os.ReadFile(ptxPath)
	if err != nil {
		t.Fatal(err)
	}
	kernels := 0
	for _, op := range gm.Body().Ops {
		if op.Name == "gpu.module" {
			for _, k := range gpu.ModuleBody(op).Ops {
				if k.Name == "gpu.func" && gpu.IsKernel(k) {
					kernels++
				}
			}
		}
	}
	if n := strings.Count(string(ptx), ".visible .entry "); n != kernels || n == 0 {
		t.Errorf("the PTX has %d .entry, the module %d kernels", n, kernels)
	}
	ptxas, err := native.PTXAS()
	if err != nil {
		t.Logf("ptxas not checked: %v", err)
		return
	}
	cubin := strings.TrimSuffix(ptxPath, ".ptx") + ".cubin"
	if out, err := exec.Command(ptxas, "-arch=sm_90", ptxPath, "-o", cubin).CombinedOutput(); err != nil {
		t.Errorf("ptxas -arch=sm_90: %v\n%s", err, out)
	}
}

// TestGPULibdevice: with convert-to-llvm{math=libdevice} the kernels call
// libdevice's __nv_* functions, which llvm-link resolves from
// libdevice.10.bc; llc and ptxas then accept the result.
func TestGPULibdevice(t *testing.T) {
	needToolchain(t)
	libdevice, err := native.Libdevice()
	if err != nil {
		t.Skipf("libdevice not available: %v", err)
	}
	ptxas, err := native.PTXAS()
	if err != nil {
		t.Skipf("ptxas not available: %v", err)
	}
	link, err := native.Tool("llvm-link")
	if err != nil {
		t.Skip(err)
	}
	llc, _ := native.Tool("llc")
	dir := t.TempDir()
	ll := filepath.Join(dir, "math.ll")
	pipeline := "--pass-pipeline=builtin.module(tir-inline,canonicalize,cse,convert-tir-to-affine,gpu-kernel-outlining,canonicalize,cse,convert-to-llvm{target=nvptx64 math=libdevice})"
	text := runTCOpt(t, pipeline, filepath.Join("testdata", "e2e", "math.tir"))
	for _, want := range []string{"declare float @__nv_expf(float", "declare double @__nv_pow(double"} {
		if !strings.Contains(text, want) {
			t.Errorf("the kernels lack %q", want)
		}
	}
	if err := os.WriteFile(ll, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bc, ptx := filepath.Join(dir, "linked.bc"), filepath.Join(dir, "math.ptx")
	for _, cmd := range [][]string{
		{link, ll, libdevice, "--only-needed", "-o", bc},
		{llc, "-O3", "-march=nvptx64", "-mcpu=sm_80", bc, "-o", ptx},
		{ptxas, "-arch=sm_90", ptx, "-o", filepath.Join(dir, "math.cubin")},
	} {
		if out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", filepath.Base(cmd[0]), err, out)
		}
	}
	if b, _ := os.ReadFile(ptx); strings.Contains(string(b), ".extern .func") {
		t.Error("the PTX still declares external functions after linking libdevice")
	}
}
