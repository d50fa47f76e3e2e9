/* Thomas algorithm per (i, j) column along the contiguous K dimension:
   forward sweep into two column-sized scratch arrays, backward substitution
   straight into the result. All arrays cover I[0:N] J[0:M] K[0:L]. Same
   operation order as kernels/tridiag.tir. Built with -fopenmp (the "gcc
   omp" variant), the I loop runs on all cores, each thread with its own
   scratch arrays; without it, the parallel region is one block. */
#include <stdlib.h>
#include "bench.h"

int32_t REF(const desc3 *ad, const desc3 *bd, const desc3 *cd, const desc3 *dd, desc3 *xd,
            int64_t N, int64_t M, int64_t L) {
  int32_t failed = 0;
#pragma omp parallel
  {
    double *cp = malloc(sizeof(double) * (size_t)(L > 0 ? L : 1));
    double *dp = malloc(sizeof(double) * (size_t)(L > 0 ? L : 1));
#pragma omp for
    for (int64_t i = 0; i < N; i++) {
      if (!cp || !dp) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      for (int64_t j = 0; j < M; j++) {
        const double *restrict a = BASE(const double, ad) + i * ad->strides[0] + j * ad->strides[1];
        const double *restrict b = BASE(const double, bd) + i * bd->strides[0] + j * bd->strides[1];
        const double *restrict c = BASE(const double, cd) + i * cd->strides[0] + j * cd->strides[1];
        const double *restrict d = BASE(const double, dd) + i * dd->strides[0] + j * dd->strides[1];
        double *restrict x = BASE(double, xd) + i * xd->strides[0] + j * xd->strides[1];
        double cprev = 0.0, dprev = 0.0;
        for (int64_t k = 0; k < L; k++) {
          double den = b[k] - a[k] * cprev;
          cprev = c[k] / den;
          dprev = (d[k] - a[k] * dprev) / den;
          cp[k] = cprev;
          dp[k] = dprev;
        }
        double xk = 0.0;
        for (int64_t k = L - 1; k >= 0; k--) {
          xk = dp[k] - cp[k] * xk;
          x[k] = xk;
        }
      }
    }
    free(cp);
    free(dp);
  }
  return failed;
}
