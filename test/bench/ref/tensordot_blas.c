/* tensordot.tc as NumPy's tensordot does it: A(i, k, j, l) copied to an
   (i, j) x (k, l) matrix, B(l, k, n) to a (k, l) x n one, one cblas_sgemm
   into O(i, j, n). Contiguous tensors. (No variable I: <complex.h>, which
   cblas.h includes, defines it.) */
#include "blas_common.h"

static float *at, *bt;
static size_t atcap, btcap;

int32_t REF(const desc4 *ad, const desc3 *bd, desc3 *od, int64_t I_, int64_t K_, int64_t J_, int64_t L_, int64_t N_) {
  (void)I_, (void)K_, (void)J_, (void)L_, (void)N_;
  one_thread();
  int64_t ni = ad->sizes[0], nk = ad->sizes[1], nj = ad->sizes[2], nl = ad->sizes[3], nn = bd->sizes[2];
  if (!scratch(&at, &atcap, (size_t)(ni * nj * nk * nl)) || !scratch(&bt, &btcap, (size_t)(nk * nl * nn))) return 1;
  const float *a = BASE(const float, ad), *b = BASE(const float, bd);
  for (int64_t i = 0; i < ni; i++)
    for (int64_t j = 0; j < nj; j++)
      for (int64_t k = 0; k < nk; k++)
        for (int64_t l = 0; l < nl; l++) at[((i * nj + j) * nk + k) * nl + l] = a[((i * nk + k) * nj + j) * nl + l];
  for (int64_t k = 0; k < nk; k++)
    for (int64_t l = 0; l < nl; l++)
      for (int64_t n = 0; n < nn; n++) bt[(k * nl + l) * nn + n] = b[(l * nk + k) * nn + n];
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)(ni * nj), (int)nn, (int)(nk * nl), 1.0f, at,
              (int)(nk * nl), bt, (int)nn, 0.0f, BASE(float, od), (int)nn);
  return 0;
}
