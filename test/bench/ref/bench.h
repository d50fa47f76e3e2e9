/* MLIR strided memref descriptors, as in docs/abi.md. Shared by the C
   references and the generated benchmark driver. */
#ifndef TIR_BENCH_H
#define TIR_BENCH_H
#include <stdint.h>
typedef struct { void *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } desc1;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[2], strides[2]; } desc2;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[3], strides[3]; } desc3;
typedef struct { void *allocated, *aligned; int64_t offset, sizes[4], strides[4]; } desc4;
/* The element at the descriptor's lower corner. */
#define BASE(T, d) ((T *)(d)->aligned + (d)->offset)
#endif
