// Package cdriver writes the C programs that call compiled functions
// through their C ABI (docs/abi.md), exactly as a user's C program would:
// tc-run's compiled mode and the end-to-end tests (tools/native), the
// random-program tester (test/randprog) and the benchmarks (test/bench).
// One C runtime (runtime.go) reads and writes the tensors, builds the
// descriptors, allocates host or CUDA device memory and times the calls;
// Driver's options say which main program calls it.
package cdriver

import (
	"fmt"
	"sort"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower/abi"
)

// Param is one tensor of a function's C signature: an argument or a
// result.
type Param struct {
	Name string
	Rank int
	C    abi.CType
	Out  bool
}

// Func is a function as its C ABI shows it: descriptor pointers (a 0-d
// tensor as a plain pointer) for the arguments, then the results, then
// the size symbols as int64_t; f_error, f_result_shape and, where a
// result's extents depend on data, f_result_shape_data beside it.
type Func struct {
	// Name is the function's name: its companions are Name_error,
	// Name_result_shape and Name_result_shape_data.
	Name string
	// Symbol is the symbol of the function itself when its object renamed
	// it (a C library name, tools/native), else "".
	Symbol    string
	Params    []Param
	Syms      []string
	ShapeData bool
}

// FuncOf describes a tir.func. A result's name is result<k>.
func FuncOf(fn *ir.Operation) (Func, error) {
	ft, ok := tir.FuncType(fn)
	if !ok {
		return Func{}, fmt.Errorf("not a tir.func")
	}
	f := Func{Name: ir.SymbolName(fn), Syms: interp.Symbols(fn)}
	names := interp.ArgNames(fn)
	data := tir.DataSymbols(fn)
	for i, t := range append(append([]ir.Type(nil), ft.Inputs...), ft.Results...) {
		tt, ok := tir.AsTensor(t)
		if !ok {
			return Func{}, fmt.Errorf("type %s is not a tensor", t)
		}
		c, err := abi.CTypeOf(tt.Elem)
		if err != nil {
			return Func{}, err
		}
		p := Param{Rank: tt.Rank(), C: c, Out: i >= len(ft.Inputs)}
		if p.Out {
			p.Name = fmt.Sprintf("result%d", i-len(ft.Inputs))
			f.ShapeData = f.ShapeData || tir.TypeMentionsData(tt, data)
		} else if i < len(names) {
			p.Name = names[i]
		}
		f.Params = append(f.Params, p)
	}
	return f, nil
}

func (f Func) symbol() string {
	if f.Symbol != "" {
		return f.Symbol
	}
	return f.Name
}

// Alloc says how the driver allocates host buffers.
type Alloc int

const (
	// Slack: 64-byte aligned, with some slack after the end.
	Slack Alloc = iota
	// Exact: 64-byte aligned at their exact sizes, for AddressSanitizer.
	Exact
	// Malloc: malloc's.
	Malloc
)

// Driver says which driver to write.
//
// Without Batch or Bench, the driver runs Funcs[0] on the files of
// tools/native: `run DIR REPS SYMBOLS...` reads the arguments from
// DIR/in<i>.bin (int64 rank, int64 extents, the elements row-major,
// little-endian) and the result extents from DIR/outshape.bin, checks
// that f_result_shape agrees, calls the function REPS times and writes
// its results to DIR/out<k>.bin. The function's error message goes to
// standard error with exit status 3; a failure of the driver itself has
// status 4.
type Driver struct {
	Funcs []Func
	Alloc Alloc
	// GPU: buffers live in device memory through the CUDA driver API
	// (TIR_CUDA_DRIVER, else libcuda.so.1), whose primary context the
	// function's host wrapper shares.
	GPU bool
	// Timing: print "median_ns copy_ns threads" on standard output: the
	// median time of a call, for GPU builds the median time of a
	// device-to-device copy moving as many bytes as the function's
	// compulsory traffic (half read, half written), and the threads a
	// parallel loop could use (omp_get_max_threads() with OpenMP, else 1).
	Timing bool
	OpenMP bool
	// Wrong: the fault injection of tools/native's RunWrong (wrong.go),
	// when TIR_WRONG is set. CPU builds only.
	Wrong bool
	// Batch names a folder for each function: `batch IN OUT` runs each
	// function once in a child process, on the files of IN/<name> (with
	// the symbol values in IN/<name>/syms.txt), and writes its results,
	// its standard error and its status ("exit N" or "signal N") to
	// OUT/<k>/out<i>.bin, stderr and status.
	Batch []string
	// Bench makes the benchmark driver of Funcs[0] (bench.go).
	Bench *Bench
}

// Source writes the driver.
func Source(d Driver) (string, error) {
	if len(d.Funcs) == 0 {
		return "", fmt.Errorf("a driver needs a function")
	}
	if d.Bench != nil {
		return benchSource(d)
	}
	if d.Batch != nil && len(d.Batch) != len(d.Funcs) {
		return "", fmt.Errorf("%d folders for %d functions", len(d.Batch), len(d.Funcs))
	}
	if d.Wrong && d.GPU {
		return "", fmt.Errorf("fault injection needs a CPU build")
	}
	var b strings.Builder
	d.runtime(&b, d.Funcs...)
	b.WriteString(runtimeFiles)
	for k, f := range d.Funcs {
		d.runner(&b, k, f)
	}
	if d.Batch != nil {
		d.batchMain(&b)
	} else {
		f := d.Funcs[0]
		b.WriteString("\nint main(int argc, char **argv) {\n  tird_dev_setup();\n")
		fmt.Fprintf(&b, "  if (argc != %d) tird_die(\"usage: run DIR REPS SYMBOLS...\");\n", 3+len(f.Syms))
		fmt.Fprintf(&b, "  int64_t s[%d];\n", len(f.Syms)+1)
		for i := range f.Syms {
			fmt.Fprintf(&b, "  s[%d] = atoll(argv[%d]);\n", i, 3+i)
		}
		b.WriteString("  return tird_run0(argv[1], argv[1], s, atoi(argv[2]));\n}\n")
	}
	return b.String(), nil
}

// runtime writes the C runtime and the descriptor types the functions
// use (tird_desc<rank>).
func (d Driver) runtime(b *strings.Builder, fs ...Func) {
	b.WriteString(runtimeCore)
	if d.Batch != nil {
		b.WriteString("#include <unistd.h>\n#include <signal.h>\n#include <sys/wait.h>\n")
	}
	if d.OpenMP {
		b.WriteString("extern int omp_get_max_threads(void);\n")
	}
	b.WriteString(runtimeAlloc[d.Alloc])
	if d.GPU {
		b.WriteString(runtimeCUDAMemory)
	} else {
		b.WriteString(runtimeHostMemory)
	}
	ranks := map[int]bool{}
	for _, f := range fs {
		for _, p := range f.Params {
			if p.Rank > 0 {
				ranks[p.Rank] = true
			}
		}
	}
	var rs []int
	for r := range ranks {
		rs = append(rs, r)
	}
	sort.Ints(rs)
	for _, r := range rs {
		fmt.Fprintf(b, "typedef struct { void *allocated, *aligned; int64_t offset, sizes[%d], strides[%d]; } tird_desc%d;\n", r, r, r)
	}
}

// declare declares function k and its companions under C names of the
// driver's own (tird_f<k>...), by their symbols (asm labels): a
// function's name may be a C library function's (abs, exp, malloc),
// which the headers declare otherwise.
func declare(b *strings.Builder, k int, f Func) {
	var params, inputs []string
	for _, p := range f.Params {
		params = append(params, "void *")
		if !p.Out {
			inputs = append(inputs, "void *")
		}
	}
	syms := strings.Repeat(", int64_t", len(f.Syms))
	shape := strings.Repeat("int64_t, ", len(f.Syms)) + "int64_t *"
	fmt.Fprintf(b, "\nextern int32_t tird_f%d(%s%s) __asm__(%q);\n", k, strings.Join(params, ", "), syms, f.symbol())
	fmt.Fprintf(b, "extern const char *tird_f%d_error(int32_t) __asm__(%q);\n", k, f.Name+"_error")
	fmt.Fprintf(b, "extern int32_t tird_f%d_result_shape(%s) __asm__(%q);\n", k, shape, f.Name+"_result_shape")
	if f.ShapeData {
		fmt.Fprintf(b, "extern int32_t tird_f%d_result_shape_data(%s) __asm__(%q);\n", k, strings.Join(append(inputs, shape), ", "), f.Name+"_result_shape_data")
	}
}

// runner writes tird_run<k>(in, out, s, reps), which calls function k
// reps times on the files of folder in, with the symbol values s, and
// writes its results to folder out: descriptors over host (or device)
// buffers, the result_shape checks, the calls (timed), the error message
// on failure (status 3).
func (d Driver) runner(b *strings.Builder, k int, f Func) {
	declare(b, k, f)
	fmt.Fprintf(b, "static int tird_run%d(const char *in, const char *out, const int64_t *s, int reps) {\n", k)
	var symArgs []string
	for i := range f.Syms {
		fmt.Fprintf(b, "  int64_t s%d = s[%d];\n", i, i)
		symArgs = append(symArgs, fmt.Sprintf("s%d", i))
	}
	if len(f.Syms) == 0 {
		b.WriteString("  (void)s;\n")
	}
	totalOut := 0
	for _, p := range f.Params {
		if p.Out {
			totalOut += p.Rank
		}
	}
	// Result extents come from the caller; where f_result_shape can
	// compute them (no unknown extents) they must agree.
	fmt.Fprintf(b, "  int64_t osz[%d], rsz[%d];\n  tird_read_shape(in, osz, %d);\n", totalOut+1, totalOut+1, totalOut)
	fmt.Fprintf(b, "  if (tird_f%d_result_shape(%s) == 0)\n", k, strings.Join(append(append([]string(nil), symArgs...), "rsz"), ", "))
	fmt.Fprintf(b, "    for (int i = 0; i < %d; i++) if (rsz[i] != osz[i]) tird_die(\"%s_result_shape disagrees with the result types\");\n", totalOut, f.Name)
	var callArgs []string
	off := 0
	for i, p := range f.Params {
		if p.Out && (i == 0 || !f.Params[i-1].Out) {
			d.shapeDataCall(b, k, f, callArgs, symArgs, totalOut)
		}
		ct, size := p.C.Name, p.C.Size
		v := fmt.Sprintf("a%d", i)
		if p.Rank == 0 {
			if p.Out {
				fmt.Fprintf(b, "  %s *%s = tird_dev_out(%d);\n", ct, v, size)
			} else {
				fmt.Fprintf(b, "  int64_t %s_sz[1]; %s *%s = tird_dev_in(tird_read_arr(in, \"in%d.bin\", 0, %s_sz, %d), %d);\n", v, ct, v, i, v, size, size)
			}
			callArgs = append(callArgs, v)
			continue
		}
		fmt.Fprintf(b, "  tird_desc%d %s = {0};\n", p.Rank, v)
		if p.Out {
			fmt.Fprintf(b, "  for (int i = 0; i < %d; i++) %s.sizes[i] = osz[%d + i];\n", p.Rank, v, off)
			fmt.Fprintf(b, "  %s.allocated = %s.aligned = tird_dev_out(tird_count(%d, %s.sizes) * %d);\n", v, v, p.Rank, v, size)
			off += p.Rank
		} else {
			// Two statements: the order in which C evaluates arguments is
			// unspecified, and tird_read_arr fills the sizes.
			fmt.Fprintf(b, "  %s.allocated = tird_read_arr(in, \"in%d.bin\", %d, %s.sizes, %d);\n", v, i, p.Rank, v, size)
			fmt.Fprintf(b, "  %s.allocated = %s.aligned = tird_dev_in(%s.allocated, tird_count(%d, %s.sizes) * %d);\n", v, v, v, p.Rank, v, size)
		}
		fmt.Fprintf(b, "  tird_strides(%d, %s.sizes, %s.strides);\n", p.Rank, v, v)
		callArgs = append(callArgs, "&"+v)
	}
	call := fmt.Sprintf("tird_f%d(%s)", k, strings.Join(append(callArgs, symArgs...), ", "))
	if d.Wrong {
		wrongCall(b, k, f, call)
	}
	b.WriteString("  tird_timer t;\n  tird_timer_start(&t, 0, reps, reps, 0);\n  while (tird_timer_more(&t)) {\n")
	fmt.Fprintf(b, "    int64_t t0 = tird_now_ns();\n    int32_t rc = %s;\n    int64_t ns = tird_now_ns() - t0;\n", call)
	fmt.Fprintf(b, "    if (rc != 0) return tird_fail(tird_f%d_error(rc));\n    tird_timer_add(&t, ns);\n  }\n", k)
	if d.Timing {
		traffic := "0"
		for i, p := range f.Params {
			if p.Rank == 0 {
				traffic += fmt.Sprintf(" + %d", p.C.Size)
			} else {
				traffic += fmt.Sprintf(" + tird_count(%d, a%d.sizes) * %d", p.Rank, i, p.C.Size)
			}
		}
		threads := "1"
		if d.OpenMP {
			threads = "omp_get_max_threads()"
		}
		b.WriteString("  tird_timer_sort(&t);\n")
		fmt.Fprintf(b, "  printf(\"%%lld %%lld %%d\\n\", (long long)t.ns[t.reps / 2], tird_copy_ns((%s) / 2, reps), %s);\n", traffic, threads)
	}
	r := 0
	for i, p := range f.Params {
		if !p.Out {
			continue
		}
		if p.Rank == 0 {
			fmt.Fprintf(b, "  tird_write_arr(out, \"out%d.bin\", 0, 0, tird_host_of(a%d, %d), %d);\n", r, i, p.C.Size, p.C.Size)
		} else {
			fmt.Fprintf(b, "  tird_write_arr(out, \"out%d.bin\", %d, a%d.sizes, tird_host_of(a%d.aligned, tird_count(%d, a%d.sizes) * %d), %d);\n", r, p.Rank, i, i, p.Rank, i, p.C.Size, p.C.Size)
		}
		r++
	}
	b.WriteString("  return 0;\n}\n")
}

// shapeDataCall calls f_result_shape_data on the inputs read so far
// (callArgs) and puts the sizes it gives into osz, where the caller wrote
// -1 (the extents it could not know); a size it knew must agree.
func (d Driver) shapeDataCall(b *strings.Builder, k int, f Func, callArgs, symArgs []string, total int) {
	if !f.ShapeData {
		return
	}
	args := append(append(append([]string(nil), callArgs...), symArgs...), "dsz")
	fmt.Fprintf(b, "  { int64_t dsz[%d]; int32_t src = tird_f%d_result_shape_data(%s);\n", total+1, k, strings.Join(args, ", "))
	fmt.Fprintf(b, "    if (src != 0) return tird_fail(tird_f%d_error(src));\n", k)
	fmt.Fprintf(b, "    for (int i = 0; i < %d; i++) { if (osz[i] >= 0 && osz[i] != dsz[i]) tird_die(\"%s_result_shape_data disagrees with the result types\"); osz[i] = dsz[i]; } }\n",
		total, f.Name)
}

// batchMain runs every function in a child process.
func (d Driver) batchMain(b *strings.Builder) {
	b.WriteString("\nstatic int (*const tird_runners[])(const char *, const char *, const int64_t *, int) = {")
	for k := range d.Funcs {
		fmt.Fprintf(b, "tird_run%d, ", k)
	}
	b.WriteString("};\nstatic const char *const tird_names[] = {")
	for _, n := range d.Batch {
		fmt.Fprintf(b, "%q, ", n)
	}
	fmt.Fprintf(b, "};\n\nint main(int argc, char **argv) {\n  if (argc != 3) tird_die(\"usage: batch IN OUT\");\n  for (int k = 0; k < %d; k++) {\n", len(d.Funcs))
	b.WriteString(`    char in[4096], out[4096], path[4096 + 16];
    snprintf(in, sizeof in, "%s/%s", argv[1], tird_names[k]);
    snprintf(out, sizeof out, "%s/%d", argv[2], k);
    int64_t s[16] = {0};
    snprintf(path, sizeof path, "%s/syms.txt", in);
    FILE *f = fopen(path, "r"); if (!f) tird_die("no syms.txt");
    for (int i = 0; i < 16 && fscanf(f, "%lld", (long long *)&s[i]) == 1; i++) {}
    fclose(f);
    fflush(stdout); fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) tird_die("fork failed");
    if (pid == 0) {
      snprintf(path, sizeof path, "%s/stderr", out);
      if (!freopen(path, "w", stderr)) _exit(5);
      alarm(60);
      int rc = tird_runners[k](in, out, s, 1);
      fflush(stderr);
      _exit(rc);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) < 0) tird_die("waitpid failed");
    snprintf(path, sizeof path, "%s/status", out);
    f = fopen(path, "w"); if (!f) tird_die("cannot write a status");
    if (WIFEXITED(st)) fprintf(f, "exit %d\n", WEXITSTATUS(st));
    else fprintf(f, "signal %d\n", WTERMSIG(st));
    fclose(f);
  }
  return 0;
}
`)
}
