/* z = a*x + y; a is a 0-d tensor, passed as a plain pointer (docs/abi.md). */
#include "bench.h"

int32_t REF(const double *a, const desc1 *xd, const desc1 *yd, desc1 *zd, int64_t N) {
  const double *restrict x = BASE(const double, xd);
  const double *restrict y = BASE(const double, yd);
  double *restrict z = BASE(double, zd);
  const double s = *a;
#pragma omp parallel for /* with -fopenmp: the "gcc omp" variant */
  for (int64_t i = 0; i < N; i++)
    z[i] = s * x[i] + y[i];
  return 0;
}
