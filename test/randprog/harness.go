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
	"tir/passes"
	"tir/tools/cdriver"
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

// driverSource is the C program that runs every case of a batch through
// the C ABI (tools/cdriver's batch driver), each in a child process:
// argv[1] holds the inputs (K/in*.bin, K/syms.txt, K/outshape.bin by
// program name), argv[2] receives K/out*.bin, K/stderr and K/status
// ("exit N" or "signal N") by position.
func driverSource(cases []*Case, gpu bool) (string, error) {
	d := cdriver.Driver{Alloc: cdriver.Malloc, GPU: gpu}
	for _, c := range cases {
		f, err := cdriver.FuncOf(c.Fn)
		if err != nil {
			return "", err
		}
		d.Funcs = append(d.Funcs, f)
		d.Batch = append(d.Batch, c.P.Name)
	}
	return cdriver.Source(d)
}
