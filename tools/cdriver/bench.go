package cdriver

import (
	"fmt"
	"strings"
)

// Bench is the benchmark driver (test/bench) of Funcs[0]'s signature: it
// reads the sizes from $BENCH_DIR/config (the symbols, then the extents
// of every tensor in order) and the inputs from $BENCH_DIR/in<i>.bin (the
// elements alone, as NumPy's tofile writes them), fills the results with
// 0xff bytes (NaN, or -1: unwritten elements show), calls one variant
// (argv[1]) through its ABI, one untimed warm-up call and then timed
// calls until they last $BENCH_MIN_NS in all, at least $BENCH_MIN_REPS
// and at most $BENCH_MAX_REPS of them (a call longer than $BENCH_MAX_NS
// is timed once, its warm-up call being that timing), prints "median_ns
// reps min_ns" and writes the results of the last call to
// $BENCH_DIR/out<variant>_<k>.bin.
//
// Built with -DJIT as a shared library, the driver has no main:
// mlir-cpu-runner's calls bench_jit with the JIT-compiled function's
// address, which the JIT variant calls.
type Bench struct {
	// Include is a header the driver includes, "" for none.
	Include  string
	Variants []Variant
}

// Variant is one implementation of the signature the bench driver can
// call.
type Variant struct {
	// IDs are the variant numbers (argv[1]) that call it.
	IDs []int
	// Guard is the macro that says it is linked in (HAVE_OURS), "" when
	// it always is.
	Guard string
	// Symbol is its symbol; Error is the symbol of its f_error, "" when
	// it has none (a failure then says "the function failed").
	Symbol, Error string
	// Unpacked: MLIR's default lowering, each descriptor passed as its
	// fields (allocated, aligned, offset, sizes, strides) and no status.
	Unpacked bool
	// JIT: called through the address bench_jit receives (no Symbol).
	JIT bool
	// Core is the symbol of a const char *(void) naming the library
	// kernel the variant runs, printed first as "core NAME", or "".
	Core string
}

func benchSource(d Driver) (string, error) {
	f := d.Funcs[0]
	var b strings.Builder
	d.runtime(&b, f)
	if d.Bench.Include != "" {
		fmt.Fprintf(&b, "#include %q\n", d.Bench.Include)
	}
	// Our ABI (and the C references'): descriptor pointers, 0-d tensors as
	// plain pointers, then the size symbols; MLIR's: each descriptor
	// unpacked.
	maxRank := 1
	var decl, args, mdecl, margs []string
	for i, p := range f.Params {
		if p.Rank > maxRank {
			maxRank = p.Rank
		}
		a := fmt.Sprintf("tird_A[%d]", i)
		if p.Rank == 0 {
			decl = append(decl, "void *")
			args = append(args, a+".aligned")
		} else {
			decl = append(decl, fmt.Sprintf("tird_desc%d *", p.Rank))
			args = append(args, fmt.Sprintf("&tird_D%d", i))
		}
		mdecl = append(mdecl, "void *", "void *", "int64_t")
		margs = append(margs, a+".allocated", a+".aligned", a+".offset")
		for k := 0; k < 2*p.Rank; k++ {
			mdecl = append(mdecl, "int64_t")
		}
		for k := 0; k < p.Rank; k++ {
			margs = append(margs, fmt.Sprintf("%s.sizes[%d]", a, k))
		}
		for k := 0; k < p.Rank; k++ {
			margs = append(margs, fmt.Sprintf("%s.strides[%d]", a, k))
		}
	}
	for s := range f.Syms {
		decl = append(decl, "int64_t")
		mdecl = append(mdecl, "int64_t")
		args = append(args, fmt.Sprintf("tird_S[%d]", s))
		margs = append(margs, fmt.Sprintf("tird_S[%d]", s))
	}

	fmt.Fprintf(&b, "#define TIRD_NPARAMS %d\n#define TIRD_NSYMS %d\n", len(f.Params), len(f.Syms))
	fmt.Fprintf(&b, "typedef struct { void *allocated, *aligned; int64_t offset, sizes[%d], strides[%d]; } tird_descmax;\n", maxRank, maxRank)
	b.WriteString("static tird_descmax tird_A[TIRD_NPARAMS];\nstatic int64_t tird_S[TIRD_NSYMS + 1];\n")
	// The exact-rank descriptors our ABI passes, copied from tird_A once
	// set up.
	var export strings.Builder
	for i, p := range f.Params {
		if p.Rank == 0 {
			continue
		}
		fmt.Fprintf(&b, "static tird_desc%d tird_D%d;\n", p.Rank, i)
		fmt.Fprintf(&export, "  tird_D%d.allocated = tird_A[%d].allocated; tird_D%d.aligned = tird_A[%d].aligned; tird_D%d.offset = tird_A[%d].offset;\n", i, i, i, i, i, i)
		fmt.Fprintf(&export, "  for (int k = 0; k < %d; k++) { tird_D%d.sizes[k] = tird_A[%d].sizes[k]; tird_D%d.strides[k] = tird_A[%d].strides[k]; }\n", p.Rank, i, i, i, i)
	}
	fmt.Fprintf(&b, "static void tird_export_descs(void) {\n%s}\n", export.String())
	ranks, sizes, outs := make([]string, len(f.Params)), make([]string, len(f.Params)), make([]string, len(f.Params))
	for i, p := range f.Params {
		ranks[i], sizes[i], outs[i] = fmt.Sprint(p.Rank), fmt.Sprint(p.C.Size), "0"
		if p.Out {
			outs[i] = "1"
		}
	}
	fmt.Fprintf(&b, "static const int tird_RANK[TIRD_NPARAMS] = {%s};\n", strings.Join(ranks, ", "))
	fmt.Fprintf(&b, "static const int tird_ESIZE[TIRD_NPARAMS] = {%s};\n", strings.Join(sizes, ", "))
	fmt.Fprintf(&b, "static const int tird_ISOUT[TIRD_NPARAMS] = {%s};\n\n", strings.Join(outs, ", "))

	sig, msig := strings.Join(decl, ", "), strings.Join(mdecl, ", ")
	fmt.Fprintf(&b, "typedef void (*tird_jit_fn_t)(%s);\nstatic tird_jit_fn_t tird_jit_fn;\n", msig)
	guard := func(w *strings.Builder, v Variant, text string) {
		if v.Guard != "" {
			fmt.Fprintf(w, "#ifdef %s\n%s#endif\n", v.Guard, text)
		} else {
			w.WriteString(text)
		}
	}
	var call, errmsg, core strings.Builder
	for n, v := range d.Bench.Variants {
		var cases []string
		for _, id := range v.IDs {
			cases = append(cases, fmt.Sprintf("case %d:", id))
		}
		var ext string
		switch {
		case v.JIT:
			guard(&call, v, fmt.Sprintf("  %s if (tird_jit_fn) { tird_jit_fn(%s); return 0; } break;\n", strings.Join(cases, " "), strings.Join(margs, ", ")))
		case v.Unpacked:
			ext = fmt.Sprintf("extern void tird_v%d(%s) __asm__(%q);\n", n, msig, v.Symbol)
			guard(&call, v, fmt.Sprintf("  %s tird_v%d(%s); return 0;\n", strings.Join(cases, " "), n, strings.Join(margs, ", ")))
		default:
			ext = fmt.Sprintf("extern int32_t tird_v%d(%s) __asm__(%q);\n", n, sig, v.Symbol)
			guard(&call, v, fmt.Sprintf("  %s return tird_v%d(%s);\n", strings.Join(cases, " "), n, strings.Join(args, ", ")))
		}
		if v.Error != "" {
			ext += fmt.Sprintf("extern const char *tird_v%d_error(int32_t) __asm__(%q);\n", n, v.Error)
			guard(&errmsg, v, fmt.Sprintf("  switch (v) { %s return tird_v%d_error(rc); }\n", strings.Join(cases, " "), n))
		}
		if v.Core != "" {
			ext += fmt.Sprintf("extern const char *tird_v%d_core(void) __asm__(%q);\n", n, v.Core)
			guard(&core, v, fmt.Sprintf("  switch (v) { %s printf(\"core %%s\\n\", tird_v%d_core()); }\n", strings.Join(cases, " "), n))
		}
		if ext != "" {
			guard(&b, v, ext)
		}
	}
	fmt.Fprintf(&b, "\nstatic int32_t tird_call(int v) {\n  switch (v) {\n%s  }\n", call.String())
	b.WriteString("  fprintf(stderr, \"variant %d is not built into this driver\\n\", v);\n  exit(2);\n}\n")
	fmt.Fprintf(&b, "static const char *tird_errmsg(int v, int32_t rc) {\n%s  (void)v; (void)rc; return \"the function failed\";\n}\n", errmsg.String())
	fmt.Fprintf(&b, "static void tird_core(int v) {\n%s  (void)v;\n}\n", core.String())
	b.WriteString(benchMain)
	jit := -1
	for _, v := range d.Bench.Variants {
		if v.JIT && len(v.IDs) > 0 {
			jit = v.IDs[0]
		}
	}
	fmt.Fprintf(&b, `
#ifdef JIT
void bench_jit(void *f) {
  tird_jit_fn = (tird_jit_fn_t)f;
  int rc = tird_bench(%d);
  fflush(stdout);
  if (rc) exit(rc);
}
#else
int main(int argc, char **argv) {
  if (argc != 2) tird_die("usage: driver VARIANT (and BENCH_* in the environment)");
  return tird_bench(atoi(argv[1]));
}
#endif
`, jit)
	return b.String(), nil
}

const benchMain = `
static const char *tird_env(const char *k) { const char *v = getenv(k); if (!v) tird_die(k); return v; }

static int tird_bench(int v) {
  const char *dir = tird_env("BENCH_DIR");
  int64_t min_ns = atoll(tird_env("BENCH_MIN_NS"));
  int64_t min_reps = atoll(tird_env("BENCH_MIN_REPS")), max_reps = atoll(tird_env("BENCH_MAX_REPS"));
  char path[4096];
  snprintf(path, sizeof path, "%s/config", dir);
  FILE *cf = fopen(path, "r");
  if (!cf) tird_die("cannot open the config file");
  /* config: the symbols, then the extents of every tensor in order. */
  for (int s = 0; s < TIRD_NSYMS; s++) if (fscanf(cf, "%lld", (long long *)&tird_S[s]) != 1) tird_die("bad config (symbols)");
  for (int i = 0; i < TIRD_NPARAMS; i++) {
    tird_descmax *a = &tird_A[i];
    for (int k = 0; k < tird_RANK[i]; k++) {
      long long e; if (fscanf(cf, "%lld", &e) != 1) tird_die("bad config (extents)");
      a->sizes[k] = e;
    }
    tird_strides(tird_RANK[i], a->sizes, a->strides);
    size_t n = tird_count(tird_RANK[i], a->sizes), bytes = n * (size_t)tird_ESIZE[i];
    a->allocated = a->aligned = aligned_alloc(64, (bytes + 64) / 64 * 64);
    a->offset = 0;
    if (!a->aligned) tird_die("out of memory");
    if (tird_ISOUT[i]) {
      memset(a->aligned, 0xff, bytes); /* NaN (or -1): unwritten elements show */
    } else {
      snprintf(path, sizeof path, "%s/in%d.bin", dir, i);
      FILE *f = fopen(path, "rb"); if (!f) tird_die("cannot open an input file");
      if (n && fread(a->aligned, (size_t)tird_ESIZE[i], n, f) != n) tird_die("short input file");
      fclose(f);
    }
  }
  fclose(cf);
  tird_export_descs();

  const char *mx = getenv("BENCH_MAX_NS");
  tird_timer t;
  tird_timer_start(&t, min_ns, min_reps, max_reps, mx ? atoll(mx) : 0);
  int64_t t0 = tird_now_ns();
  int32_t rc = tird_call(v); /* warm-up: page faults, caches, lazy binding */
  int64_t warm = tird_now_ns() - t0;
  if (rc) exit(tird_fail(tird_errmsg(v, rc)));
  tird_timer_warm(&t, warm);
  while (tird_timer_more(&t)) {
    t0 = tird_now_ns();
    rc = tird_call(v);
    int64_t ns = tird_now_ns() - t0;
    if (rc) exit(tird_fail(tird_errmsg(v, rc)));
    tird_timer_add(&t, ns);
  }
  if (t.reps == 0) tird_die("no timed call (BENCH_MAX_REPS < 1)");
  tird_timer_sort(&t);
  tird_core(v);
  printf("%lld %lld %lld\n", (long long)t.ns[t.reps / 2], (long long)t.reps, (long long)t.ns[0]);
  fflush(stdout);

  int k = 0;
  for (int i = 0; i < TIRD_NPARAMS; i++) {
    if (!tird_ISOUT[i]) continue;
    size_t n = tird_count(tird_RANK[i], tird_A[i].sizes);
    snprintf(path, sizeof path, "%s/out%d_%d.bin", dir, v, k++);
    FILE *f = fopen(path, "wb"); if (!f) tird_die("cannot write an output file");
    if (n && fwrite(tird_A[i].aligned, (size_t)tird_ESIZE[i], n, f) != n) tird_die("short write");
    fclose(f);
  }
  return 0;
}
`
