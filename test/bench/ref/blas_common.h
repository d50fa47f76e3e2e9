/* What the OpenBLAS references of the ML kernels share: one thread, the
   kernel OpenBLAS dispatched to, and scratch buffers kept across calls (a
   fresh allocation per call would time the page faults of its first
   touch, which neither ours nor NumPy's repeated calls pay in full). */
#ifndef TIR_BENCH_BLAS_COMMON_H
#define TIR_BENCH_BLAS_COMMON_H
#include <cblas.h>
#include <stdlib.h>
#include "bench.h"

extern void openblas_set_num_threads(int);
extern char *openblas_get_corename(void);

static void one_thread(void) {
  static int once;
  if (!once) {
    openblas_set_num_threads(1);
    once = 1;
  }
}

/* A buffer of at least n floats, grown as needed; NULL when out of memory. */
static inline float *scratch(float **buf, size_t *cap, size_t n) {
  if (n > *cap) {
    free(*buf);
    *buf = aligned_alloc(64, (n * sizeof(float) + 63) / 64 * 64);
    *cap = *buf ? n : 0;
  }
  return *buf;
}

const char *blas_core(void) { return openblas_get_corename(); }
#endif
