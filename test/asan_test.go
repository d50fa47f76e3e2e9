package test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/passes"
	"tir/tools/native"
)

// Memory safety: every example and every end-to-end program is compiled
// with AddressSanitizer (LLVM 14's asan-module pass on the IR tc-opt -O2
// emits, gcc -fsanitize=address for the driver, whose buffers then have
// exactly their sizes) and run on correct inputs, on integer inputs
// (neighbor tables) holding -1, negative, huge and just-out-of-range
// values, on empty domains (each size symbol 0), and with wrong
// descriptors and size symbols, which the function must refuse before
// writing anything. Any report fails the test: it comes back as the run's
// error, "ERROR: AddressSanitizer: heap-buffer-overflow ...".
// TestASanCatchesOutOfBounds and TestASanHarnessCatchesWrongFunctions show
// that the harness does catch an access one element past a buffer, in
// the compiled code, reading or writing, and a function that writes
// before it refuses a call.

// needASan skips a test when the sanitizer cannot be built here.
func needASan(t *testing.T) {
	t.Helper()
	needToolchain(t)
	if err := native.ASanAvailable(); err != nil {
		t.Skipf("AddressSanitizer builds need LLVM 14's opt and gcc's libasan (make deps): %v", err)
	}
}

// asanCases are the shared examples and the end-to-end programs, each
// once, with their size symbols and tolerances.
func asanCases(t *testing.T) []e2eCase {
	var cases []e2eCase
	seen := map[string]bool{}
	for _, c := range e2eCases {
		if seen[c.file] {
			continue
		}
		seen[c.file] = true
		c.file = examplePath(t, c.file)
		cases = append(cases, c)
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	for _, f := range files {
		cases = append(cases, readE2ECase(t, f))
	}
	return cases
}

// buildASan compiles a file with a pipeline (nil: -O2) and builds it with
// AddressSanitizer.
func buildASan(t *testing.T, path string, p *passes.Pipeline) (*ir.Operation, *native.Program) {
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
	if p == nil {
		if p, err = passes.OptPipeline(2, "x86_64"); err != nil {
			t.Fatal(err)
		}
	}
	llvm, err := native.CompileWith(path, string(src), p)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	prog, err := native.BuildWith(llvm, fn, t.TempDir(), native.BuildOptions{ASan: true})
	if err != nil {
		t.Fatalf("ASan build: %v", err)
	}
	return fn, prog
}

func TestASan(t *testing.T) {
	needASan(t)
	for _, c := range asanCases(t) {
		c := c
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			t.Parallel()
			fn, prog := buildASan(t, c.file, nil)
			// Correct inputs.
			compareSeeds(t, fn, prog, c, 2)
			// Integer inputs with -1, negative, huge and out-of-range
			// entries: gathers must mask them, never follow them.
			if hasIntegerInput(fn) {
				args := specialIntArgs(t, fn, c.syms, 5)
				asanCompare(t, fn, prog, c, c.syms, args, "tables with -1, negative and huge entries")
			}
			// Empty domains: each size symbol 0 in turn, then all of them.
			names := symbolNames(fn, c.syms)
			for _, s := range names {
				syms := copyInts(c.syms)
				syms[s] = 0
				args := randomArgs(t, fn, syms, 3)
				asanCompare(t, fn, prog, c, syms, args, s+" = 0")
			}
			if len(names) > 1 {
				syms := copyInts(c.syms)
				for _, s := range names {
					syms[s] = 0
				}
				asanCompare(t, fn, prog, c, syms, randomArgs(t, fn, syms, 4), "every size symbol 0")
			}
			// Wrong descriptors and symbols: refused, nothing written.
			asanWrongCalls(t, fn, prog, c.syms)
		})
	}
	// The outlined parallel loops of --threads, with more threads than
	// iterations.
	t.Run("threads/nabla.tir", func(t *testing.T) {
		t.Parallel()
		path := examplePath(t, "nabla.tir")
		fn, prog := buildASan(t, path, threadsPipeline(t))
		prog.Env = append(prog.Env, "OMP_NUM_THREADS=3")
		c := e2eCase{file: path, syms: map[string]int64{"NV": 23, "NE": 31}}
		compareSeeds(t, fn, prog, c, 1)
		asanCompare(t, fn, prog, c, c.syms, specialIntArgs(t, fn, c.syms, 5), "tables with -1, negative and huge entries")
		asanWrongCalls(t, fn, prog, c.syms)
	})
}

// asanKnownIssues are discrepancies (not memory errors) the test found
// and leaves to another change; each entry must still reproduce.
var asanKnownIssues = map[string]string{}

// asanCompare runs the compiled program and the interpreter on args. When
// the interpreter refuses them the compiled code must refuse them too;
// otherwise the results must agree (within the case's tolerance).
func asanCompare(t *testing.T, fn *ir.Operation, prog *native.Program, c e2eCase, syms map[string]int64, args []*interp.Tensor, what string) {
	t.Helper()
	want, ierr := interp.Run(fn, args, syms)
	got, _, cerr := prog.Run(args, syms, 1)
	if cerr != nil && strings.Contains(cerr.Error(), "AddressSanitizer") {
		t.Fatalf("%s: %v", what, cerr)
	}
	if reason, ok := asanKnownIssues[filepath.Base(c.file)+": "+what]; ok {
		if ierr == nil && cerr != nil {
			t.Logf("%s: known issue, %s: %v", what, reason, cerr)
			return
		}
		t.Errorf("%s: the known issue (%s) is gone: remove it from asanKnownIssues", what, reason)
	}
	switch {
	case ierr != nil && cerr != nil:
		t.Logf("%s: both refused: %v", what, cerr)
		return
	case ierr != nil:
		t.Fatalf("%s: the interpreter refused (%v), the compiled code did not", what, ierr)
	case cerr != nil:
		t.Fatalf("%s: the compiled code refused (%v), the interpreter did not", what, cerr)
	}
	d, err := native.Compare(got, want)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	elements := 0
	for _, w := range want {
		elements += w.Len()
	}
	if d.Compared == 0 && elements > 0 {
		t.Fatalf("%s: nothing was compared", what)
	}
	if d.Mismatch > 0 && (c.tol == 0 || d.MaxRel > c.tol) {
		t.Fatalf("%s: %d of %d elements differ (largest %.3g, relative %.3g) at %s",
			what, d.Mismatch, d.Compared, d.MaxAbs, d.MaxRel, d.Where)
	}
}

func hasIntegerInput(fn *ir.Operation) bool {
	ft, _ := tir.FuncType(fn)
	for _, in := range ft.Inputs {
		tt, _ := tir.AsTensor(in)
		if it, ok := tt.Elem.(ir.IntegerType); ok && it.Width > 1 {
			return true
		}
	}
	return false
}

// specialIntArgs are random arguments whose integers are, one in two,
// values a neighbor table must not be trusted with: -1 (the padding
// convention), other negative numbers, the type's extremes, values that
// wrap to small ones when truncated to 32 bits, and the size symbols' values
// and their neighbors (one past an interval's end).
func specialIntArgs(t *testing.T, fn *ir.Operation, syms map[string]int64, seed int64) []*interp.Tensor {
	args := randomArgs(t, fn, syms, seed)
	rng := rand.New(rand.NewSource(seed))
	var near []int64
	for _, v := range syms {
		near = append(near, v-1, v, v+1)
	}
	for _, a := range args {
		it, ok := a.Elem.(ir.IntegerType)
		if !ok || it.Width == 1 {
			continue
		}
		lo, hi := int64(-1)<<(it.Width-1), int64(uint64(1)<<(it.Width-1)-1)
		special := []int64{-1, -2, -7, lo, lo + 1, hi, hi - 1}
		if it.Width >= 32 {
			special = append(special, 1<<20, -1000000)
			special = append(special, near...)
		}
		if it.Width == 64 {
			special = append(special, 1<<32, 1<<32+1, 1<<40, -(1 << 32), math.MaxInt32+1)
		}
		for i := range a.I64 {
			if rng.Intn(2) == 0 {
				a.I64[i] = special[rng.Intn(len(special))]
			}
		}
	}
	return args
}

// symbolNames are the size symbols of fn and of syms (the `?` extents of
// unknown_extents.tir), sorted.
func symbolNames(fn *ir.Operation, syms map[string]int64) []string {
	set := map[string]bool{}
	for _, s := range interp.Symbols(fn) {
		set[s] = true
	}
	for s := range syms {
		set[s] = true
	}
	var out []string
	for s := range set {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func copyInts(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// asanWrongCalls calls the function with one wrong descriptor field or
// size symbol at a time: every extent one too large (an access past the
// buffer if the function trusted it), one too small, or absurd; the
// innermost stride 2, 0 or -1; a NULL pointer for a tensor with
// elements; a size symbol that changes some extent. Each call must be
// refused with a message, before any result is written.
func asanWrongCalls(t *testing.T, fn *ir.Operation, prog *native.Program, syms map[string]int64) {
	t.Helper()
	ft, _ := tir.FuncType(fn)
	names := append(interp.ArgNames(fn), resultNames(len(ft.Results))...)
	all := append(append([]ir.Type(nil), ft.Inputs...), ft.Results...)
	var faults []native.Wrong
	var what []string
	for i, ty := range all {
		tt, _ := tir.AsTensor(ty)
		for d, dim := range tt.Dims {
			// An unknown extent (`?`) is whatever the descriptor says.
			if strings.Contains(dim.String(), "?") {
				continue
			}
			for _, delta := range []int64{1, -1, 1 << 40} {
				faults = append(faults, native.Wrong{Kind: "size", Arg: i, Dim: d, Value: delta})
				what = append(what, fmt.Sprintf("%s dimension %s extent %+d", names[i], dim.Name, delta))
			}
		}
		if r := tt.Rank(); r > 0 {
			for _, s := range []int64{2, 0, -1} {
				faults = append(faults, native.Wrong{Kind: "stride", Arg: i, Dim: r - 1, Value: s})
				what = append(what, fmt.Sprintf("%s innermost stride %d", names[i], s))
			}
		}
		if dims, err := interp.EvalDims(tt, syms); err == nil && nonEmpty(dims) {
			faults = append(faults, native.Wrong{Kind: "null", Arg: i})
			what = append(what, names[i]+" NULL")
		}
	}
	for k, s := range interp.Symbols(fn) {
		for _, delta := range []int64{1, -1, 1 << 40} {
			wrong := copyInts(syms)
			wrong[s] += delta
			if !extentsDiffer(all, syms, wrong) {
				continue
			}
			faults = append(faults, native.Wrong{Kind: "symbol", Arg: k, Value: delta})
			what = append(what, fmt.Sprintf("size symbol %s%+d", s, delta))
		}
	}
	if len(faults) == 0 {
		return
	}
	args := randomArgs(t, fn, syms, 1)
	outs, err := prog.RunWrong(args, syms, faults)
	if err != nil {
		t.Fatalf("wrong descriptors: %v", err)
	}
	t.Logf("%d wrong calls", len(outs))
	for i, o := range outs {
		switch {
		case !o.Refused && o.Wrote < 0:
			t.Errorf("%s: the call was accepted", what[i])
		case o.Wrote >= 0:
			t.Errorf("%s: result #%d was written before the refusal (%s)", what[i], o.Wrote, o.Msg)
		case o.Msg == "" || o.Msg == "success" || o.Msg == "unknown error code":
			t.Errorf("%s: refused without a message (%q)", what[i], o.Msg)
		}
	}
}

// nonEmpty reports whether dimensions hold an element (a 0-d tensor
// holds one).
func nonEmpty(dims []interp.Dim) bool {
	for _, d := range dims {
		if d.Extent() <= 0 {
			return false
		}
	}
	return true
}

func resultNames(n int) []string {
	if n == 1 {
		return []string{"result"}
	}
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, fmt.Sprintf("result%d", i))
	}
	return out
}

// extentsDiffer tells whether some argument or result has another extent
// with the symbols b than with a.
func extentsDiffer(types []ir.Type, a, b map[string]int64) bool {
	for _, ty := range types {
		tt, _ := tir.AsTensor(ty)
		da, err1 := interp.EvalDims(tt, a)
		db, err2 := interp.EvalDims(tt, b)
		if err1 != nil || err2 != nil {
			continue
		}
		for k := range da {
			if da[k].Extent() != db[k].Extent() {
				return true
			}
		}
	}
	return false
}

// TestASanCatchesOutOfBounds makes the harness's checks fail on purpose:
// a descriptor whose offset is one element too far makes the compiled code
// read (an input) or write (the result) one element past the buffer, which
// the ABI cannot detect and AddressSanitizer must report, with the compiled
// function on the stack. A fault the ABI allows (an outer stride) must come
// back as accepted, so that a refusal is told apart from a call that ran.
func TestASanCatchesOutOfBounds(t *testing.T) {
	needASan(t)
	path := examplePath(t, "laplacian_symbolic.tir")
	fn, prog := buildASan(t, path, nil)
	syms := map[string]int64{"N": 6, "M": 5}
	args := randomArgs(t, fn, syms, 1)
	// inp is 6 x 5 doubles (240 bytes), of which the stencil reads up to
	// element (5, 3), the 29th: two elements further is one past the end.
	// The result is 4 x 3 (96 bytes), written up to its last element.
	for _, c := range []struct {
		fault native.Wrong
		want  []string
	}{
		{native.Wrong{Kind: "offset", Arg: 0, Value: 2}, []string{"READ of size 8", "0 bytes to the right of 240-byte region"}},
		{native.Wrong{Kind: "offset", Arg: 1, Value: 1}, []string{"WRITE of size 8", "0 bytes to the right of 96-byte region"}},
	} {
		_, err := prog.RunWrong(args, syms, []native.Wrong{c.fault})
		if err == nil {
			t.Errorf("%v: an access past the buffer went unreported", c.fault)
			continue
		}
		for _, want := range append([]string{"ERROR: AddressSanitizer: heap-buffer-overflow", "laplacian"}, c.want...) {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%v: the report lacks %q:\n%v", c.fault, want, err)
			}
		}
	}
	// strides[0] = 5 is the row-major stride of a 6 x 5 input: accepted.
	outs, err := prog.RunWrong(args, syms, []native.Wrong{{Kind: "stride", Arg: 0, Dim: 0, Value: 5}, {Kind: "size", Arg: 0, Dim: 1, Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].Refused || outs[0].Wrote >= 0 {
		t.Errorf("a correct call came back as %+v", outs[0])
	}
	if want := "argument 'inp' dimension J: expected extent M = 5, got 6"; !outs[1].Refused || outs[1].Msg != want {
		t.Errorf("got %+v, want a refusal with %q", outs[1], want)
	}
}

// TestASanHarnessCatchesWrongFunctions builds hand-written LLVM IR in
// place of compiled code, with the ABI of
// `tir.func @w(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]>`:
// one function reads the element after its input (AddressSanitizer must
// report it on a correct call), another writes its result and then
// returns an error code (the wrong-descriptor harness must see the write).
func TestASanHarnessCatchesWrongFunctions(t *testing.T) {
	needASan(t)
	m, diags := native.Load("w.tir", "tir.func @w(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {\n  tir.return %a : !tir.tensor<f32, I[0:4]>\n}\n")
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	fn := m.Body().Ops[0]
	const common = `target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-unknown-linux-gnu"
%desc = type { float*, float*, i64, [1 x i64], [1 x i64] }
@msg = private constant [22 x i8] c"refused after writing\00"
define i8* @w_error(i32 %c) {
  ret i8* getelementptr ([22 x i8], [22 x i8]* @msg, i32 0, i32 0)
}
define i32 @w_result_shape(i64* %s) {
  store i64 4, i64* %s
  ret i32 0
}
`
	// result[0] = a[4], one past the input.
	const oob = common + `define i32 @w(%desc* %a, %desc* %r) {
  %ap = getelementptr %desc, %desc* %a, i32 0, i32 1
  %abuf = load float*, float** %ap
  %x = getelementptr float, float* %abuf, i64 4
  %v = load float, float* %x
  %rp = getelementptr %desc, %desc* %r, i32 0, i32 1
  %rbuf = load float*, float** %rp
  store float %v, float* %rbuf
  ret i32 0
}
`
	// result[0] = 1, then error code 7.
	const wrote = common + `define i32 @w(%desc* %a, %desc* %r) {
  %rp = getelementptr %desc, %desc* %r, i32 0, i32 1
  %rbuf = load float*, float** %rp
  store float 1.0, float* %rbuf
  ret i32 7
}
`
	args := randomArgs(t, fn, nil, 1)
	prog, err := native.BuildWith(oob, fn, t.TempDir(), native.BuildOptions{ASan: true})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = prog.Run(args, nil, 1)
	for _, want := range []string{"ERROR: AddressSanitizer: heap-buffer-overflow", "READ of size 4", "in w ", "0 bytes to the right of 16-byte region"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("reading past the input: the report lacks %q: %v", want, err)
		}
	}
	prog, err = native.BuildWith(wrote, fn, t.TempDir(), native.BuildOptions{ASan: true})
	if err != nil {
		t.Fatal(err)
	}
	outs, err := prog.RunWrong(args, nil, []native.Wrong{{Kind: "size", Arg: 0, Dim: 0, Value: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if o := outs[0]; o.Refused || o.Wrote != 0 || o.Msg != "refused after writing" {
		t.Errorf("a function that wrote before refusing came back as %+v", o)
	}
}
