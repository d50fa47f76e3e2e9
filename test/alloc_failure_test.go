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
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower/abi"
	"tir/passes"
	"tir/tools/driver"
	"tir/tools/native"
)

// Allocations the compiled code makes itself can fail (docs/abi.md): the
// byte count of a temporary comes from sizes the caller controls, and
// with broadcast arguments (outer strides 0) a one-element array stands
// for 2^45 rows, so the count exceeds memory (N = 1, M = 2^45) or wraps
// (M = 2^61, N = M = 2^31). Such a call must return abi.CodeAllocFailed
// with a message naming the temporary and its byte count, give back what
// it held, and leave the function usable. These tests call compiled code
// from C programs of their own (the tc-run driver would allocate the
// arguments at their full sizes), plain and under AddressSanitizer with
// leak detection, and compare the calls that succeed with the reference
// interpreter.

// allocHarnessPrelude counts the calls of aligned_alloc the compiled code
// makes (the program is linked with --wrap=aligned_alloc) and prints each
// call's outcome: "call LABEL RC ALLOCS MESSAGE", then "values LABEL x..."
// for what a successful call computed.
const allocHarnessPrelude = `#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static long allocs;
void *__real_aligned_alloc(size_t, size_t);
void *__wrap_aligned_alloc(size_t a, size_t n) {
  __atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
  return __real_aligned_alloc(a, n);
}
static long allocs_since(void) {
  static long last;
  long n = allocs - last;
  last = allocs;
  return n;
}
#define REPORT(label, rc, err) printf("call %s %d %ld %s\n", label, (int)(rc), allocs_since(), err(rc))
static __attribute__((unused)) void values(const char *label, const double *x, long n) {
  printf("values %s", label);
  for (long i = 0; i < n; i++) printf(" %.17g", x[i]);
  printf("\n");
}
`

// callOutcome is one call of a harness.
type callOutcome struct {
	rc, allocs int
	msg        string
	values     []float64
}

func parseOutcomes(t *testing.T, out string) map[string]*callOutcome {
	t.Helper()
	calls := map[string]*callOutcome{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 4 && f[0] == "call":
			rc, err1 := strconv.Atoi(f[2])
			n, err2 := strconv.Atoi(f[3])
			if err1 != nil || err2 != nil {
				t.Fatalf("bad harness line %q", line)
			}
			msg := strings.SplitN(line, " ", 5)
			o := &callOutcome{rc: rc, allocs: n}
			if len(msg) == 5 {
				o.msg = msg[4]
			}
			calls[f[1]] = o
		case len(f) >= 2 && f[0] == "values":
			o := calls[f[1]]
			if o == nil {
				t.Fatalf("values before the call: %q", line)
			}
			for _, s := range f[2:] {
				x, err := strconv.ParseFloat(s, 64)
				if err != nil {
					t.Fatalf("bad value in %q", line)
				}
				o.values = append(o.values, x)
			}
		default:
			t.Fatalf("unexpected harness output %q", line)
		}
	}
	return calls
}

// harnessBuild is one way a harness was built and is run.
type harnessBuild struct {
	name, exe string
	env       []string
}

// buildAllocHarness compiles LLVM IR with llc and links it with the C
// harness: plainly, and instrumented with AddressSanitizer when it is
// available here, whose runs also check for leaks (a failed call must
// give back what it allocated; the buffers kept between calls stay
// reachable from their slots).
func buildAllocHarness(t *testing.T, dir, llvm, harness string, libs ...string) []harnessBuild {
	t.Helper()
	llc, err := native.Tool("llc")
	if err != nil {
		t.Fatal(err)
	}
	ll := filepath.Join(dir, "module.ll")
	if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
		t.Fatal(err)
	}
	src := writeFile(t, dir, "harness.c", harness)
	link := append([]string{"-Wl,--wrap=aligned_alloc", "-lm"}, libs...)
	obj := filepath.Join(dir, "module.o")
	run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj)
	exe := filepath.Join(dir, "plain")
	run(t, "gcc", append([]string{"-O1", "-Wall", "-Werror", src, obj, "-o", exe}, link...)...)
	builds := []harnessBuild{{name: "plain", exe: exe}}
	if err := native.ASanAvailable(); err != nil {
		t.Logf("no AddressSanitizer run: %v", err)
		return builds
	}
	asanLL, err := native.InstrumentASan(ll, llvm)
	if err != nil {
		t.Fatal(err)
	}
	asanObj := filepath.Join(dir, "module.asan.o")
	run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", asanLL, "-o", asanObj)
	asanExe := filepath.Join(dir, "asan")
	run(t, "gcc", append(append(native.ASanLinkFlags(), "-O1", src, asanObj, "-o", asanExe), link...)...)
	env := append(native.ASanEnv(), "ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:exitcode=66:allocator_may_return_null=1")
	return append(builds, harnessBuild{name: "asan", exe: asanExe, env: env})
}

// runHarness runs a build and parses what it printed; a sanitizer's
// report or a crash fails the test.
func runHarness(t *testing.T, b harnessBuild, env []string, args ...string) map[string]*callOutcome {
	t.Helper()
	cmd := exec.Command(b.exe, args...)
	cmd.Env = append(append(os.Environ(), b.env...), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s harness: %v\n%s\n%s", b.name, err, stdout.String(), stderr.String())
	}
	if strings.Contains(stderr.String(), "ERROR: ") {
		t.Fatalf("%s harness reported:\n%s", b.name, stderr.String())
	}
	return parseOutcomes(t, stdout.String())
}

// loadTIRFunc parses a file and returns its tir.func.
func loadTIRFunc(t *testing.T, path, src string) *ir.Operation {
	t.Helper()
	m, diags := native.Load(path, src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			return op
		}
	}
	t.Fatalf("%s has no tir.func", path)
	return nil
}

// filledArgs makes the arguments of fn for syms, element k of argument i
// being fill(i, k), and returns them with their C initializers.
func filledArgs(t *testing.T, fn *ir.Operation, syms map[string]int64, fill func(i, k int) float64) ([]*interp.Tensor, []string) {
	t.Helper()
	ft, _ := tir.FuncType(fn)
	var args []*interp.Tensor
	var inits []string
	for i, a := range ft.Inputs {
		tt, _ := tir.AsTensor(a)
		dims, err := interp.EvalDims(tt, syms)
		if err != nil {
			t.Fatal(err)
		}
		x, err := interp.NewTensor(tt.Elem, dims)
		if err != nil {
			t.Fatal(err)
		}
		var lits []string
		for k := range x.F64 {
			x.F64[k] = fill(i, k)
			lits = append(lits, strconv.FormatFloat(x.F64[k], 'g', -1, 64))
		}
		args = append(args, x)
		inits = append(inits, "{"+strings.Join(lits, ", ")+"}")
	}
	return args, inits
}

// interpValues runs the interpreter and concatenates every result's
// elements, as the harnesses print them.
func interpValues(t *testing.T, fn *ir.Operation, args []*interp.Tensor, syms map[string]int64) []float64 {
	t.Helper()
	res, err := interp.Run(fn, args, syms)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	var out []float64
	for _, r := range res {
		out = append(out, r.F64...)
	}
	return out
}

// sameValues compares what a call computed with the interpreter's
// values, exactly (sqrt and sums are correctly rounded in both).
func sameValues(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, the interpreter has %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] && !(math.IsNaN(got[i]) && math.IsNaN(want[i])) {
			t.Fatalf("%s: value #%d is %v, the interpreter's %v", what, i, got[i], want[i])
		}
	}
}

// nonNullCodes lists the codes of the pointer checks (abi.CheckNonNull)
// of the functions of a file, by "function/argument", from the ABI
// description the lowering reads.
func nonNullCodes(t *testing.T, path, src string) map[string]abi.EntryCheck {
	t.Helper()
	p, err := passes.ParsePipeline("builtin.module(tir-inline,convert-tir-to-affine)")
	if err != nil {
		t.Fatal(err)
	}
	m, err := native.RunPipeline(path, src, p)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[string]abi.EntryCheck{}
	for _, op := range m.Body().Ops {
		if op.Name != "func.func" || op.Attr(abi.AttrShapeOf) != nil {
			continue
		}
		ta, _ := op.Attr("function_type").(ir.TypeAttr)
		ft, _ := ta.Type.(ir.FunctionType)
		sig, err := abi.Read(op, ir.SymbolName(op), ft.Inputs)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range sig.EntryChecks() {
			if c.Kind == abi.CheckNonNull {
				codes[sig.Name+"/"+c.Arg.Name] = c
			}
		}
	}
	return codes
}

// allocFailure is the message a failure to allocate must have: the
// temporary's name (the value's, for a temporary of tir-temporaries; any
// name when name is ""), where the program defines it (loc,
// "file:line:col") and the byte count, or the overflow wording for
// bytes < 0.
func allocFailure(name, loc string, bytes int64) *regexp.Regexp {
	tail := strconv.FormatInt(bytes, 10) + " bytes"
	if bytes < 0 {
		tail = "2^63 bytes or more"
	}
	quoted := `[A-Za-z_][A-Za-z0-9_.]*`
	if name != "" {
		quoted = regexp.QuoteMeta(name)
	}
	return regexp.MustCompile(`^cannot allocate temporary '` + quoted + `' \(` + regexp.QuoteMeta(loc) + `\): ` + regexp.QuoteMeta(tail) + `$`)
}

// checkAllocFailure checks one refused call.
func checkAllocFailure(t *testing.T, build, label string, o *callOutcome, want *regexp.Regexp) {
	t.Helper()
	if o == nil {
		t.Fatalf("%s: call %s did not run", build, label)
	}
	if o.rc != abi.CodeAllocFailed || !want.MatchString(o.msg) {
		t.Errorf("%s: call %s returned %d %q, want %d and a message matching %s", build, label, o.rc, o.msg, abi.CodeAllocFailed, want)
	}
}

// posOf is "line:column" (1-based) of the first occurrence of s in src,
// as diagnostics print a location.
func posOf(t *testing.T, src, s string) string {
	t.Helper()
	i := strings.Index(src, s)
	if i < 0 {
		t.Fatalf("%q not in the source", s)
	}
	return fmt.Sprintf("%d:%d", strings.Count(src[:i], "\n")+1, i-strings.LastIndex(src[:i], "\n"))
}

// bigAllocationFails reports whether an allocation of n bytes is sure to
// fail here: Linux refuses a mapping larger than memory and swap unless
// overcommit is unconditional (vm.overcommit_memory = 1).
func bigAllocationFails(n int64) bool {
	if b, err := os.ReadFile("/proc/sys/vm/overcommit_memory"); err != nil || strings.TrimSpace(string(b)) == "1" {
		return false
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return false
	}
	var total int64
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && (f[0] == "MemTotal:" || f[0] == "SwapTotal:") {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			total += kb << 10
		}
	}
	return total > 0 && total < n/2
}

// Two temporaries, the first of a fixed size, the second of N x M: a call
// whose second allocation fails must give the first one's buffer back to
// its slot, or every later call allocates its own.
const twoTempsTIR = `tir.func @two(%a: !tir.tensor<f64, L[0:4], J[0:1]>, %b: !tir.tensor<f64, I[0:N], K[0:M], J[0:1]>) -> (!tir.tensor<f64, L[1:3], J[0:1]>, !tir.tensor<f64, I[0:N], K[1:M - 1], J[0:1]>) {
  %e = tir.sqrt %a
  %l = tir.shift %e [L - 1]
  %r = tir.shift %e [L + 1]
  %s = tir.add %l, %r
  %f = tir.sqrt %b
  %u = tir.shift %f [K - 1]
  %w = tir.shift %f [K + 1]
  %v = tir.add %u, %w
  tir.return %s, %v : !tir.tensor<f64, L[1:3], J[0:1]>, !tir.tensor<f64, I[0:N], K[1:M - 1], J[0:1]>
}
`

const twoTempsHarness = `typedef struct { double *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } desc2;
typedef struct { double *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } desc3;
int32_t two(const desc2 *a, const desc3 *b, desc2 *r0, desc3 *r1, int64_t N, int64_t M);
const char *two_error(int32_t);
enum { N = %d, M = %d };
static double a_data[] = %s, b_data[] = %s;
static double r_data[2 + N * (M - 2)];
static double one = 1.0, sink = 0.0;

/* A call on the arrays above; b_null or r1_null pass a NULL aligned
   pointer instead, and n sets N (0: an empty b). */
static void call(const char *label, int64_t n, int b_null, int r1_null) {
  desc2 a = {a_data, a_data, 0, {4, 1}, {1, 1}};
  desc3 b = {b_data, b_null ? NULL : b_data, 0, {n, M, 1}, {M, 1, 1}};
  desc2 r0 = {r_data, r_data, 0, {2, 1}, {1, 1}};
  desc3 r1 = {r_data + 2, r1_null ? NULL : r_data + 2, 0, {n, M - 2, 1}, {M - 2, 1, 1}};
  for (int i = 0; i < 2 + N * (M - 2); i++) r_data[i] = -7.0;
  int32_t rc = two(&a, &b, &r0, &r1, n, M);
  REPORT(label, rc, two_error);
  if (rc == 0) values(label, r_data, 2 + n * (M - 2));
  else for (int i = 0; i < 2 + N * (M - 2); i++)
    if (r_data[i] != -7.0) { printf("call %%s-wrote 1 0 result written before the refusal\n", label); break; }
}

/* A call whose b and second result stand for n x m arrays with one
   element (broadcast: outer strides 0). */
static void broadcast(const char *label, int64_t n, int64_t m) {
  desc2 a = {a_data, a_data, 0, {4, 1}, {1, 1}};
  desc3 b = {&one, &one, 0, {n, m, 1}, {0, 0, 1}};
  desc2 r0 = {r_data, r_data, 0, {2, 1}, {1, 1}};
  desc3 r1 = {&sink, &sink, 0, {n, m - 2, 1}, {0, 0, 1}};
  int32_t rc = two(&a, &b, &r0, &r1, n, m);
  REPORT(label, rc, two_error);
}

int main(int argc, char **argv) {
  call("warm", N, 0, 0);
  broadcast("nomem", 1, 1LL << 45);
  broadcast("wrap1", 1, 1LL << 61);
  broadcast("wrap2", 1LL << 31, 1LL << 31);
  if (argc > 1) broadcast("issue", 1, 1LL << 36);
  call("again", N, 0, 0);
  call("third", N, 0, 0);
  call("nullb", N, 1, 0);
  call("nullr", N, 0, 1);
  call("nullempty", 0, 1, 1);
  return 0;
}
`

// TestAllocFailureTemporaries: temporaries too large for memory and byte
// counts that wrap return the allocation code with the temporary's name,
// place and size; the next calls reuse the buffers kept between calls
// (so the failure gave back the one it held) and compute what the
// interpreter computes; a NULL data pointer of a non-empty argument is
// refused with its own code before anything is written.
func TestAllocFailureTemporaries(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "two.tir", twoTempsTIR)
	fn := loadTIRFunc(t, path, twoTempsTIR)
	const n, m = 3, 6
	syms := map[string]int64{"N": n, "M": m}
	args, inits := filledArgs(t, fn, syms, func(i, k int) float64 { return float64(2*i+1) + float64(k)*0.375 })
	want := interpValues(t, fn, args, syms)
	llvm := runTCOpt(t, "-O2", path)
	harness := allocHarnessPrelude + fmt.Sprintf(twoTempsHarness, n, m, inits[0], inits[1])
	loc := "two.tir:" + posOf(t, twoTempsTIR, "%f = tir.sqrt")
	codes := nonNullCodes(t, path, twoTempsTIR)
	var extra []string
	if bigAllocationFails(8 << 36) {
		extra = []string{"issue"}
	} else {
		t.Log("this machine may map 512 GiB: the N = 1, M = 2^36 call is not made")
	}
	for _, b := range buildAllocHarness(t, dir, llvm, harness) {
		calls := runHarness(t, b, nil, extra...)
		for _, label := range []string{"warm", "again", "third", "nullempty"} {
			if o := calls[label]; o == nil || o.rc != 0 {
				t.Fatalf("%s: call %s failed: %+v", b.name, label, o)
			}
		}
		sameValues(t, b.name+" warm", calls["warm"].values, want)
		sameValues(t, b.name+" again", calls["again"].values, want)
		checkAllocFailure(t, b.name, "nomem", calls["nomem"], allocFailure("f", loc, 1<<45*8))
		checkAllocFailure(t, b.name, "wrap1", calls["wrap1"], allocFailure("f", loc, -1))
		checkAllocFailure(t, b.name, "wrap2", calls["wrap2"], allocFailure("f", loc, -1))
		if extra != nil {
			checkAllocFailure(t, b.name, "issue", calls["issue"], allocFailure("f", loc, 1<<36*8))
		}
		// After the failures the fixed-size temporary's buffer is reused
		// (its slot was given back) and the N x M one allocated anew,
		// once; then both are reused.
		if calls["again"].allocs != 1 || calls["third"].allocs != 0 {
			t.Errorf("%s: the calls after the failures allocated %d and %d buffers, want 1 then 0 (a slot stayed taken?)", b.name, calls["again"].allocs, calls["third"].allocs)
		}
		for label, arg := range map[string]string{"nullb": "two/b", "nullr": "two/result1"} {
			o, c := calls[label], codes[arg]
			if o == nil || o.rc != c.Code || o.msg != c.Static || c.Code == 0 {
				t.Errorf("%s: call %s returned %+v, want code %d %q", b.name, label, o, c.Code, c.Static)
			}
			if calls[label+"-wrote"] != nil {
				t.Errorf("%s: call %s wrote a result before refusing", b.name, label)
			}
		}
	}
}

// A scan swept in rows keeps its partial results in a K x J slab per
// row of I, allocated once per loop (per thread with --threads) from
// the caller's extent M.
const scanSlabTIR = `!col = !tir.tensor<f64, I[0:N], K[0:M], J[0:1]>
tir.func @cum(%a: !col) -> !col {
  %zero = tir.constant 0.0 : f64
  %s = tir.scan forward along K init %zero ins(%a) {
  ^bb0(%acc, %x):
    %t = tir.add %acc, %x
    tir.yield %t
  }
  %x = tir.scan backward along K init %zero ins(%s) {
  ^bb0(%acc, %y):
    %m = tir.mul %acc, %y
    %t = tir.add %m, %y
    tir.yield %t
  }
  tir.return %x : !col
}
`

const scanSlabHarness = `typedef struct { double *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } desc3;
int32_t cum(const desc3 *a, desc3 *r, int64_t N, int64_t M);
const char *cum_error(int32_t);
enum { N = %d, M = %d };
static double a_data[] = %s, r_data[N * M];
static double one = 0.5, sink = 0.0;

static void call(const char *label) {
  desc3 a = {a_data, a_data, 0, {N, M, 1}, {M, 1, 1}};
  desc3 r = {r_data, r_data, 0, {N, M, 1}, {M, 1, 1}};
  int32_t rc = cum(&a, &r, N, M);
  REPORT(label, rc, cum_error);
  if (rc == 0) values(label, r_data, N * M);
}

static void broadcast(const char *label, int64_t n, int64_t m) {
  desc3 a = {&one, &one, 0, {n, m, 1}, {0, 0, 1}};
  desc3 r = {&sink, &sink, 0, {n, m, 1}, {0, 0, 1}};
  int32_t rc = cum(&a, &r, n, m);
  REPORT(label, rc, cum_error);
}

int main(void) {
  call("warm");
  broadcast("nomem", 4, 1LL << 45);
  broadcast("wrap", 4, 1LL << 61);
  call("again");
  return 0;
}
`

// TestAllocFailureScanColumns: the slabs of a scan, allocated per loop
// and, with --threads, per thread of the team inside the outlined loop
// (whose failure reaches the caller through a status word), fail with
// the allocation code and message, give their buffers back, and leave
// the function computing what the interpreter computes.
func TestAllocFailureScanColumns(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "scan.tir", scanSlabTIR)
	fn := loadTIRFunc(t, path, scanSlabTIR)
	const n, m = 3, 5
	syms := map[string]int64{"N": n, "M": m}
	args, inits := filledArgs(t, fn, syms, func(i, k int) float64 { return 0.25 + float64(k%7)*0.125 })
	want := interpValues(t, fn, args, syms)
	harness := allocHarnessPrelude + fmt.Sprintf(scanSlabHarness, n, m, inits[0])
	loc := "scan.tir:" + posOf(t, scanSlabTIR, "%s = tir.scan")
	for _, mode := range []struct {
		name  string
		flags []string
		libs  []string
	}{{"sequential", nil, nil}, {"threads", []string{"--threads"}, []string{"-fopenmp"}}} {
		t.Run(mode.name, func(t *testing.T) {
			llvm := runTCOpt(t, append([]string{"-O2"}, append(mode.flags, path)...)...)
			if !strings.Contains(llvm, "@aligned_alloc(i64 64") || (mode.flags != nil && !strings.Contains(llvm, "status")) {
				t.Fatalf("the scan's slab is not allocated in the loop (or not through a status word with threads):\n%s", llvm)
			}
			sub := filepath.Join(dir, mode.name)
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			for _, b := range buildAllocHarness(t, sub, llvm, harness, mode.libs...) {
				calls := runHarness(t, b, []string{"OMP_NUM_THREADS=2"})
				for _, label := range []string{"warm", "again"} {
					if o := calls[label]; o == nil || o.rc != 0 {
						t.Fatalf("%s: call %s failed: %+v", b.name, label, o)
					}
					sameValues(t, b.name+" "+label, calls[label].values, want)
				}
				checkAllocFailure(t, b.name, "nomem", calls["nomem"], allocFailure("", loc, 1<<45*8))
				checkAllocFailure(t, b.name, "wrap", calls["wrap"], allocFailure("", loc, -1))
			}
		})
	}
}

// Upstream MLIR's memref.alloc: a top-level buffer (kept between calls in
// a slot), a buffer hoisted out of a loop and one allocated in each
// iteration, of a size that grows from the first iteration to the
// second.
const mlirAllocs = `func.func @grid(%n: index, %m: index) {
  %a = memref.alloc(%n) : memref<?xf64>
  affine.for %i = 1 to 3 {
    %one = arith.constant 1 : index
    %four = arith.constant 4 : index
    %first = arith.cmpi eq, %i, %one : index
    %k = arith.select %first, %four, %m : index
    %b = memref.alloc(%n) : memref<?xf64>
    %c = memref.alloc(%k, %n) : memref<?x?xf64>
    memref.dealloc %c : memref<?x?xf64>
    memref.dealloc %b : memref<?xf64>
  }
  memref.dealloc %a : memref<?xf64>
  return
}
`

const mlirAllocsHarness = `int32_t grid(int64_t n, int64_t m);
const char *grid_error(int32_t);
static void call(const char *label, int64_t n, int64_t m) {
  int32_t rc = grid(n, m);
  REPORT(label, rc, grid_error);
}
int main(void) {
  call("warm", 8, 8);
  call("before", 8, 8);
  call("nomem", 8, 1LL << 43);
  call("wrap", 8, 1LL << 62);
  call("after", 8, 8);
  return 0;
}
`

// TestAllocFailureMLIR: a memref.alloc read from upstream MLIR's syntax
// whose constant shape needs 2^63 bytes or more is a located compile
// error; with dynamic sizes the call returns the allocation code, also
// from inside a loop whose first iteration allocated, and what it held
// is given back.
func TestAllocFailureMLIR(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	for _, op := range []string{"memref.alloc", "memref.alloca"} {
		huge := writeFile(t, dir, "huge.mlir", `func.func @huge() {
  %a = `+op+`() : memref<4611686018427387904x4xf64>
  return
}
`)
		var out, errb strings.Builder
		if code := driver.Run([]string{"--convert-to-llvm", huge}, strings.NewReader(""), &out, &errb); code != 1 || !strings.HasPrefix(errb.String(), huge+":2:3: error: ") || !strings.Contains(errb.String(), "2^63 bytes or more") {
			t.Errorf("tc-opt --convert-to-llvm on a 2^62 x 4 x f64 %s: exit %d\n%s\nwant exit 1 and an error at 2:3", op, code, errb.String())
		}
	}
	path := writeFile(t, dir, "grid.mlir", mlirAllocs)
	llvm := runTCOpt(t, "--convert-to-llvm", path)
	loc := "grid.mlir:" + posOf(t, mlirAllocs, "%c = memref.alloc")
	for _, b := range buildAllocHarness(t, dir, llvm, allocHarnessPrelude+mlirAllocsHarness) {
		calls := runHarness(t, b, nil)
		for _, label := range []string{"warm", "before", "after"} {
			if o := calls[label]; o == nil || o.rc != 0 {
				t.Fatalf("%s: call %s failed: %+v", b.name, label, o)
			}
		}
		checkAllocFailure(t, b.name, "nomem", calls["nomem"], allocFailure("", loc, 8<<43*8))
		checkAllocFailure(t, b.name, "wrap", calls["wrap"], allocFailure("", loc, -1))
		// The buffer kept between calls was given back by the failures:
		// a call after them allocates as much as one before them.
		if calls["after"].allocs != calls["before"].allocs {
			t.Errorf("%s: a call after the failures allocated %d buffers, one before them %d", b.name, calls["after"].allocs, calls["before"].allocs)
		}
	}
}

// A 0-d argument (a plain pointer), a 1-d one and a result whose extent
// the data decides, with its shape function f_result_shape_data, which
// checks f's inputs with f's codes.
const nullPointersTIR = `tir.func @pos(%alpha: !tir.tensor<f64>, %x: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[0:?_r_I]> {
  %zero = tir.constant 0.0 : f64
  %m = tir.cmp gt %x, %zero
  %y = tir.mul %alpha, %x
  %r = tir.compress %y, %m along I
  tir.return %r : !tir.tensor<f64, I[0:?_r_I]>
}
`

const nullPointersHarness = `typedef struct { double *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } desc1;
int32_t pos(const double *alpha, const desc1 *x, desc1 *r, int64_t N);
int32_t pos_result_shape_data(const double *alpha, const desc1 *x, int64_t N, int64_t *sizes);
const char *pos_error(int32_t);
enum { N = %d };
static double alpha = 1.5, x_data[] = %s, r_data[N];

static void call(const char *label, int alpha_null, int x_null, int r_null, int64_t n) {
  desc1 x = {x_data, x_null ? NULL : x_data, 0, {n}, {1}};
  int64_t size = -1;
  int32_t rc = pos_result_shape_data(alpha_null ? NULL : &alpha, &x, n, &size);
  char shape[64];
  snprintf(shape, sizeof shape, "%%s-shape", label);
  REPORT(shape, rc, pos_error);
  if (rc != 0) size = n;
  desc1 r = {r_data, r_null ? NULL : r_data, 0, {size}, {1}};
  for (int i = 0; i < N; i++) r_data[i] = -7.0;
  rc = pos(alpha_null ? NULL : &alpha, &x, &r, n);
  REPORT(label, rc, pos_error);
  if (rc == 0) values(label, r_data, size);
  else for (int i = 0; i < N; i++)
    if (r_data[i] != -7.0) { printf("call %%s-wrote 1 0 result written before the refusal\n", label); break; }
}

int main(void) {
  call("ok", 0, 0, 0, N);
  call("alpha", 1, 0, 0, N);
  call("x", 0, 1, 0, N);
  call("result", 0, 0, 1, N);
  call("empty", 0, 1, 1, 0);
  return 0;
}
`

// TestNullDataPointers: a NULL data pointer of a tensor with elements is
// refused before anything is written, with the code and message of its
// argument's pointer check (the same from f and f_result_shape_data); an
// empty tensor may have a NULL pointer.
func TestNullDataPointers(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "pos.tir", nullPointersTIR)
	fn := loadTIRFunc(t, path, nullPointersTIR)
	const n = 7
	syms := map[string]int64{"N": n}
	args, inits := filledArgs(t, fn, syms, func(i, k int) float64 {
		if i == 0 {
			return 1.5
		}
		return float64(k%3) - 0.75
	})
	want := interpValues(t, fn, args, syms)
	llvm := runTCOpt(t, "-O2", path)
	codes := nonNullCodes(t, path, nullPointersTIR)
	harness := allocHarnessPrelude + fmt.Sprintf(nullPointersHarness, n, inits[1])
	for _, b := range buildAllocHarness(t, dir, llvm, harness) {
		calls := runHarness(t, b, nil)
		for _, label := range []string{"ok", "ok-shape", "empty", "empty-shape", "result-shape"} {
			if o := calls[label]; o == nil || o.rc != 0 {
				t.Fatalf("%s: call %s failed: %+v", b.name, label, o)
			}
		}
		sameValues(t, b.name+" ok", calls["ok"].values, want)
		for label, arg := range map[string]string{"alpha": "alpha", "alpha-shape": "alpha", "x": "x", "x-shape": "x", "result": "result"} {
			o, c := calls[label], codes["pos/"+arg]
			if c.Code == 0 || o == nil || o.rc != c.Code || o.msg != c.Static {
				t.Errorf("%s: call %s returned %+v, want code %d %q", b.name, label, o, c.Code, c.Static)
			}
			if calls[label+"-wrote"] != nil {
				t.Errorf("%s: call %s wrote a result before refusing", b.name, label)
			}
		}
	}
}

// One temporary of N x M in a GPU build: the host wrapper allocates it in
// device memory.
const gpuTempTIR = `tir.func @smooth(%a: !tir.tensor<f64, I[0:N], J[0:M], K[0:1]>) -> !tir.tensor<f64, I[0:N], J[1:M - 1], K[0:1]> {
  %kh = tir.sqrt %a
  %l = tir.shift %kh [J - 1]
  %r = tir.shift %kh [J + 1]
  %s = tir.add %l, %r
  tir.return %s : !tir.tensor<f64, I[0:N], J[1:M - 1], K[0:1]>
}
`

const gpuTempHarness = `typedef struct { double *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } desc3;
int32_t smooth(const desc3 *a, desc3 *r, int64_t N, int64_t M);
const char *smooth_error(int32_t);
enum { N = %d, M = %d };
static double a_data[] = %s, r_data[N * (M - 2)];
static double one = 1.0, sink = 0.0;

/* The emulated device's memory is the host's: host arrays are device
   pointers. */
static void call(const char *label, int a_null) {
  desc3 a = {a_data, a_null ? NULL : a_data, 0, {N, M, 1}, {M, 1, 1}};
  desc3 r = {r_data, r_data, 0, {N, M - 2, 1}, {M - 2, 1, 1}};
  int32_t rc = smooth(&a, &r, N, M);
  REPORT(label, rc, smooth_error);
  if (rc == 0) values(label, r_data, N * (M - 2));
}

static void broadcast(const char *label, int64_t n, int64_t m) {
  desc3 a = {&one, &one, 0, {n, m, 1}, {0, 0, 1}};
  desc3 r = {&sink, &sink, 0, {n, m - 2, 1}, {0, 0, 1}};
  int32_t rc = smooth(&a, &r, n, m);
  REPORT(label, rc, smooth_error);
}

int main(void) {
  call("warm", 0);
  broadcast("nomem", 1, 1LL << 45);
  broadcast("wrap1", 1, 1LL << 61);
  broadcast("wrap2", 1LL << 31, 1LL << 31);
  call("again", 0);
  call("null", 1);
  return 0;
}
`

// TestAllocFailureCUDAHostEmulated: the CUDA host wrapper, run with the
// driver emulator, checks a temporary's byte count before cuMemAlloc and
// reports a failed cuMemAlloc with the CPU build's code and message
// (followed by the driver's error), frees what it allocated, and refuses
// a NULL device pointer as the CPU build does.
func TestAllocFailureCUDAHostEmulated(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "kh.tir", gpuTempTIR)
	fn := loadTIRFunc(t, path, gpuTempTIR)
	const n, m = 3, 6
	syms := map[string]int64{"N": n, "M": m}
	args, inits := filledArgs(t, fn, syms, func(i, k int) float64 { return 1 + float64(k)*0.625 })
	want := interpValues(t, fn, args, syms)
	gm, err := native.CompileModule(path, gpuTempTIR, 2, "nvptx64")
	if err != nil {
		t.Fatal(err)
	}
	prog, err := native.BuildGPU(gm, fn, dir, native.GPUOptions{Emulate: true})
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.ReadFile(filepath.Join(dir, "host.c"))
	if err != nil || !strings.Contains(string(host), "cuMemAlloc(p, (size_t)bytes)") {
		t.Fatalf("the host wrapper does not allocate its temporary (%v)", err)
	}
	src := writeFile(t, dir, "harness.c", allocHarnessPrelude+fmt.Sprintf(gpuTempHarness, n, m, inits[0]))
	exe := filepath.Join(dir, "harness")
	run(t, "gcc", "-O1", "-Wall", "-Werror", src, filepath.Join(dir, "host.o"), "-o", exe, "-Wl,--wrap=aligned_alloc", "-ldl", "-lpthread", "-lm")
	calls := runHarness(t, harnessBuild{name: "emulated", exe: exe, env: prog.Env}, nil)
	for _, label := range []string{"warm", "again"} {
		if o := calls[label]; o == nil || o.rc != 0 {
			t.Fatalf("call %s failed: %+v", label, o)
		}
		sameValues(t, label, calls[label].values, want)
	}
	loc := regexp.QuoteMeta("kh.tir:" + posOf(t, gpuTempTIR, "%kh = tir.sqrt"))
	name := `^cannot allocate temporary '[A-Za-z_][A-Za-z0-9_.]*' \(` + loc + `\): `
	checkAllocFailure(t, "emulated", "nomem", calls["nomem"], regexp.MustCompile(name+strconv.FormatInt(1<<45*8, 10)+` bytes \(cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY \(`))
	checkAllocFailure(t, "emulated", "wrap1", calls["wrap1"], regexp.MustCompile(name+`2\^63 bytes or more$`))
	checkAllocFailure(t, "emulated", "wrap2", calls["wrap2"], regexp.MustCompile(name+`2\^63 bytes or more$`))
	c := nonNullCodes(t, path, gpuTempTIR)["smooth/a"]
	if o := calls["null"]; c.Code == 0 || o == nil || o.rc != c.Code || o.msg != c.Static {
		t.Errorf("a NULL device pointer: %+v, want code %d %q", o, c.Code, c.Static)
	}
}
