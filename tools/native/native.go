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
	"sort"
	"strconv"
	"strings"
	"time"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower/abi"
	"tir/lower/tollvm"
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
// through its C ABI, times it and writes the results.
func (p *Program) driver() (string, error) {
	name := ir.SymbolName(p.fn)
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n#include <stdint.h>\n#include <string.h>\n#include <time.h>\n\n")
	if p.openmp {
		b.WriteString("extern int omp_get_max_threads(void);\n\n")
	}
	ranks := map[int]bool{}
	var params []string
	all := append(append([]ir.Type(nil), p.ft.Inputs...), p.ft.Results...)
	for _, t := range all {
		tt, _ := tir.AsTensor(t)
		if _, _, err := ctype(tt.Elem); err != nil {
			return "", err
		}
		if tt.Rank() > 0 {
			ranks[tt.Rank()] = true
		}
		params = append(params, "void *")
	}
	var rs []int
	for r := range ranks {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	for _, r := range rs {
		fmt.Fprintf(&b, "typedef struct { void *allocated, *aligned; int64_t offset, sizes[%d], strides[%d]; } desc%d;\n", r, r, r)
	}
	// The function is declared by its symbol (asm labels), under C
	// identifiers of the driver's own: its name may be a C library
	// function's (abs, exp, malloc), which <stdlib.h> declares otherwise.
	symParams := strings.Repeat(", int64_t", len(p.syms))
	sym := name
	if p.symbol != "" {
		sym = p.symbol
	}
	fmt.Fprintf(&b, "extern int32_t tir_fn(%s%s) __asm__(%q);\n", strings.Join(params, ", "), symParams, sym)
	fmt.Fprintf(&b, "extern const char *tir_fn_error(int32_t) __asm__(%q);\n", name+"_error")
	fmt.Fprintf(&b, "extern int32_t tir_fn_result_shape(%sint64_t *) __asm__(%q);\n\n", strings.Repeat("int64_t, ", len(p.syms)), name+"_result_shape")
	p.shapeDataDecl(&b, params[:len(p.ft.Inputs)])
	b.WriteString(`static void die(const char *m) { fprintf(stderr, "%s\n", m); exit(3); }
`)
	if p.asan {
		b.WriteString(asanDriverAlloc)
	} else {
		b.WriteString(driverAlloc)
	}
	b.WriteString(`static void *read_arr(const char *dir, const char *name, int rank, int64_t *sizes, size_t esize) {
  char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb"); if (!f) die("cannot open an input file");
  int64_t r; if (fread(&r, 8, 1, f) != 1 || r != rank) die("bad input rank");
  size_t n = 1;
  for (int i = 0; i < rank; i++) { if (fread(&sizes[i], 8, 1, f) != 1) die("bad input header"); n *= (size_t)sizes[i]; }
  /* An empty tensor gets no buffer at all: compiled code that reads one
     element of it crashes here instead of reading garbage. */
  void *p = n ? in_alloc(n * esize) : NULL;
  if (n && fread(p, esize, n, f) != n) die("short input file");
  fclose(f); return p;
}
static void write_arr(const char *dir, const char *name, int rank, const int64_t *sizes, const void *data, size_t esize) {
  char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb"); if (!f) die("cannot write an output file");
  int64_t r = rank; fwrite(&r, 8, 1, f); size_t n = 1;
  for (int i = 0; i < rank; i++) { fwrite(&sizes[i], 8, 1, f); n *= (size_t)sizes[i]; }
  fwrite(data, esize, n, f); fclose(f);
}
static size_t count(int rank, const int64_t *sizes) {
  size_t n = 1; for (int i = 0; i < rank; i++) n *= (size_t)sizes[i]; return n;
}
static void strides(int rank, const int64_t *sizes, int64_t *st) {
  int64_t s = 1; for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= sizes[i]; }
}
static int cmp64(const void *a, const void *b) { int64_t x = *(const int64_t *)a, y = *(const int64_t *)b; return (x > y) - (x < y); }
`)
	if p.gpu {
		b.WriteString(gpuDriverMemory)
	} else {
		b.WriteString(cpuDriverMemory)
	}
	b.WriteString("int main(int argc, char **argv) {\n  dev_setup();\n")
	fmt.Fprintf(&b, "  if (argc != %d) die(\"usage: run DIR REPS SYMBOLS...\");\n", 3+len(p.syms))
	b.WriteString("  const char *dir = argv[1]; int reps = atoi(argv[2]);\n")
	for i := range p.syms {
		fmt.Fprintf(&b, "  int64_t s%d = atoll(argv[%d]);\n", i, 3+i)
	}
	var symArgs []string
	for i := range p.syms {
		symArgs = append(symArgs, fmt.Sprintf("s%d", i))
	}
	totalOut := 0
	for _, t := range p.ft.Results {
		tt, _ := tir.AsTensor(t)
		totalOut += tt.Rank()
	}
	// Result extents come from the caller; where f_result_shape can compute
	// them (no unknown extents) they must agree.
	fmt.Fprintf(&b, "  int64_t osz[%d], rsz[%d];\n", totalOut+1, totalOut+1)
	fmt.Fprintf(&b, "  { char path[4096]; snprintf(path, sizeof path, \"%%s/outshape.bin\", dir); FILE *f = fopen(path, \"rb\");\n")
	fmt.Fprintf(&b, "    if (!f || fread(osz, 8, %d, f) != %d) die(\"bad result shape file\"); fclose(f); }\n", totalOut, totalOut)
	fmt.Fprintf(&b, "  if (tir_fn_result_shape(%s) == 0)\n", strings.Join(append(append([]string(nil), symArgs...), "rsz"), ", "))
	fmt.Fprintf(&b, "    for (int k = 0; k < %d; k++) if (rsz[k] != osz[k]) die(\"%s_result_shape disagrees with the result types\");\n", totalOut, name)
	var callArgs []string
	off := 0
	for i, t := range all {
		if i == len(p.ft.Inputs) {
			// The inputs are read: extents that depend on them are known.
			p.shapeDataCall(&b, callArgs, symArgs, totalOut)
		}
		tt, _ := tir.AsTensor(t)
		ct, size, _ := ctype(tt.Elem)
		r := tt.Rank()
		isOut := i >= len(p.ft.Inputs)
		v := fmt.Sprintf("a%d", i)
		if r == 0 {
			if isOut {
				fmt.Fprintf(&b, "  %s *%s = dev_out(%d);\n", ct, v, size)
			} else {
				fmt.Fprintf(&b, "  int64_t %s_sz[1]; %s *%s = dev_in(read_arr(dir, \"in%d.bin\", 0, %s_sz, %d), %d);\n", v, ct, v, i, v, size, size)
			}
			callArgs = append(callArgs, v)
			continue
		}
		fmt.Fprintf(&b, "  desc%d %s = {0};\n", r, v)
		if isOut {
			fmt.Fprintf(&b, "  { size_t n = 1; for (int k = 0; k < %d; k++) { %s.sizes[k] = osz[%d + k]; n *= (size_t)%s.sizes[k]; }\n", r, v, off, v)
			fmt.Fprintf(&b, "    %s.allocated = %s.aligned = dev_out(n * %d); }\n", v, v, size)
			off += r
		} else {
			// Two statements: the order in which C evaluates arguments is
			// unspecified, and read_arr fills the sizes.
			fmt.Fprintf(&b, "  %s.allocated = read_arr(dir, \"in%d.bin\", %d, %s.sizes, %d);\n", v, i, r, v, size)
			fmt.Fprintf(&b, "  %s.allocated = %s.aligned = dev_in(%s.allocated, count(%d, %s.sizes) * %d);\n", v, v, v, r, v, size)
		}
		fmt.Fprintf(&b, "  strides(%d, %s.sizes, %s.strides);\n", r, v, v)
		callArgs = append(callArgs, "&"+v)
	}
	call := fmt.Sprintf("tir_fn(%s)", strings.Join(append(callArgs, symArgs...), ", "))
	if !p.gpu {
		p.wrongCall(&b, all, call)
	}
	b.WriteString("  int64_t *ns = malloc(sizeof(int64_t) * (size_t)reps);\n")
	b.WriteString("  for (int rep = 0; rep < reps; rep++) {\n    struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);\n")
	fmt.Fprintf(&b, "    int32_t rc = %s;\n", call)
	b.WriteString("    clock_gettime(CLOCK_MONOTONIC, &t1);\n")
	fmt.Fprintf(&b, "    if (rc != 0) die(tir_fn_error(rc));\n")
	b.WriteString("    ns[rep] = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);\n  }\n")
	traffic := "0"
	for i, t := range all {
		tt, _ := tir.AsTensor(t)
		_, size, _ := ctype(tt.Elem)
		if tt.Rank() == 0 {
			traffic += fmt.Sprintf(" + %d", size)
		} else {
			traffic += fmt.Sprintf(" + count(%d, a%d.sizes) * %d", tt.Rank(), i, size)
		}
	}
	b.WriteString("  qsort(ns, (size_t)reps, sizeof(int64_t), cmp64);\n")
	threads := "1"
	if p.openmp {
		threads = "omp_get_max_threads()"
	}
	fmt.Fprintf(&b, "  printf(\"%%lld %%lld %%d\\n\", (long long)ns[reps / 2], copy_ns((%s) / 2, reps), %s);\n", traffic, threads)
	for i, t := range p.ft.Results {
		tt, _ := tir.AsTensor(t)
		_, size, _ := ctype(tt.Elem)
		k := len(p.ft.Inputs) + i
		if tt.Rank() == 0 {
			fmt.Fprintf(&b, "  write_arr(dir, \"out%d.bin\", 0, 0, host_of(a%d, %d), %d);\n", i, k, size, size)
		} else {
			fmt.Fprintf(&b, "  write_arr(dir, \"out%d.bin\", %d, a%d.sizes, host_of(a%d.aligned, count(%d, a%d.sizes) * %d), %d);\n", i, tt.Rank(), k, k, tt.Rank(), k, size, size)
		}
	}
	b.WriteString("  return 0;\n}\n")
	return b.String(), nil
}

// driverAlloc allocates the host buffers of the driver, with some slack.
const driverAlloc = `static void *in_alloc(size_t n) { return aligned_alloc(64, n + 64); }
static void *out_alloc(size_t n) { return aligned_alloc(64, n + 64 - n % 64); }
`

// cpuDriverMemory: buffers live in host memory.
const cpuDriverMemory = `static void dev_setup(void) {}
static void *dev_in(void *host, size_t n) { (void)n; return host; }
static void *dev_out(size_t n) { return n ? out_alloc(n) : NULL; }
static void *host_of(void *dev, size_t n) { (void)n; return dev; }
static long long copy_ns(size_t n, int reps) { (void)n; (void)reps; return 0; }
`

// gpuDriverMemory: buffers live in device memory, through the CUDA driver
// API loaded like the host wrapper loads it (TIR_CUDA_DRIVER or
// libcuda.so.1), whose primary context the wrapper shares.
const gpuDriverMemory = `#include <dlfcn.h>
typedef unsigned long long dptr;
static int (*d_alloc)(dptr *, size_t);
static int (*d_htod)(dptr, const void *, size_t);
static int (*d_dtoh)(void *, dptr, size_t);
static int (*d_dtod)(dptr, dptr, size_t);
static int (*d_sync)(void);
static void dev_setup(void) {
  const char *lib = getenv("TIR_CUDA_DRIVER");
  if (!lib || !*lib) lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "no CUDA driver: %s\n", dlerror()); exit(3); }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int (*get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
  int (*retain)(void **, int) = (int (*)(void **, int))dlsym(h, "cuDevicePrimaryCtxRetain");
  int (*set)(void *) = (int (*)(void *))dlsym(h, "cuCtxSetCurrent");
  *(void **)&d_alloc = dlsym(h, "cuMemAlloc_v2");
  *(void **)&d_htod = dlsym(h, "cuMemcpyHtoD_v2");
  *(void **)&d_dtoh = dlsym(h, "cuMemcpyDtoH_v2");
  *(void **)&d_dtod = dlsym(h, "cuMemcpyDtoD_v2");
  *(void **)&d_sync = dlsym(h, "cuCtxSynchronize");
  int dev = 0; void *ctx = 0;
  if (!init || !get || !retain || !set || !d_alloc || !d_htod || !d_dtoh || !d_dtod || !d_sync ||
      init(0) || get(&dev, 0) || retain(&ctx, dev) || set(ctx))
    die("cannot initialize the CUDA driver");
}
static void *dev_out(size_t n) {
  dptr d;
  if (d_alloc(&d, n ? n : 1)) die("cuMemAlloc failed");
  return (void *)(uintptr_t)d;
}
static void *dev_in(void *host, size_t n) {
  void *d = dev_out(n);
  if (n && d_htod((dptr)(uintptr_t)d, host, n)) die("cuMemcpyHtoD failed");
  return d;
}
static void *host_of(void *dev, size_t n) {
  void *h = malloc(n ? n : 1);
  if (n && d_dtoh(h, (dptr)(uintptr_t)dev, n)) die("cuMemcpyDtoH failed");
  return h;
}
static int cmpll(const void *a, const void *b) { long long x = *(const long long *)a, y = *(const long long *)b; return (x > y) - (x < y); }
static long long copy_ns(size_t n, int reps) {
  if (reps < 2 || n == 0) return 0;
  dptr src = (dptr)(uintptr_t)dev_out(n), dst = (dptr)(uintptr_t)dev_out(n);
  long long *t = malloc(sizeof(long long) * (size_t)reps);
  for (int r = 0; r < reps; r++) {
    struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
    if (d_dtod(dst, src, n) || d_sync()) die("cuMemcpyDtoD failed");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    t[r] = (t1.tv_sec - t0.tv_sec) * 1000000000LL + (t1.tv_nsec - t0.tv_nsec);
  }
  qsort(t, (size_t)reps, sizeof(long long), cmpll);
  return t[reps / 2];
}
`
