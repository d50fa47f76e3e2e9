package test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// The tests of --emit=c-header, --emit=extents and --emit=dot beyond the
// goldens of testdata/emit: the header must compile as C and C++, and a C
// program written against it alone must be able to call the compiled
// function and get what the interpreter computes. --emit=dot must be valid
// DOT (checked by Graphviz when installed, structurally otherwise).

// header runs tc-opt --emit=c-header on a file and returns the header.
func header(t *testing.T, path string) string {
	t.Helper()
	code, out, stderr := runTool(t, []string{"--emit=c-header", path}, "")
	if code != 0 {
		t.Fatalf("tc-opt --emit=c-header %s: exit %d\n%s", path, code, stderr)
	}
	return out
}

func needCompilers(t *testing.T) {
	t.Helper()
	for _, c := range []string{"gcc", "g++"} {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("%s not found (make deps)", c)
		}
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// compileHeader compiles a translation unit that only includes the header,
// as C99 and C++11 with every warning an error.
func compileHeader(t *testing.T, dir, hdr string) {
	t.Helper()
	h := filepath.Join(dir, "tir_module.h")
	if err := os.WriteFile(h, []byte(hdr), 0o644); err != nil {
		t.Fatal(err)
	}
	// Included twice: the include guard and the descriptor guards work.
	src := filepath.Join(dir, "only_header.c")
	if err := os.WriteFile(src, []byte("#include \"tir_module.h\"\n#include \"tir_module.h\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "gcc", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c", src, "-o", filepath.Join(dir, "only_header.o"))
	run(t, "g++", "-std=c++11", "-Wall", "-Wextra", "-pedantic", "-Werror", "-fsyntax-only", "-x", "c++", src)
}

// TestHeaderCompiles compiles the header of every input of testdata/emit
// that has one and of every shared example.
func TestHeaderCompiles(t *testing.T) {
	needCompilers(t)
	files, _ := filepath.Glob(filepath.Join("testdata", "emit", "header_*.tir"))
	shared, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	for _, f := range append(files, shared...) {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, _ := runTool(t, []string{"--emit=c-header", f}, "")
			if code != 0 {
				t.Skip("no header for this input (an expected error, see its golden)")
			}
			compileHeader(t, t.TempDir(), out)
		})
	}
	// Headers of two modules that share a descriptor type can be
	// included together.
	dir := t.TempDir()
	for _, n := range []string{"laplacian_symbolic", "hdiff"} {
		if err := os.WriteFile(filepath.Join(dir, n+".h"), []byte(header(t, examplePath(t, n+".tir"))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	both := filepath.Join(dir, "both.c")
	os.WriteFile(both, []byte("#include \"laplacian_symbolic.h\"\n#include \"hdiff.h\"\n"), 0o644)
	run(t, "gcc", "-std=c99", "-Wall", "-Werror", "-c", both, "-o", filepath.Join(dir, "both.o"))
}

type headerCase struct {
	file string
	syms map[string]int64
	tol  float64 // relative tolerance (libm vs Go for transcendental functions)
}

var headerCases = []headerCase{
	{file: "laplacian.tir"},
	{file: "laplacian_symbolic.tir", syms: map[string]int64{"N": 13, "M": 17}},
	{file: "hdiff.tir"},
	{file: "nabla.tir", syms: map[string]int64{"NV": 23, "NE": 31}},
	{file: "tridiag.tir"},
	{file: "temporaries.tir", tol: 1e-6},
}

// TestHeaderCallsCompiledCode compiles each shared example with -O2 and llc,
// links it with a C program that includes only the generated header, and
// compares every result element with the interpreter. The program passes
// every tensor as a view into a larger buffer (an offset, padded rows), so
// the descriptor layout and the stride handling are exercised; it also
// checks f_result_shape, and that a wrong size is refused with a message
// from f_error.
func TestHeaderCallsCompiledCode(t *testing.T) {
	needToolchain(t)
	needCompilers(t)
	for _, c := range headerCases {
		c := c
		t.Run(strings.TrimSuffix(c.file, ".tir"), func(t *testing.T) {
			path := examplePath(t, c.file)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, diags := parser.Parse(path, string(src))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			var fn *ir.Operation
			for _, op := range m.Body().Ops {
				if op.Name == "tir.func" {
					fn = op
				}
			}
			dir := t.TempDir()
			hdr := header(t, path)
			compileHeader(t, dir, hdr)
			llvm, err := native.Compile(path, string(src), 2, "x86_64")
			if err != nil {
				t.Fatal(err)
			}
			llc, _ := native.Tool("llc")
			ll, obj := filepath.Join(dir, "module.ll"), filepath.Join(dir, "module.o")
			os.WriteFile(ll, []byte(llvm), 0o644)
			// Debian's gcc links PIE executables: position-independent code.
			run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj)
			prog, want := headerProgram(t, fn, c.syms)
			main := filepath.Join(dir, "main.c")
			os.WriteFile(main, []byte(prog), 0o644)
			exe := filepath.Join(dir, "main")
			run(t, "gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", dir, main, obj, "-o", exe, "-lm")
			out := run(t, exe)
			got, errMsg := parseProgramOutput(t, out, want)
			d, err := native.Compare(got, want)
			if err != nil {
				t.Fatal(err)
			}
			if d.Compared == 0 {
				t.Fatal("nothing was compared")
			}
			if d.Mismatch > 0 && (c.tol == 0 || d.MaxRel > c.tol) {
				t.Fatalf("%d of %d elements differ (largest %.3g, relative %.3g) at %s", d.Mismatch, d.Compared, d.MaxAbs, d.MaxRel, d.Where)
			}
			t.Logf("%d elements compared (%d differ, largest relative %.3g); wrong size: %s", d.Compared, d.Mismatch, d.MaxRel, errMsg)
			names := interp.ArgNames(fn)
			if !strings.Contains(errMsg, "argument '"+names[0]+"' dimension ") || !strings.Contains(errMsg, "expected extent") {
				t.Errorf("a wrong size of '%s' gave the message %q", names[0], errMsg)
			}
		})
	}
}

// The value of element n (row-major) of argument i, in C and in Go: exact
// in every float type, and integers in [-3, 20) so that neighbor tables
// have masked (-1, out of range) entries.
const (
	cFloatValue = "(double)((n * 7 + %d) %% 41 - 20) / 8.0"
	cIntValue   = "(n * 5 + %d) %% 23 - 3"
)

func floatValue(i int, n int64) float64 { return float64((n*7+int64(i)*13)%41-20) / 8.0 }
func intValue(i int, n int64) int64     { return (n*5+int64(i)*3)%23 - 3 }

// cScalar is the C type of an element type of the shared examples.
func cScalar(t *testing.T, e ir.Type) (ctype, suffix string) {
	switch e.String() {
	case "f32":
		return "float", "f32"
	case "f64":
		return "double", "f64"
	case "i32":
		return "int32_t", "i32"
	case "i64":
		return "int64_t", "i64"
	}
	t.Fatalf("element type %s not covered by this test", e)
	return "", ""
}

// headerProgram writes the C program for fn and computes the interpreter's
// results on the same inputs.
func headerProgram(t *testing.T, fn *ir.Operation, syms map[string]int64) (string, []*interp.Tensor) {
	t.Helper()
	ft, _ := tir.FuncType(fn)
	name := ir.SymbolName(fn)
	var args []*interp.Tensor
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tir_module.h"

/* Descriptors are views into larger buffers: rows padded by one element,
   every dimension by one row, data starting at offset 5. */
static int64_t layout(int rank, const int64_t *sizes, int64_t *strides) {
  int64_t s = 1;
  for (int d = rank - 1; d >= 0; d--) { strides[d] = s; s *= sizes[d] + 1; }
  return s + 5;
}
/* The position of element n (row-major over sizes) in the buffer. */
static int64_t at(int rank, const int64_t *sizes, const int64_t *strides, int64_t n) {
  int64_t p = 5;
  for (int d = rank - 1; d >= 0; d--) { p += (n % sizes[d]) * strides[d]; n /= sizes[d]; }
  return p;
}
static int64_t count(int rank, const int64_t *sizes) {
  int64_t c = 1;
  for (int d = 0; d < rank; d++) c *= sizes[d];
  return c;
}

int main(void) {
  int64_t n;
  int32_t rc;
`)
	var callArgs []string
	all := append(append([]ir.Type(nil), ft.Inputs...), ft.Results...)
	var resultDims [][]interp.Dim
	totalSizes := 0
	var wantSizes []int64
	for i, ty := range all {
		tt, _ := tir.AsTensor(ty)
		input := i < len(ft.Inputs)
		dims, err := interp.EvalDims(tt, syms)
		if err != nil {
			t.Fatal(err)
		}
		ctype, suffix := cScalar(t, tt.Elem)
		v := fmt.Sprintf("a%d", i)
		if input {
			a, err := interp.NewTensor(tt.Elem, dims)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < a.Len(); k++ {
				if a.F64 != nil {
					a.F64[k] = interp.RoundTo(tt.Elem, floatValue(i, int64(k)))
				} else {
					a.I64[k] = intValue(i, int64(k))
				}
			}
			args = append(args, a)
		} else {
			resultDims = append(resultDims, dims)
			totalSizes += len(dims)
			for _, d := range dims {
				wantSizes = append(wantSizes, d.Extent())
			}
		}
		value := fmt.Sprintf(cFloatValue, i*13)
		if ir.IsInteger(tt.Elem) {
			value = fmt.Sprintf(cIntValue, i*3)
		}
		if tt.Rank() == 0 {
			fmt.Fprintf(&b, "  %s %s[1];\n", ctype, v)
			if input {
				fmt.Fprintf(&b, "  n = 0; %s[0] = (%s)(%s);\n", v, ctype, value)
			}
			callArgs = append(callArgs, v)
			continue
		}
		r := tt.Rank()
		fmt.Fprintf(&b, "  tir_desc_%s_%d %s;\n", suffix, r, v)
		var sizes []string
		for _, d := range dims {
			sizes = append(sizes, strconv.FormatInt(d.Extent(), 10))
		}
		fmt.Fprintf(&b, "  { const int64_t s[%d] = {%s}; memcpy(%s.sizes, s, sizeof s); }\n", r, strings.Join(sizes, ", "), v)
		fmt.Fprintf(&b, "  %s.allocated = %s.aligned = (%s *)calloc((size_t)layout(%d, %s.sizes, %s.strides), sizeof(%s));\n", v, v, ctype, r, v, v, ctype)
		fmt.Fprintf(&b, "  %s.offset = 5;\n", v)
		if input {
			fmt.Fprintf(&b, "  for (n = 0; n < count(%d, %s.sizes); n++) %s.aligned[at(%d, %s.sizes, %s.strides, n)] = (%s)(%s);\n", r, v, v, r, v, v, ctype, value)
		}
		callArgs = append(callArgs, "&"+v)
	}
	var symArgs []string
	for _, s := range interp.Symbols(fn) {
		symArgs = append(symArgs, strconv.FormatInt(syms[s], 10))
	}
	// f_result_shape agrees with the result types.
	var ws []string
	for _, s := range wantSizes {
		ws = append(ws, strconv.FormatInt(s, 10))
	}
	fmt.Fprintf(&b, "  {\n    int64_t got[%d], want[%d] = {%s};\n", totalSizes+1, totalSizes+1, strings.Join(append(ws, "0"), ", "))
	fmt.Fprintf(&b, "    rc = %s_result_shape(%s);\n", name, strings.Join(append(append([]string(nil), symArgs...), "got"), ", "))
	fmt.Fprintf(&b, "    if (rc != 0) { printf(\"result_shape returned %%d\\n\", (int)rc); return 1; }\n")
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) if (got[k] != want[k]) { printf(\"result_shape: size %%d is %%lld\\n\", k, (long long)got[k]); return 1; }\n  }\n", totalSizes)
	call := strings.Join(append(append([]string(nil), callArgs...), symArgs...), ", ")
	fmt.Fprintf(&b, "  rc = %s(%s);\n", name, call)
	fmt.Fprintf(&b, "  if (rc != 0) { printf(\"%s returned %%d: %%s\\n\", (int)rc, %s_error(rc)); return 1; }\n", name, name)
	for i, ty := range ft.Results {
		tt, _ := tir.AsTensor(ty)
		v := fmt.Sprintf("a%d", len(ft.Inputs)+i)
		elem := v + "[0]"
		loop := ""
		if tt.Rank() > 0 {
			loop = fmt.Sprintf("for (n = 0; n < count(%d, %s.sizes); n++) ", tt.Rank(), v)
			elem = fmt.Sprintf("%s.aligned[at(%d, %s.sizes, %s.strides, n)]", v, tt.Rank(), v, v)
		}
		if ir.IsInteger(tt.Elem) {
			fmt.Fprintf(&b, "  %sprintf(\"%%lld\\n\", (long long)%s);\n", loop, elem)
		} else {
			fmt.Fprintf(&b, "  %sprintf(\"%%a\\n\", (double)%s);\n", loop, elem)
		}
	}
	// A wrong size of the first argument is refused before anything is
	// written, with a message.
	if t0, _ := tir.AsTensor(ft.Inputs[0]); t0.Rank() > 0 {
		fmt.Fprintf(&b, "  a0.sizes[0] += 1;\n  rc = %s(%s);\n", name, call)
		fmt.Fprintf(&b, "  if (rc == 0) { printf(\"a wrong size was accepted\\n\"); return 1; }\n")
		fmt.Fprintf(&b, "  printf(\"error: %%s\\n\", %s_error(rc));\n", name)
	}
	b.WriteString("  return 0;\n}\n")
	want, err := interp.Run(fn, args, syms)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	return b.String(), want
}

// parseProgramOutput reads the results the program printed (one element
// per line, result after result) and its error message line.
func parseProgramOutput(t *testing.T, out string, want []*interp.Tensor) ([]*interp.Tensor, string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	k := 0
	var got []*interp.Tensor
	for _, w := range want {
		g, err := interp.NewTensor(w.Elem, w.Dims)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < g.Len(); i++ {
			if k >= len(lines) {
				t.Fatalf("the program printed %d lines, too few:\n%s", len(lines), out)
			}
			s := lines[k]
			k++
			if g.F64 != nil {
				if strings.Contains(s, "nan") {
					g.F64[i] = math.NaN()
					continue
				}
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("line %d: %q: %v", k, s, err)
				}
				g.F64[i] = x
			} else {
				x, err := strconv.ParseInt(s, 10, 64)
				if err != nil {
					t.Fatalf("line %d: %q: %v", k, s, err)
				}
				g.I64[i] = x
			}
		}
		got = append(got, g)
	}
	msg := ""
	if k < len(lines) {
		msg = strings.TrimPrefix(lines[k], "error: ")
	}
	return got, msg
}

// TestHeaderCtypes calls a compiled function from Python through ctypes:
// the recipe of docs/abi.md itself when a Python with NumPy is found, and
// always the same recipe with ctypes arrays instead of NumPy.
func TestHeaderCtypes(t *testing.T) {
	needToolchain(t)
	needCompilers(t)
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	path := examplePath(t, "laplacian_symbolic.tir")
	src, _ := os.ReadFile(path)
	llvm, err := native.Compile(path, string(src), 2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	llc, _ := native.Tool("llc")
	ll, obj, so := filepath.Join(dir, "lap.ll"), filepath.Join(dir, "lap.o"), filepath.Join(dir, "liblaplacian.so")
	os.WriteFile(ll, []byte(llvm), 0o644)
	run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj)
	run(t, "gcc", "-shared", obj, "-o", so)
	t.Run("ctypes arrays", func(t *testing.T) {
		script := filepath.Join(dir, "call.py")
		os.WriteFile(script, []byte(ctypesScript), 0o644)
		out := run(t, py, script, so)
		for _, w := range []string{"rc 0", "result[2][3] = -8.0", "shape [8, 10]", "error argument 'inp' dimension I: expected extent N = 10, got 9"} {
			if !strings.Contains(out, w) {
				t.Errorf("the script's output lacks %q:\n%s", w, out)
			}
		}
	})
	t.Run("docs recipe", func(t *testing.T) {
		var npy string
		for _, c := range []string{py, "/usr/bin/python3"} {
			if exec.Command(c, "-c", "import numpy").Run() == nil {
				npy = c
				break
			}
		}
		if npy == "" {
			t.Skip("no python3 with NumPy")
		}
		doc, err := os.ReadFile(filepath.Join("..", "docs", "abi.md"))
		if err != nil {
			t.Fatal(err)
		}
		_, rest, ok := strings.Cut(string(doc), "```python\n")
		recipe, _, ok2 := strings.Cut(rest, "```")
		if !ok || !ok2 {
			t.Fatal("docs/abi.md has no ```python block")
		}
		script := filepath.Join(dir, "recipe.py")
		os.WriteFile(script, []byte(recipe), 0o644)
		cmd := exec.Command(npy, script)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ok") {
			t.Fatalf("the recipe of docs/abi.md failed: %v\n%s", err, out)
		}
	})
}

// ctypesScript is docs/abi.md's recipe on laplacian_symbolic (f64,
// I[0:N] x J[0:M] -> I[1:N-1] x J[1:M-1]) with N = 10, M = 12. For the
// input x(i, j) = i*i*j the result is -2*j; element [2][3] of the result
// buffer is point (3, 4), so -8.
const ctypesScript = `import ctypes, sys

class tir_desc_f64_2(ctypes.Structure):
    _fields_ = [("allocated", ctypes.POINTER(ctypes.c_double)),
                ("aligned", ctypes.POINTER(ctypes.c_double)),
                ("offset", ctypes.c_int64),
                ("sizes", ctypes.c_int64 * 2),
                ("strides", ctypes.c_int64 * 2)]

def desc(buf, shape):
    # A C-contiguous buffer: strides in elements, the last one 1.
    d = tir_desc_f64_2()
    p = ctypes.cast(buf, ctypes.POINTER(ctypes.c_double))
    d.allocated = d.aligned = p
    d.offset = 0
    d.sizes[:] = list(shape)
    d.strides[:] = [shape[1], 1]
    return d

lib = ctypes.CDLL(sys.argv[1])
lib.laplacian.argtypes = [ctypes.POINTER(tir_desc_f64_2), ctypes.POINTER(tir_desc_f64_2),
                          ctypes.c_int64, ctypes.c_int64]
lib.laplacian.restype = ctypes.c_int32
lib.laplacian_error.argtypes = [ctypes.c_int32]
lib.laplacian_error.restype = ctypes.c_char_p
lib.laplacian_result_shape.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int64)]
lib.laplacian_result_shape.restype = ctypes.c_int32

N, M = 10, 12
shape = (ctypes.c_int64 * 2)()
lib.laplacian_result_shape(N, M, shape)
print("shape", list(shape))
inp = (ctypes.c_double * (N * M))(*[float(i * i * j) for i in range(N) for j in range(M)])
out = (ctypes.c_double * (shape[0] * shape[1]))()
rc = lib.laplacian(desc(inp, (N, M)), desc(out, tuple(shape)), N, M)
print("rc", rc)
print("result[2][3] =", out[2 * shape[1] + 3])
rc = lib.laplacian(desc(inp, (N - 1, M)), desc(out, tuple(shape)), N, M)
print("error", lib.laplacian_error(rc).decode())
`

// dotStatement matches the statements --emit=dot writes: graph
// attributes, node definitions and edges, with quoted strings.
var (
	dotNode = regexp.MustCompile(`^(f\d+_\w+) \[(.*)\];$`)
	dotEdge = regexp.MustCompile(`^(f\d+_\w+) -> (f\d+_\w+)( \[.*\])?;$`)
	dotAttr = regexp.MustCompile(`^(\w+)=("(\\.|[^"\\])*"|\w+);$`)
	dotOpen = regexp.MustCompile(`^(digraph tir|subgraph cluster_\w+) \{$`)
	dotDflt = regexp.MustCompile(`^(node|edge) \[.*\];$`)
)

// TestDotIsValid checks --emit=dot on every shared example: with Graphviz
// when it is installed, and always structurally: balanced braces, every
// edge between defined nodes, each node defined once, every value of the
// function a node.
func TestDotIsValid(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	if len(files) == 0 {
		t.Skip("../../shared/examples not found")
	}
	dot, _ := exec.LookPath("dot")
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			code, out, stderr := runTool(t, []string{"--emit=dot", f}, "")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			checkDotStructure(t, f, out)
			if dot != "" {
				cmd := exec.Command(dot, "-Tsvg", "-o", os.DevNull)
				cmd.Stdin = strings.NewReader(out)
				if b, err := cmd.CombinedOutput(); err != nil || len(b) > 0 {
					t.Fatalf("dot -Tsvg: %v\n%s", err, b)
				}
			}
		})
	}
}

func checkDotStructure(t *testing.T, file, out string) {
	t.Helper()
	depth := 0
	nodes := map[string]bool{}
	var edges [][2]string
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case dotOpen.MatchString(l):
			depth++
		case l == "}":
			depth--
			if depth < 0 {
				t.Fatalf("line %d: unbalanced '}'", i+1)
			}
		case dotNode.MatchString(l):
			id := dotNode.FindStringSubmatch(l)[1]
			if nodes[id] {
				t.Errorf("line %d: node %s defined twice", i+1, id)
			}
			nodes[id] = true
		case dotEdge.MatchString(l):
			m := dotEdge.FindStringSubmatch(l)
			edges = append(edges, [2]string{m[1], m[2]})
		case dotAttr.MatchString(l), dotDflt.MatchString(l):
		default:
			t.Errorf("line %d: not a statement --emit=dot writes: %q", i+1, l)
		}
	}
	if depth != 0 {
		t.Errorf("unbalanced braces (depth %d at the end)", depth)
	}
	for _, e := range edges {
		if !nodes[e[0]] || !nodes[e[1]] {
			t.Errorf("edge %s -> %s between undefined nodes", e[0], e[1])
		}
	}
	// One node per value (arguments, op results, region arguments) and
	// per result.
	src, _ := os.ReadFile(file)
	m, diags := parser.Parse(file, string(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	values := 0
	m.Op.Walk(func(op *ir.Operation) bool {
		switch op.Name {
		case "tir.func", "tir.reduce", "tir.scan":
			for _, r := range op.Regions {
				for _, b := range r.Blocks {
					values += len(b.Args)
				}
			}
		case "tir.return":
			values += len(op.Operands)
		}
		if op.Name != "tir.func" {
			values += len(op.Results)
		}
		return true
	})
	if len(nodes) != values {
		t.Errorf("%d nodes for %d values and results", len(nodes), values)
	}
}
