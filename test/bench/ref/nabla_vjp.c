/* Adjoint of nabla.c (the finite-volume gradient on an unstructured mesh),
   written by hand the way an HPC programmer writes it, to tell how far the
   generated @nabla_vjp is from what hand-work reaches:
     - the edge average is computed once per edge into a scratch array;
     - the cotangents of the edge fluxes, dzx and dzy (the transposed V2E
       gather), are accumulated in place in the output buffers of ds_mxx
       and ds_myy, which one pass over the edges then scales in place: no
       scratch for them, and no separate zeroing pass (the edge pass that
       computes the average zeroes them);
     - the vertex pass computes the vertex sums again (the cotangent of vol
       needs them), the cotangent of sign, and scatters into the edges;
     - the last edge pass scatters into the vertices (the transposed E2V
       gather).
   Sums are formed in the order of the generated @nabla_vjp, so that both
   give bitwise the same values. The scatters are sequential (an OpenMP
   build would race on them): the "gcc omp" variant runs this serially. */
#include <stdlib.h>
#include "bench.h"

int32_t REF(const desc1 *ppd, const desc1 *sxd, const desc1 *syd, const desc2 *sgd, const desc1 *vold,
            const desc2 *e2vd, const desc2 *v2ed, const desc1 *dnxd, const desc1 *dnyd, desc1 *dppd,
            desc1 *dsxd, desc1 *dsyd, desc2 *dsgd, desc1 *dvold, int64_t NV, int64_t NE) {
  const double *restrict pp = BASE(const double, ppd);
  const double *restrict smxx = BASE(const double, sxd);
  const double *restrict smyy = BASE(const double, syd);
  const double *restrict sign = BASE(const double, sgd);
  const double *restrict vol = BASE(const double, vold);
  const int32_t *restrict e2v = BASE(const int32_t, e2vd);
  const int32_t *restrict v2e = BASE(const int32_t, v2ed);
  const double *restrict dnx = BASE(const double, dnxd);
  const double *restrict dny = BASE(const double, dnyd);
  double *restrict dpp = BASE(double, dppd);
  double *restrict dzx = BASE(double, dsxd); /* dzx, then ds_mxx in place */
  double *restrict dzy = BASE(double, dsyd); /* dzy, then ds_myy in place */
  double *restrict dsign = BASE(double, dsgd);
  double *restrict dvol = BASE(double, dvold);
  const int64_t ss = sgd->strides[0], se = e2vd->strides[0], sv = v2ed->strides[0], sd = dsgd->strides[0];
  double *avg = malloc((size_t)(NE > 0 ? NE : 1) * sizeof(double));
  if (!avg)
    return 1;
  for (int64_t e = 0; e < NE; e++) {
    int64_t a = e2v[e * se], b = e2v[e * se + 1];
    double s = 0.0;
    if (a >= 0 && a < NV) s += pp[a];
    if (b >= 0 && b < NV) s += pp[b];
    avg[e] = s * 0.5;
    dzx[e] = 0.0;
    dzy[e] = 0.0;
  }
  for (int64_t v = 0; v < NV; v++) {
    double r = 1.0 / vol[v];
    double dsx = dnx[v] * r, dsy = dny[v] * r;
    double sx = 0.0, sy = 0.0;
    for (int k = 0; k < 7; k++) {
      int64_t e = v2e[v * sv + k];
      if (e < 0 || e >= NE) {
        dsign[v * sd + k] = 0.0;
        continue;
      }
      double g = sign[v * ss + k];
      double zx = smxx[e] * avg[e], zy = smyy[e] * avg[e];
      sx += g * zx;
      sy += g * zy;
      dsign[v * sd + k] = dsy * zy + dsx * zx;
      dzy[e] += g * dsy;
      dzx[e] += g * dsx;
    }
    dvol[v] = -((sy / vol[v]) * dsy) + -((sx / vol[v]) * dsx);
  }
  for (int64_t v = 0; v < NV; v++)
    dpp[v] = 0.0;
  for (int64_t e = 0; e < NE; e++) {
    double gx = dzx[e], gy = dzy[e];
    dzx[e] = avg[e] * gx;
    dzy[e] = avg[e] * gy;
    double d = (smyy[e] * gy + smxx[e] * gx) * 0.5;
    int64_t a = e2v[e * se], b = e2v[e * se + 1];
    if (a >= 0 && a < NV) dpp[a] += d;
    if (b >= 0 && b < NV) dpp[b] += d;
  }
  free(avg);
  return 0;
}
