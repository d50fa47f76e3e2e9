package main

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/lower/abi"
)

// param is one tensor of a kernel's C signature: an argument or a result.
type param struct {
	name  string
	rank  int
	ctype string // C element type
	size  int    // bytes per element
	out   bool
}

// ctypeOf is the C type and size of an element the driver reads and
// fills: the ABI's (abi.CTypeOf), for f32, f64, i32 and i64.
func ctypeOf(t ir.Type) (string, int, error) {
	switch t.String() {
	case "f32", "f64", "i32", "i64":
		c, err := abi.CTypeOf(t)
		return c.Name, c.Size, err
	}
	return "", 0, fmt.Errorf("element type %s is not supported by the benchmark driver", t)
}

// signature lists the tensors of fn's C ABI, arguments then results.
func signature(fn *ir.Operation, argNames []string) ([]param, error) {
	ft, ok := tir.FuncType(fn)
	if !ok {
		return nil, fmt.Errorf("not a tir.func")
	}
	var ps []param
	for i, t := range append(append([]ir.Type(nil), ft.Inputs...), ft.Results...) {
		tt, ok := tir.AsTensor(t)
		if !ok {
			return nil, fmt.Errorf("type %s is not a tensor", t)
		}
		ct, size, err := ctypeOf(tt.Elem)
		if err != nil {
			return nil, err
		}
		p := param{rank: tt.Rank(), ctype: ct, size: size, out: i >= len(ft.Inputs)}
		if p.rank > 4 {
			return nil, fmt.Errorf("rank %d is not supported by the benchmark driver", p.rank)
		}
		if i < len(argNames) {
			p.name = argNames[i]
		} else {
			p.name = fmt.Sprintf("result%d", i-len(ft.Inputs))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// The variants, in table order. Their ids are the driver's variant numbers.
// The threaded ones run on OMP_NUM_THREADS threads (all CPUs by default).
const (
	vOurs = iota
	vGCCNative
	vGCCGeneric
	vMLIR
	vMLIRJIT
	vOursThreads // tc-opt -O2 --threads
	vGCCOMP      // the C reference with -fopenmp (#pragma omp parallel for)
	vOursNative  // tc-opt -O2 (-O3) --mcpu=native
	// The kernels with a BLAS reference (kernel.blas) also have:
	vOursFMA    // tc-opt -O3 --mcpu=native --fp-contract=fast
	vBLAS       // OpenBLAS on one thread, with the kernel it picks at run time
	vBLASForced // the same with OPENBLAS_CORETYPE set from the CPU's vector ISA
	// The ML kernels and the formulation families (kernel.numpy) also have:
	vNumPy // ref/ml.py through ref/numpy_driver.py, NumPy's BLAS on one thread
	numVariants
)

// mainVariants are the columns of the main table; the BLAS table has the
// others.
var mainVariants = []int{vOurs, vOursNative, vGCCNative, vGCCGeneric, vMLIR, vMLIRJIT, vOursThreads, vGCCOMP}

var variantTitles = [numVariants]string{"ours", "gcc -march=native", "gcc generic", "mlir + llc", "mlir JIT -O3", "ours threads", "gcc omp",
	"ours native", "ours native fma", "openblas", "openblas forced", "numpy"}

// blasVariant reports whether variant v runs in the BLAS driver.
func blasVariant(v int) bool { return v == vBLAS || v == vBLASForced }

// inexact reports whether a variant computes other roundings than the
// interpreter (fused multiply-adds, another order of the sums, NumPy's
// pairwise sums and vectorized exp): its results are compared within a
// tolerance relative to the largest result.
func inexact(v int) bool { return v == vOursFMA || blasVariant(v) || v == vNumPy }

// driverC is the benchmark driver of a kernel: it reads the inputs from
// $BENCH_DIR/in<i>.bin and the sizes from $BENCH_DIR/config, calls one
// variant through its ABI (one untimed warm-up call, then timed calls
// until they last $BENCH_MIN_NS in all, at least $BENCH_MIN_REPS and at
// most $BENCH_MAX_REPS of them), prints "median_ns reps min_ns"
// and writes the results of the last call to $BENCH_DIR/out<variant>_<k>.bin.
//
// Built as an executable (argv[1] = variant) with HAVE_OURS, HAVE_GCC,
// HAVE_MLIR, HAVE_OURS_THREADS, HAVE_GCC_OMP, HAVE_OURS_NATIVE and
// HAVE_OURS_FMA naming the objects linked in (ours threads defines
// threads_<name>, ours native native_<name>, ours native fma fma_<name>);
// built with -DJIT as a shared library for mlir-cpu-runner, whose main
// passes the JIT-compiled function's address to bench_jit; built with
// HAVE_BLAS alone (blas_ref, linked with -lopenblas) as the BLAS driver,
// which prints the OpenBLAS kernel's name first ("core NAME"). A call
// longer than $BENCH_MAX_NS (a naive variant at a large size) is timed
// once, its warm-up call being that timing.
func driverC(name string, ps []param, nsyms int) string {
	var b strings.Builder
	b.WriteString("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <stdint.h>\n#include <time.h>\n#include \"bench.h\"\n\n")

	// Our ABI (and the C references'): descriptor pointers, 0-d tensors as
	// plain pointers, then the size symbols.
	var decl, call, mdecl, mcall []string
	for i, p := range ps {
		if p.rank == 0 {
			decl = append(decl, "void *")
			call = append(call, fmt.Sprintf("A%d.aligned", i))
		} else {
			decl = append(decl, fmt.Sprintf("desc%d *", p.rank))
			call = append(call, fmt.Sprintf("&D%d", i))
		}
		// MLIR's default lowering: each memref descriptor unpacked.
		mdecl = append(mdecl, "void *", "void *", "int64_t")
		mcall = append(mcall, fmt.Sprintf("A%d.allocated", i), fmt.Sprintf("A%d.aligned", i), fmt.Sprintf("A%d.offset", i))
		for k := 0; k < p.rank; k++ {
			mdecl = append(mdecl, "int64_t")
			mcall = append(mcall, fmt.Sprintf("A%d.sizes[%d]", i, k))
		}
		for k := 0; k < p.rank; k++ {
			mdecl = append(mdecl, "int64_t")
			mcall = append(mcall, fmt.Sprintf("A%d.strides[%d]", i, k))
		}
	}
	for s := 0; s < nsyms; s++ {
		decl = append(decl, "int64_t")
		mdecl = append(mdecl, "int64_t")
		call = append(call, fmt.Sprintf("S[%d]", s))
		mcall = append(mcall, fmt.Sprintf("S[%d]", s))
	}
	sig := strings.Join(decl, ", ")
	args := strings.Join(call, ", ")
	msig := strings.Join(mdecl, ", ")
	margs := strings.Join(mcall, ", ")

	fmt.Fprintf(&b, "#define NPARAMS %d\n#define NSYMS %d\n", len(ps), nsyms)
	b.WriteString("typedef struct { void *allocated, *aligned; int64_t offset, sizes[4], strides[4]; } descmax;\n")
	fmt.Fprintf(&b, "static descmax A[NPARAMS];\nstatic int64_t S[NSYMS + 1];\n")
	for i := range ps {
		fmt.Fprintf(&b, "#define A%d A[%d]\n", i, i)
	}
	// The exact-rank descriptors our ABI passes, copied from A once set up.
	var export strings.Builder
	for i, p := range ps {
		if p.rank == 0 {
			continue
		}
		fmt.Fprintf(&b, "static desc%d D%d;\n", p.rank, i)
		fmt.Fprintf(&export, "  D%d.allocated = A%d.allocated; D%d.aligned = A%d.aligned; D%d.offset = A%d.offset;\n", i, i, i, i, i, i)
		fmt.Fprintf(&export, "  for (int k = 0; k < %d; k++) { D%d.sizes[k] = A%d.sizes[k]; D%d.strides[k] = A%d.strides[k]; }\n", p.rank, i, i, i, i)
	}
	fmt.Fprintf(&b, "static void export_descs(void) {\n%s}\n", export.String())
	ranks, sizes, outs := make([]string, len(ps)), make([]string, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		ranks[i], sizes[i] = fmt.Sprint(p.rank), fmt.Sprint(p.size)
		outs[i] = "0"
		if p.out {
			outs[i] = "1"
		}
	}
	fmt.Fprintf(&b, "static const int RANK[NPARAMS] = {%s};\n", strings.Join(ranks, ", "))
	fmt.Fprintf(&b, "static const int ESIZE[NPARAMS] = {%s};\n", strings.Join(sizes, ", "))
	fmt.Fprintf(&b, "static const int ISOUT[NPARAMS] = {%s};\n\n", strings.Join(outs, ", "))

	fmt.Fprintf(&b, "#ifdef HAVE_OURS\nextern int32_t %s(%s);\nextern const char *%s_error(int32_t);\n#endif\n", name, sig, name)
	fmt.Fprintf(&b, "#ifdef HAVE_GCC\nextern int32_t ref_native(%s);\nextern int32_t ref_generic(%s);\n#endif\n", sig, sig)
	fmt.Fprintf(&b, "#ifdef HAVE_MLIR\nextern void mlir_%s(%s);\n#endif\n", name, msig)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_THREADS\nextern int32_t threads_%s(%s);\nextern const char *threads_%s_error(int32_t);\n#endif\n", name, sig, name)
	fmt.Fprintf(&b, "#ifdef HAVE_GCC_OMP\nextern int32_t ref_omp(%s);\n#endif\n", sig)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_NATIVE\nextern int32_t native_%s(%s);\nextern const char *native_%s_error(int32_t);\n#endif\n", name, sig, name)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_FMA\nextern int32_t fma_%s(%s);\nextern const char *fma_%s_error(int32_t);\n#endif\n", name, sig, name)
	fmt.Fprintf(&b, "#ifdef HAVE_BLAS\nextern int32_t blas_ref(%s);\nextern const char *blas_core(void);\n#endif\n", sig)
	fmt.Fprintf(&b, "typedef void (*jit_fn_t)(%s);\nstatic jit_fn_t jit_fn;\n\n", msig)

	b.WriteString("static int32_t call(int v) {\n  switch (v) {\n")
	fmt.Fprintf(&b, "#ifdef HAVE_OURS\n  case 0: return %s(%s);\n#endif\n", name, args)
	fmt.Fprintf(&b, "#ifdef HAVE_GCC\n  case 1: return ref_native(%s);\n  case 2: return ref_generic(%s);\n#endif\n", args, args)
	fmt.Fprintf(&b, "#ifdef HAVE_MLIR\n  case 3: mlir_%s(%s); return 0;\n#endif\n", name, margs)
	fmt.Fprintf(&b, "  case 4: if (jit_fn) { jit_fn(%s); return 0; } break;\n", margs)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_THREADS\n  case 5: return threads_%s(%s);\n#endif\n", name, args)
	fmt.Fprintf(&b, "#ifdef HAVE_GCC_OMP\n  case 6: return ref_omp(%s);\n#endif\n", args)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_NATIVE\n  case %d: return native_%s(%s);\n#endif\n", vOursNative, name, args)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_FMA\n  case %d: return fma_%s(%s);\n#endif\n", vOursFMA, name, args)
	fmt.Fprintf(&b, "#ifdef HAVE_BLAS\n  case %d: case %d: return blas_ref(%s);\n#endif\n", vBLAS, vBLASForced, args)
	b.WriteString("  }\n  fprintf(stderr, \"variant %d is not built into this driver\\n\", v);\n  exit(2);\n}\n\n")
	fmt.Fprintf(&b, "static const char *errmsg(int v, int32_t rc) {\n#ifdef HAVE_OURS\n  if (v == 0) return %s_error(rc);\n#endif\n", name)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_THREADS\n  if (v == 5) return threads_%s_error(rc);\n#endif\n", name)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_NATIVE\n  if (v == %d) return native_%s_error(rc);\n#endif\n", vOursNative, name)
	fmt.Fprintf(&b, "#ifdef HAVE_OURS_FMA\n  if (v == %d) return fma_%s_error(rc);\n#endif\n", vOursFMA, name)
	b.WriteString("  (void)v; (void)rc; return \"the function failed\";\n}\n")

	b.WriteString(driverBody)
	return b.String()
}

const driverBody = `
static void die(const char *m) { fprintf(stderr, "%s\n", m); exit(3); }
static const char *env(const char *k) { const char *v = getenv(k); if (!v) die(k); return v; }
static int cmp64(const void *a, const void *b) { int64_t x = *(const int64_t *)a, y = *(const int64_t *)b; return (x > y) - (x < y); }
static int64_t now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

static int bench(int v) {
  const char *dir = env("BENCH_DIR");
  int64_t min_ns = atoll(env("BENCH_MIN_NS"));
  int64_t min_reps = atoll(env("BENCH_MIN_REPS")), max_reps = atoll(env("BENCH_MAX_REPS"));
  char path[4096];
  snprintf(path, sizeof path, "%s/config", dir);
  FILE *cf = fopen(path, "r");
  if (!cf) die("cannot open the config file");
  /* config: the symbols, then the extents of every tensor in order. */
  for (int s = 0; s < NSYMS; s++) if (fscanf(cf, "%lld", (long long *)&S[s]) != 1) die("bad config (symbols)");
  for (int i = 0; i < NPARAMS; i++) {
    size_t n = 1;
    for (int k = 0; k < RANK[i]; k++) {
      long long e; if (fscanf(cf, "%lld", &e) != 1) die("bad config (extents)");
      A[i].sizes[k] = e; n *= (size_t)e;
    }
    int64_t st = 1;
    for (int k = RANK[i] - 1; k >= 0; k--) { A[i].strides[k] = st; st *= A[i].sizes[k]; }
    size_t bytes = n * (size_t)ESIZE[i];
    A[i].allocated = A[i].aligned = aligned_alloc(64, (bytes + 64) / 64 * 64);
    A[i].offset = 0;
    if (!A[i].aligned) die("out of memory");
    if (ISOUT[i]) {
      memset(A[i].aligned, 0xff, bytes); /* NaN (or -1): unwritten elements show */
    } else {
      snprintf(path, sizeof path, "%s/in%d.bin", dir, i);
      FILE *f = fopen(path, "rb"); if (!f) die("cannot open an input file");
      if (n && fread(A[i].aligned, (size_t)ESIZE[i], n, f) != n) die("short input file");
      fclose(f);
    }
  }
  fclose(cf);
  export_descs();

  const char *mx = getenv("BENCH_MAX_NS");
  int64_t max_ns = mx ? atoll(mx) : 0;
  int64_t reps = 0, cap = 64, total = 0;
  int64_t *ns = malloc(sizeof(int64_t) * (size_t)cap);
  int64_t w0 = now_ns();
  int32_t rc = call(v); /* warm-up: page faults, caches, lazy binding */
  int64_t warm = now_ns() - w0;
  if (rc) die(errmsg(v, rc));
  if (max_ns > 0 && warm > max_ns) { /* too slow to repeat: the warm-up call is the timing */
    ns[reps++] = warm;
    total = warm;
  }
  /* Timed calls until they last min_ns in all, at least min_reps of them
     (and no more once they last max_ns). */
  while (reps < max_reps && (reps < min_reps || total < min_ns) && !(max_ns > 0 && reps > 0 && total > max_ns)) {
    int64_t t0 = now_ns();
    rc = call(v);
    int64_t t = now_ns() - t0;
    if (rc) die(errmsg(v, rc));
    if (reps == cap) { cap *= 2; ns = realloc(ns, sizeof(int64_t) * (size_t)cap); if (!ns) die("out of memory"); }
    ns[reps++] = t;
    total += t;
  }
  if (reps == 0) die("no timed call (BENCH_MAX_REPS < 1)");
  qsort(ns, (size_t)reps, sizeof(int64_t), cmp64);
#ifdef HAVE_BLAS
  printf("core %s\n", blas_core());
#endif
  printf("%lld %lld %lld\n", (long long)ns[reps / 2], (long long)reps, (long long)ns[0]);
  fflush(stdout);

  int k = 0;
  for (int i = 0; i < NPARAMS; i++) {
    if (!ISOUT[i]) continue;
    size_t n = 1;
    for (int d = 0; d < RANK[i]; d++) n *= (size_t)A[i].sizes[d];
    snprintf(path, sizeof path, "%s/out%d_%d.bin", dir, v, k++);
    FILE *f = fopen(path, "wb"); if (!f) die("cannot write an output file");
    if (n && fwrite(A[i].aligned, (size_t)ESIZE[i], n, f) != n) die("short write");
    fclose(f);
  }
  return 0;
}

#ifdef JIT
void bench_jit(void *f) {
  jit_fn = (jit_fn_t)f;
  int rc = bench(4);
  fflush(stdout);
  if (rc) exit(rc);
}
#else
int main(int argc, char **argv) {
  if (argc != 2) die("usage: driver VARIANT (and BENCH_* in the environment)");
  return bench(atoi(argv[1]));
}
#endif
`
