/* linear.tc through OpenBLAS: O = X W^T by cblas_sgemm (W stored N x K,
   so transposed in the call), then the bias and the ReLU in one pass. */
#include "blas_common.h"

int32_t REF(const desc2 *xd, const desc2 *wd, const desc1 *bd, desc2 *od, int64_t M_, int64_t K_, int64_t N_) {
  (void)M_, (void)K_, (void)N_;
  one_thread();
  int M = (int)xd->sizes[0], K = (int)xd->sizes[1], N = (int)wd->sizes[0];
  int ldo = (int)od->strides[0];
  float *o = BASE(float, od);
  const float *b = BASE(const float, bd);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.0f, BASE(const float, xd), (int)xd->strides[0],
              BASE(const float, wd), (int)wd->strides[0], 0.0f, o, ldo);
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      float v = o[(size_t)m * ldo + n] + b[n * bd->strides[0]];
      o[(size_t)m * ldo + n] = v > 0.0f ? v : 0.0f;
    }
  return 0;
}
