// Package native compiles a lowered tir function to machine code with the
// system toolchain (llc from LLVM 14, then gcc with a generated C driver)
// and runs it on interpreter tensors. It is how tc-run's compiled mode,
// the end-to-end tests and the benchmarks call compiled code: through the
// C ABI of spec 5.1, exactly as a user's C program would.
package native

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
	"time"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower/abi"
	"tir/lower/tollvm"
	"tir/tools/cdriver"
	"tir/tools/emit"
)

// Tool finds an LLVM 14 tool: NAME-14 on PATH, /usr/lib/llvm-14/bin/NAME,
// then NAME (the environment variable TIR_NAME, e.g. TIR_LLC, overrides).
func Tool(name string) (string, error) {
	if p := os.Getenv("TIR_" + strings.ToUpper(name)); p != "" {
		return p, nil
	}
	for _, c := range []string{name + "-14", "/usr/lib/llvm-14/bin/" + name, name} {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s (LLVM 14) not found: install llvm-14 (make deps)", name)
}

// Program is a compiled function with its C driver.
type Program struct {
	Dir  string
	Exe  string
	fn   *ir.Operation
	ft   ir.FunctionType
	syms []string
	// gpu: the function is a GPU build (buffers in device memory through
	// the CUDA driver API); Env is added to the environment of runs (the
	// driver library to use).
	gpu bool
	Env []string
	// symbol is the function's symbol in the built object when it was
	// renamed there (hideLibraryName), else "".
	symbol string
	// asan: the code is instrumented with AddressSanitizer and the driver
	// allocates every buffer at its exact size (BuildOptions.ASan).
	asan bool
	// openmp: the code calls libgomp (--threads); the driver is linked
	// with it and reports its thread count, and runs get the wait policy
	// of WaitPolicyEnv.
	openmp bool
}

// Build compiles the LLVM IR of a module that defines fn's lowering into
// an executable under dir.
func Build(llvmIR string, fn *ir.Operation, dir string) (*Program, error) {
	return BuildWith(llvmIR, fn, dir, BuildOptions{})
}

// BuildWith is Build with options (AddressSanitizer).
func BuildWith(llvmIR string, fn *ir.Operation, dir string, opts BuildOptions) (*Program, error) {
	ft, ok := tir.FuncType(fn)
	if !ok {
		return nil, fmt.Errorf("not a tir.func")
	}
	p := &Program{Dir: dir, fn: fn, ft: ft, syms: interp.Symbols(fn), asan: opts.ASan, openmp: tollvm.UsesOpenMP(llvmIR)}
	llc, err := Tool("llc")
	if err != nil {
		return nil, err
	}
	ll := filepath.Join(dir, "module.ll")
	obj := filepath.Join(dir, "module.o")
	if err := os.WriteFile(ll, []byte(llvmIR), 0o644); err != nil {
		return nil, err
	}
	if opts.ASan {
		if ll, err = instrumentASan(ll, llvmIR); err != nil {
			return nil, err
		}
		p.Env = asanEnv()
	}
	if out, err := exec.Command(llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("llc: %v\n%s", err, out)
	}
	if err := p.hideLibraryName(obj); err != nil {
		return nil, err
	}
	src, err := p.driver()
	if err != nil {
		return nil, err
	}
	c := filepath.Join(dir, "driver.c")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		return nil, err
	}
	p.Exe = filepath.Join(dir, "run")
	link := []string{"-O2", "-o", p.Exe, c, obj, "-lm"}
	if opts.ASan {
		link = append(asanLinkFlags, link...)
	}
	if p.openmp {
		// Parallel loops run through GNU OpenMP's runtime (docs/abi.md).
		link = append(link, "-fopenmp")
	}
	if out, err := exec.Command("gcc", link...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("gcc: %v\n%s", err, out)
	}
	return p, nil
}

// hideLibraryName renames, in the object that defines the function, a
// symbol that is also a C library function (malloc, exit, fopen, abs): in
// an executable, the definition would replace the library's for the whole
// process, the driver's own calls included. The driver calls the renamed
// symbol; f_error and f_result_shape keep their names. (The compiled
// module never calls a function of the same name: tollvm rejects that.)
func (p *Program) hideLibraryName(obj string) error {
	name := ir.SymbolName(p.fn)
	if !emit.CLibraryName(name) {
		return nil
	}
	objcopy, err := Tool("llvm-objcopy")
	if err != nil {
		return err
	}
	p.symbol = "tir_entry_" + name
	if out, err := exec.Command(objcopy, "--redefine-sym", name+"="+p.symbol, obj).CombinedOutput(); err != nil {
		return fmt.Errorf("llvm-objcopy: %v\n%s", err, out)
	}
	return nil
}

// ctype is the C type of a scalar element type and its size in bytes
// (abi.CTypeOf, which the C header uses too).
func ctype(t ir.Type) (string, int, error) {
	c, err := abi.CTypeOf(t)
	return c.Name, c.Size, err
}

// Timing is what a run measured.
type Timing struct {
	Median time.Duration
	Reps   int
	// CopyMedian is, for GPU builds, the median time of a device-to-device
	// copy moving as many bytes as the function's compulsory traffic
	// (half read, half written), measured in the same run.
	CopyMedian time.Duration
	// Threads is the most threads a parallel loop of the run could use:
	// libgomp's omp_get_max_threads() in the driver for a build that
	// calls it, else 1.
	Threads int
}

// Run executes the compiled function reps times (at least once) on args
// (in signature order) with the symbol values, and returns its results.
func (p *Program) Run(args []*interp.Tensor, syms map[string]int64, reps int) ([]*interp.Tensor, Timing, error) {
	if reps < 1 {
		reps = 1
	}
	argv, resultDims, err := p.prepare(args, syms, reps)
	if err != nil {
		return nil, Timing{}, err
	}
	stdout, err := p.exec(argv, nil)
	if err != nil {
		return nil, Timing{}, err
	}
	fields := strings.Fields(stdout)
	var ns, copyNS int64
	threads := 1
	if len(fields) > 0 {
		ns, _ = strconv.ParseInt(fields[0], 10, 64)
	}
	if len(fields) > 1 {
		copyNS, _ = strconv.ParseInt(fields[1], 10, 64)
	}
	if len(fields) > 2 {
		threads, _ = strconv.Atoi(fields[2])
	}
	if err := p.resolveResultDims(args, syms, resultDims); err != nil {
		return nil, Timing{}, err
	}
	var outs []*interp.Tensor
	for i, r := range p.ft.Results {
		rt, _ := tir.AsTensor(r)
		t, err := ReadTensor(filepath.Join(p.Dir, fmt.Sprintf("out%d.bin", i)), rt.Elem, resultDims[i])
		if err != nil {
			return nil, Timing{}, err
		}
		outs = append(outs, t)
	}
	return outs, Timing{Median: time.Duration(ns), Reps: reps, CopyMedian: time.Duration(copyNS), Threads: threads}, nil
}

// Wrong is a fault a wrong caller makes, injected by the driver into a
// call (RunWrong).
type Wrong struct {
	// Kind is "size" (Value is added to sizes[Dim] of descriptor Arg),
	// "stride" (strides[Dim] of descriptor Arg becomes Value), "offset"
	// (Value is added to the offset of descriptor Arg, or to the pointer
	// of a 0-d Arg), "null" (the aligned pointer of descriptor Arg, or
	// the pointer of a 0-d Arg, becomes NULL) or "symbol" (Value is added
	// to size symbol Arg).
	Kind string
	// Arg counts the arguments, then the results (descriptors), or the
	// size symbols (Kind "symbol").
	Arg, Dim int
	Value    int64
}

func (w Wrong) String() string { return fmt.Sprintf("%s %d %d %d", w.Kind, w.Arg, w.Dim, w.Value) }

// WrongOutcome is what the function did with one injected fault.
type WrongOutcome struct {
	Wrong Wrong
	// Refused: the function returned an error code without writing any
	// result; Msg is its message (f_error).
	Refused bool
	Msg     string
	// Wrote is the result it wrote before refusing, else -1.
	Wrote int
}

// RunWrong calls the function on args as Run would, once per fault, each
// time with one fault injected into its descriptors or size symbols and
// the results filled with a pattern beforehand, in one process, and tells
// what the function did with each. A crash (or a sanitizer's report) is an
// error naming the fault. CPU builds only.
func (p *Program) RunWrong(args []*interp.Tensor, syms map[string]int64, faults []Wrong) ([]WrongOutcome, error) {
	if p.gpu {
		return nil, fmt.Errorf("RunWrong needs a CPU build")
	}
	argv, _, err := p.prepare(args, syms, 1)
	if err != nil {
		return nil, err
	}
	var spec []string
	for _, w := range faults {
		spec = append(spec, w.String())
	}
	stdout, err := p.exec(argv, []string{"TIR_WRONG=" + strings.Join(spec, ";")})
	if err != nil {
		// The report follows the line naming the fault being injected.
		msg := err.Error()
		if i := strings.LastIndex(msg, "fault: "); i >= 0 {
			msg = msg[i:]
		}
		return nil, fmt.Errorf("%s", msg)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(faults) {
		return nil, fmt.Errorf("the driver reported %d calls for %d faults:\n%s", len(lines), len(faults), stdout)
	}
	out := make([]WrongOutcome, len(faults))
	for i, line := range lines {
		o := WrongOutcome{Wrong: faults[i], Wrote: -1}
		switch {
		case line == "accepted":
		case strings.HasPrefix(line, "refused "):
			o.Refused, o.Msg = true, strings.TrimPrefix(line, "refused ")
		case strings.HasPrefix(line, "wrote "):
			n, msg, _ := strings.Cut(strings.TrimPrefix(line, "wrote "), " ")
			o.Wrote, _ = strconv.Atoi(n)
			o.Msg = msg
		default:
			return nil, fmt.Errorf("unexpected driver output %q", line)
		}
		out[i] = o
	}
	return out, nil
}

// prepare writes the input and result-shape files of a run and returns
// the driver's arguments and the result extents.
func (p *Program) prepare(args []*interp.Tensor, syms map[string]int64, reps int) ([]string, [][]interp.Dim, error) {
	if len(args) != len(p.ft.Inputs) {
		return nil, nil, fmt.Errorf("expected %d arguments, got %d", len(p.ft.Inputs), len(args))
	}
	for i, a := range args {
		if err := WriteTensor(filepath.Join(p.Dir, fmt.Sprintf("in%d.bin", i)), a); err != nil {
			return nil, nil, err
		}
	}
	// Unknown extents (`?`) are not parameters: they follow from the
	// arguments, like the compiled code reads them from descriptors.
	byName := map[string]*interp.Tensor{}
	for i, n := range interp.ArgNames(p.fn) {
		byName[n] = args[i]
	}
	syms = interp.InferSymbols(p.fn, byName, syms)
	// Result extents, for the driver to allocate (f_result_shape cannot
	// compute extents that depend on unknown ones).
	var shape bytes.Buffer
	var resultDims [][]interp.Dim
	for _, r := range p.ft.Results {
		rt, _ := tir.AsTensor(r)
		if p.dataDependent(rt) {
			// f_result_shape_data tells the driver (dataextent.go).
			resultDims = append(resultDims, nil)
			for range rt.Dims {
				binary.Write(&shape, binary.LittleEndian, int64(-1))
			}
			continue
		}
		dims, err := interp.EvalDims(rt, syms)
		if err != nil {
			return nil, nil, err
		}
		resultDims = append(resultDims, dims)
		for _, d := range dims {
			binary.Write(&shape, binary.LittleEndian, d.Extent())
		}
	}
	if err := os.WriteFile(filepath.Join(p.Dir, "outshape.bin"), shape.Bytes(), 0o644); err != nil {
		return nil, nil, err
	}
	argv := []string{p.Dir, strconv.Itoa(reps)}
	for _, s := range p.syms {
		v, ok := syms[s]
		if !ok {
			return nil, nil, fmt.Errorf("size symbol %s is unbound", s)
		}
		argv = append(argv, strconv.FormatInt(v, 10))
	}
	return argv, resultDims, nil
}

// exec runs the driver and returns its standard output; on failure, the
// error is its standard error (the function's message, or a sanitizer's
// report).
func (p *Program) exec(argv, env []string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(p.Exe, argv...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if p.openmp {
		env = append(env, WaitPolicyEnv(append(append(os.Environ(), p.Env...), env...))...)
	}
	if len(p.Env) > 0 || len(env) > 0 {
		cmd.Env = append(append(os.Environ(), p.Env...), env...)
	}
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("%s", msg)
	}
	return stdout.String(), nil
}

// The binary files the driver exchanges: int64 rank, int64 sizes[rank],
// then the elements in row-major order, little-endian.

// WriteTensor writes t as the driver reads its inputs.
func WriteTensor(path string, t *interp.Tensor) error {
	_, size, err := ctype(t.Elem)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, int64(len(t.Dims)))
	for _, d := range t.Dims {
		binary.Write(&b, binary.LittleEndian, d.Extent())
	}
	for i := 0; i < t.Len(); i++ {
		switch et := t.Elem.(type) {
		case ir.FloatType:
			switch {
			case et.Name == "f16":
				binary.Write(&b, binary.LittleEndian, interp.FloatToHalf(t.F64[i]))
			case et.Name == "bf16":
				binary.Write(&b, binary.LittleEndian, interp.FloatToBFloat16(t.F64[i]))
			case size == 4:
				binary.Write(&b, binary.LittleEndian, math.Float32bits(float32(t.F64[i])))
			default:
				binary.Write(&b, binary.LittleEndian, math.Float64bits(t.F64[i]))
			}
		default:
			v := t.I64[i]
			switch size {
			case 1:
				b.WriteByte(byte(v))
			case 2:
				binary.Write(&b, binary.LittleEndian, int16(v))
			case 4:
				binary.Write(&b, binary.LittleEndian, int32(v))
			default:
				binary.Write(&b, binary.LittleEndian, v)
			}
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// ReadTensor reads a result the driver wrote, checking its rank and
// extents against dims.
func ReadTensor(path string, elem ir.Type, dims []interp.Dim) (*interp.Tensor, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	_, size, err := ctype(elem)
	if err != nil {
		return nil, err
	}
	t, err := interp.NewTensor(elem, dims)
	if err != nil {
		return nil, err
	}
	r := bytes.NewReader(data)
	var rank int64
	binary.Read(r, binary.LittleEndian, &rank)
	if int(rank) != len(dims) {
		return nil, fmt.Errorf("%s: rank %d, expected %d", path, rank, len(dims))
	}
	for _, d := range dims {
		var e int64
		binary.Read(r, binary.LittleEndian, &e)
		if e != d.Extent() {
			return nil, fmt.Errorf("%s: extent %d, expected %d for %s", path, e, d.Extent(), d.Name)
		}
	}
	for i := 0; i < t.Len(); i++ {
		switch et := elem.(type) {
		case ir.FloatType:
			switch {
			case size == 2:
				var u uint16
				binary.Read(r, binary.LittleEndian, &u)
				if et.Name == "bf16" {
					t.F64[i] = interp.BFloat16ToFloat(u)
				} else {
					t.F64[i] = interp.HalfToFloat(u)
				}
			case size == 4:
				var u uint32
				binary.Read(r, binary.LittleEndian, &u)
				t.F64[i] = float64(math.Float32frombits(u))
			default:
				var u uint64
				binary.Read(r, binary.LittleEndian, &u)
				t.F64[i] = math.Float64frombits(u)
			}
		default:
			var v int64
			switch size {
			case 1:
				var x int8
				binary.Read(r, binary.LittleEndian, &x)
				v = int64(x)
				if it, _ := elem.(ir.IntegerType); it.Width == 1 {
					v &= 1
				}
			case 2:
				var x int16
				binary.Read(r, binary.LittleEndian, &x)
				v = int64(x)
			case 4:
				var x int32
				binary.Read(r, binary.LittleEndian, &x)
				v = int64(x)
			default:
				binary.Read(r, binary.LittleEndian, &v)
			}
			t.I64[i] = v
		}
	}
	return t, nil
}

// driver writes the C program that builds descriptors, calls the function
// through its C ABI, times it and writes the results (tools/cdriver).
func (p *Program) driver() (string, error) {
	f, err := cdriver.FuncOf(p.fn)
	if err != nil {
		return "", err
	}
	f.Symbol = p.symbol
	d := cdriver.Driver{Funcs: []cdriver.Func{f}, GPU: p.gpu, Timing: true, OpenMP: p.openmp, Wrong: !p.gpu}
	if p.asan {
		d.Alloc = cdriver.Exact
	}
	return cdriver.Source(d)
}
