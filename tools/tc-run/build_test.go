package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

func needLLC(t *testing.T) {
	t.Helper()
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("compiled mode needs LLVM 14: %v", err)
	}
}

// rowSum sums rows of a matrix: a float reduction that --fp-reassociate
// vectorizes.
const rowSum = `tir.func @rowsum(%x: !tir.tensor<f32, I[0:N], K[0:M]>) -> !tir.tensor<f32, I[0:N]> {
  %s = tir.reduce add %x over [K]
  tir.return %s : !tir.tensor<f32, I[0:N]>
}
`

// Every build flag, alone and combined, gives code that --check finds
// equal to the interpreter (bitwise without --fp-contract=fast and
// --fp-reassociate, within the tolerance with them), on a stencil, a
// contraction and a reduction.
func TestBuildFlagsCheck(t *testing.T) {
	needLLC(t)
	rows := filepath.Join(t.TempDir(), "rowsum.tir")
	if err := os.WriteFile(rows, []byte(rowSum), 0o644); err != nil {
		t.Fatal(err)
	}
	programs := [][]string{
		{example(t, "laplacian.tir")},
		{example(t, "matmul.tc"), "--arg", "M=19", "--arg", "K=70", "--arg", "N=37"},
		{rows, "--arg", "N=13", "--arg", "M=300"},
	}
	for _, flags := range [][]string{
		{"-O0"}, {"-O1"}, {"-O3"}, {"--mcpu=generic"}, {"--mcpu", "x86-64"},
		{"--fp-contract=fast"}, {"--fp-reassociate"}, {"--threads"},
		{"-O3", "--mcpu=native", "--fp-contract=fast", "--fp-reassociate", "--threads"},
	} {
		exact := !strings.Contains(strings.Join(flags, " "), "fast") && !strings.Contains(strings.Join(flags, " "), "reassociate")
		for _, prog := range programs {
			args := append(append(append([]string{}, prog...), "--random", "5", "--check"), flags...)
			code, stdout, stderr := runTool(args...)
			if code != 0 {
				t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
				continue
			}
			if exact && !strings.Contains(stdout, "check: compiled code matches the interpreter on all") {
				t.Errorf("%v: want bitwise the interpreter's results:\n%s", args, stdout)
			}
			if !exact && !strings.Contains(stdout, "check: compiled code matches") && !strings.Contains(stdout, "within the tolerance (1e-05 of the result's largest magnitude, for ") {
				t.Errorf("%v: want the results within the tolerance:\n%s", args, stdout)
			}
		}
	}
}

// The flags reach the pipeline as tc-opt's do.
func TestBuildFlagsPipeline(t *testing.T) {
	for _, c := range []struct {
		o    options
		want []string
		not  []string
	}{
		{options{level: 2, target: "x86_64", mcpu: "native"}, []string{"convert-tir-to-affine{", "cpu=native", "contract=false", "threads=none"}, []string{"affine-contraction-tile"}},
		{options{level: 3, target: "x86_64", mcpu: "generic"}, []string{"affine-contraction-tile{", "cpu=generic"}, nil},
		{options{level: 0, target: "x86_64", mcpu: "x86-64-v3", contract: true, reassociate: true, threads: true},
			[]string{"cpu=x86-64-v3", "contract=true", "reassociate-fp-reductions=true", "threads=omp"}, []string{"affine-vectorize"}},
		{options{level: 2, target: "x86_64", mcpu: "native", reassociate: true}, []string{"affine-vectorize{", " reassociate=true", "reassociate-fp-reductions=true"}, nil},
		{options{level: 1, target: "nvptx64"}, []string{"gpu-kernel-outlining", "target=nvptx64"}, []string{"cpu=native"}},
	} {
		p, err := pipeline(&c.o)
		if err != nil {
			t.Errorf("%+v: %v", c.o, err)
			continue
		}
		s := p.String()
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%+v: the pipeline lacks %q:\n%s", c.o, w, s)
			}
		}
		for _, w := range c.not {
			if strings.Contains(s, w) {
				t.Errorf("%+v: the pipeline has %q:\n%s", c.o, w, s)
			}
		}
	}
}

// --bench without --check times the compiled code only: the interpreter
// does not run (it takes seconds where compiled code takes milliseconds).
// The header says how the code was built.
func TestBenchRunsNoInterpreter(t *testing.T) {
	needLLC(t)
	ran := 0
	defer func(f func(*ir.Operation, []*interp.Tensor, map[string]int64) ([]*interp.Tensor, error)) {
		runInterp = f
	}(runInterp)
	runInterp = func(fn *ir.Operation, args []*interp.Tensor, syms map[string]int64) ([]*interp.Tensor, error) {
		ran++
		return interp.Run(fn, args, syms)
	}
	lap := example(t, "laplacian.tir")
	code, stdout, stderr := runTool(lap, "--random", "1", "--bench", "3", "-O1", "--mcpu=generic")
	if code != 0 || ran != 0 || strings.Contains(stdout, "interpreter") {
		t.Errorf("--bench alone: exit %d, the interpreter ran %d times:\n%s%s", code, ran, stdout, stderr)
	}
	if want := "  built with -O1 for generic (SSE2), fp-contract=off, fp-reassociate=off; 1 thread\n"; !strings.Contains(stdout, want) {
		t.Errorf("--bench alone: the header lacks %q:\n%s", want, stdout)
	}
	code, stdout, stderr = runTool(lap, "--random", "1", "--bench", "3", "--threads")
	if want := "fp-reassociate=off; --threads: 1 thread (no loop is large enough to share)\n"; code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("--bench --threads on a kernel known to be small: exit %d, want %q:\n%s%s", code, want, stdout, stderr)
	}
	symbolic := example(t, "laplacian_symbolic.tir")
	code, stdout, stderr = runTool(symbolic, "--arg", "N=40", "--arg", "M=30", "--random", "1", "--bench", "3", "--check", "--threads", "--fp-contract=fast")
	if code != 0 || ran != 1 || !strings.Contains(stdout, "\n  interpreter      1 ") {
		t.Errorf("--bench --check: exit %d, the interpreter ran %d times:\n%s%s", code, ran, stdout, stderr)
	}
	for _, want := range []string{" (native: ", "fp-contract=fast, fp-reassociate=off; --threads: up to "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--bench --threads: the header lacks %q:\n%s", want, stdout)
		}
	}
	if _, user := native.WaitPolicy(os.Environ()); !user && !strings.Contains(stdout, " threads (OMP_WAIT_POLICY=passive)\n") && !strings.Contains(stdout, " thread (OMP_WAIT_POLICY=passive)\n") {
		t.Errorf("--bench --threads: the header lacks the wait policy:\n%s", stdout)
	}
}

// Flags that cannot be honoured are usage errors (exit 2) that say why.
func TestBuildFlagsUsage(t *testing.T) {
	lap := example(t, "laplacian.tir")
	for _, c := range []struct {
		flags []string
		msg   string
	}{
		{[]string{"--mcpu=znver9"}, "--mcpu=znver9: unknown x86_64 CPU 'znver9' (known: native, "},
		{[]string{"--mcpu="}, "--mcpu needs a CPU: native, generic or an LLVM processor name"},
		{[]string{"--fp-contract=on"}, "--fp-contract=on: expected off or fast"},
		{[]string{"-O1", "-O3"}, "-O1 and -O3 cannot be combined: give one optimisation level"},
		{[]string{"-O4"}, "unknown optimisation level -O4 (valid: -O0 to -O3)"},
		{[]string{"--target=nvptx64", "--mcpu=generic"}, "--mcpu applies to the CPU target (x86_64)"},
		{[]string{"--interp", "--mcpu=generic"}, "--mcpu sets how the compiled code is built; --interp runs the interpreter only"},
		{[]string{"--interp", "-O3"}, "tc-run: -O3 sets how the compiled code is built"},
		{[]string{"--interp", "--threads"}, "--threads sets how the compiled code is built"},
		{[]string{"--fp-reassociate=maybe"}, "fp-reassociate"},
	} {
		args := append([]string{lap, "--random", "1"}, c.flags...)
		code, _, stderr := runTool(args...)
		if code != exitUsage || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, want 2 and %q:\n%s", c.flags, code, c.msg, stderr)
		}
	}
}

func TestISA(t *testing.T) {
	for _, c := range []struct {
		o    options
		want string
	}{
		{options{target: "x86_64", mcpu: "generic"}, "generic (SSE2)"},
		{options{target: "x86_64", mcpu: "x86-64-v3"}, "x86-64-v3 (AVX2, FMA)"},
		{options{target: "x86_64", mcpu: "sandybridge"}, "sandybridge (AVX)"},
		{options{target: "x86_64", mcpu: "skylake-avx512"}, "skylake-avx512 (AVX-512, FMA)"},
		{options{target: "nvptx64", emulate: true}, "nvptx64 (sm_80, emulated on the CPU)"},
	} {
		if got := isa(&c.o); got != c.want {
			t.Errorf("isa(%+v) = %q, want %q", c.o, got, c.want)
		}
	}
	if got := isa(&options{target: "x86_64", mcpu: "native"}); !strings.HasPrefix(got, "x86-64") || !strings.Contains(got, " (native: ") {
		t.Errorf("isa(native) = %q, want this machine's x86-64 level", got)
	}
}
