package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower/tollvm"
	"tir/passes"
	"tir/tools/native"
)

// Compiled with --threads, the outermost parallel loops run through
// libgomp (docs/abi.md). These tests lower the work threshold to 0, so
// that every parallel loop of two iterations or more is split among the
// threads however small the test sizes, and run the programs with more
// threads than iterations or cores (uneven and empty shares).

// threadsPipeline is -O2 --threads with convert-to-llvm's
// parallel-min-work=0.
func threadsPipeline(t *testing.T) *passes.Pipeline {
	t.Helper()
	p, err := passes.OptPipeline(2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	if err := passes.WithThreads(p); err != nil {
		t.Fatal(err)
	}
	if _, err := p.SetOption("convert-to-llvm", "parallel-min-work", "0"); err != nil {
		t.Fatal(err)
	}
	return p
}

// buildThreaded compiles a file with threadsPipeline; prog runs with
// OMP_NUM_THREADS=threads.
func buildThreaded(t *testing.T, path string, threads string) (*ir.Operation, *native.Program, string) {
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
	llvm, err := native.CompileWith(path, string(src), threadsPipeline(t))
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	prog, err := native.Build(llvm, fn, t.TempDir())
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	prog.Env = []string{"OMP_NUM_THREADS=" + threads}
	return fn, prog, llvm
}

// TestThreadsEndToEnd compiles every example and every end-to-end program
// with --threads and compares with the interpreter, with three threads.
func TestThreadsEndToEnd(t *testing.T) {
	needToolchain(t)
	cases := append([]e2eCase(nil), e2eCases...)
	for i := range cases {
		cases[i].file = examplePath(t, cases[i].file)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	for _, f := range files {
		cases = append(cases, readE2ECase(t, f))
	}
	for _, c := range cases {
		c := c
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			fn, prog, llvm := buildThreaded(t, c.file, "3")
			// Every example has parallel loops; they must fork.
			if strings.Contains(c.file, "examples") && !tollvm.UsesOpenMP(llvm) {
				t.Errorf("no call to GOMP_parallel in the threaded build")
			}
			compareSeeds(t, fn, prog, c, 2)
		})
	}
}

// TestThreadsCountsAgree runs programs at sizes with uneven shares on 1, 2
// and 3 threads: the results must be identical bit for bit (each element
// is computed by one thread, in the same order) and equal the
// interpreter's.
func TestThreadsCountsAgree(t *testing.T) {
	needToolchain(t)
	for _, c := range []e2eCase{
		{file: "laplacian_symbolic.tir", syms: map[string]int64{"N": 40, "M": 23}},
		{file: "hdiff.tir"},
		{file: "tridiag.tir"},
		{file: "nabla.tir", syms: map[string]int64{"NV": 301, "NE": 907}},
		{file: "temporaries.tir", tol: 1e-6},
		{file: "matmul.tc", syms: map[string]int64{"M": 31, "K": 9, "N": 17}},
	} {
		c := c
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			fn, prog, _ := buildThreaded(t, examplePath(t, c.file), "1")
			args := randomArgs(t, fn, c.syms, 11)
			want, err := interp.Run(fn, args, c.syms)
			if err != nil {
				t.Fatalf("interpreter: %v", err)
			}
			var first []*interp.Tensor
			for _, n := range []string{"1", "2", "3"} {
				prog.Env = []string{"OMP_NUM_THREADS=" + n}
				got, _, err := prog.Run(args, c.syms, 2)
				if err != nil {
					t.Fatalf("%s threads: %v", n, err)
				}
				if first == nil {
					first = got
				} else if d, err := native.Compare(got, first); err != nil || d.Mismatch > 0 {
					t.Fatalf("%s threads differ from 1 thread: %+v %v", n, d, err)
				}
				d, err := native.Compare(got, want)
				if err != nil {
					t.Fatal(err)
				}
				if d.Mismatch > 0 && (c.tol == 0 || d.MaxRel > c.tol) {
					t.Fatalf("%s threads: %d of %d elements differ from the interpreter at %s", n, d.Mismatch, d.Compared, d.Where)
				}
			}
		})
	}
}

// TestThreadsRunTimeChecks: a failed entry check is reported the same way
// with threads (the checks run before any loop).
func TestThreadsRunTimeChecks(t *testing.T) {
	needToolchain(t)
	fn, prog, _ := buildThreaded(t, filepath.Join("testdata", "e2e", "symbolic_checks.tir"), "2")
	syms := map[string]int64{"N": 18, "M": 8}
	_, _, err := prog.Run(randomArgs(t, fn, syms, 1), syms, 1)
	if want := "assume_shape: argument 'a' dimension X: expected extent 20, got 18"; err == nil || err.Error() != want {
		t.Fatalf("got %v, want %q", err, want)
	}
}

// TestThreadsDefaultThreshold: with the default work threshold, a static
// nest far below it is not outlined (no libgomp call at all), and a
// symbolic one decides at run time.
func TestThreadsDefaultThreshold(t *testing.T) {
	for _, c := range []struct {
		file string
		omp  bool
	}{
		{"laplacian.tir", false},
		{"laplacian_symbolic.tir", true},
	} {
		path := examplePath(t, c.file)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := passes.OptPipeline(2, "x86_64")
		if err != nil {
			t.Fatal(err)
		}
		if err := passes.WithThreads(p); err != nil {
			t.Fatal(err)
		}
		llvm, err := native.CompileWith(path, string(src), p)
		if err != nil {
			t.Fatal(err)
		}
		if got := tollvm.UsesOpenMP(llvm); got != c.omp {
			t.Errorf("%s: calls libgomp: %v, want %v", c.file, got, c.omp)
		}
	}
}
