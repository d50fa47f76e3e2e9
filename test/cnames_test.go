package test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// Functions named like C library functions. A compiled function's symbol
// is its name (spec 5.1) and TC allows `def abs`, so such a function must
// compile, link with the C that calls it (tc-run's driver, the CUDA host
// wrapper, a program written against --emit=c-header, all of which
// include the library's headers) and compute what the interpreter and a
// reference computed here compute. Only a name the compiled code itself
// calls is an error (testdata/diagnostics/c_library_clash.tir).

type cLibCase struct {
	name string // the function
	src  string // TC when it starts with "def", else tir
	syms map[string]int64
	ref  func(a *interp.Tensor) []*interp.Tensor
	// gpuError, when set, is part of the error the GPU build must give.
	gpuError string
}

// cLibEach maps the elements of a 1-d input on I[0:N] (or i) to a result
// of the same domain.
func cLibEach(elem ir.Type, dim string, f func(x float64) float64) func(a *interp.Tensor) []*interp.Tensor {
	return func(a *interp.Tensor) []*interp.Tensor {
		d := a.Dims[0]
		return []*interp.Tensor{tcExpect(elem, []interp.Dim{tcDim(dim, d.Lo, d.Hi)}, func(p []int64) float64 { return f(tcVal(a, p[0])) })}
	}
}

var cLibCases = []cLibCase{
	{name: "abs", src: "def abs(float(N) A) -> (O) {\n  O(i) = abs(A(i)) * 2 + exp(A(i))\n}",
		syms: map[string]int64{"N": 9},
		ref: cLibEach(ir.F32, "i", func(x float64) float64 {
			return tcF32(tcF32(math.Abs(x)*2) + tcF32(math.Exp(x)))
		})},
	// exp on f32 calls no exp (expf, or tc-opt's expansion).
	{name: "exp", src: `tir.func @exp(%a: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[0:N]> {
  %e = tir.exp %a
  tir.return %e : !tir.tensor<f32, I[0:N]>
}`, syms: map[string]int64{"N": 11}, ref: cLibEach(ir.F32, "I", math.Exp)},
	{name: "round", src: `tir.func @round(%a: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[0:N]> {
  %c = tir.constant 3.0 : f32
  %m = tir.mul %a, %c
  %r = tir.round %m
  tir.return %r : !tir.tensor<f32, I[0:N]>
}`, syms: map[string]int64{"N": 16}, ref: cLibEach(ir.F32, "I", func(x float64) float64 { return math.Round(tcF32(x * 3)) })},
	// sqrt is an instruction (sqrtsd), never a call of sqrt.
	{name: "sqrt", src: `tir.func @sqrt(%a: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %b = tir.abs %a
  %r = tir.sqrt %b
  tir.return %r : !tir.tensor<f64, I[0:N]>
}`, syms: map[string]int64{"N": 7}, ref: cLibEach(ir.F64, "I", func(x float64) float64 { return math.Sqrt(math.Abs(x)) })},
	// malloc with a temporary (aligned_alloc and free, not malloc). The
	// CUDA host wrapper calls malloc itself: there it is an error.
	{name: "malloc", src: `tir.func @malloc(%a: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[1:N]> {
  %t = tir.mul %a, %a attributes {tir.materialize}
  %s = tir.shift %t [I - 1]
  %r = tir.add %t, %s
  tir.return %r : !tir.tensor<f32, I[1:N]>
}`, syms: map[string]int64{"N": 10}, gpuError: "the CUDA host wrapper calls the C library's malloc",
		ref: func(a *interp.Tensor) []*interp.Tensor {
			sq := func(i int64) float64 { return tcF32(tcVal(a, i) * tcVal(a, i)) }
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("I", 1, a.Dims[0].Hi)}, func(p []int64) float64 { return sq(p[0]) + sq(p[0]-1) })}
		}},
	// Names the driver program itself has or calls.
	{name: "main", src: `tir.func @main(%a: !tir.tensor<i32, I[0:N]>) -> !tir.tensor<i32, I[0:N]> {
  %c = tir.constant 5 : i32
  %r = tir.mul %a, %c
  tir.return %r : !tir.tensor<i32, I[0:N]>
}`, syms: map[string]int64{"N": 6}, ref: cLibEach(ir.I32, "I", func(x float64) float64 { return x * 5 })},
	// Names the drivers' helpers once had: a static function of the
	// driver with the symbol's assembler name is called instead of it
	// unless gcc inlines it away (tools/cdriver names them tird_*).
	{name: "strides", src: `tir.func @strides(%a: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %c = tir.constant 3.0 : f64
  %r = tir.sub %a, %c
  tir.return %r : !tir.tensor<f64, I[0:N]>
}`, syms: map[string]int64{"N": 5}, ref: cLibEach(ir.F64, "I", func(x float64) float64 { return x - 3 })},
	{name: "count", src: "def count(float(N) A) -> (O) {\n  O(i) = A(i) * 2 + 1\n}",
		syms: map[string]int64{"N": 8}, ref: cLibEach(ir.F32, "i", func(x float64) float64 { return tcF32(tcF32(x*2) + 1) })},
	{name: "printf", src: `tir.func @printf(%a: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:N]> {
  %r = tir.neg %a
  tir.return %r : !tir.tensor<f64, I[0:N]>
}`, syms: map[string]int64{"N": 4}, ref: cLibEach(ir.F64, "I", func(x float64) float64 { return -x })},
}

// cLibModule loads a case: its function and its module as tir text.
func cLibModule(t *testing.T, c cLibCase) (*ir.Operation, string) {
	t.Helper()
	var m *ir.Module
	if strings.HasPrefix(c.src, "def") {
		var diags ir.DiagList
		if m, diags = tc.Import("t.tc", c.src); m == nil || diags.HasErrors() {
			t.Fatal(diags)
		}
	} else {
		var diags ir.DiagList
		if m, diags = native.Load("t.tir", c.src); len(diags) > 0 {
			t.Fatal(diags)
		}
	}
	fn := m.Lookup(c.name)
	if fn == nil {
		t.Fatalf("no function @%s", c.name)
	}
	return fn, printer.Module(m, printer.Options{})
}

func TestCLibraryNames(t *testing.T) {
	needToolchain(t)
	for _, c := range cLibCases {
		t.Run(c.name, func(t *testing.T) {
			fn, text := cLibModule(t, c)
			args := randomIntRange(t, fn, c.syms, 5, -8, 8)
			want := c.ref(args[0])
			got, err := interp.Run(fn, args, c.syms)
			if err != nil {
				t.Fatalf("interpreter: %v", err)
			}
			if err := tcSameResults(got, want); err != nil {
				t.Errorf("interpreter: %v", err)
			}
			llvm, err := native.Compile("t.tir", text, 2, "x86_64")
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			prog, err := native.Build(llvm, fn, t.TempDir())
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			res, _, err := prog.Run(args, c.syms, 1)
			if err != nil {
				t.Fatalf("run: %v", err)
			}
			if err := tcSameResults(res, want); err != nil {
				t.Errorf("compiled: %v", err)
			}
			gm, err := native.CompileModule("t.tir", text, 2, "nvptx64")
			if err != nil {
				t.Fatalf("compile for nvptx64: %v", err)
			}
			gprog, err := native.BuildGPU(gm, fn, t.TempDir(), native.GPUOptions{Emulate: true})
			if c.gpuError != "" {
				if err == nil || !strings.Contains(err.Error(), c.gpuError) {
					t.Fatalf("GPU build: got error %v, want one containing %q", err, c.gpuError)
				}
				return
			}
			if err != nil {
				t.Fatalf("GPU build: %v", err)
			}
			res, _, err = gprog.Run(args, c.syms, 1)
			if err != nil {
				t.Fatalf("GPU (emulated): %v", err)
			}
			if err := tcSameResults(res, want); err != nil {
				t.Errorf("GPU (emulated): %v", err)
			}
		})
	}
}

// TestCLibraryNameHeader calls `def abs` from a C program that includes
// <stdlib.h> and <math.h> (which declare abs otherwise) and the header of
// --emit=c-header, linked with the object llc makes of tc-opt -O2's output
// as a user builds it. (Linked in, the symbol abs replaces the library's
// abs in the whole program, as any definition of a C library name does.)
func TestCLibraryNameHeader(t *testing.T) {
	needToolchain(t)
	needCompilers(t)
	c := cLibCases[0]
	dir := t.TempDir()
	src := filepath.Join(dir, "abs.tc")
	if err := os.WriteFile(src, []byte(c.src), 0o644); err != nil {
		t.Fatal(err)
	}
	hdr := header(t, src)
	if !strings.Contains(hdr, `int32_t tir_abs(`) || !strings.Contains(hdr, `__asm__("abs");`) {
		t.Fatalf("the header does not declare @abs with an asm label:\n%s", hdr)
	}
	compileHeader(t, dir, hdr)
	code, llvm, stderr := runTool(t, []string{"-O2", src}, "")
	if code != 0 {
		t.Fatalf("tc-opt -O2: exit %d\n%s", code, stderr)
	}
	llc, _ := native.Tool("llc")
	ll, obj := filepath.Join(dir, "module.ll"), filepath.Join(dir, "module.o")
	os.WriteFile(ll, []byte(llvm), 0o644)
	run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj)
	in := []float64{-2, -1.5, 0, 0.25, 3}
	prog := `#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "tir_module.h"

int main(int argc, char **argv) {
  float a[5] = {-2.0f, -1.5f, 0.0f, 0.25f, 3.0f}, o[5];
  tir_desc_f32_1 A = {a, a, 0, {5}, {1}}, O = {o, o, 0, {5}, {1}};
  int32_t rc = tir_abs(&A, &O, 5);
  if (rc != 0) {
    printf("error %s\n", abs_error(rc));
    return 1;
  }
  for (int i = 0; i < 5; i++) printf("%.9g\n", o[i]);
  /* Other functions of the same headers. */
  printf("%ld %g\n", labs((long)argc - 9), fabs((double)argc - 3.5));
  (void)argv;
  return 0;
}
`
	main := filepath.Join(dir, "main.c")
	os.WriteFile(main, []byte(prog), 0o644)
	exe := filepath.Join(dir, "main")
	run(t, "gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-I", dir, main, obj, "-o", exe, "-lm")
	lines := strings.Fields(run(t, exe))
	if len(lines) != 7 {
		t.Fatalf("unexpected output %q", lines)
	}
	for i, x := range in {
		want := tcF32(tcF32(math.Abs(x)*2) + tcF32(math.Exp(x)))
		got, err := strconv.ParseFloat(lines[i], 64)
		if err != nil || math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("abs(A)[%d] = %s, want %v", i, lines[i], want)
		}
	}
	if lines[5] != "8" || lines[6] != "2.5" {
		t.Errorf("labs(-8) and fabs(-2.5) gave %s %s", lines[5], lines[6])
	}
	// And from C++, with <cstdlib> and <cmath>.
	cpp := filepath.Join(dir, "main.cc")
	os.WriteFile(cpp, []byte(fmt.Sprintf("#include <cmath>\n#include <cstdlib>\n#include \"tir_module.h\"\nint f(const tir_desc_f32_1 *a, tir_desc_f32_1 *o) { return tir_abs(a, o, 5) + (int)std::fabs(-1.0); }\n")), 0o644)
	run(t, "g++", "-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-I", dir, cpp)
}
