/* Horizontal diffusion with flux limiter, fused: every output point
   recomputes the Laplacians and fluxes it needs (gcc may share common
   subexpressions between neighbours). u covers I[-2:N+2] J[-2:M+2],
   coeff and out I[0:N] J[0:M]. Same operation order as kernels/hdiff.tir. */
#include "bench.h"

#define U(i, j) u[(i) * su + (j)]

static inline double lap(const double *u, int64_t su, int64_t i, int64_t j) {
  return 4.0 * U(i, j) - U(i + 1, j) - U(i - 1, j) - U(i, j + 1) - U(i, j - 1);
}

static inline double flx(const double *u, int64_t su, int64_t i, int64_t j) {
  double f = lap(u, su, i + 1, j) - lap(u, su, i, j);
  return f * (U(i + 1, j) - U(i, j)) > 0.0 ? 0.0 : f;
}

static inline double fly(const double *u, int64_t su, int64_t i, int64_t j) {
  double f = lap(u, su, i, j + 1) - lap(u, su, i, j);
  return f * (U(i, j + 1) - U(i, j)) > 0.0 ? 0.0 : f;
}

int32_t REF(const desc2 *ud, const desc2 *cd, desc2 *od, int64_t N, int64_t M) {
  const int64_t su = ud->strides[0], sc = cd->strides[0], so = od->strides[0];
  const double *restrict u = BASE(const double, ud) + 2 * su + 2; /* point (0, 0) */
  const double *restrict coeff = BASE(const double, cd);
  double *restrict out = BASE(double, od);
#pragma omp parallel for /* with -fopenmp: the "gcc omp" variant */
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = 0; j < M; j++) {
      double div = (flx(u, su, i, j) - flx(u, su, i - 1, j)) + (fly(u, su, i, j) - fly(u, su, i, j - 1));
      out[i * so + j] = U(i, j) - coeff[i * sc + j] * div;
    }
  return 0;
}
