/* C(m, n) = sum over k of A(m, k) * B(k, n), each element summed in the
   order of k from 0 (the interpreter's order: bitwise the same values with
   -ffp-contract=off). The k loop is outside the n loop so that the inner
   loop runs along contiguous rows of B and C, which gcc vectorizes. */
#include "bench.h"

int32_t REF(const desc2 *ad, const desc2 *bd, desc2 *cd, int64_t M, int64_t K, int64_t N) {
  const float *restrict a = BASE(const float, ad);
  const float *restrict b = BASE(const float, bd);
  float *restrict c = BASE(float, cd);
  const int64_t sa = ad->strides[0], sb = bd->strides[0], sc = cd->strides[0];
#pragma omp parallel for /* with -fopenmp: the "gcc omp" variant */
  for (int64_t m = 0; m < M; m++) {
    float *restrict row = c + m * sc;
    for (int64_t n = 0; n < N; n++)
      row[n] = 0.0f;
    for (int64_t k = 0; k < K; k++) {
      const float x = a[m * sa + k];
      const float *restrict brow = b + k * sb;
      for (int64_t n = 0; n < N; n++)
        row[n] += x * brow[n];
    }
  }
  return 0;
}
