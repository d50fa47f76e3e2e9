/* A distributed time loop around a compiled TIR stencil.
 *
 * The global NX x NY grid is periodic. MPI_Cart_create arranges the ranks
 * in a 2-D grid; each rank owns a block of the domain, stored with the
 * ghost points the kernel reads (halo.h, generated from
 * `tc-opt --emit=extents-json`). Every step exchanges exactly those ghost
 * points with the neighbours (MPI_Sendrecv of subarray datatypes, first
 * along the first dimension, then along the second including the ghost
 * rows, which fills the corners), then calls the kernel through its C ABI
 * (docs/abi.md) with descriptors pointing into the local arrays. Rank 0
 * gathers the result (MPI_Gatherv) and writes it as a .npy file; with
 * --check it also runs the kernel on the whole grid in one piece and
 * compares bit for bit.
 *
 *   mpirun -np 4 ./heat_mpi [--nx 64] [--ny 48] [--steps 20] [--out result.npy] [--check]
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "halo.h"

/* The initial condition at global point (i, j) of the output domain. */
static tir_elem initial(long i, long j) { return (tir_elem)((double)((i * 31 + j * 17) % 101) / 101.0); }

/* The block of n points that part c of p gets: the first n % p parts get
 * one point more. */
static void block(long n, int p, int c, long *start, long *count) {
  long q = n / p, r = n % p;
  *count = q + (c < r);
  *start = c * q + (c < r ? c : r);
}

/* A local field: n[0] x n[1] owned points stored with the ghost points
 * below and above, row-major, rows of ext[1] elements. */
typedef struct {
  long n[2], ext[2];
  tir_elem *u, *next; /* the current step and the one being computed */
} field;

static void field_init(field *f, long n0, long n1) {
  f->n[0] = n0;
  f->n[1] = n1;
  for (int d = 0; d < 2; d++) f->ext[d] = f->n[d] + tir_halo_below[d] + tir_halo_above[d];
  f->u = calloc((size_t)(f->ext[0] * f->ext[1]), sizeof(tir_elem));
  f->next = calloc((size_t)(f->ext[0] * f->ext[1]), sizeof(tir_elem));
  if (!f->u || !f->next) {
    fprintf(stderr, "out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static tir_elem *at(const field *f, tir_elem *base, long i, long j) {
  return base + (i + tir_halo_below[0]) * f->ext[1] + (j + tir_halo_below[1]);
}

/* One step: u -> next through the compiled kernel, then swap. The input
 * descriptor covers the whole local array (the argument's declared
 * interval starts halo_below points before the output); the result's
 * points into the owned part of next, with the same row stride. */
static void step(field *f) {
  tir_desc in = {f->u, f->u, 0, {f->ext[0], f->ext[1]}, {f->ext[1], 1}};
  tir_desc out = {f->next, f->next, tir_halo_below[0] * f->ext[1] + tir_halo_below[1], {f->n[0], f->n[1]}, {f->ext[1], 1}};
  int32_t rc = TIR_KERNEL(&in, &out, TIR_SYMBOLS(f->n[0], f->n[1]));
  if (rc != 0) {
    fprintf(stderr, "%s: %s\n", TIR_KERNEL_NAME, TIR_KERNEL_ERROR(rc));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  tir_elem *t = f->u;
  f->u = f->next;
  f->next = t;
}

/* A subarray of the local array: rows [r0, r0+nr) x columns [c0, c0+nc). */
static MPI_Datatype subarray(const field *f, long r0, long nr, long c0, long nc) {
  int sizes[2] = {(int)f->ext[0], (int)f->ext[1]}, sub[2] = {(int)nr, (int)nc}, start[2] = {(int)r0, (int)c0};
  MPI_Datatype t;
  MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, TIR_MPI_ELEM, &t);
  MPI_Type_commit(&t);
  return t;
}

/* The halo exchange along dimension d: what each neighbour sends and
 * receives, as datatypes over the local array. */
typedef struct {
  int lo, hi; /* neighbour ranks (MPI_Cart_shift) */
  MPI_Datatype send_lo, recv_hi, send_hi, recv_lo;
} exchange;

static exchange exchange_init(MPI_Comm cart, const field *f, int d) {
  exchange x;
  MPI_Cart_shift(cart, d, 1, &x.lo, &x.hi);
  long b = tir_halo_below[d], a = tir_halo_above[d], n = f->n[d];
  /* My first `a` owned points are the lower neighbour's ghost points
   * above; my last `b` are the upper neighbour's ghost points below. */
  long from[4] = {b, b + n, b + n - b, 0}, width[4] = {a, a, b, b};
  MPI_Datatype *types[4] = {&x.send_lo, &x.recv_hi, &x.send_hi, &x.recv_lo};
  for (int k = 0; k < 4; k++) {
    *types[k] = MPI_DATATYPE_NULL;
    if (width[k] == 0) continue;
    if (d == 0) /* rows, over the owned columns */
      *types[k] = subarray(f, from[k], width[k], tir_halo_below[1], f->n[1]);
    else /* columns, over every row: the ghost rows carry the corners */
      *types[k] = subarray(f, 0, f->ext[0], from[k], width[k]);
  }
  return x;
}

static void exchange_halos(MPI_Comm cart, exchange x[2], tir_elem *u) {
  for (int d = 0; d < 2; d++) {
    if (x[d].send_lo != MPI_DATATYPE_NULL)
      MPI_Sendrecv(u, 1, x[d].send_lo, x[d].lo, 2 * d, u, 1, x[d].recv_hi, x[d].hi, 2 * d, cart, MPI_STATUS_IGNORE);
    if (x[d].send_hi != MPI_DATATYPE_NULL)
      MPI_Sendrecv(u, 1, x[d].send_hi, x[d].hi, 2 * d + 1, u, 1, x[d].recv_lo, x[d].lo, 2 * d + 1, cart, MPI_STATUS_IGNORE);
  }
}

/* The periodic ghost points of a field that holds the whole grid, copied
 * in the same order as the exchange (the single-domain reference). */
static void wrap_halos(field *f) {
  long b0 = tir_halo_below[0], a0 = tir_halo_above[0], b1 = tir_halo_below[1], a1 = tir_halo_above[1];
  for (long i = -b0; i < f->n[0] + a0; i++) {
    if (i >= 0 && i < f->n[0]) continue;
    long src = (i % f->n[0] + f->n[0]) % f->n[0];
    memcpy(at(f, f->u, i, 0), at(f, f->u, src, 0), (size_t)f->n[1] * sizeof(tir_elem));
  }
  for (long i = -b0; i < f->n[0] + a0; i++)
    for (long j = -b1; j < f->n[1] + a1; j++)
      if (j < 0 || j >= f->n[1]) *at(f, f->u, i, j) = *at(f, f->u, i, (j % f->n[1] + f->n[1]) % f->n[1]);
}

static int write_npy(const char *path, const tir_elem *v, long n0, long n1) {
  FILE *fp = fopen(path, "wb");
  if (!fp) return -1;
  char header[128];
  int len = snprintf(header, sizeof header, "{'descr': '%s', 'fortran_order': False, 'shape': (%ld, %ld), }", TIR_ELEM_NPY, n0, n1);
  int total = (10 + len + 1 + 63) / 64 * 64; /* magic, version, length, dict, '\n' */
  memset(header + len, ' ', (size_t)(total - 10 - len - 1));
  header[total - 10 - 1] = '\n';
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)((total - 10) & 0xff), (unsigned char)((total - 10) >> 8)};
  int ok = fwrite(pre, 1, 10, fp) == 10 && fwrite(header, 1, (size_t)(total - 10), fp) == (size_t)(total - 10) &&
           fwrite(v, sizeof(tir_elem), (size_t)(n0 * n1), fp) == (size_t)(n0 * n1);
  return fclose(fp) == 0 && ok ? 0 : -1;
}

static void usage(void) {
  fprintf(stderr, "usage: heat_mpi [--nx N] [--ny N] [--steps N] [--out FILE.npy] [--check]\n");
  MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  long gn[2] = {64, 48}, steps = 20;
  const char *out = NULL;
  int check = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--check")) check = 1;
    else if (i + 1 < argc && !strcmp(argv[i], "--nx")) gn[0] = atol(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--ny")) gn[1] = atol(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--steps")) steps = atol(argv[++i]);
    else if (i + 1 < argc && !strcmp(argv[i], "--out")) out = argv[++i];
    else usage();
  }
  int size, rank, dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
  MPI_Comm_rank(cart, &rank);
  MPI_Cart_coords(cart, rank, 2, coords);

  /* This rank's block, with its ghost points. */
  long start[2], count[2];
  for (int d = 0; d < 2; d++) {
    block(gn[d], dims[d], coords[d], &start[d], &count[d]);
    /* A ghost layer must come from the next block alone. */
    if (count[d] < tir_halo_below[d] || count[d] < tir_halo_above[d] || count[d] < 1) {
      if (rank == 0)
        fprintf(stderr, "heat_mpi: %ld points along %s over %d ranks leaves blocks of %ld, fewer than the halo (%d below, %d above)\n",
                gn[d], tir_dim_name[d], dims[d], count[d], tir_halo_below[d], tir_halo_above[d]);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  field f;
  field_init(&f, count[0], count[1]);
  for (long i = 0; i < count[0]; i++)
    for (long j = 0; j < count[1]; j++) *at(&f, f.u, i, j) = initial(start[0] + i, start[1] + j);
  exchange x[2] = {exchange_init(cart, &f, 0), exchange_init(cart, &f, 1)};

  MPI_Barrier(cart);
  double t0 = MPI_Wtime();
  for (long s = 0; s < steps; s++) {
    exchange_halos(cart, x, f.u);
    step(&f);
  }
  double elapsed = MPI_Wtime() - t0, slowest;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, cart);

  /* Gather the owned blocks on rank 0, in rank order, then place them. */
  MPI_Datatype owned = subarray(&f, tir_halo_below[0], f.n[0], tir_halo_below[1], f.n[1]);
  int *counts = NULL, *displs = NULL;
  tir_elem *blocks = NULL, *global = NULL;
  if (rank == 0) {
    counts = malloc(sizeof(int) * (size_t)size);
    displs = malloc(sizeof(int) * (size_t)size);
    for (int r = 0, off = 0; r < size; r++) {
      int c[2];
      long s0, n0, s1, n1;
      MPI_Cart_coords(cart, r, 2, c);
      block(gn[0], dims[0], c[0], &s0, &n0);
      block(gn[1], dims[1], c[1], &s1, &n1);
      counts[r] = (int)(n0 * n1);
      displs[r] = off;
      off += counts[r];
    }
    blocks = malloc(sizeof(tir_elem) * (size_t)(gn[0] * gn[1]));
    global = malloc(sizeof(tir_elem) * (size_t)(gn[0] * gn[1]));
  }
  MPI_Gatherv(f.u, 1, owned, blocks, counts, displs, TIR_MPI_ELEM, 0, cart);
  int status = 0;
  if (rank == 0) {
    for (int r = 0; r < size; r++) {
      int c[2];
      long s0, n0, s1, n1;
      MPI_Cart_coords(cart, r, 2, c);
      block(gn[0], dims[0], c[0], &s0, &n0);
      block(gn[1], dims[1], c[1], &s1, &n1);
      for (long i = 0; i < n0; i++)
        memcpy(global + (s0 + i) * gn[1] + s1, blocks + displs[r] + i * n1, sizeof(tir_elem) * (size_t)n1);
    }
    printf("%s on %ld x %ld points (%s x %s), %d ranks as %d x %d, halo %s: -%d +%d   %s: -%d +%d, %ld steps in %.3f ms\n",
           TIR_KERNEL_NAME, gn[0], gn[1], tir_dim_name[0], tir_dim_name[1], size, dims[0], dims[1], tir_dim_name[0],
           tir_halo_below[0], tir_halo_above[0], tir_dim_name[1], tir_halo_below[1], tir_halo_above[1], steps, slowest * 1e3);
    if (out && write_npy(out, global, gn[0], gn[1]) != 0) {
      fprintf(stderr, "heat_mpi: cannot write %s\n", out);
      status = 1;
    }
    if (check) {
      /* The same steps on the whole grid in one piece. */
      field whole;
      field_init(&whole, gn[0], gn[1]);
      for (long i = 0; i < gn[0]; i++)
        for (long j = 0; j < gn[1]; j++) *at(&whole, whole.u, i, j) = initial(i, j);
      for (long s = 0; s < steps; s++) {
        wrap_halos(&whole);
        step(&whole);
      }
      long differ = 0;
      for (long i = 0; i < gn[0]; i++)
        for (long j = 0; j < gn[1]; j++)
          differ += memcmp(at(&whole, whole.u, i, j), global + i * gn[1] + j, sizeof(tir_elem)) != 0;
      if (differ == 0) {
        printf("check: the gathered result equals the single-domain run bit for bit (%ld points)\n", gn[0] * gn[1]);
      } else {
        printf("check: %ld of %ld points differ from the single-domain run\n", differ, gn[0] * gn[1]);
        status = 1;
      }
    }
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, cart);
  MPI_Finalize();
  return status;
}
