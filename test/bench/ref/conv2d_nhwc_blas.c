/* conv2d_nhwc.tc as im2col + OpenBLAS: the (n, h, w) x (kh, kw, c) matrix
   of input windows (each row KH runs of KW * C contiguous floats) times the
   (kh, kw, c) x M weights, which is the NHWC output. Contiguous tensors. */
#include <string.h>
#include "blas_common.h"

static float *col;
static size_t colcap;

int32_t REF(const desc4 *id, const desc4 *wd, desc4 *od, int64_t N_, int64_t H_, int64_t W_, int64_t C_, int64_t KH_,
            int64_t KW_, int64_t M_) {
  (void)N_, (void)H_, (void)W_, (void)C_, (void)KH_, (void)KW_, (void)M_;
  one_thread();
  int64_t N = id->sizes[0], H = id->sizes[1], W = id->sizes[2], C = id->sizes[3];
  int64_t KH = wd->sizes[0], KW = wd->sizes[1], M = wd->sizes[3];
  int64_t OH = H - KH + 1, OW = W - KW + 1, KKC = KH * KW * C;
  if (!scratch(&col, &colcap, (size_t)(N * OH * OW * KKC))) return 1;
  const float *in = BASE(const float, id);
  for (int64_t n = 0; n < N; n++)
    for (int64_t h = 0; h < OH; h++)
      for (int64_t w = 0; w < OW; w++) {
        float *dst = col + ((n * OH + h) * OW + w) * KKC;
        for (int64_t kh = 0; kh < KH; kh++)
          memcpy(dst + kh * KW * C, in + ((n * H + h + kh) * W + w) * C, sizeof(float) * (size_t)(KW * C));
      }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(N * OH * OW), (int)M, (int)KKC, 1.0f, col, (int)KKC,
              BASE(const float, wd), (int)M, 0.0f, BASE(float, od), (int)M);
  return 0;
}
