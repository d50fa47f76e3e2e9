/* Adjoint of lap3d.c (the 5-point horizontal Laplacian on a 3-D grid, K
   contiguous), written by hand: the transpose of the stencil as a gather
   on the cotangent zero-padded by one point in I and J,
     dinp(i, j) = 4 g(i, j) - g(i + 1, j) - g(i - 1, j) - g(i, j + 1) - g(i, j - 1)
   over the input's domain I[-1:N+1] J[-1:M+1], where g is the result's
   cotangent dres inside I[0:N] J[0:M] and 0 outside it. The padding costs
   no copy: a column of zeros stands in for g wherever (i, j) falls outside
   the result's domain, decided once per column, so the K loop is the same
   straight vectorizable loop as lap3d.c's. Same loop order and flags as
   lap3d.c; the terms are added in the order of the generated @lap3d_f64_vjp
   (so that both give bitwise the same values):
     (((-g(j + 1) + -g(j - 1)) + -g(i + 1)) + -g(i - 1)) + g * 4.
   T is float or double (-DT=...), REF the symbol name (-DREF=...). Built
   with -fopenmp, the outer loop runs on all cores. */
#include <stdlib.h>
#include "bench.h"

int32_t REF(const desc3 *inp, const desc3 *dres, desc3 *dinp, int64_t N, int64_t M, int64_t L) {
  (void)inp; /* the stencil is linear: its adjoint does not read the input */
  const T *restrict g = BASE(const T, dres);
  T *restrict out = BASE(T, dinp);
  const int64_t gi = dres->strides[0], gj = dres->strides[1];
  const int64_t oi = dinp->strides[0], oj = dinp->strides[1];
  T *zero = calloc((size_t)(L > 0 ? L : 1), sizeof(T));
  if (!zero)
    return 1;
  /* The column of g at (i, j), or the zero column outside I[0:N] J[0:M]. */
#define COL(i, j) ((i) >= 0 && (i) < N && (j) >= 0 && (j) < M ? g + (i) * gi + (j) * gj : zero)
#pragma omp parallel for /* with -fopenmp */
  for (int64_t i = -1; i < N + 1; i++)
    for (int64_t j = -1; j < M + 1; j++) {
      const T *restrict c = COL(i, j), *restrict e = COL(i + 1, j), *restrict w = COL(i - 1, j);
      const T *restrict n = COL(i, j + 1), *restrict s = COL(i, j - 1);
      T *restrict o = out + (i + 1) * oi + (j + 1) * oj; /* point (i, j, 0) */
      for (int64_t k = 0; k < L; k++)
        o[k] = (((-n[k] + -s[k]) + -e[k]) + -w[k]) + c[k] * (T)4;
    }
#undef COL
  free(zero);
  return 0;
}
