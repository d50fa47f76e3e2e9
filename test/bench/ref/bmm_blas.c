/* bmm.tc through OpenBLAS: one cblas_sgemm per batch. Contiguous tensors. */
#include "blas_common.h"

int32_t REF(const desc3 *xd, const desc3 *yd, desc3 *zd, int64_t B_, int64_t M_, int64_t K_, int64_t N_) {
  (void)B_, (void)M_, (void)K_, (void)N_;
  one_thread();
  int64_t B = xd->sizes[0], M = xd->sizes[1], K = xd->sizes[2], N = yd->sizes[2];
  for (int64_t b = 0; b < B; b++)
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)N, (int)K, 1.0f, BASE(const float, xd) + b * M * K,
                (int)K, BASE(const float, yd) + b * K * N, (int)N, 0.0f, BASE(float, zd) + b * M * N, (int)N);
  return 0;
}
