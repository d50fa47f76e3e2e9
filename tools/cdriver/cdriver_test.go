package cdriver_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower/abi"
	"tir/tools/cdriver"
	"tir/tools/native"
)

// Functions written in C against the ABI stand for compiled ones. count
// and strides are named like helpers of the drivers' runtime (which
// once took their places); mlir_count is count in MLIR's unpacked form.
const functionsC = `#include <stdint.h>
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } d1;
int32_t count(d1 *a, d1 *out, int64_t n) {
  if (a->sizes[0] != n || out->sizes[0] != n) return 7;
  float *x = (float *)a->aligned + a->offset, *y = (float *)out->aligned + out->offset;
  for (int64_t i = 0; i < n; i++) y[i * out->strides[0]] = 2 * x[i * a->strides[0]];
  return 0;
}
const char *count_error(int32_t rc) { return rc == 7 ? "count: wrong extents" : "count: ?"; }
int32_t count_result_shape(int64_t n, int64_t *sz) { sz[0] = n; return 0; }
int32_t strides(d1 *a, double *sum, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; i++) s += ((float *)a->aligned)[a->offset + i * a->strides[0]];
  *sum = s;
  return 0;
}
const char *strides_error(int32_t rc) { (void)rc; return "strides: ?"; }
int32_t strides_result_shape(int64_t n, int64_t *sz) { (void)n; (void)sz; return 0; }
void mlir_count(void *a0, void *a1, int64_t ao, int64_t as, int64_t ast, void *b0, void *b1, int64_t bo, int64_t bs, int64_t bst, int64_t n) {
  (void)a0; (void)b0; (void)bs; (void)as;
  for (int64_t i = 0; i < n; i++) ((float *)b1)[bo + i * bst] = 3 * ((float *)a1)[ao + i * ast];
}
const char *core_name(void) { return "testcore"; }
`

var (
	f32 = abi.CType{Name: "float", Size: 4, Suffix: "f32"}
	f64 = abi.CType{Name: "double", Size: 8, Suffix: "f64"}
	// count: (a: f32[N]) -> f32[N]; strides: (a: f32[N]) -> f64.
	countFn   = cdriver.Func{Name: "count", Params: []cdriver.Param{{Name: "a", Rank: 1, C: f32}, {Name: "result0", Rank: 1, C: f32, Out: true}}, Syms: []string{"N"}}
	stridesFn = cdriver.Func{Name: "strides", Params: []cdriver.Param{{Name: "a", Rank: 1, C: f32}, {Name: "result0", C: f64, Out: true}}, Syms: []string{"N"}}
)

// build compiles the functions and a driver with gcc, warnings as errors,
// at -O0: gcc then keeps every static helper under its own assembler name
// (at -O2 it may inline one away, which hides a clash with a symbol).
func build(t *testing.T, dir string, d cdriver.Driver, flags ...string) string {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("needs gcc")
	}
	src, err := cdriver.Source(d)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"driver.c": src, "functions.c": functionsC} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(dir, "driver")
	args := append([]string{"-O0", "-Wall", "-Wno-unused-function", "-Werror", "-o", exe}, flags...)
	args = append(args, filepath.Join(dir, "driver.c"), filepath.Join(dir, "functions.c"), "-lm")
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s\n%s", err, out, src)
	}
	return exe
}

func vector(t *testing.T, xs ...float64) *interp.Tensor {
	t.Helper()
	a, err := interp.NewTensor(ir.F32, []interp.Dim{{Name: "I", Lo: 0, Hi: int64(len(xs))}})
	if err != nil {
		t.Fatal(err)
	}
	copy(a.F64, xs)
	return a
}

// writeShape writes the result extents a driver reads.
func writeShape(t *testing.T, dir string, extents ...int64) {
	t.Helper()
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, extents)
	if err := os.WriteFile(filepath.Join(dir, "outshape.bin"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRunDriver(t *testing.T) {
	dir := t.TempDir()
	exe := build(t, dir, cdriver.Driver{Funcs: []cdriver.Func{countFn}, Timing: true, Wrong: true})
	if err := native.WriteTensor(filepath.Join(dir, "in0.bin"), vector(t, 1, -2.5, 4)); err != nil {
		t.Fatal(err)
	}
	writeShape(t, dir, 3)
	out, err := exec.Command(exe, dir, "5", "3").Output()
	if err != nil {
		t.Fatal(err)
	}
	// median_ns copy_ns threads: no copy on the CPU, one thread.
	fields := strings.Fields(string(out))
	if len(fields) != 3 || fields[1] != "0" || fields[2] != "1" {
		t.Errorf("timing line %q", out)
	}
	if ns, err := strconv.ParseInt(fields[0], 10, 64); err != nil || ns < 0 {
		t.Errorf("median %q", fields[0])
	}
	got, err := native.ReadTensor(filepath.Join(dir, "out0.bin"), ir.F32, []interp.Dim{{Name: "I", Hi: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.F64) != fmt.Sprint([]float64{2, -5, 8}) {
		t.Errorf("count gave %v", got.F64)
	}

	// A symbol f_result_shape disagrees with: the driver's failure,
	// status 4.
	status := func(syms string) (int, string) {
		cmd := exec.Command(exe, dir, "1", syms)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), strings.TrimSpace(stderr.String())
		}
		return 0, fmt.Sprint(err)
	}
	if code, msg := status("4"); code != 4 || msg != "count_result_shape disagrees with the result types" {
		t.Errorf("N = 4: status %d, %q", code, msg)
	}
	// An argument the function refuses: its message, status 3.
	if err := native.WriteTensor(filepath.Join(dir, "in0.bin"), vector(t, 1, -2.5, 4, 5)); err != nil {
		t.Fatal(err)
	}
	if code, msg := status("3"); code != 3 || msg != "count: wrong extents" {
		t.Errorf("4 elements for N = 3: status %d, %q", code, msg)
	}

	// Faults: a size the function refuses, a symbol it refuses, a stride
	// it accepts.
	cmd := exec.Command(exe, dir, "1", "4")
	writeShape(t, dir, 4)
	cmd.Env = append(os.Environ(), "TIR_WRONG=size 0 0 1;symbol 0 0 -1;stride 1 0 1")
	out, err = cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "refused count: wrong extents\nrefused count: wrong extents\naccepted\n"; string(out) != want {
		t.Errorf("faults gave %q, want %q", out, want)
	}
}

func TestBatchDriver(t *testing.T) {
	dir := t.TempDir()
	exe := build(t, dir, cdriver.Driver{Funcs: []cdriver.Func{countFn, stridesFn, countFn}, Alloc: cdriver.Malloc, Batch: []string{"p0", "p1", "p2"}})
	in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
	for k, n := range []string{"p0", "p1", "p2"} {
		d := filepath.Join(in, n)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(out, strconv.Itoa(k)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := native.WriteTensor(filepath.Join(d, "in0.bin"), vector(t, 0.5, 1, 2, 4)); err != nil {
			t.Fatal(err)
		}
		syms := "4\n"
		switch k {
		case 0:
			writeShape(t, d, 4)
		case 1:
			writeShape(t, d)
		case 2:
			// The function refuses N = 3 on 4 elements.
			writeShape(t, d, 3)
			syms = "3\n"
		}
		if err := os.WriteFile(filepath.Join(d, "syms.txt"), []byte(syms), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if msg, err := exec.Command(exe, in, out).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, msg)
	}
	read := func(k int, name string) string {
		data, err := os.ReadFile(filepath.Join(out, strconv.Itoa(k), name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(data))
	}
	for k, want := range []string{"exit 0", "exit 0", "exit 3"} {
		if got := read(k, "status"); got != want {
			t.Errorf("case %d: status %q, want %q (%s)", k, got, want, read(k, "stderr"))
		}
	}
	if got := read(2, "stderr"); got != "count: wrong extents" {
		t.Errorf("case 2: stderr %q", got)
	}
	got, err := native.ReadTensor(filepath.Join(out, "0", "out0.bin"), ir.F32, []interp.Dim{{Name: "I", Hi: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got.F64) != fmt.Sprint([]float64{1, 2, 4, 8}) {
		t.Errorf("count gave %v", got.F64)
	}
	sum, err := native.ReadTensor(filepath.Join(out, "1", "out0.bin"), ir.F64, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.F64[0] != 7.5 {
		t.Errorf("strides gave %v", sum.F64)
	}
}

func TestBenchDriver(t *testing.T) {
	dir := t.TempDir()
	d := cdriver.Driver{Funcs: []cdriver.Func{countFn}, Bench: &cdriver.Bench{Variants: []cdriver.Variant{
		{IDs: []int{0}, Guard: "HAVE_OURS", Symbol: "count", Error: "count_error", Core: "core_name"},
		{IDs: []int{3, 5}, Symbol: "mlir_count", Unpacked: true},
		{IDs: []int{4}, Unpacked: true, JIT: true},
	}}}
	exe := build(t, dir, d, "-DHAVE_OURS")
	xs := []float32{1, 2, -3}
	var in bytes.Buffer
	binary.Write(&in, binary.LittleEndian, xs)
	if err := os.WriteFile(filepath.Join(dir, "in0.bin"), in.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config"), []byte("3\n3\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "BENCH_DIR="+dir, "BENCH_MIN_NS=0", "BENCH_MIN_REPS=4", "BENCH_MAX_REPS=6")
	for _, c := range []struct {
		variant string
		core    bool
		factor  float32
	}{{"0", true, 2}, {"5", false, 3}} {
		cmd := exec.Command(exe, c.variant)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("variant %s: %v", c.variant, err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if c.core {
			if lines[0] != "core testcore" {
				t.Errorf("variant %s: %q", c.variant, out)
			}
			lines = lines[1:]
		}
		// median_ns reps min_ns: min_reps calls, min_ns being 0.
		f := strings.Fields(lines[0])
		if len(lines) != 1 || len(f) != 3 || f[1] != "4" {
			t.Errorf("variant %s: %q", c.variant, out)
		}
		data, err := os.ReadFile(filepath.Join(dir, "out"+c.variant+"_0.bin"))
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:])); got != c.factor*x {
				t.Errorf("variant %s: element %d is %v, want %v", c.variant, i, got, c.factor*x)
			}
		}
	}
	// A variant the driver was not built with.
	cmd := exec.Command(exe, "4")
	cmd.Env = env
	if err := cmd.Run(); err == nil {
		t.Error("the JIT variant ran without a JIT-compiled function")
	}
}

// TestDriversCompile compiles (without linking) the drivers the tests
// above do not run: CUDA memory, exact allocations, OpenMP's thread count.
func TestDriversCompile(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("needs gcc")
	}
	for i, d := range []cdriver.Driver{
		{Funcs: []cdriver.Func{countFn}, GPU: true, Timing: true},
		{Funcs: []cdriver.Func{countFn, stridesFn}, GPU: true, Alloc: cdriver.Malloc, Batch: []string{"a", "b"}},
		{Funcs: []cdriver.Func{stridesFn}, Alloc: cdriver.Exact, Timing: true, OpenMP: true, Wrong: true},
	} {
		src, err := cdriver.Source(d)
		if err != nil {
			t.Fatal(err)
		}
		c := filepath.Join(t.TempDir(), "driver.c")
		if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("gcc", "-O2", "-Wall", "-Wno-unused-function", "-Werror", "-c", "-o", c+".o", c).CombinedOutput(); err != nil {
			t.Errorf("driver %d: %v\n%s", i, err, out)
		}
	}
	if _, err := cdriver.Source(cdriver.Driver{Funcs: []cdriver.Func{countFn}, GPU: true, Wrong: true}); err == nil {
		t.Error("fault injection in a GPU build was accepted")
	}
}
