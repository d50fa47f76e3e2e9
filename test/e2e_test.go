package test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// The end-to-end tests compile every example with the default pipeline
// (tc-opt -O2 -> llc -O3 -> gcc with a C driver), run it on generated
// inputs and compare every output element with the reference interpreter.

type e2eCase struct {
	file string
	syms map[string]int64
	// tol is the relative tolerance; 0 means bit-identical. Only cases
	// with transcendental functions (libm vs Go's math) get one.
	tol float64
}

var e2eCases = []e2eCase{
	{file: "laplacian.tir"},
	{file: "laplacian_symbolic.tir", syms: map[string]int64{"N": 13, "M": 17}},
	{file: "laplacian_symbolic.tir", syms: map[string]int64{"N": 3, "M": 40}},
	{file: "hdiff.tir"},
	{file: "temporaries.tir", tol: 1e-6},
	{file: "nabla.tir", syms: map[string]int64{"NV": 23, "NE": 31}},
	{file: "tridiag.tir"},
	{file: "matmul.tc", syms: map[string]int64{"M": 13, "K": 17, "N": 9}},
	{file: "conv1d.tc", syms: map[string]int64{"N": 40, "W": 5}},
	{file: "fcrelu.tc", syms: map[string]int64{"B": 4, "M": 9, "N": 6}},
}

func examplePath(t *testing.T, name string) string {
	p := filepath.Join("..", "..", "shared", "examples", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared examples not found next to the repository: %v", err)
	}
	return p
}

func needToolchain(t *testing.T) {
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("end-to-end tests need LLVM 14's llc (make deps): %v", err)
	}
	if _, err := os.Stat("/usr/bin/gcc"); err != nil {
		t.Skip("end-to-end tests need gcc (make deps)")
	}
}

// randomArgs fills every argument of fn deterministically: floats in
// [-1, 1), integers (neighbor tables) in [-3, 20) so some entries fall
// outside any interval and are masked.
func randomArgs(t *testing.T, fn *ir.Operation, syms map[string]int64, seed int64) []*interp.Tensor {
	return randomIntRange(t, fn, syms, seed, -3, 20)
}

func compileExample(t *testing.T, path string) (*ir.Operation, *native.Program) {
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
	llvm, err := native.Compile(path, string(src), 2, "x86_64")
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	prog, err := native.Build(llvm, fn, t.TempDir())
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return fn, prog
}

func TestEndToEndExamples(t *testing.T) {
	needToolchain(t)
	for _, c := range e2eCases {
		c := c
		t.Run(c.file, func(t *testing.T) {
			runE2E(t, examplePath(t, c.file), c)
		})
	}
}

// TestEndToEndOps runs the programs of testdata/e2e, which exercise every
// op's lowering. A `// SYMS: N=9 M=3` line binds size symbols, a
// `// TOL: 1e-6` line allows a relative difference.
func TestEndToEndOps(t *testing.T) {
	needToolchain(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	if len(files) == 0 {
		t.Fatal("no end-to-end programs")
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			runE2E(t, f, readE2ECase(t, f))
		})
	}
}

// readE2ECase reads the SYMS and TOL lines of an end-to-end program.
func readE2ECase(t *testing.T, f string) e2eCase {
	t.Helper()
	src, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	c := e2eCase{file: f, syms: map[string]int64{}}
	for _, line := range strings.Split(string(src), "\n") {
		if rest, ok := strings.CutPrefix(line, "// SYMS:"); ok {
			for _, kv := range strings.Fields(rest) {
				k, v, _ := strings.Cut(kv, "=")
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					t.Fatalf("bad SYMS line: %q", line)
				}
				c.syms[k] = n
			}
		}
		if rest, ok := strings.CutPrefix(line, "// TOL:"); ok {
			fmt.Sscan(rest, &c.tol)
		}
	}
	return c
}

// runE2E compiles a file and compares compiled results with the
// interpreter's on three seeds.
func runE2E(t *testing.T, path string, c e2eCase) {
	t.Helper()
	fn, prog := compileExample(t, path)
	compareSeeds(t, fn, prog, c, 3)
}

// compareSeeds runs a compiled program and the interpreter on the inputs of
// seeds 1..n and fails on the first difference beyond the case's tolerance.
func compareSeeds(t *testing.T, fn *ir.Operation, prog *native.Program, c e2eCase, n int64) {
	t.Helper()
	for seed := int64(1); seed <= n; seed++ {
		args := randomArgs(t, fn, c.syms, seed)
		want, err := interp.Run(fn, args, c.syms)
		if err != nil {
			t.Fatalf("interpreter: %v", err)
		}
		got, _, err := prog.Run(args, c.syms, 1)
		if err != nil {
			t.Fatalf("compiled: %v", err)
		}
		d, err := native.Compare(got, want)
		if err != nil {
			t.Fatal(err)
		}
		elements := 0
		for _, w := range want {
			elements += w.Len()
		}
		if d.Compared == 0 && elements > 0 {
			t.Fatal("nothing was compared")
		}
		if d.Mismatch > 0 && (c.tol == 0 || d.MaxRel > c.tol) {
			t.Fatalf("seed %d: %d of %d elements differ (largest %.3g, relative %.3g) at %s",
				seed, d.Mismatch, d.Compared, d.MaxAbs, d.MaxRel, d.Where)
		}
	}
}

// TestEndToEndLaplacianDirect checks compiled code against the stencil
// computed directly in Go (not through the interpreter).
func TestEndToEndLaplacianDirect(t *testing.T) {
	needToolchain(t)
	fn, prog := compileExample(t, examplePath(t, "laplacian.tir"))
	args := randomArgs(t, fn, nil, 7)
	got, _, err := prog.Run(args, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	in, out := args[0], got[0]
	// inp is I[-1:6] J[-1:8] K[0:9]; out is I[0:5] J[0:7] K[0:9].
	at := func(i, j, k int) float32 { return float32(in.F64[((i+1)*9+(j+1))*9+k]) }
	n := 0
	for i := 0; i < 5; i++ {
		for j := 0; j < 7; j++ {
			for k := 0; k < 9; k++ {
				want := float32(4)*at(i, j, k) - at(i+1, j, k) - at(i-1, j, k) - at(i, j+1, k) - at(i, j-1, k)
				if g := float32(out.F64[(i*7+j)*9+k]); g != want {
					t.Fatalf("(%d,%d,%d): got %v, want %v", i, j, k, g, want)
				}
				n++
			}
		}
	}
	if n != 315 {
		t.Fatalf("compared %d elements", n)
	}
}

// TestEndToEndExtentCheck passes an input of the wrong extent: the
// compiled function must refuse it before writing, with a message naming
// the argument and dimension.
func TestEndToEndExtentCheck(t *testing.T) {
	needToolchain(t)
	fn, prog := compileExample(t, examplePath(t, "laplacian_symbolic.tir"))
	syms := map[string]int64{"N": 10, "M": 12}
	args := randomArgs(t, fn, map[string]int64{"N": 10, "M": 11}, 1)
	_, _, err := prog.Run(args, syms, 1)
	if err == nil {
		t.Fatal("a wrong extent was accepted")
	}
	if want := "argument 'inp' dimension J: expected extent M = 12, got 11"; !strings.Contains(err.Error(), want) {
		t.Fatalf("got %q, want it to contain %q", err, want)
	}
}

// TestEndToEndRuntimeChecks runs a function whose view precondition does
// not hold for the given sizes: the compiled code must refuse before
// writing, with the message the interpreter gives too, word for word:
// the argument, the dimension, the expected and the actual extents, with
// their values (spec 5.1).
func TestEndToEndRuntimeChecks(t *testing.T) {
	needToolchain(t)
	path := filepath.Join("testdata", "e2e", "symbolic_checks.tir")
	fn, prog := compileExample(t, path)
	// The GPU build's host wrapper (run with the driver emulator) checks
	// before any launch, with the same messages.
	_, gm := compileGPU(t, path)
	gpu, err := native.BuildGPU(gm, fn, t.TempDir(), native.GPUOptions{Emulate: true})
	if err != nil {
		t.Fatalf("GPU build: %v", err)
	}
	for _, c := range []struct {
		syms map[string]int64
		want string
	}{
		{map[string]int64{"N": 20, "M": 11}, "view precondition failed: argument 'a' dimension X: X = 2*i + 1 takes [1:2*M] = [1:22], outside its [0:N] = [0:20]"},
		// assume_shape with N = 18 fails its check (N must be 20).
		{map[string]int64{"N": 18, "M": 8}, "assume_shape: argument 'a' dimension X: expected extent 20, got 18"},
	} {
		args := randomArgs(t, fn, c.syms, 1)
		_, _, cerr := prog.Run(args, c.syms, 1)
		_, ierr := interp.Run(fn, args, c.syms)
		var d *ir.Diagnostic
		if ierr == nil || !errors.As(ierr, &d) || d.Msg != c.want {
			t.Errorf("%v: interpreter: got %v, want %q", c.syms, ierr, c.want)
		}
		if cerr == nil || cerr.Error() != c.want {
			t.Errorf("%v: compiled: got %v, want %q", c.syms, cerr, c.want)
		}
		if _, _, gerr := gpu.Run(args, c.syms, 1); gerr == nil || gerr.Error() != c.want {
			t.Errorf("%v: GPU build (emulated): got %v, want %q", c.syms, gerr, c.want)
		}
	}
}
