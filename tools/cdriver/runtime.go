package cdriver

// The C runtime every driver starts with, written once. Its names start
// with tird_: a compiled function is declared by its symbol (an asm
// label), and a static helper of the same name in the driver would take
// its place (a function named count or strides called the helper).

// runtimeCore: failing, extents, timing.
const runtimeCore = `#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* A failure of the driver itself (not of the function): exit status 4. */
static void tird_die(const char *m) { fprintf(stderr, "%s\n", m); exit(4); }
/* The function refused its arguments: its message, exit status 3. */
static int tird_fail(const char *m) { fprintf(stderr, "%s\n", m); return 3; }
static size_t tird_count(int rank, const int64_t *sizes) {
  size_t n = 1; for (int i = 0; i < rank; i++) n *= (size_t)sizes[i]; return n;
}
/* Row-major strides of a buffer with these extents. */
static void tird_strides(int rank, const int64_t *sizes, int64_t *st) {
  int64_t s = 1; for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= sizes[i]; }
}
static int tird_cmp64(const void *a, const void *b) { int64_t x = *(const int64_t *)a, y = *(const int64_t *)b; return (x > y) - (x < y); }
static int64_t tird_now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

/* The times of the calls of one run: timed calls until they last min_ns
   in all, at least min_reps and at most max_reps of them, and no more
   once they last max_ns (when > 0). A warm-up call longer than max_ns is
   the timing itself. */
typedef struct { int64_t *ns, reps, cap, total, min_ns, min_reps, max_reps, max_ns; } tird_timer;
static void tird_timer_start(tird_timer *t, int64_t min_ns, int64_t min_reps, int64_t max_reps, int64_t max_ns) {
  t->reps = 0; t->cap = 64; t->total = 0;
  t->min_ns = min_ns; t->min_reps = min_reps; t->max_reps = max_reps; t->max_ns = max_ns;
  t->ns = malloc(sizeof(int64_t) * (size_t)t->cap);
  if (!t->ns) tird_die("out of memory");
}
static void tird_timer_add(tird_timer *t, int64_t ns) {
  if (t->reps == t->cap) { t->cap *= 2; t->ns = realloc(t->ns, sizeof(int64_t) * (size_t)t->cap); if (!t->ns) tird_die("out of memory"); }
  t->ns[t->reps++] = ns;
  t->total += ns;
}
static void tird_timer_warm(tird_timer *t, int64_t ns) {
  if (t->max_ns > 0 && ns > t->max_ns) tird_timer_add(t, ns); /* too slow to repeat */
}
static int tird_timer_more(const tird_timer *t) {
  return t->reps < t->max_reps && (t->reps < t->min_reps || t->total < t->min_ns) && !(t->max_ns > 0 && t->reps > 0 && t->total > t->max_ns);
}
/* Sorts the times: ns[0] is the fastest, ns[reps / 2] the median. */
static void tird_timer_sort(tird_timer *t) {
  if (t->reps == 0) tird_die("no timed call");
  qsort(t->ns, (size_t)t->reps, sizeof(int64_t), tird_cmp64);
}
`

// runtimeFiles: the tensor files of tools/native (int64 rank, int64
// extents, then the elements in row-major order, little-endian) and the
// result extents the caller computed (outshape.bin, int64 each).
const runtimeFiles = `static void *tird_read_arr(const char *dir, const char *name, int rank, int64_t *sizes, size_t esize) {
  char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb"); if (!f) tird_die("cannot open an input file");
  int64_t r; if (fread(&r, 8, 1, f) != 1 || r != rank) tird_die("bad input rank");
  size_t n = 1;
  for (int i = 0; i < rank; i++) { if (fread(&sizes[i], 8, 1, f) != 1) tird_die("bad input header"); n *= (size_t)sizes[i]; }
  /* An empty tensor gets no buffer at all: compiled code that reads one
     element of it crashes here instead of reading garbage. */
  void *p = n ? tird_in_alloc(n * esize) : NULL;
  if (n && fread(p, esize, n, f) != n) tird_die("short input file");
  fclose(f); return p;
}
static void tird_write_arr(const char *dir, const char *name, int rank, const int64_t *sizes, const void *data, size_t esize) {
  char path[4096]; snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb"); if (!f) tird_die("cannot write an output file");
  int64_t r = rank; fwrite(&r, 8, 1, f); size_t n = 1;
  for (int i = 0; i < rank; i++) { fwrite(&sizes[i], 8, 1, f); n *= (size_t)sizes[i]; }
  if (n && fwrite(data, esize, n, f) != n) tird_die("short write");
  fclose(f);
}
static void tird_read_shape(const char *dir, int64_t *osz, int n) {
  char path[4096]; snprintf(path, sizeof path, "%s/outshape.bin", dir);
  FILE *f = fopen(path, "rb");
  if (!f || (n && fread(osz, 8, (size_t)n, f) != (size_t)n)) tird_die("bad result shape file");
  fclose(f);
}
`

// The host buffers of the inputs and results (Alloc).
var runtimeAlloc = map[Alloc]string{
	// Some slack after the end, 64-byte aligned.
	Slack: `static void *tird_in_alloc(size_t n) { void *p = aligned_alloc(64, n + 64); if (!p) tird_die("out of memory"); return p; }
static void *tird_out_alloc(size_t n) { void *p = aligned_alloc(64, n + 64 - n % 64); if (!p) tird_die("out of memory"); return p; }
`,
	// Exact sizes for AddressSanitizer (posix_memalign: aligned_alloc
	// would insist on a multiple of the alignment).
	Exact: `static void *tird_exact_alloc(size_t n) {
  void *p = 0;
  if (posix_memalign(&p, 64, n)) tird_die("out of memory");
  return p;
}
static void *tird_in_alloc(size_t n) { return tird_exact_alloc(n); }
static void *tird_out_alloc(size_t n) { return tird_exact_alloc(n); }
`,
	Malloc: `static void *tird_in_alloc(size_t n) { void *p = malloc(n); if (!p) tird_die("out of memory"); return p; }
static void *tird_out_alloc(size_t n) { void *p = malloc(n); if (!p) tird_die("out of memory"); return p; }
`,
}

// runtimeHostMemory: the function works on the host buffers.
const runtimeHostMemory = `static void tird_dev_setup(void) {}
static void *tird_dev_in(void *host, size_t n) { (void)n; return host; }
static void *tird_dev_out(size_t n) { return n ? tird_out_alloc(n) : NULL; }
static void *tird_host_of(void *dev, size_t n) { (void)n; return dev; }
static long long tird_copy_ns(size_t n, int reps) { (void)n; (void)reps; return 0; }
`

// runtimeCUDAMemory: buffers in device memory through the CUDA driver
// API, loaded like the host wrapper loads it (TIR_CUDA_DRIVER, the
// emulator in the tests, or libcuda.so.1), whose primary context the
// wrapper shares. The first allocation initializes it (in each child
// process of a batch).
const runtimeCUDAMemory = `#include <dlfcn.h>
typedef unsigned long long tird_dptr;
static int (*tird_d_alloc)(tird_dptr *, size_t);
static int (*tird_d_htod)(tird_dptr, const void *, size_t);
static int (*tird_d_dtoh)(void *, tird_dptr, size_t);
static int (*tird_d_dtod)(tird_dptr, tird_dptr, size_t);
static int (*tird_d_sync)(void);
static void tird_dev_setup(void) {
  static int done;
  if (done) return;
  done = 1;
  const char *lib = getenv("TIR_CUDA_DRIVER");
  if (!lib || !*lib) lib = "libcuda.so.1";
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) { fprintf(stderr, "no CUDA driver: %s\n", dlerror()); exit(4); }
  int (*init)(unsigned) = (int (*)(unsigned))dlsym(h, "cuInit");
  int (*get)(int *, int) = (int (*)(int *, int))dlsym(h, "cuDeviceGet");
  int (*retain)(void **, int) = (int (*)(void **, int))dlsym(h, "cuDevicePrimaryCtxRetain");
  int (*set)(void *) = (int (*)(void *))dlsym(h, "cuCtxSetCurrent");
  *(void **)&tird_d_alloc = dlsym(h, "cuMemAlloc_v2");
  *(void **)&tird_d_htod = dlsym(h, "cuMemcpyHtoD_v2");
  *(void **)&tird_d_dtoh = dlsym(h, "cuMemcpyDtoH_v2");
  *(void **)&tird_d_dtod = dlsym(h, "cuMemcpyDtoD_v2");
  *(void **)&tird_d_sync = dlsym(h, "cuCtxSynchronize");
  int dev = 0; void *ctx = 0;
  if (!init || !get || !retain || !set || !tird_d_alloc || !tird_d_htod || !tird_d_dtoh || !tird_d_dtod || !tird_d_sync ||
      init(0) || get(&dev, 0) || retain(&ctx, dev) || set(ctx))
    tird_die("cannot initialize the CUDA driver");
}
static void *tird_dev_out(size_t n) {
  tird_dev_setup();
  tird_dptr d;
  if (tird_d_alloc(&d, n ? n : 1)) tird_die("cuMemAlloc failed");
  return (void *)(uintptr_t)d;
}
static void *tird_dev_in(void *host, size_t n) {
  void *d = tird_dev_out(n);
  if (n && tird_d_htod((tird_dptr)(uintptr_t)d, host, n)) tird_die("cuMemcpyHtoD failed");
  return d;
}
static void *tird_host_of(void *dev, size_t n) {
  void *h = malloc(n ? n : 1);
  if (n && tird_d_dtoh(h, (tird_dptr)(uintptr_t)dev, n)) tird_die("cuMemcpyDtoH failed");
  return h;
}
/* The median time of a device-to-device copy of n bytes, over reps copies
   (0 for fewer than two). */
static long long tird_copy_ns(size_t n, int reps) {
  if (reps < 2 || n == 0) return 0;
  tird_dptr src = (tird_dptr)(uintptr_t)tird_dev_out(n), dst = (tird_dptr)(uintptr_t)tird_dev_out(n);
  tird_timer t;
  tird_timer_start(&t, 0, reps, reps, 0);
  while (tird_timer_more(&t)) {
    int64_t t0 = tird_now_ns();
    if (tird_d_dtod(dst, src, n) || tird_d_sync()) tird_die("cuMemcpyDtoD failed");
    tird_timer_add(&t, tird_now_ns() - t0);
  }
  tird_timer_sort(&t);
  return t.ns[t.reps / 2];
}
`
