package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir/interp"
	"tir/tools/internal/npy"
	"tir/tools/native"
)

func example(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "examples", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("example not available: %v", err)
	}
	return p
}

func runTool(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Run(args, &o, &e)
	return code, o.String(), e.String()
}

func writeNpy(t *testing.T, a *npy.Array) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "in.npy")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := npy.Write(f, a); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func readNpy(t *testing.T, path string) *npy.Array {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := npy.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func loadFunc(t *testing.T, path, name string) *ir.Operation {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, diags := parser.Parse(path, string(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	return m.Lookup(name)
}

func sameFloats(t *testing.T, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("value %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestLaplacianRandomMatchesInterpreter(t *testing.T) {
	file := example(t, "laplacian.tir")
	out := filepath.Join(t.TempDir(), "out.npy")
	code, stdout, stderr := runTool(file, "--entry", "laplacian", "--random", "1", "--out", out, "--interp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "result #0 -> "+out+": f32 [5 7 9] on I[0:5] J[0:7] K[0:9]: min ") {
		t.Errorf("summary: %q", stdout)
	}
	got := readNpy(t, out)
	if got.Dtype != "float32" || len(got.Shape) != 3 || got.Shape[0] != 5 || got.Shape[1] != 7 || got.Shape[2] != 9 {
		t.Fatalf("output %s %v", got.Dtype, got.Shape)
	}
	// The same input, generated and run directly.
	fn := loadFunc(t, file, "laplacian")
	inp := randomTensor(ir.F32, []interp.Dim{{Name: "I", Lo: -1, Hi: 6}, {Name: "J", Lo: -1, Hi: 8}, {Name: "K", Lo: 0, Hi: 9}}, 1, 0)
	want, err := interp.Run(fn, []*interp.Tensor{inp}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sameFloats(t, got.F64, want[0].F64)

	// And through a .npy input file.
	in := writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{7, 9, 9}, F64: inp.F64})
	out2 := filepath.Join(t.TempDir(), "out2.npy")
	if code, _, stderr := runTool(file, "--arg", "inp="+in, "--interp", "--out", out2); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	sameFloats(t, readNpy(t, out2).F64, want[0].F64)
}

func TestSymbolsFromFlagsAndFiles(t *testing.T) {
	file := example(t, "laplacian_symbolic.tir")
	vals := make([]float64, 30)
	for i := range vals {
		vals[i] = float64(i * i)
	}
	in := writeNpy(t, &npy.Array{Dtype: "float64", Shape: []int{6, 5}, F64: vals})
	for _, extra := range [][]string{nil, {"--arg", "N=6", "--arg", "M=5"}} {
		out := filepath.Join(t.TempDir(), "out.npy")
		args := append([]string{"--interp", file, "--arg", "inp=" + in, "--out", out}, extra...)
		if code, _, stderr := runTool(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", extra, code, stderr)
		}
		a := readNpy(t, out)
		if len(a.Shape) != 2 || a.Shape[0] != 4 || a.Shape[1] != 3 {
			t.Fatalf("shape %v", a.Shape)
		}
		// lap of i*i on a row-major 6x5 grid: x(i,j) = (5i+j)^2, so
		// 4x - x(i±1) - x(j±1) = -2*25 - 2 = -52 everywhere.
		for _, v := range a.F64 {
			if v != -52 {
				t.Fatalf("values %v, want all -52", a.F64)
			}
		}
	}
}

func TestErrors(t *testing.T) {
	lap := example(t, "laplacian.tir")
	sym := example(t, "laplacian_symbolic.tir")
	dir := t.TempDir()
	wrongType := writeNpy(t, &npy.Array{Dtype: "int64", Shape: []int{7, 9, 9}, I64: make([]int64, 7*9*9)})
	wrongShape := writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{7, 8, 9}, F64: make([]float64, 7*8*9)})
	wrongRank := writeNpy(t, &npy.Array{Dtype: "float32", Shape: []int{7, 9}, F64: make([]float64, 7*9)})
	bad := filepath.Join(dir, "bad.tir")
	os.WriteFile(bad, []byte("tir.func @f(%a: !tir.tensor<f32, I[0:4]>) {\n  %r = tir.add %a, %b\n  tir.return %r\n}\n"), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"wrong dtype", []string{lap, "--arg", "inp=" + wrongType, "--interp"}, 1,
			"argument 'inp' expects float32, got int64"},
		{"wrong shape", []string{lap, "--arg", "inp=" + wrongShape, "--interp"}, 1,
			"argument 'inp' dimension J: expected extent 9, got 8"},
		{"wrong rank", []string{lap, "--arg", "inp=" + wrongRank, "--interp"}, 1,
			"argument 'inp' expects 3 dimension(s) (I, J, K), got shape [7 9]"},
		{"missing argument", []string{lap, "--interp"}, 2,
			"missing argument 'inp'"},
		{"unbound symbol", []string{sym, "--random", "1", "--interp"}, 2,
			"size symbol N is unbound: pass --arg N=..."},
		{"symbol not an integer", []string{sym, "--arg", "N=six", "--interp"}, 2,
			"size symbol N needs an integer value, got 'six'"},
		{"unknown name", []string{lap, "--arg", "foo=1", "--interp"}, 2,
			"@laplacian has no argument or size symbol 'foo' (arguments: inp; size symbols: none)"},
		{"too many outputs", []string{lap, "--random", "1", "--out", "a.npy", "--out", "b.npy", "--interp"}, 2,
			"@laplacian has 1 result(s) but 2 --out were given"},
		{"check with interp", []string{lap, "--random", "1", "--check", "--interp"}, 2,
			"--check and --bench run compiled code; they cannot be combined with --interp"},
		{"unknown entry", []string{lap, "--entry", "nope", "--interp"}, 2,
			"has no tir.func @nope (functions: laplacian)"},
		{"no file", []string{"--interp"}, 2, "expected one input file, got 0"},
		{"bad flag", []string{lap, "--frobnicate"}, 2, "flag provided but not defined"},
		{"missing input file", []string{lap, "--arg", "inp=" + filepath.Join(dir, "none.npy"), "--interp"}, 1,
			"argument 'inp': open "},
		{"parse error", []string{bad, "--random", "1", "--interp"}, 1,
			"bad.tir:2:20: error: use of undefined value '%b'\n  %r = tir.add %a, %b\n                   ^\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runTool(c.args...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, c.code, c.want)
			}
		})
	}
}

// Two results, the second --out in a missing directory: the run fails and
// the first file is not written either.
func TestOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "two.tir")
	src := `tir.func @two(%a: !tir.tensor<f32, I[0:4]>) -> (!tir.tensor<f32, I[0:4]>, !tir.tensor<f32, I[0:4]>) {
  %b = tir.add %a, %a
  tir.return %a, %b
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r0 := filepath.Join(dir, "r0.npy")
	code, _, stderr := runTool(file, "--random", "1", "--interp", "--out", r0, "--out", filepath.Join(dir, "missing", "r1.npy"))
	if code == 0 || !strings.Contains(stderr, "r1.npy") {
		t.Errorf("exit %d, want a failure naming r1.npy:\n%s", code, stderr)
	}
	if _, err := os.Stat(r0); !os.IsNotExist(err) {
		t.Errorf("r0.npy was written although the run failed (%v)", err)
	}
}

func TestInterpreterErrorIsRendered(t *testing.T) {
	// A run-time failure inside the function points at the op. (Integer
	// division by zero is 0, spec 2.7, and so is zero to a negative power,
	// docs/decisions.md: a view whose precondition fails for the size
	// given.)
	p := filepath.Join(t.TempDir(), "view.tir")
	os.WriteFile(p, []byte("tir.func @f(%a: !tir.tensor<i32, I[0:4]>) -> !tir.tensor<i32, i[0:4]> {\n  %z = tir.constant 1 : i32\n  %b = tir.add %a, %z\n  %v = tir.view %b [I = i + M] : !tir.tensor<i32, i[0:4]>\n  tir.return %v : !tir.tensor<i32, i[0:4]>\n}\n"), 0o644)
	code, _, stderr := runTool(p, "--random", "1", "--interp", "--arg", "M=1")
	if code != 1 || !strings.Contains(stderr, "view.tir:4:3: error: view precondition failed: value 'b' dimension I: I = i + M takes [M:M + 4] = [1:5], outside its [0:4]\n  %v = tir.view %b [I = i + M] : !tir.tensor<i32, i[0:4]>\n  ^") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
}

func TestIntersperse(t *testing.T) {
	flags := []string{"f.tir", "--entry", "g", "--interp", "--arg=x=1", "-random", "3", "--", "-odd"}
	got := strings.Join(intersperse(flags, flagSet()), " ")
	if want := "--entry g --interp --arg=x=1 -random 3 -- f.tir -odd"; got != want {
		t.Errorf("intersperse = %q, want %q", got, want)
	}
}

// TestCompiledCheck runs the compiled path (tc-opt -O2 pipeline, llc,
// gcc) against the interpreter.
func TestCompiledCheck(t *testing.T) {
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("compiled mode needs LLVM 14: %v", err)
	}
	var out, errb bytes.Buffer
	lap := filepath.Join("..", "..", "..", "shared", "examples", "laplacian.tir")
	if _, err := os.Stat(lap); err != nil {
		t.Skip("shared examples not found")
	}
	if code := Run([]string{lap, "--random", "3", "--check", "--bench", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"check: compiled code matches the interpreter on all 315 elements", "bench @laplacian: 3528 bytes of compulsory traffic", "  compiled         3 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
