package native

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower"
	"tir/lower/tollvm"
	"tir/passes"
	"tir/tools/emit"
)

// The GPU build of a function: tc-opt -O2 --target=nvptx64 gives the
// kernels (PTX through llc) and --emit=cuda-host the host wrapper; a C
// driver calls the wrapper with buffers in device memory. On a machine
// with a GPU it runs with the CUDA driver; in the tests it runs with the
// driver emulator of csrc/fakecuda.c, which executes the same kernels
// compiled for the CPU (convert-to-llvm{target=nvptx64 emulate=true}), so
// the kernel bodies, guards, launch formulas, parameter passing and host
// wrapper are all checked against the interpreter without a GPU.

//go:embed csrc/fakecuda.c
var fakeCUDASource string

// CompileModule runs the -O pipeline for a target and returns the module
// after it: for GPU targets the outlined module, whose LLVM IR (the
// kernels) rides on it as lower.LLVMAttr.
func CompileModule(file, src string, level int, target string) (*ir.Module, error) {
	p, err := passes.OptPipeline(level, target)
	if err != nil {
		return nil, err
	}
	return RunPipeline(file, src, p)
}

// GPUOptions configure BuildGPU.
type GPUOptions struct {
	// Emulate runs the kernels on the CPU with the driver emulator instead
	// of the CUDA driver.
	Emulate bool
	// Arch is the llc -mcpu of the PTX (default sm_80).
	Arch string
}

// BuildGPU builds the GPU version of fn from its outlined module m
// (CompileModule with target nvptx64) under dir.
func BuildGPU(m *ir.Module, fn *ir.Operation, dir string, opts GPUOptions) (*Program, error) {
	ft, ok := tir.FuncType(fn)
	if !ok {
		return nil, fmt.Errorf("not a tir.func")
	}
	if opts.Arch == "" {
		opts.Arch = "sm_80"
	}
	llvm, ok := m.Op.Attr(lower.LLVMAttr).(ir.StringAttr)
	if !ok {
		return nil, fmt.Errorf("the module holds no kernels' LLVM IR (run the nvptx64 pipeline)")
	}
	llc, err := Tool("llc")
	if err != nil {
		return nil, err
	}
	write := func(name, text string) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, []byte(text), 0o644)
	}
	run := func(name string, args ...string) error {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", filepath.Base(name), err, out)
		}
		return nil
	}
	kernelsLL, err := write("kernels.ll", string(llvm))
	if err != nil {
		return nil, err
	}
	ptxPath := filepath.Join(dir, "kernels.ptx")
	if err := run(llc, "-O3", "-march=nvptx64", "-mcpu="+opts.Arch, kernelsLL, "-o", ptxPath); err != nil {
		return nil, err
	}
	ptx, err := os.ReadFile(ptxPath)
	if err != nil {
		return nil, err
	}
	hostC, err := emit.CUDAHost(m, emit.CUDAHostOptions{PTX: string(ptx), Source: ir.SymbolName(fn) + ".tir"})
	if err != nil {
		return nil, err
	}
	hostPath, err := write("host.c", hostC)
	if err != nil {
		return nil, err
	}
	p := &Program{Dir: dir, fn: fn, ft: ft, syms: interp.Symbols(fn), gpu: true}
	if opts.Emulate {
		lib, err := buildEmulator(m, dir, llc, write, run)
		if err != nil {
			return nil, err
		}
		p.Env = []string{"TIR_CUDA_DRIVER=" + lib}
	}
	// The wrapper must compile cleanly as users compile it.
	hostObj := filepath.Join(dir, "host.o")
	if err := run("gcc", "-O2", "-Wall", "-Werror", "-c", "-o", hostObj, hostPath); err != nil {
		return nil, err
	}
	if err := p.hideLibraryName(hostObj); err != nil {
		return nil, err
	}
	src, err := p.driver()
	if err != nil {
		return nil, err
	}
	driverPath, err := write("driver.c", src)
	if err != nil {
		return nil, err
	}
	p.Exe = filepath.Join(dir, "run")
	if err := run("gcc", "-O2", "-o", p.Exe, driverPath, hostObj, "-ldl", "-lpthread", "-lm"); err != nil {
		return nil, err
	}
	return p, nil
}

// EmulatorLibrary builds the driver emulator for the kernels of m (the
// module CompileModule returns for nvptx64) under dir and returns the
// shared library to name in TIR_CUDA_DRIVER: any host wrapper compiled
// from m (tc-run's, a C program's, the Python package's) then runs its
// kernels on the CPU, with host memory as device memory.
func EmulatorLibrary(m *ir.Module, dir string) (string, error) {
	llc, err := Tool("llc")
	if err != nil {
		return "", err
	}
	write := func(name, text string) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, []byte(text), 0o644)
	}
	run := func(name string, args ...string) error {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", filepath.Base(name), err, out)
		}
		return nil
	}
	return buildEmulator(m, dir, llc, write, run)
}

// buildEmulator compiles the kernels for the host and links them with the
// driver emulator into a shared library, which it returns.
func buildEmulator(m *ir.Module, dir, llc string, write func(string, string) (string, error), run func(string, ...string) error) (string, error) {
	hostLL, err := tollvm.Emit(m, tollvm.Options{Target: "nvptx64", Emulate: true})
	if err != nil {
		return "", err
	}
	llPath, err := write("kernels_host.ll", hostLL)
	if err != nil {
		return "", err
	}
	obj := filepath.Join(dir, "kernels_host.o")
	if err := run(llc, "-O2", "-filetype=obj", "-relocation-model=pic", llPath, "-o", obj); err != nil {
		return "", err
	}
	// The table of kernels the emulator looks names up in.
	var names []string
	for _, op := range m.Body().Ops {
		if !op.Is(gpu.Module) {
			continue
		}
		for _, k := range gpu.ModuleBody(op).Ops {
			if k.Is(gpu.Func) && gpu.IsKernel(k) {
				names = append(names, ir.SymbolName(k))
			}
		}
	}
	var t strings.Builder
	t.WriteString("#include <stdint.h>\nstruct tir_fake_kernel { const char *name; void (*fn)(void **, const int32_t *); };\n")
	// Kernel names need not be C identifiers: declare them by assembler name.
	for i, n := range names {
		fmt.Fprintf(&t, "void tir_kernel%d(void **, const int32_t *) __asm__(%q);\n", i, n)
	}
	t.WriteString("const struct tir_fake_kernel tir_fake_kernels[] = {\n")
	for i, n := range names {
		fmt.Fprintf(&t, "  {%q, tir_kernel%d},\n", n, i)
	}
	if len(names) == 0 {
		t.WriteString("  {\"\", 0},\n")
	}
	fmt.Fprintf(&t, "};\nconst int tir_fake_nkernels = %d;\n", len(names))
	tablePath, err := write("kernel_table.c", t.String())
	if err != nil {
		return "", err
	}
	fakePath, err := write("fakecuda.c", fakeCUDASource)
	if err != nil {
		return "", err
	}
	lib := filepath.Join(dir, "libfakecuda.so")
	if err := run("gcc", "-O2", "-Wall", "-Werror", "-shared", "-fPIC", "-o", lib, fakePath, tablePath, obj, "-lm"); err != nil {
		return "", err
	}
	return lib, nil
}
