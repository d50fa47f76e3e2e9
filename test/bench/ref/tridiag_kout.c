/* Thomas algorithm on arrays stored with K outermost (dimensions K, I, J;
   J contiguous), written the way such codes are: for each I plane, the
   sweeps run over K with the contiguous J loop innermost (gcc vectorizes
   it), the forward sweep into a K x M scratch slab and the backward
   substitution straight into the result. Same operations in the same
   order per column as kernels/tridiag_kout.tir. Built with -fopenmp (the
   "gcc omp" variant), the I loop runs on all cores, each thread with its
   own slabs. */
#include <stdlib.h>
#include "bench.h"

int32_t REF(const desc3 *ad, const desc3 *bd, const desc3 *cd, const desc3 *dd, desc3 *xd,
            int64_t L, int64_t N, int64_t M) {
  int32_t failed = 0;
#pragma omp parallel
  {
    size_t slab = (size_t)(L > 0 ? L : 1) * (size_t)(M > 0 ? M : 1);
    double *cp = malloc(sizeof(double) * slab);
    double *dp = malloc(sizeof(double) * slab);
#pragma omp for
    for (int64_t i = 0; i < N; i++) {
      if (!cp || !dp) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      for (int64_t k = 0; k < L; k++) {
        const double *restrict a = BASE(const double, ad) + k * ad->strides[0] + i * ad->strides[1];
        const double *restrict b = BASE(const double, bd) + k * bd->strides[0] + i * bd->strides[1];
        const double *restrict c = BASE(const double, cd) + k * cd->strides[0] + i * cd->strides[1];
        const double *restrict d = BASE(const double, dd) + k * dd->strides[0] + i * dd->strides[1];
        double *restrict cpk = cp + k * M, *restrict dpk = dp + k * M;
        const double *restrict cpp = cp + (k - 1) * M, *restrict dpp = dp + (k - 1) * M;
        for (int64_t j = 0; j < M; j++) {
          double cprev = k > 0 ? cpp[j] : 0.0, dprev = k > 0 ? dpp[j] : 0.0;
          double den = b[j] - a[j] * cprev;
          cpk[j] = c[j] / den;
          dpk[j] = (d[j] - a[j] * dprev) / den;
        }
      }
      for (int64_t k = L - 1; k >= 0; k--) {
        double *restrict x = BASE(double, xd) + k * xd->strides[0] + i * xd->strides[1];
        const double *restrict xa = BASE(double, xd) + (k + 1) * xd->strides[0] + i * xd->strides[1];
        const double *restrict cpk = cp + k * M, *restrict dpk = dp + k * M;
        for (int64_t j = 0; j < M; j++)
          x[j] = dpk[j] - cpk[j] * (k < L - 1 ? xa[j] : 0.0);
      }
    }
    free(cp);
    free(dp);
  }
  return failed;
}
