package emit

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/cf"
	"tir/dialects/fn"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/lower/abi"
)

// Status codes of the CUDA host wrapper beyond those of the CPU build
// (entry checks 1, 2, ...; run-time checks abi.AssertCodeBase + 1, ...),
// except CodeOutOfMemory, which both builds return for a temporary they
// cannot allocate.
const (
	CodeNoDriver    = 2001                // libcuda.so.1 could not be loaded
	CodeNoDevice    = 2002                // the driver did not initialize, or has no such device
	CodeModuleLoad  = 2003                // the PTX could not be read or JIT-compiled
	CodeOutOfMemory = abi.CodeAllocFailed // a temporary could not be allocated (as on the CPU)
	CodeLaunch      = 2005                // a kernel launch failed (or its grid is too large)
	CodeExecution   = 2006                // a kernel failed while running
)

// cudaCodeText says what each CUDA status code means, for f_error and docs.
var cudaCodeText = map[int]string{
	CodeNoDriver:    "no CUDA driver: libcuda.so.1 could not be loaded",
	CodeNoDevice:    "the CUDA driver could not be initialized or has no such device",
	CodeModuleLoad:  "the kernels' PTX could not be loaded",
	CodeOutOfMemory: "cannot allocate a temporary (out of GPU memory, or its size overflows)",
	CodeLaunch:      "a kernel launch failed",
	CodeExecution:   "a kernel failed while running",
}

// CUDAHostOptions configure --emit=cuda-host.
type CUDAHostOptions struct {
	// PTX is the text of the kernels' PTX (llc -march=nvptx64 output) to
	// embed. Empty: the wrapper reads it, at the first call, from the file
	// named by the macro TIR_PTX_FILE (default "<source>.ptx").
	PTX string
	// Source is the input file name, for comments and the default PTX file.
	Source string
}

// hostCalls are the C library functions the host wrapper calls, or that
// gcc may call for it (memcpy and memset for structure copies, puts for a
// printf): a function of one of these names cannot be defined there.
var hostCalls = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`atoi calloc dlerror dlopen dlsym fclose fopen fread free fseek
		ftell fputs fwrite getenv malloc memcmp memcpy memmove memset pthread_once puts putchar
		snprintf strlen vsnprintf abort`) {
		hostCalls[w] = true
	}
}

// CUDAHost prints C source for the host side of an outlined module: for
// every function, `int32_t f(...)` with the signature of the CPU build
// (spec 5.1; descriptors hold device pointers), which makes the same entry
// and run-time checks with the same codes and messages, allocates the
// temporaries, launches the kernels in order and waits for them, plus
// f_error and f_result_shape. It loads the CUDA driver with dlopen at the
// first call, so it compiles with a plain C compiler (link with -ldl
// -lpthread where libc lacks them); TIR_CUDA_DRIVER names another driver
// library and TIR_CUDA_DEVICE another device ordinal.
func CUDAHost(m *ir.Module, opts CUDAHostOptions) (string, error) {
	hfs, err := hostFuncs(m)
	if err != nil {
		return "", err
	}
	w := &hostWriter{descs: map[string]string{}}
	var kernelNames []string
	for _, h := range hfs {
		if !isCIdent(h.sig.Name) {
			return "", ir.Errorf(h.fn.Loc, "@%s is not a C identifier: C cannot define it (rename the function)", h.sig.Name)
		}
		if hostCalls[h.sig.Name] {
			return "", ir.Errorf(h.fn.Loc, "@%s: the CUDA host wrapper calls the C library's %s, which a function of this name would replace (rename the function)", h.sig.Name, h.sig.Name)
		}
		fw, err := w.function(h, len(kernelNames))
		if err != nil {
			return "", err
		}
		kernelNames = append(kernelNames, fw.kernels...)
		w.funcs = append(w.funcs, fw.text)
	}
	var b strings.Builder
	src := opts.Source
	if src == "" {
		src = "<stdin>"
	}
	fmt.Fprintf(&b, cudaPreamble, src)
	b.WriteString("#include <dlfcn.h>\n#include <pthread.h>\n#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n")
	for _, k := range sortedKeys(w.descs) {
		b.WriteString(w.descs[k])
	}
	b.WriteString(cudaDriverDecls)
	if opts.PTX != "" {
		b.WriteString("\n/* The kernels' PTX. */\nstatic const char tir_ptx[] =\n")
		for _, line := range strings.SplitAfter(strings.TrimRight(opts.PTX, "\n")+"\n", "\n") {
			if line != "" {
				b.WriteString("    " + cString(line) + "\n")
			}
		}
		b.WriteString("    ;\n#define TIR_PTX_EMBEDDED 1\n")
	} else {
		base := strings.TrimSuffix(filepath.Base(src), filepath.Ext(src))
		fmt.Fprintf(&b, "\n/* The kernels' PTX is read at the first call from this file (compile with\n   -DTIR_PTX_FILE='\"path\"' to change it, or embed it with tc-opt --ptx=FILE). */\n#ifndef TIR_PTX_FILE\n#define TIR_PTX_FILE %s\n#endif\n", cString(base+".ptx"))
	}
	fmt.Fprintf(&b, "\n/* The kernels, in the order of their launches. */\nenum { TIR_NUM_KERNELS = %d };\nstatic const char *const tir_kernel_names[TIR_NUM_KERNELS] = {", max(len(kernelNames), 1))
	for i, k := range kernelNames {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    " + cString(k))
	}
	if len(kernelNames) == 0 {
		b.WriteString("\"\"")
	}
	b.WriteString("};\n")
	b.WriteString(cudaRuntime)
	b.WriteString("\n" + cHelpers)
	for _, f := range w.funcs {
		b.WriteString("\n" + f)
	}
	return b.String(), nil
}

const cudaPreamble = `/* Generated by tc-opt --emit=cuda-host from %s: the host side of the GPU
 * build (docs/gpu.md). Each function has the signature of the CPU build
 * (docs/abi.md) and the same checks, codes and messages; its descriptors
 * hold device pointers (cuMemAlloc). It loads the CUDA driver at the first
 * call with dlopen, so no CUDA SDK is needed to compile it:
 *     cc -O2 -c this.c        and link with -ldl -lpthread (older glibc)
 * Environment: TIR_CUDA_DRIVER (default libcuda.so.1), TIR_CUDA_DEVICE
 * (default 0). Status codes beyond the CPU build's: 2001 no driver, 2002 no
 * device, 2003 PTX not loadable, 2005 launch failed, 2006 a kernel failed;
 * 2004 (a temporary cannot be allocated) is the CPU build's too. f_error
 * gives the details.
 */
`

// cudaDriverDecls declares the few driver API types and entry points the
// wrapper uses (their ABI is stable; the _v2 names are the current ones).
const cudaDriverDecls = `
/* The CUDA driver API, as much as this file uses. */
typedef int tir_CUresult;
typedef int tir_CUdevice;
typedef struct tir_CUctx *tir_CUcontext;
typedef struct tir_CUmod *tir_CUmodule;
typedef struct tir_CUfunc *tir_CUfunction;
typedef unsigned long long tir_CUdeviceptr;
`

// cudaRuntime is the file-level driver state: loaded once (pthread_once),
// shared by the file's functions.
const cudaRuntime = `
static struct {
  tir_CUresult (*cuInit)(unsigned);
  tir_CUresult (*cuDeviceGet)(tir_CUdevice *, int);
  tir_CUresult (*cuDevicePrimaryCtxRetain)(tir_CUcontext *, tir_CUdevice);
  tir_CUresult (*cuCtxSetCurrent)(tir_CUcontext);
  tir_CUresult (*cuCtxSynchronize)(void);
  tir_CUresult (*cuModuleLoadData)(tir_CUmodule *, const void *);
  tir_CUresult (*cuModuleGetFunction)(tir_CUfunction *, tir_CUmodule, const char *);
  tir_CUresult (*cuLaunchKernel)(tir_CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, void *, void **, void **);
  tir_CUresult (*cuMemAlloc)(tir_CUdeviceptr *, size_t);
  tir_CUresult (*cuMemFree)(tir_CUdeviceptr);
  tir_CUresult (*cuGetErrorName)(tir_CUresult, const char **);
  tir_CUresult (*cuGetErrorString)(tir_CUresult, const char **);
  tir_CUcontext ctx;
  tir_CUmodule module;
  tir_CUfunction kernels[TIR_NUM_KERNELS];
  int32_t status;  /* 0, or the code of the failed initialization */
  char msg[256];   /* its message */
} tir_cuda;
static pthread_once_t tir_cuda_once = PTHREAD_ONCE_INIT;

/* tir_cuda_error formats "what: NAME: description" for a driver result. */
static inline void tir_cuda_error(char *buf, size_t n, const char *what, tir_CUresult r) {
  const char *name = "unknown CUDA error", *text = "";
  if (tir_cuda.cuGetErrorName) tir_cuda.cuGetErrorName(r, &name);
  if (tir_cuda.cuGetErrorString) tir_cuda.cuGetErrorString(r, &text);
  snprintf(buf, n, "%s: %s (%d): %s", what, name ? name : "?", (int)r, text ? text : "");
}

static void tir_cuda_init_once(void) {
  const char *lib = getenv("TIR_CUDA_DRIVER");
  if (!lib || !*lib) lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    tir_cuda.status = 2001;
    snprintf(tir_cuda.msg, sizeof tir_cuda.msg, "no CUDA driver: cannot load %s (%s)", lib, e ? e : "dlopen failed");
    return;
  }
#define TIR_SYM(field, name) \
  if (!(*(void **)&tir_cuda.field = dlsym(h, name))) { \
    tir_cuda.status = 2001; \
    snprintf(tir_cuda.msg, sizeof tir_cuda.msg, "no CUDA driver: %s lacks %s", lib, name); \
    return; \
  }
  TIR_SYM(cuInit, "cuInit")
  TIR_SYM(cuDeviceGet, "cuDeviceGet")
  TIR_SYM(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")
  TIR_SYM(cuCtxSetCurrent, "cuCtxSetCurrent")
  TIR_SYM(cuCtxSynchronize, "cuCtxSynchronize")
  TIR_SYM(cuModuleLoadData, "cuModuleLoadData")
  TIR_SYM(cuModuleGetFunction, "cuModuleGetFunction")
  TIR_SYM(cuLaunchKernel, "cuLaunchKernel")
  TIR_SYM(cuMemAlloc, "cuMemAlloc_v2")
  TIR_SYM(cuMemFree, "cuMemFree_v2")
  TIR_SYM(cuGetErrorName, "cuGetErrorName")
  TIR_SYM(cuGetErrorString, "cuGetErrorString")
#undef TIR_SYM
  tir_CUresult r = tir_cuda.cuInit(0);
  tir_CUdevice dev = 0;
  const char *ord = getenv("TIR_CUDA_DEVICE");
  if (r == 0) r = tir_cuda.cuDeviceGet(&dev, ord && *ord ? atoi(ord) : 0);
  if (r == 0) r = tir_cuda.cuDevicePrimaryCtxRetain(&tir_cuda.ctx, dev);
  if (r == 0) r = tir_cuda.cuCtxSetCurrent(tir_cuda.ctx);
  if (r != 0) {
    tir_cuda.status = 2002;
    tir_cuda_error(tir_cuda.msg, sizeof tir_cuda.msg, "CUDA initialization", r);
    return;
  }
#ifdef TIR_PTX_EMBEDDED
  const char *ptx = tir_ptx;
#else
  FILE *f = fopen(TIR_PTX_FILE, "rb");
  char *ptx = NULL;
  long len = -1;
  if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
      (ptx = malloc((size_t)len + 1)) && fread(ptx, 1, (size_t)len, f) == (size_t)len) {
    ptx[len] = 0;
  } else {
    free(ptx);
    ptx = NULL;
  }
  if (f) fclose(f);
  if (!ptx) {
    tir_cuda.status = 2003;
    snprintf(tir_cuda.msg, sizeof tir_cuda.msg, "cannot read the kernels' PTX from %s", TIR_PTX_FILE);
    return;
  }
#endif
  r = tir_cuda.cuModuleLoadData(&tir_cuda.module, ptx);
#ifndef TIR_PTX_EMBEDDED
  free(ptx);
#endif
  if (r != 0) {
    tir_cuda.status = 2003;
    tir_cuda_error(tir_cuda.msg, sizeof tir_cuda.msg, "loading the kernels' PTX (cuModuleLoadData)", r);
    return;
  }
  for (int k = 0; k < TIR_NUM_KERNELS; k++) {
    if (!tir_kernel_names[k][0]) continue;
    r = tir_cuda.cuModuleGetFunction(&tir_cuda.kernels[k], tir_cuda.module, tir_kernel_names[k]);
    if (r != 0) {
      char what[128];
      snprintf(what, sizeof what, "kernel %s not in the PTX", tir_kernel_names[k]);
      tir_cuda.status = 2003;
      tir_cuda_error(tir_cuda.msg, sizeof tir_cuda.msg, what, r);
      return;
    }
  }
}

/* tir_cuda_init loads the driver once and makes its context current in the
   calling thread; on failure it copies the message to buf. */
static inline int32_t tir_cuda_init(char *buf, size_t n) {
  pthread_once(&tir_cuda_once, tir_cuda_init_once);
  if (tir_cuda.status == 0) {
    tir_CUresult r = tir_cuda.cuCtxSetCurrent(tir_cuda.ctx);
    if (r == 0) return 0;
    tir_cuda_error(buf, n, "cuCtxSetCurrent", r);
    return 2002;
  }
  snprintf(buf, n, "%s", tir_cuda.msg);
  return tir_cuda.status;
}

/* tir_alloc allocates a temporary of the given sizes and element size (none
   when it is empty). The byte count is checked before the driver sees it:
   with broadcast arguments (outer strides 0) the sizes are the caller's and
   their product may exceed 2^63 or wrap. name says which temporary (its
   value, and where the program defines it). */
static inline int32_t tir_alloc(tir_CUdeviceptr *p, int rank, const int64_t *sizes, size_t esize, const char *name,
                                char *buf, size_t bn) {
  *p = 0;
  for (int d = 0; d < rank; d++)
    if (sizes[d] <= 0) return 0;
  uint64_t bytes = esize;
  for (int d = 0; d < rank; d++) {
    if (bytes > (uint64_t)INT64_MAX / (uint64_t)sizes[d] || bytes * (uint64_t)sizes[d] > SIZE_MAX) {
      snprintf(buf, bn, "cannot allocate temporary %s: 2^63 bytes or more", name);
      return 2004;
    }
    bytes *= (uint64_t)sizes[d];
  }
  tir_CUresult r = tir_cuda.cuMemAlloc(p, (size_t)bytes);
  if (r == 0) return 0;
  *p = 0;
  const char *ename = "unknown CUDA error", *etext = "";
  if (tir_cuda.cuGetErrorName) tir_cuda.cuGetErrorName(r, &ename);
  if (tir_cuda.cuGetErrorString) tir_cuda.cuGetErrorString(r, &etext);
  snprintf(buf, bn, "cannot allocate temporary %s: %lld bytes (cuMemAlloc: %s (%d): %s)", name, (long long)bytes,
           ename ? ename : "?", (int)r, etext ? etext : "");
  return 2004;
}

/* tir_launch launches kernel k on a grid computed by the caller. */
static inline int32_t tir_launch(int k, int64_t gx, int64_t gy, int64_t gz, unsigned bx, unsigned by, unsigned bz,
                          void **args, char *buf, size_t bn) {
  if (gx < 1 || gy < 1 || gz < 1 || gx > 2147483647LL || gy > 65535 || gz > 65535) {
    snprintf(buf, bn, "kernel %s: grid %lld x %lld x %lld exceeds the limits of CUDA", tir_kernel_names[k],
             (long long)gx, (long long)gy, (long long)gz);
    return 2005;
  }
  tir_CUresult r = tir_cuda.cuLaunchKernel(tir_cuda.kernels[k], (unsigned)gx, (unsigned)gy, (unsigned)gz, bx, by, bz,
                                           0, NULL, args, NULL);
  if (r == 0) return 0;
  char what[128];
  snprintf(what, sizeof what, "launching kernel %s (cuLaunchKernel)", tir_kernel_names[k]);
  tir_cuda_error(buf, bn, what, r);
  return 2005;
}

/* tir_wait waits for the launched kernels. */
static inline int32_t tir_wait(char *buf, size_t bn) {
  tir_CUresult r = tir_cuda.cuCtxSynchronize();
  if (r == 0) return 0;
  tir_cuda_error(buf, bn, "running the kernels (cuCtxSynchronize)", r);
  return 2006;
}
`

// hostWriter accumulates the file's parts.
type hostWriter struct {
	descs map[string]string // descriptor typedefs by name
	funcs []string
}

// funcWriter writes one function.
type funcWriter struct {
	h       *hostFunc
	b       strings.Builder
	names   map[*ir.Value]string // C expressions of host values
	params  []string             // C parameter names, by argument
	tmps    []*ir.Operation      // memref.alloc ops
	kernels []string             // kernel names, in launch order
	first   int                  // index of the first kernel in the file's table
	inited  bool                 // the driver init call was written
	asserts int
	nvals   int
	used    map[*ir.Value]bool // host values some op uses
}

func (w *hostWriter) desc(elem abi.CType, rank int) string {
	name := fmt.Sprintf("tir_desc_%s_%d", elem.Suffix, rank)
	if _, ok := w.descs[name]; !ok {
		up := strings.ToUpper(name)
		w.descs[name] = fmt.Sprintf("#ifndef %s_DEFINED\n#define %s_DEFINED\ntypedef struct %s {\n  %s *allocated;\n  %s *aligned;\n  int64_t offset;\n  int64_t sizes[%d];\n  int64_t strides[%d];\n} %s;\n#endif\n\n",
			up, up, name, elem.Name, elem.Name, rank, rank, name)
	}
	return name
}

type funcText struct {
	text    string
	kernels []string
}

func (w *hostWriter) function(h *hostFunc, firstKernel int) (*funcText, error) {
	f := &funcWriter{h: h, names: map[*ir.Value]string{}, first: firstKernel, used: map[*ir.Value]bool{}}
	for _, op := range h.ops {
		for _, v := range op.Operands {
			f.used[v] = true
		}
	}
	name := h.sig.Name
	namer := newCNamer()
	namer.taken = func(id string) bool { return hostLocal(name, id) }
	var protos []string
	nin := 0
	for _, a := range h.sig.Args {
		if a.Mem != nil {
			nin++
		}
	}
	nin -= h.sig.NumResults
	memSeen := 0
	for _, a := range h.sig.Args {
		pn := namer.name(a.Name)
		f.params = append(f.params, pn)
		entry := h.fn.Regions[0].Entry().Args[a.Index]
		if a.Mem == nil {
			if !ir.TypeEqual(a.Type, ir.Index) {
				return nil, ir.Errorf(h.fn.Loc, "@%s: argument '%s' of type %s cannot cross the C ABI", name, a.Name, a.Type)
			}
			protos = append(protos, "int64_t "+pn)
			f.names[entry] = pn
			continue
		}
		elem, err := abi.CTypeOf(a.Mem.Elem)
		if err != nil {
			return nil, ir.Errorf(h.fn.Loc, "@%s: argument '%s': %v", name, a.Name, err)
		}
		cnst := ""
		if memSeen < nin {
			cnst = "const "
		}
		memSeen++
		if len(a.Mem.Shape) == 0 {
			protos = append(protos, fmt.Sprintf("%s%s *%s", cnst, elem.Name, pn))
		} else {
			protos = append(protos, fmt.Sprintf("%s%s *%s", cnst, w.desc(elem, len(a.Mem.Shape)), pn))
		}
	}
	b := &f.b
	fmt.Fprintf(b, "/* @%s */\nstatic char %s_errbuf[%d];\nstatic int32_t %s_errcode;\n\n", name, name, abi.ErrBufSize, name)
	checks := h.sig.EntryChecks()
	if len(checks) > 0 || hasFormattedAssert(h.ops) {
		fmt.Fprintf(b, "static int32_t %s_fail(int32_t code, const char *fmt, ...) {\n  va_list ap;\n  va_start(ap, fmt);\n  vsnprintf(%s_errbuf, sizeof %s_errbuf, fmt, ap);\n  va_end(ap);\n  %s_errcode = code;\n  return code;\n}\n\n", name, name, name, name)
	}
	if label := CAsmLabel(name); label != "" {
		// A C library name (abs, exp): the headers above declare it
		// otherwise, so the definition has an identifier of its own and
		// the symbol is given by an asm label.
		fmt.Fprintf(b, "int32_t %s(%s)%s;\n", CFuncIdent(name), strings.Join(protos, ", "), label)
	}
	fmt.Fprintf(b, "int32_t %s(%s) {\n", CFuncIdent(name), strings.Join(protos, ", "))
	// The entry checks of the CPU build, in its order.
	for _, c := range checks {
		p := f.params[c.Arg.Index]
		switch c.Kind {
		case abi.CheckExtent:
			want := cExpr(c.Arg.Extents[c.Dim], f.symbolName)
			got := fmt.Sprintf("%s->sizes[%d]", p, c.Dim)
			args := "(long long)" + got
			if c.Symbolic {
				args = fmt.Sprintf("(long long)%s, %s", want, args)
			}
			fmt.Fprintf(b, "  if (%s != %s) return %s_fail(%d, %s, %s);\n", got, want, name, c.Code, cString(c.Format), args)
		case abi.CheckUnitStride:
			got := fmt.Sprintf("%s->strides[%d]", p, c.Dim)
			fmt.Fprintf(b, "  if (%s != 1) return %s_fail(%d, %s, (long long)%s);\n", got, name, c.Code, cString(c.Format), got)
		case abi.CheckNonNull:
			if cond := nullCond(c.Arg, p); cond != "" {
				fmt.Fprintf(b, "  if (%s) return %s_fail(%d, %s);\n", cond, name, c.Code, cString(c.Format))
			}
		}
	}
	b.WriteString("  int32_t rc = 0;\n  int launched = 0;\n")
	var body strings.Builder
	for _, op := range h.ops {
		if err := f.op(&body, op); err != nil {
			return nil, err
		}
	}
	for _, t := range f.tmps {
		fmt.Fprintf(b, "  tir_CUdeviceptr %s = 0;\n", f.names[t.Results[0]])
	}
	b.WriteString(body.String())
	b.WriteString("done:\n")
	fmt.Fprintf(b, "  if (launched) {\n    int32_t w = tir_wait(%s_errbuf, sizeof %s_errbuf);\n    if (rc == 0 && w != 0) rc = w, %s_errcode = w;\n  }\n", name, name, name)
	for _, t := range f.tmps {
		v := f.names[t.Results[0]]
		fmt.Fprintf(b, "  if (%s) tir_cuda.cuMemFree(%s);\n", v, v)
	}
	b.WriteString("  return rc;\n}\n")
	f.errorFunc(checks)
	if err := f.resultShape(); err != nil {
		return nil, err
	}
	return &funcText{text: b.String(), kernels: f.kernels}, nil
}

// hostLocal reports whether the host wrapper of function fn declares or
// refers to identifier id where its parameters are in scope: its locals
// (rc, launched, w, args, the values t0, t1, ..., the launch parameters
// p0, p1, ..., the temporaries tmp0_x, ...), the runtime's tir_* names and
// the function's own fn_* globals. A tir argument called so (%t1, %p0)
// would be redeclared or would shadow them.
func hostLocal(fn, id string) bool {
	switch id {
	case "rc", "launched", "w", "args":
		return true
	}
	if strings.HasPrefix(id, "tir_") || strings.HasPrefix(id, fn+"_") {
		return true
	}
	for _, family := range []string{"t", "p", "tmp"} {
		rest, ok := strings.CutPrefix(id, family)
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if ok && digits > 0 && (digits == len(rest) || family == "tmp" && rest[digits] == '_') {
			return true
		}
	}
	return false
}

// symbolName names symbol s_i of an extent expression: the C parameter of
// the i-th size argument.
func (f *funcWriter) symbolName(v sizeexpr.Var) string {
	if i := v.Order - 1000; v.Kind == sizeexpr.SymbolVar && i >= 0 && i < len(f.h.sig.SymArgs) {
		return f.params[f.h.sig.SymArgs[i]]
	}
	return v.Name
}

func (f *funcWriter) fresh(v *ir.Value) string {
	n := fmt.Sprintf("t%d", f.nvals)
	f.nvals++
	f.names[v] = n
	return n
}

func (f *funcWriter) val(op *ir.Operation, v *ir.Value) (string, error) {
	if n, ok := f.names[v]; ok {
		return n, nil
	}
	return "", ir.Errorf(op.Loc, "'%s' uses a value the host does not have", op.Name)
}

// cmpOps are the C operators of arith.cmpi predicates; u marks the
// unsigned ones.
var cmpOps = map[string]string{"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}

var binOps = map[*ir.OpDef]string{arith.AddI: "+", arith.SubI: "-", arith.MulI: "*", arith.DivSI: "/", arith.RemSI: "%",
	arith.AndI: "&", arith.OrI: "|", arith.XOrI: "^", arith.ShLI: "<<", arith.ShRSI: ">>"}

var callOps = map[*ir.OpDef]string{arith.FloorDivSI: "tir_floordiv", arith.CeilDivSI: "tir_ceildiv", arith.MaxSI: "tir_max", arith.MinSI: "tir_min"}

// ctypeOf is the C type a host integer value is held in.
func ctypeOf(t ir.Type) string {
	if it, ok := t.(ir.IntegerType); ok && it.Width == 1 {
		return "int"
	}
	return "int64_t"
}

// op writes the C of one host op.
func (f *funcWriter) op(b *strings.Builder, op *ir.Operation) error {
	name := f.h.sig.Name
	operands := make([]string, len(op.Operands))
	for i, v := range op.Operands {
		if _, isMem := v.Type.(ir.MemRefType); isMem {
			continue
		}
		s, err := f.val(op, v)
		if err != nil {
			return err
		}
		operands[i] = s
	}
	def := func(expr string) {
		r := op.Results[0]
		if f.used[r] {
			fmt.Fprintf(b, "  const %s %s = %s;\n", ctypeOf(r.Type), f.fresh(r), expr)
		}
	}
	switch {
	case op.Is(fn.Return):
		b.WriteString("  goto done;\n")
	case op.Is(arith.Constant):
		switch a := op.Attr(arith.AttrValue).(type) {
		case ir.IntegerAttr:
			def(cInt(a.Value))
		case ir.BoolAttr:
			if a {
				def("1")
			} else {
				def("0")
			}
		default:
			// A float constant the kernels recompute themselves.
			return nil
		}
	case binOps[op.Def] != "":
		def(fmt.Sprintf("%s %s %s", operands[0], binOps[op.Def], operands[1]))
	case callOps[op.Def] != "":
		def(fmt.Sprintf("%s(%s, %s)", callOps[op.Def], operands[0], operands[1]))
	case op.Is(arith.DivUI, arith.RemUI, arith.ShRUI, arith.MaxUI, arith.MinUI):
		x, y := "(uint64_t)"+operands[0], "(uint64_t)"+operands[1]
		switch op.Def {
		case arith.DivUI:
			def(fmt.Sprintf("(int64_t)(%s / %s)", x, y))
		case arith.RemUI:
			def(fmt.Sprintf("(int64_t)(%s %% %s)", x, y))
		case arith.ShRUI:
			def(fmt.Sprintf("(int64_t)(%s >> %s)", x, y))
		case arith.MaxUI:
			def(fmt.Sprintf("(int64_t)(%s > %s ? %s : %s)", x, y, x, y))
		default:
			def(fmt.Sprintf("(int64_t)(%s < %s ? %s : %s)", x, y, x, y))
		}
	case op.Is(arith.CmpI):
		p, _ := op.Attr(arith.AttrPredicate).(ir.IntegerAttr)
		if p.Value < 0 || int(p.Value) >= len(arith.CmpIPredicates) {
			return ir.Errorf(op.Loc, "%s with an unknown predicate", arith.CmpI.Name)
		}
		pred := arith.CmpIPredicates[p.Value]
		x, y := operands[0], operands[1]
		if pred[0] == 'u' {
			x, y = "(uint64_t)"+x, "(uint64_t)"+y
		}
		def(fmt.Sprintf("%s %s %s", x, cmpOps[pred], y))
	case op.Is(arith.Select):
		def(fmt.Sprintf("%s ? %s : %s", operands[0], operands[1], operands[2]))
	case op.Is(arith.IndexCast, arith.IndexCastUI, arith.ExtSI, arith.ExtUI, arith.TruncI):
		def(castC(op.Def, op.Operands[0].Type, op.Results[0].Type, operands[0]))
	case op.Is(memref.Dim):
		c, ok := constOperand(op.Operands[1])
		if !ok {
			return ir.Errorf(op.Loc, "%s with a dimension that is not a constant", memref.Dim.Name)
		}
		s, err := f.dim(op, op.Operands[0], int(c))
		if err != nil {
			return err
		}
		def(s)
	case op.Is(cf.Assert):
		f.asserts++
		code := abi.AssertCodeBase + f.asserts
		fail, err := f.assertFail(op, code)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "  if (!(%s)) { %s }\n", operands[0], fail)
	case op.Is(memref.Alloc):
		if err := f.init(b); err != nil {
			return err
		}
		r := op.Results[0]
		mt := r.Type.(ir.MemRefType)
		v := r.NameHint
		if !isCIdent(v) {
			v = ""
		}
		tmp := fmt.Sprintf("tmp%d_%s", len(f.tmps), v)
		f.names[r] = tmp
		f.tmps = append(f.tmps, op)
		// The sizes, for the launches' parameters.
		k := 0
		for d, s := range mt.Shape {
			sz := cInt(s)
			if s == ir.Dynamic {
				sz = operands[k]
				k++
			}
			fmt.Fprintf(b, "  const int64_t %s_size%d = %s;\n", tmp, d, sz)
		}
		elem, err := abi.CTypeOf(mt.Elem)
		if err != nil {
			return ir.Errorf(op.Loc, "temporary of %v", err)
		}
		sizes := make([]string, len(mt.Shape))
		for d := range sizes {
			sizes[d] = fmt.Sprintf("%s_size%d", tmp, d)
		}
		if len(sizes) == 0 {
			sizes = []string{"1"}
		}
		fmt.Fprintf(b, "  if ((rc = tir_alloc(&%s, %d, (const int64_t[]){%s}, sizeof(%s), %s, %s_errbuf, sizeof %s_errbuf)) != 0) { %s_errcode = rc; goto done; }\n",
			tmp, len(sizes), strings.Join(sizes, ", "), elem.Name, cString(abi.AllocName(allocHint(v), op.Loc)), name, name, name)
	case op.Is(memref.Dealloc):
		// Freed at the end, after the kernels have finished.
	case op.Is(gpu.LaunchFunc):
		return f.launch(b, op, operands)
	default:
		return ir.Errorf(op.Loc, "'%s' cannot run in the host code of a GPU function", op.Name)
	}
	return nil
}

// allocHint is the name of a temporary in its failure message, as the
// CPU build's: the value's name unless it is a number or absent.
func allocHint(v string) string {
	if v == "" || v[0] >= '0' && v[0] <= '9' {
		return "tmp"
	}
	return v
}

// nullCond is the C condition under which argument a, the C parameter p,
// fails its abi.CheckNonNull: a NULL pointer of a 0-d tensor, or a NULL
// aligned pointer of a tensor whose sizes are all positive. Dimensions of
// a static extent are known positive once the extent checks passed; ""
// when a static extent is 0 (the tensor is always empty).
func nullCond(a *abi.Arg, p string) string {
	if len(a.Mem.Shape) == 0 {
		return p + " == NULL"
	}
	conds := []string{p + "->aligned == NULL"}
	for d := range a.Mem.Shape {
		if c, static := a.Extents[d].Const(); a.Known[d] && static {
			if c <= 0 {
				return ""
			}
			continue
		}
		conds = append(conds, fmt.Sprintf("%s->sizes[%d] > 0", p, d))
	}
	return strings.Join(conds, " && ")
}

// init writes the driver initialization before the first driver call.
func (f *funcWriter) init(b *strings.Builder) error {
	if f.inited {
		return nil
	}
	f.inited = true
	name := f.h.sig.Name
	fmt.Fprintf(b, "  if ((rc = tir_cuda_init(%s_errbuf, sizeof %s_errbuf)) != 0) { %s_errcode = rc; goto done; }\n", name, name, name)
	return nil
}

func castC(cast *ir.OpDef, from, to ir.Type, x string) string {
	width := func(t ir.Type) int {
		if it, ok := t.(ir.IntegerType); ok {
			return it.Width
		}
		return 64
	}
	wf, wt := width(from), width(to)
	switch {
	case wt == 1:
		return fmt.Sprintf("(%s & 1)", x)
	case wt < 64 && (cast == arith.TruncI || wt < wf):
		return fmt.Sprintf("(int64_t)(int%d_t)%s", wt, x)
	case (cast == arith.ExtUI || cast == arith.IndexCastUI) && wf < 64:
		if wf == 1 {
			return fmt.Sprintf("(int64_t)(%s & 1)", x)
		}
		return fmt.Sprintf("(int64_t)(uint%d_t)%s", wf, x)
	}
	return x
}

func constOperand(v *ir.Value) (int64, bool) {
	d := v.DefiningOp()
	if !d.Is(arith.Constant) {
		return 0, false
	}
	a, ok := d.Attr(arith.AttrValue).(ir.IntegerAttr)
	return a.Value, ok
}

// dim is the C expression of the size of dimension d of a host buffer.
func (f *funcWriter) dim(op *ir.Operation, m *ir.Value, d int) (string, error) {
	mt, ok := m.Type.(ir.MemRefType)
	if !ok || d < 0 || d >= len(mt.Shape) {
		return "", ir.Errorf(op.Loc, "dimension %d of a non-buffer or out of range", d)
	}
	if a := f.h.argOf(m); a != nil {
		return fmt.Sprintf("%s->sizes[%d]", f.params[a.Index], d), nil
	}
	if t, ok := f.names[m]; ok && m.DefiningOp().Is(memref.Alloc) {
		return fmt.Sprintf("%s_size%d", t, d), nil
	}
	return "", ir.Errorf(op.Loc, "'%s' uses a buffer the host does not know", op.Name)
}

// launch writes a kernel launch: the parameters (buffer pieces and index
// values), the grid and the call.
func (f *funcWriter) launch(b *strings.Builder, op *ir.Operation, operands []string) error {
	if err := f.init(b); err != nil {
		return err
	}
	name := f.h.sig.Name
	params, err := f.h.launchParams(op)
	if err != nil {
		return err
	}
	_, kname := gpu.LaunchKernel(op)
	k := f.first + len(f.kernels)
	f.kernels = append(f.kernels, kname)
	fmt.Fprintf(b, "  { /* %s */\n", kname)
	var refs []string
	for i, p := range params {
		pv := fmt.Sprintf("p%d", i)
		refs = append(refs, "&"+pv)
		expr, err := f.param(op, p)
		if err != nil {
			return err
		}
		ctype := "int64_t"
		if p.piece.Kind == abi.ParamPtr {
			ctype = "tir_CUdeviceptr"
		}
		fmt.Fprintf(b, "    %s %s = %s; /* %s */\n", ctype, pv, expr, p.name)
	}
	if len(refs) == 0 {
		refs = []string{"NULL"}
	}
	fmt.Fprintf(b, "    void *args[] = {%s};\n", strings.Join(refs, ", "))
	grid := gpu.LaunchGrid(op)
	block := gpu.LaunchBlock(op)
	var gs, bs []string
	for d := 0; d < 3; d++ {
		g, err := f.val(op, grid[d])
		if err != nil {
			return err
		}
		gs = append(gs, g)
		c, ok := constOperand(block[d])
		if !ok || c < 1 || c > 1024 {
			return ir.Errorf(op.Loc, "%s: the block size must be a constant between 1 and 1024", gpu.LaunchFunc.Name)
		}
		bv, err := f.val(op, block[d])
		if err != nil {
			return err
		}
		bs = append(bs, "(unsigned)"+bv)
	}
	fmt.Fprintf(b, "    rc = tir_launch(%d, %s, %s, args, %s_errbuf, sizeof %s_errbuf);\n", k, strings.Join(gs, ", "), strings.Join(bs, ", "), name, name)
	fmt.Fprintf(b, "    launched = 1;\n    if (rc != 0) { %s_errcode = rc; goto done; }\n  }\n", name)
	return nil
}

// param is the C expression of one launch parameter.
func (f *funcWriter) param(op *ir.Operation, p launchParam) (string, error) {
	v := p.value
	if p.piece.Kind == abi.ParamScalar {
		return f.val(op, v)
	}
	mt := v.Type.(ir.MemRefType)
	if a := f.h.argOf(v); a != nil {
		pn := f.params[a.Index]
		switch p.piece.Kind {
		case abi.ParamPtr:
			if len(mt.Shape) == 0 {
				return fmt.Sprintf("(tir_CUdeviceptr)(uintptr_t)%s", pn), nil
			}
			return fmt.Sprintf("(tir_CUdeviceptr)(uintptr_t)%s->aligned", pn), nil
		case abi.ParamOffset:
			return pn + "->offset", nil
		case abi.ParamSize:
			return fmt.Sprintf("%s->sizes[%d]", pn, p.piece.Dim), nil
		case abi.ParamStride:
			return fmt.Sprintf("%s->strides[%d]", pn, p.piece.Dim), nil
		}
	}
	t, ok := f.names[v]
	if !ok {
		return "", ir.Errorf(op.Loc, "%s passes a buffer the host does not know", gpu.LaunchFunc.Name)
	}
	// A temporary: contiguous, row-major, offset 0.
	switch p.piece.Kind {
	case abi.ParamPtr:
		return t, nil
	case abi.ParamOffset:
		return "0", nil
	case abi.ParamSize:
		return fmt.Sprintf("%s_size%d", t, p.piece.Dim), nil
	}
	stride := "1LL"
	for d := p.piece.Dim + 1; d < len(mt.Shape); d++ {
		stride += fmt.Sprintf(" * %s_size%d", t, d)
	}
	return stride, nil
}

// errorFunc writes f_error: the formatted message of the last failure,
// otherwise a message without run-time values.
func (f *funcWriter) errorFunc(checks []abi.EntryCheck) {
	b := &f.b
	name := f.h.sig.Name
	fmt.Fprintf(b, "\nconst char *%s_error(int32_t code) {\n  switch (code) {\n  case 0:\n    return \"success\";\n", name)
	for _, c := range checks {
		fmt.Fprintf(b, "  case %d:\n    return %s_errcode == %d ? %s_errbuf : %s;\n", c.Code, name, c.Code, name, cString(c.Static))
	}
	n := 0
	for _, op := range f.h.ops {
		if op.Is(cf.Assert) {
			n++
			msg, _ := op.Attr(cf.AttrMsg).(ir.StringAttr)
			if _, _, formatted, _ := abi.AssertFormat(op); formatted {
				fmt.Fprintf(b, "  case %d:\n    return %s_errcode == %d ? %s_errbuf : %s;\n", abi.AssertCodeBase+n, name, abi.AssertCodeBase+n, name, cString(string(msg)))
				continue
			}
			fmt.Fprintf(b, "  case %d:\n    return %s;\n", abi.AssertCodeBase+n, cString(string(msg)))
		}
	}
	codes := make([]int, 0, len(cudaCodeText))
	for c := range cudaCodeText {
		codes = append(codes, c)
	}
	sort.Ints(codes)
	for _, c := range codes {
		fmt.Fprintf(b, "  case %d:\n    return %s_errcode == %d ? %s_errbuf : %s;\n", c, name, c, name, cString(cudaCodeText[c]))
	}
	b.WriteString("  }\n  return \"unknown error code\";\n}\n")
}

// resultShape writes f_result_shape, as the CPU build defines it.
func (f *funcWriter) resultShape() error {
	b := &f.b
	name := f.h.sig.Name
	var ps []string
	for _, ai := range f.h.sig.SymArgs {
		ps = append(ps, "int64_t "+f.params[ai])
	}
	sizes := "sizes"
	for _, p := range f.params {
		if p == sizes {
			sizes = "sizes_"
		}
	}
	ps = append(ps, "int64_t *"+sizes)
	fmt.Fprintf(b, "\nint32_t %s_result_shape(%s) {\n", name, strings.Join(ps, ", "))
	status, pos := 0, 0
	for _, a := range f.h.sig.Results() {
		for d := range a.Mem.Shape {
			v := "-1LL"
			if a.Known[d] {
				v = cExpr(a.Extents[d], f.symbolName)
			} else {
				status = 1
			}
			fmt.Fprintf(b, "  %s[%d] = %s;\n", sizes, pos, v)
			pos++
		}
	}
	if len(f.h.sig.SymArgs) > 0 {
		for _, ai := range f.h.sig.SymArgs {
			fmt.Fprintf(b, "  (void)%s;\n", f.params[ai])
		}
	}
	if pos == 0 {
		fmt.Fprintf(b, "  (void)%s;\n", sizes)
	}
	fmt.Fprintf(b, "  return %d;\n}\n", status)
	return nil
}
