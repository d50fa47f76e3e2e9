/* The same product through OpenBLAS's cblas_sgemm (Debian libopenblas-dev),
   on one thread: C = 1 * A B + 0 * C, row-major, the leading dimensions
   taken from the descriptors. OpenBLAS sums k in its own blocked order with
   fused multiply-adds where the CPU has them, so its results are not
   bitwise the interpreter's. */
#include <cblas.h>
#include "bench.h"

extern void openblas_set_num_threads(int);

int32_t REF(const desc2 *ad, const desc2 *bd, desc2 *cd, int64_t M, int64_t K, int64_t N) {
  static int once;
  if (!once) {
    openblas_set_num_threads(1);
    once = 1;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0f,
              BASE(const float, ad), (int)ad->strides[0], BASE(const float, bd), (int)bd->strides[0], 0.0f,
              BASE(float, cd), (int)cd->strides[0]);
  return 0;
}

/* The kernel OpenBLAS chose at run time (its dynamic-arch dispatch reads the
   CPU, or OPENBLAS_CORETYPE when set). */
extern char *openblas_get_corename(void);
const char *blas_core(void) { return openblas_get_corename(); }
