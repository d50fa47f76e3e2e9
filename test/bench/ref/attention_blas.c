/* attention.tc through OpenBLAS: per batch, the scores Q K^T (cblas_sgemm),
   the row softmax of the scaled scores in C (expf of glibc: gcc does not
   vectorize it without -ffast-math), then the weights times V (sgemm).
   Contiguous tensors. */
#include <math.h>
#include "blas_common.h"

static float *sc;
static size_t sccap;

int32_t REF(const desc3 *qd, const desc3 *kd, const desc3 *vd, desc3 *od, int64_t B_, int64_t L_, int64_t D_, int64_t S_) {
  (void)B_, (void)L_, (void)D_, (void)S_;
  one_thread();
  int64_t B = qd->sizes[0], L = qd->sizes[1], D = qd->sizes[2], S = kd->sizes[1];
  float scale = 1.0f / sqrtf((float)D);
  if (!scratch(&sc, &sccap, (size_t)(L * S))) return 1;
  for (int64_t b = 0; b < B; b++) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, (int)L, (int)S, (int)D, 1.0f, BASE(const float, qd) + b * L * D,
                (int)D, BASE(const float, kd) + b * S * D, (int)D, 0.0f, sc, (int)S);
    for (int64_t l = 0; l < L; l++) {
      float *row = sc + l * S, mx = -INFINITY, z = 0.0f;
      for (int64_t s = 0; s < S; s++) mx = row[s] > mx ? row[s] : mx;
      for (int64_t s = 0; s < S; s++) {
        row[s] = expf((row[s] - mx) * scale);
        z += row[s];
      }
      for (int64_t s = 0; s < S; s++) row[s] /= z;
    }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)L, (int)D, (int)S, 1.0f, sc, (int)S,
                BASE(const float, vd) + b * S * D, (int)D, 0.0f, BASE(float, od) + b * L * D, (int)D);
  }
  return 0;
}
