/* Adjoint of tridiag.c (the Thomas algorithm per (i, j) column along the
   contiguous K dimension), written by hand as an HPC programmer writes it,
   with per-column buffers only. Per column:
     1. the forward sweep again (tridiag.c's), keeping c'(k), d'(k) and
        r(k) = 1 / den(k), den(k) = b(k) - a(k) c'(k-1), in column buffers
        (the reciprocal is off the sweep's chain of dependent operations,
        and keeps the divisions off the chain of step 4);
     2. the backward substitution again, x(k) = d'(k) - c'(k) x(k+1);
     3. the transpose of the backward substitution, K ascending: with
        g(0) = dx(0) and g(k) = dx(k) - c'(k-1) g(k-1), the cotangents of
        d'(k) and c'(k) are g(k) and -g(k) x(k+1) (x(L) = 0);
     4. the transpose of the forward sweep, K descending, carrying the
        cotangents of c'(k-1) and d'(k-1) to the level below:
          cb = cotangent of c'(k) + carried, db = cotangent of d'(k) + carried
          dd(k) = db r(k),  dc(k) = cb r(k)
          db(k) = dden = -(cb c'(k) + db d'(k)) r(k)
          da(k) = -dden c'(k-1) - dd(k) d'(k-1)
          carried: -a(k) dden to c'(k-1), -a(k) dd(k) to d'(k-1).
   Arguments a, b, c, d (the system) and dx (the solution's cotangent);
   results da, db, dc, dd, all over I[0:N] J[0:M] K[0:L] (the ABI of the
   generated @solve_tridiag_vjp). Built with -fopenmp, the I loop runs on
   all cores, each thread with its own buffers; the operations are in
   another order than the generated adjoint's (the results agree to
   rounding). */
#include <stdlib.h>
#include "bench.h"

int32_t REF(const desc3 *ad, const desc3 *bd, const desc3 *cd, const desc3 *dd_, const desc3 *dxd,
            desc3 *dad, desc3 *dbd, desc3 *dcd, desc3 *ddd, int64_t N, int64_t M, int64_t L) {
  int32_t failed = 0;
#pragma omp parallel
  {
    size_t n = (size_t)(L > 0 ? L : 1);
    double *rden = malloc(sizeof(double) * n), *cp = malloc(sizeof(double) * n);
    double *dp = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    double *cpb = malloc(sizeof(double) * n);
#pragma omp for
    for (int64_t i = 0; i < N; i++) {
      if (!rden || !cp || !dp || !x || !cpb) {
#pragma omp atomic write
        failed = 1;
        continue;
      }
      for (int64_t j = 0; j < M; j++) {
#define COLUMN(T, desc) (BASE(T, desc) + i * (desc)->strides[0] + j * (desc)->strides[1])
        const double *restrict a = COLUMN(const double, ad), *restrict b = COLUMN(const double, bd);
        const double *restrict c = COLUMN(const double, cd), *restrict d = COLUMN(const double, dd_);
        const double *restrict dx = COLUMN(const double, dxd);
        double *restrict da = COLUMN(double, dad), *restrict db = COLUMN(double, dbd);
        double *restrict dc = COLUMN(double, dcd), *restrict dd = COLUMN(double, ddd);
#undef COLUMN
        /* 1. forward sweep */
        double cprev = 0.0, dprev = 0.0;
        for (int64_t k = 0; k < L; k++) {
          double dn = b[k] - a[k] * cprev;
          cprev = c[k] / dn;
          dprev = (d[k] - a[k] * dprev) / dn;
          rden[k] = 1.0 / dn;
          cp[k] = cprev;
          dp[k] = dprev;
        }
        /* 2. backward substitution */
        double xk = 0.0;
        for (int64_t k = L - 1; k >= 0; k--) {
          xk = dp[k] - cp[k] * xk;
          x[k] = xk;
        }
        /* 3. its transpose: g (the cotangent of d') into x's place once
           x(k) is no longer needed, that of c' into cpb */
        double g = 0.0;
        for (int64_t k = 0; k < L; k++) {
          g = dx[k] - (k > 0 ? cp[k - 1] * g : 0.0);
          cpb[k] = -g * (k + 1 < L ? x[k + 1] : 0.0);
          x[k] = g;
        }
        /* 4. the transpose of the forward sweep */
        double carry_c = 0.0, carry_d = 0.0;
        for (int64_t k = L - 1; k >= 0; k--) {
          double cb = cpb[k] + carry_c, dbk = x[k] + carry_d;
          double r = rden[k];
          double ddk = dbk * r;
          double dden = -(cb * cp[k] + dbk * dp[k]) * r;
          double cprev_k = k > 0 ? cp[k - 1] : 0.0, dprev_k = k > 0 ? dp[k - 1] : 0.0;
          dd[k] = ddk;
          dc[k] = cb * r;
          db[k] = dden;
          da[k] = -dden * cprev_k - ddk * dprev_k;
          carry_c = -a[k] * dden;
          carry_d = -a[k] * ddk;
        }
      }
    }
    free(rden);
    free(cp);
    free(dp);
    free(x);
    free(cpb);
  }
  return failed;
}
