package randprog

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower/abi"
	"tir/passes"
	"tir/tools/native"
)

// Mode is one way of compiling and running the programs.
type Mode struct {
	Name     string
	Level    int
	GPU      bool   // the nvptx64 pipeline, kernels run by the CUDA driver emulator
	Pipeline string // a CPU pipeline instead of -O<Level>
}

// MaterializeAll is -O2 with tir-temporaries at threshold 0: every value
// read at several points lives in a temporary (test/semantics_test.go).
const MaterializeAll = "builtin.module(tir-inline,canonicalize,cse,tir.func(tir-temporaries{threshold=0}),convert-tir-to-affine," +
	"func.func(affine-licm,affine-scalar-replace,affine-vectorize{width=8}),convert-to-llvm)"

// Recomputed is -O2 with every temporary that tir-temporaries versions on
// its size (recompute-above) recomputed: the test picks the fused version
// at every size but empty.
var Recomputed = recomputedPipeline()

func recomputedPipeline() string {
	p, err := passes.OptPipeline(2, "x86_64")
	if err == nil {
		_, err = p.SetOption("tir-temporaries", "recompute-above", "1")
	}
	if err != nil {
		panic(err)
	}
	return p.String()
}

// Modes are every mode the tests compare with the interpreter.
var Modes = []Mode{
	{Name: "O0", Level: 0},
	{Name: "O1", Level: 1},
	{Name: "O2", Level: 2},
	{Name: "O3", Level: 3},
	{Name: "materialized", Pipeline: MaterializeAll},
	{Name: "recomputed", Pipeline: Recomputed},
	{Name: "gpu-O0", Level: 0, GPU: true},
	{Name: "gpu-O2", Level: 2, GPU: true},
}

// Case is a generated program ready to run: its function parsed alone,
// its arguments and the interpreter's results.
type Case struct {
	P    *Program
	Fn   *ir.Operation
	Args []*interp.Tensor
	Want []*interp.Tensor
	// WantErr is the interpreter's error message ("" when it ran).
	WantErr string
}

// Outcome is what compiled code did with one case.
type Outcome struct {
	Got []*interp.Tensor
	Err string // the function's error message, or how the run failed
	// Crash: the run did not end with a result or a diagnosed error
	// (a signal, a bad status, unreadable results).
	Crash bool
}

// NewCase parses a program alone and runs the interpreter on it.
func NewCase(p *Program) (c *Case, err error) {
	m, diags := native.Load(p.Name+".tir", p.Text)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the generated program does not compile: %v", diags)
	}
	c = &Case{P: p}
	for _, op := range m.Body().Ops {
		if op.Is(tir.Func) {
			c.Fn = op
		}
	}
	if c.Fn == nil {
		return nil, fmt.Errorf("no tir.func")
	}
	if c.Args, err = p.Args(c.Fn); err != nil {
		return nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("interpreter panic: %v", r)
		}
	}()
	c.Want, err = interp.Run(c.Fn, c.Args, p.Syms)
	if err != nil {
		c.WantErr = message(err)
	}
	return c, nil
}

// message is an error's text without a location (the compiled code's
// messages have none).
func message(err error) string {
	var d *ir.Diagnostic
	if errors.As(err, &d) {
		return d.Msg
	}
	return err.Error()
}

// Compile runs a mode's pipeline on a module of programs.
func (m Mode) Compile(path, src string) (llvm string, gpu *ir.Module, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	switch {
	case m.GPU:
		gpu, err = native.CompileModule(path, src, m.Level, "nvptx64")
	case m.Pipeline != "":
		var p *passes.Pipeline
		if p, err = passes.ParsePipeline(m.Pipeline); err == nil {
			llvm, err = native.CompileWith(path, src, p)
		}
	default:
		llvm, err = native.Compile(path, src, m.Level, "x86_64")
	}
	return llvm, gpu, err
}

// Batch is several cases compiled as one module, so that llc and gcc run
// once per mode for all of them (a program each would spend nearly all
// its time starting the toolchain).
type Batch struct {
	Cases []*Case
	Dir   string
	// Timeout bounds one run of the batch executable.
	Timeout time.Duration
}

func (b *Batch) source(cases []*Case) string {
	var s strings.Builder
	for _, c := range cases {
		s.WriteString(c.P.Text)
	}
	return s.String()
}

// BuildFailure is a case that a mode could not compile or build alone
// (tc-opt's pipeline fails, or llc or gcc reject what it made).
type BuildFailure struct {
	Case *Case
	Err  error
}

// Run compiles the batch for a mode and runs every case. Cases the mode
// cannot compile are found one by one and returned as failures; the
// others get an outcome (nil for failures).
func (b *Batch) Run(m Mode) ([]*Outcome, []BuildFailure, error) {
	dir := filepath.Join(b.Dir, m.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	cases := b.Cases
	var failures []BuildFailure
	path := filepath.Join(dir, "batch.tir")
	llvm, gm, err := m.Compile(path, b.source(cases))
	if err != nil {
		// Find the cases that fail alone and leave them out.
		var ok []*Case
		for _, c := range cases {
			if _, _, err := m.Compile(filepath.Join(dir, c.P.Name+".tir"), c.P.Text); err != nil {
				failures = append(failures, BuildFailure{c, err})
			} else {
				ok = append(ok, c)
			}
		}
		if len(ok) == 0 {
			return make([]*Outcome, len(b.Cases)), failures, nil
		}
		cases = ok
		if llvm, gm, err = m.Compile(path, b.source(cases)); err != nil {
			return nil, failures, fmt.Errorf("%s: the batch does not compile, its programs do one by one: %v", m.Name, err)
		}
	}
	exe, env, ref, err := b.build(m, dir, cases, llvm, gm)
	if err != nil {
		// Find the cases that do not build alone (llc or gcc reject what
		// tc-opt made) and leave them out.
		var ok []*Case
		for i, c := range cases {
			d := filepath.Join(dir, fmt.Sprintf("alone%d", i))
			if err := os.MkdirAll(d, 0o755); err != nil {
				return nil, failures, err
			}
			l, g, err := m.Compile(filepath.Join(d, c.P.Name+".tir"), c.P.Text)
			if err == nil {
				_, _, _, err = b.build(m, d, []*Case{c}, l, g)
			}
			if err != nil {
				failures = append(failures, BuildFailure{c, err})
			} else {
				ok = append(ok, c)
			}
		}
		if len(ok) == 0 {
			return make([]*Outcome, len(b.Cases)), failures, nil
		}
		cases = ok
		if llvm, gm, err = m.Compile(path, b.source(cases)); err != nil {
			return nil, failures, err
		}
		if exe, env, ref, err = b.build(m, dir, cases, llvm, gm); err != nil {
			return nil, failures, fmt.Errorf("%s: the batch does not build, its programs do one by one: %v", m.Name, err)
		}
	}
	if err := b.writeInputs(); err != nil {
		return nil, failures, err
	}
	outDir := filepath.Join(dir, "out")
	for k := range cases {
		if err := os.MkdirAll(filepath.Join(outDir, strconv.Itoa(k)), 0o755); err != nil {
			return nil, failures, err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.timeout())
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, filepath.Join(b.Dir, "in"), outDir)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, failures, fmt.Errorf("%s: the batch driver failed: %v\n%s", m.Name, err, out)
	}
	index := map[*Case]int{}
	for i, c := range b.Cases {
		index[c] = i
	}
	outs := make([]*Outcome, len(b.Cases))
	for k, c := range cases {
		outs[index[c]] = readOutcome(filepath.Join(outDir, strconv.Itoa(k)), c)
	}
	// The first case also runs through tools/native's own driver: the
	// batch driver must get exactly what it gets.
	c0 := cases[0]
	got, _, err := ref.Run(c0.Args, c0.P.Syms, 1)
	o := outs[index[c0]]
	if err != nil {
		if !o.Crash && o.Err != message(err) {
			return nil, failures, fmt.Errorf("%s: @%s: tools/native's driver fails with %q, the batch driver gives %q", m.Name, c0.P.Name, message(err), o.Err)
		}
	} else if o.Err != "" || o.Crash {
		return nil, failures, fmt.Errorf("%s: @%s: tools/native's driver runs it, the batch driver gives %q", m.Name, c0.P.Name, o.Err)
	} else if !identical(got, o.Got) {
		return nil, failures, fmt.Errorf("%s: @%s: tools/native's driver and the batch driver get different results", m.Name, c0.P.Name)
	}
	return outs, failures, nil
}

// identical compares two runs' results bit for bit, every point: a point
// the interpreter masks holds 0 in compiled code too (docs/tir.md).
func identical(a, b []*interp.Tensor) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Len() != b[i].Len() || len(a[i].F64) != len(b[i].F64) || len(a[i].I64) != len(b[i].I64) {
			return false
		}
		for k := range a[i].F64 {
			if math.Float64bits(a[i].F64[k]) != math.Float64bits(b[i].F64[k]) {
				return false
			}
		}
		for k := range a[i].I64 {
			if a[i].I64[k] != b[i].I64[k] {
				return false
			}
		}
	}
	return true
}

func (b *Batch) timeout() time.Duration {
	if b.Timeout > 0 {
		return b.Timeout
	}
	return 5 * time.Minute
}

// build compiles the module through tools/native (Build or BuildGPU with
// the first case's function, which also checks the object and the host
// wrapper the way tc-run builds them) and links the batch driver with the
// object it made.
func (b *Batch) build(m Mode, dir string, cases []*Case, llvm string, gm *ir.Module) (exe string, env []string, ref *native.Program, err error) {
	var obj string
	libs := []string{"-lm"}
	if m.GPU {
		ref, err = native.BuildGPU(gm, cases[0].Fn, dir, native.GPUOptions{Emulate: true})
		obj, libs = filepath.Join(dir, "host.o"), []string{"-ldl", "-lpthread", "-lm"}
	} else {
		ref, err = native.Build(llvm, cases[0].Fn, dir)
		obj = filepath.Join(dir, "module.o")
	}
	if err != nil {
		return "", nil, nil, fmt.Errorf("%s: %v", m.Name, err)
	}
	if _, err := os.Stat(obj); err != nil {
		return "", nil, nil, fmt.Errorf("%s: the object tools/native built is not where it was expected: %v", m.Name, err)
	}
	src, err := driverSource(cases, m.GPU)
	if err != nil {
		return "", nil, nil, err
	}
	c := filepath.Join(dir, "batch.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		return "", nil, nil, err
	}
	exe = filepath.Join(dir, "batch")
	args := append([]string{"-O0", "-o", exe, c, obj}, libs...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		return "", nil, nil, fmt.Errorf("%s: gcc: %v\n%s", m.Name, err, out)
	}
	return exe, ref.Env, ref, nil
}

// writeInputs writes every case's arguments, symbol values and result
// extents under Dir/in/K (once per batch).
func (b *Batch) writeInputs() error {
	in := filepath.Join(b.Dir, "in")
	if _, err := os.Stat(in); err == nil {
		return nil
	}
	tmp := in + ".tmp"
	for _, c := range b.Cases {
		d := filepath.Join(tmp, c.P.Name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		for i, a := range c.Args {
			if err := native.WriteTensor(filepath.Join(d, fmt.Sprintf("in%d.bin", i)), a); err != nil {
				return err
			}
		}
		var syms []string
		for _, s := range interp.Symbols(c.Fn) {
			syms = append(syms, strconv.FormatInt(c.P.Syms[s], 10))
		}
		if err := os.WriteFile(filepath.Join(d, "syms.txt"), []byte(strings.Join(syms, " ")+"\n"), 0o644); err != nil {
			return err
		}
		ft, _ := tir.FuncType(c.Fn)
		var shape bytes.Buffer
		for _, r := range ft.Results {
			rt, _ := tir.AsTensor(r)
			dims, err := interp.EvalDims(rt, c.P.Syms)
			if err != nil {
				return err
			}
			for _, d := range dims {
				binary.Write(&shape, binary.LittleEndian, d.Extent())
			}
		}
		if err := os.WriteFile(filepath.Join(d, "outshape.bin"), shape.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return os.Rename(tmp, in)
}

func readOutcome(dir string, c *Case) *Outcome {
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	stderr, _ := os.ReadFile(filepath.Join(dir, "stderr"))
	msg := strings.TrimSpace(string(stderr))
	if err != nil {
		return &Outcome{Crash: true, Err: "no status: " + msg}
	}
	switch st := strings.TrimSpace(string(status)); st {
	case "exit 0":
	case "exit 3":
		return &Outcome{Err: msg}
	default:
		return &Outcome{Crash: true, Err: st + ": " + msg}
	}
	ft, _ := tir.FuncType(c.Fn)
	o := &Outcome{}
	for i, r := range ft.Results {
		rt, _ := tir.AsTensor(r)
		dims, err := interp.EvalDims(rt, c.P.Syms)
		if err == nil {
			var t *interp.Tensor
			if t, err = native.ReadTensor(filepath.Join(dir, fmt.Sprintf("out%d.bin", i)), rt.Elem, dims); err == nil {
				o.Got = append(o.Got, t)
				continue
			}
		}
		return &Outcome{Crash: true, Err: err.Error()}
	}
	return o
}

// Verdict compares an outcome with the interpreter: "" when they agree
// (on every point, a masked one holding 0, or the same run-time error),
// else what differs.
func (c *Case) Verdict(o *Outcome) string {
	switch {
	case o.Crash:
		return "crash: " + o.Err
	case c.WantErr != "" || o.Err != "":
		if c.WantErr != o.Err {
			return fmt.Sprintf("errors differ: interpreter %q, compiled %q", c.WantErr, o.Err)
		}
		return ""
	}
	d, err := native.Compare(o.Got, c.Want)
	if err != nil {
		return err.Error()
	}
	if d.Mismatch > 0 {
		return fmt.Sprintf("%d of %d elements differ: %s", d.Mismatch, d.Compared, d.Where)
	}
	return ""
}

// The files the driver exchanges are those of tools/native: int64 rank,
// int64 extents, then the elements, little-endian.

// cType is the C type of an element the driver exchanges: the ABI's
// (abi.CTypeOf), for the element types its files hold (no 16-bit floats).
func cType(t ir.Type) (abi.CType, error) {
	if ft, ok := t.(ir.FloatType); ok && ft.Name != "f32" && ft.Name != "f64" {
		return abi.CType{}, fmt.Errorf("element type %s does not cross the ABI here", t)
	}
	return abi.CTypeOf(t)
}

// driverSource is a C program that runs every case of a batch through the
// C ABI (docs/abi.md), each in a child process: argv[1] holds the inputs
// (K/in*.bin, K/syms.txt, K/outshape.bin by program name), argv[2]
// receives K/out*.bin, K/stderr and K/status ("exit N" or "signal N") by
// position.
func driverSource(cases []*Case, gpu bool) (string, error) {
	var b strings.Builder
	b.WriteString(`#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>

static void rpd_die(const char *m) { fprintf(stderr, "%s\n", m); exit(4); }
static void *rpd_read_arr(const char *dir, const char *name, int rank, int64_t *sizes, size_t esize) {
  char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb"); if (!f) rpd_die("cannot open an input file");
  int64_t r; if (fread(&r, 8, 1, f) != 1 || r != rank) rpd_die("bad input rank");
  size_t n = 1;
  for (int i = 0; i < rank; i++) { if (fread(&sizes[i], 8, 1, f) != 1) rpd_die("bad input header"); n *= (size_t)sizes[i]; }
  /* No buffer for an empty tensor: a read of one crashes. */
  void *p = n ? malloc(n * esize) : NULL;
  if (n && fread(p, esize, n, f) != n) rpd_die("short input file");
  fclose(f); return p;
}
static void rpd_write_arr(const char *dir, const char *name, int rank, const int64_t *sizes, const void *data, size_t esize) {
  char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb"); if (!f) rpd_die("cannot write an output file");
  int64_t r = rank; fwrite(&r, 8, 1, f); size_t n = 1;
  for (int i = 0; i < rank; i++) { fwrite(&sizes[i], 8, 1, f); n *= (size_t)sizes[i]; }
  if (n) fwrite(data, esize, n, f);
  fclose(f);
}
static size_t rpd_count(int rank, const int64_t *sizes) {
  size_t n = 1; for (int i = 0; i < rank; i++) n *= (size_t)sizes[i]; return n;
}
static void rpd_strides(int rank, const int64_t *sizes, int64_t *st) {
  int64_t s = 1; for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= sizes[i]; }
}
static void rpd_read_shape(const char *dir, int64_t *osz, int n) {
  char path[4096]; snprintf(path, sizeof path, "%s/outshape.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f || (n && fread(osz, 8, (size_t)n, f) != (size_t)n)) rpd_die("bad result shape file");
  fclose(f);
}
`)
	if gpu {
		b.WriteString(gpuMemory)
	} else {
		b.WriteString(cpuMemory)
	}
	for k, c := range cases {
		if err := runner(&b, k, c); err != nil {
			return "", err
		}
	}
	fmt.Fprintf(&b, "\nstatic int (*const rpd_runners[])(const char *, const char *, const int64_t *) = {")
	for k := range cases {
		fmt.Fprintf(&b, "rpd_run%d, ", k)
	}
	b.WriteString("};\nstatic const char *const rpd_names[] = {")
	for _, c := range cases {
		fmt.Fprintf(&b, "%q, ", c.P.Name)
	}
	fmt.Fprintf(&b, "};\n\nint main(int argc, char **argv) {\n  if (argc != 3) rpd_die(\"usage: batch IN OUT\");\n  for (int k = 0; k < %d; k++) {\n", len(cases))
	b.WriteString(`    char in[4096], out[4096], path[4096];
    snprintf(in, sizeof in, "%s/%s", argv[1], rpd_names[k]);
    snprintf(out, sizeof out, "%s/%d", argv[2], k);
    int64_t s[16] = {0};
    snprintf(path, sizeof path, "%s/syms.txt", in);
    FILE *f = fopen(path, "r"); if (!f) rpd_die("no syms.txt");
    for (int i = 0; i < 16 && fscanf(f, "%lld", (long long *)&s[i]) == 1; i++) {}
    fclose(f);
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) rpd_die("fork failed");
    if (pid == 0) {
      snprintf(path, sizeof path, "%s/stderr", out);
      if (!freopen(path, "w", stderr)) _exit(5);
      alarm(60);
      int rc = rpd_runners[k](in, out, s);
      fflush(stderr);
      _exit(rc);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0) rpd_die("waitpid failed");
    snprintf(path, sizeof path, "%s/status", out);
    f = fopen(path, "w"); if (!f) rpd_die("cannot write a status");
    if (WIFEXITED(st)) fprintf(f, "exit %d\n", WEXITSTATUS(st));
    else fprintf(f, "signal %d\n", WTERMSIG(st));
    fclose(f);
  }
  return 0;
}
`)
	return b.String(), nil
}

// runner writes runK, which calls one function like tools/native's
// driver does: descriptors over malloc'd (or device) buffers, the
// result_shape check, the call, the error message on failure (exit 3).
func runner(b *strings.Builder, k int, c *Case) error {
	ft, ok := tir.FuncType(c.Fn)
	if !ok {
		return fmt.Errorf("not a tir.func")
	}
	name := ir.SymbolName(c.Fn)
	syms := interp.Symbols(c.Fn)
	all := append(append([]ir.Type(nil), ft.Inputs...), ft.Results...)
	var params []string
	for range all {
		params = append(params, "void *")
	}
	for range syms {
		params = append(params, "int64_t")
	}
	var rsParams []string
	for range syms {
		rsParams = append(rsParams, "int64_t")
	}
	rsParams = append(rsParams, "int64_t *")
	fmt.Fprintf(b, "\nextern int32_t rpd_f%d(%s) __asm__(%q);\n", k, strings.Join(params, ", "), name)
	fmt.Fprintf(b, "extern const char *rpd_f%d_error(int32_t) __asm__(%q);\n", k, name+"_error")
	fmt.Fprintf(b, "extern int32_t rpd_f%d_rs(%s) __asm__(%q);\n", k, strings.Join(rsParams, ", "), name+"_result_shape")
	fmt.Fprintf(b, "static int rpd_run%d(const char *in, const char *out, const int64_t *s) {\n", k)
	totalOut := 0
	for _, t := range ft.Results {
		tt, _ := tir.AsTensor(t)
		totalOut += tt.Rank()
	}
	fmt.Fprintf(b, "  int64_t osz[%d], rsz[%d];\n  rpd_read_shape(in, osz, %d);\n", totalOut+1, totalOut+1, totalOut)
	var symArgs []string
	for i := range syms {
		symArgs = append(symArgs, fmt.Sprintf("s[%d]", i))
	}
	fmt.Fprintf(b, "  if (rpd_f%d_rs(%s) == 0)\n    for (int i = 0; i < %d; i++) if (rsz[i] != osz[i]) rpd_die(\"%s_result_shape disagrees with the result types\");\n",
		k, strings.Join(append(append([]string(nil), symArgs...), "rsz"), ", "), totalOut, name)
	var call []string
	off := 0
	for i, t := range all {
		tt, _ := tir.AsTensor(t)
		c, err := cType(tt.Elem)
		if err != nil {
			return err
		}
		size, ct := c.Size, c.Name
		r := tt.Rank()
		isOut := i >= len(ft.Inputs)
		v := fmt.Sprintf("a%d", i)
		if r == 0 {
			if isOut {
				fmt.Fprintf(b, "  %s *%s = rpd_dev_out(%d);\n", ct, v, size)
			} else {
				fmt.Fprintf(b, "  int64_t %s_sz[1]; %s *%s = rpd_dev_in(rpd_read_arr(in, \"in%d.bin\", 0, %s_sz, %d), %d);\n", v, ct, v, i, v, size, size)
			}
			call = append(call, v)
			continue
		}
		fmt.Fprintf(b, "  struct { void *allocated, *aligned; int64_t offset, sizes[%d], strides[%d]; } %s = {0};\n", r, r, v)
		if isOut {
			fmt.Fprintf(b, "  for (int i = 0; i < %d; i++) %s.sizes[i] = osz[%d + i];\n", r, v, off)
			fmt.Fprintf(b, "  %s.allocated = %s.aligned = rpd_dev_out(rpd_count(%d, %s.sizes) * %d);\n", v, v, r, v, size)
			off += r
		} else {
			fmt.Fprintf(b, "  %s.allocated = rpd_read_arr(in, \"in%d.bin\", %d, %s.sizes, %d);\n", v, i, r, v, size)
			fmt.Fprintf(b, "  %s.allocated = %s.aligned = rpd_dev_in(%s.allocated, rpd_count(%d, %s.sizes) * %d);\n", v, v, v, r, v, size)
		}
		fmt.Fprintf(b, "  rpd_strides(%d, %s.sizes, %s.strides);\n", r, v, v)
		call = append(call, "&"+v)
	}
	fmt.Fprintf(b, "  int32_t rc = rpd_f%d(%s);\n", k, strings.Join(append(call, symArgs...), ", "))
	fmt.Fprintf(b, "  if (rc != 0) { fprintf(stderr, \"%%s\\n\", rpd_f%d_error(rc)); return 3; }\n", k)
	for i, t := range ft.Results {
		tt, _ := tir.AsTensor(t)
		c, _ := cType(tt.Elem)
		size := c.Size
		j := len(ft.Inputs) + i
		if tt.Rank() == 0 {
			fmt.Fprintf(b, "  rpd_write_arr(out, \"out%d.bin\", 0, 0, rpd_host_of(a%d, %d), %d);\n", i, j, size, size)
		} else {
			fmt.Fprintf(b, "  rpd_write_arr(out, \"out%d.bin\", %d, a%d.sizes, rpd_host_of(a%d.aligned, rpd_count(%d, a%d.sizes) * %d), %d);\n", i, tt.Rank(), j, j, tt.Rank(), j, size, size)
		}
	}
	b.WriteString("  return 0;\n}\n")
	return nil
}

// cpuMemory: buffers in host memory.
const cpuMemory = `static void *rpd_dev_in(void *host, size_t n) { (void)n; return host; }
static void *rpd_dev_out(size_t n) { return n ? malloc(n) : NULL; }
static void *rpd_host_of(void *dev, size_t n) { (void)n; return dev; }
`

// gpuMemory: buffers in device memory through the CUDA driver API (here
// the emulator TIR_CUDA_DRIVER names), whose primary context the host
// wrapper shares; each child process initializes it.
const gpuMemory = `#include <dlfcn.h>
typedef unsigned long long dptr;
static int (*rpd_d_alloc)(dptr *, size_t);
static int (*rpd_d_htod)(dptr, const void *, size_t);
static int (*rpd_d_dtoh)(void *, dptr, size_t);
static void rpd_dev_setup(void) {
  static int done;
  if (done) return;
  done = 1;
  const char *lib = getenv("TIR_CUDA_DRIVER");
  if (!lib || !*lib) lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) rpd_die("no CUDA driver");
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int (*get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
  int (*retain)(void **, int) = (int (*)(void **, int))dlsym(h, "cuDevicePrimaryCtxRetain");
  int (*set)(void *) = (int (*)(void *))dlsym(h, "cuCtxSetCurrent");
  *(void **)&rpd_d_alloc = dlsym(h, "cuMemAlloc_v2");
  *(void **)&rpd_d_htod = dlsym(h, "cuMemcpyHtoD_v2");
  *(void **)&rpd_d_dtoh = dlsym(h, "cuMemcpyDtoH_v2");
  int dev = 0; void *ctx = 0;
  if (!init || !get || !retain || !set || !rpd_d_alloc || !rpd_d_htod || !rpd_d_dtoh || init(0) || get(&dev, 0) || retain(&ctx, dev) || set(ctx))
    rpd_die("cannot initialize the CUDA driver");
}
static void *rpd_dev_out(size_t n) {
  rpd_dev_setup();
  dptr d;
  if (rpd_d_alloc(&d, n ? n : 1)) rpd_die("cuMemAlloc failed");
  return (void *)(uintptr_t)d;
}
static void *rpd_dev_in(void *host, size_t n) {
  void *d = rpd_dev_out(n);
  if (n && rpd_d_htod((dptr)(uintptr_t)d, host, n)) rpd_die("cuMemcpyHtoD failed");
  return d;
}
static void *rpd_host_of(void *dev, size_t n) {
  void *h = malloc(n ? n : 1);
  if (n && rpd_d_dtoh(h, (dptr)(uintptr_t)dev, n)) rpd_die("cuMemcpyDtoH failed");
  return h;
}
`
