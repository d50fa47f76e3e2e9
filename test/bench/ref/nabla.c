/* Finite-volume gradient on an unstructured mesh, one pass over the
   vertices computing both components; edge values are recomputed per
   (vertex, neighbor) as in the fused lowering (no edge temporaries).
   Neighbor indices outside [0, NE) / [0, NV) (the -1 padding) are skipped.
   Same operation order as kernels/nabla.tir. */
#include "bench.h"

int32_t REF(const desc1 *ppd, const desc1 *sxd, const desc1 *syd, const desc2 *sgd, const desc1 *vold,
            const desc2 *e2vd, const desc2 *v2ed, desc1 *nxd, desc1 *nyd, int64_t NV, int64_t NE) {
  const double *restrict pp = BASE(const double, ppd);
  const double *restrict smxx = BASE(const double, sxd);
  const double *restrict smyy = BASE(const double, syd);
  const double *restrict sign = BASE(const double, sgd);
  const double *restrict vol = BASE(const double, vold);
  const int32_t *restrict e2v = BASE(const int32_t, e2vd);
  const int32_t *restrict v2e = BASE(const int32_t, v2ed);
  double *restrict nx = BASE(double, nxd);
  double *restrict ny = BASE(double, nyd);
  const int64_t ss = sgd->strides[0], se = e2vd->strides[0], sv = v2ed->strides[0];
#pragma omp parallel for /* with -fopenmp: the "gcc omp" variant */
  for (int64_t v = 0; v < NV; v++) {
    double sx = 0.0, sy = 0.0;
    for (int k = 0; k < 7; k++) {
      int64_t e = v2e[v * sv + k];
      if (e < 0 || e >= NE) continue;
      int64_t a = e2v[e * se], b = e2v[e * se + 1];
      double s = 0.0;
      if (a >= 0 && a < NV) s += pp[a];
      if (b >= 0 && b < NV) s += pp[b];
      double avg = 0.5 * s;
      sx += smxx[e] * avg * sign[v * ss + k];
      sy += smyy[e] * avg * sign[v * ss + k];
    }
    nx[v] = sx / vol[v];
    ny[v] = sy / vol[v];
  }
  return 0;
}
