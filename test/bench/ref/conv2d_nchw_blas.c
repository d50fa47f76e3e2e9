/* conv2d_nchw.tc as im2col + OpenBLAS: per image, the (c, kh, kw) x (h, w)
   matrix of input windows, multiplied by the M x (c, kh, kw) weights into
   the image's M x (h, w) output. Contiguous tensors (the driver's). */
#include "blas_common.h"

static float *col;
static size_t colcap;

int32_t REF(const desc4 *id, const desc4 *wd, desc4 *od, int64_t N_, int64_t C_, int64_t H_, int64_t W_, int64_t M_,
            int64_t KH_, int64_t KW_) {
  (void)N_, (void)C_, (void)H_, (void)W_, (void)M_, (void)KH_, (void)KW_;
  one_thread();
  int64_t N = id->sizes[0], C = id->sizes[1], H = id->sizes[2], W = id->sizes[3];
  int64_t M = wd->sizes[0], KH = wd->sizes[2], KW = wd->sizes[3];
  int64_t OH = H - KH + 1, OW = W - KW + 1, CKK = C * KH * KW;
  if (!scratch(&col, &colcap, (size_t)(CKK * OH * OW))) return 1;
  const float *in = BASE(const float, id);
  float *out = BASE(float, od);
  for (int64_t n = 0; n < N; n++) {
    const float *img = in + n * C * H * W;
    for (int64_t c = 0; c < C; c++)
      for (int64_t kh = 0; kh < KH; kh++)
        for (int64_t kw = 0; kw < KW; kw++) {
          float *dst = col + ((c * KH + kh) * KW + kw) * OH * OW;
          for (int64_t h = 0; h < OH; h++)
            for (int64_t w = 0; w < OW; w++) dst[h * OW + w] = img[(c * H + h + kh) * W + w + kw];
        }
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)M, (int)(OH * OW), (int)CKK, 1.0f, BASE(const float, wd),
                (int)CKK, col, (int)(OH * OW), 0.0f, out + n * M * OH * OW, (int)(OH * OW));
  }
  return 0;
}
