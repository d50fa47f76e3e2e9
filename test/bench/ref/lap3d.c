/* 5-point horizontal Laplacian on a 3-D grid, K contiguous; T is float or
   double (-DT=...). inp covers I[-1:N+1] J[-1:M+1] K[0:L], out I[0:N] J[0:M]
   K[0:L]. Same operation order as kernels/lap3d_*.tir:
   (((4c - e) - w) - n) - s. REF is the symbol name (-DREF=...). Built with
   -fopenmp, the outer loop runs on all cores (test/bench's "gcc omp"). */
#include "bench.h"

int32_t REF(const desc3 *inp, desc3 *res, int64_t N, int64_t M, int64_t L) {
  const T *restrict in = BASE(const T, inp);
  T *restrict out = BASE(T, res);
  const int64_t si = inp->strides[0], sj = inp->strides[1];
  const int64_t oi = res->strides[0], oj = res->strides[1];
#pragma omp parallel for /* with -fopenmp: the "gcc omp" variant */
  for (int64_t i = 0; i < N; i++)
    for (int64_t j = 0; j < M; j++) {
      const T *c = in + (i + 1) * si + (j + 1) * sj; /* point (i, j, 0) */
      T *o = out + i * oi + j * oj;
      for (int64_t k = 0; k < L; k++)
        o[k] = (T)4 * c[k] - c[k + si] - c[k - si] - c[k + sj] - c[k - sj];
    }
  return 0;
}
