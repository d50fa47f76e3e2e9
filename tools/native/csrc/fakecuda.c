/* A CUDA driver emulator for running GPU builds on the CPU (tools/native).
 *
 * It implements the driver API entry points the generated host wrapper
 * (tc-opt --emit=cuda-host) and the test driver use, with host memory as
 * "device" memory. Kernels are the same gpu.func bodies compiled for the
 * host (convert-to-llvm{target=nvptx64 emulate=true}): each is
 * `void k(void **params, const int32_t *ids)`, ids = tid.xyz, ctaid.xyz,
 * ntid.xyz, nctaid.xyz. cuLaunchKernel runs every thread of the grid in
 * turn, which is exact for kernels without barriers or shared memory (the
 * only kind tc-opt emits). A table generated per program names the kernels
 * (tir_fake_kernels).
 *
 * It also checks what a real driver would refuse: kernels missing from the
 * loaded PTX, block and grid sizes beyond the limits, freeing unknown
 * pointers, and launches without a current context.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef void (*tir_fake_kernel_fn)(void **params, const int32_t *ids);
struct tir_fake_kernel {
  const char *name;
  tir_fake_kernel_fn fn;
};
extern const struct tir_fake_kernel tir_fake_kernels[];
extern const int tir_fake_nkernels;

enum {
  OK = 0,
  ERR_INVALID_VALUE = 1,
  ERR_OUT_OF_MEMORY = 2,
  ERR_NOT_INITIALIZED = 3,
  ERR_INVALID_CONTEXT = 201,
  ERR_INVALID_IMAGE = 200,
  ERR_NOT_FOUND = 500,
};

static int initialized, have_ctx;
static char ctx_token, module_token;
static const char *loaded_ptx;

CUresult cuInit(unsigned flags) {
  (void)flags;
  initialized = 1;
  return OK;
}

CUresult cuDeviceGet(int *dev, int ordinal) {
  if (!initialized) return ERR_NOT_INITIALIZED;
  if (ordinal != 0) return ERR_INVALID_VALUE;
  *dev = 0;
  return OK;
}

CUresult cuDevicePrimaryCtxRetain(void **ctx, int dev) {
  if (!initialized) return ERR_NOT_INITIALIZED;
  if (dev != 0) return ERR_INVALID_VALUE;
  *ctx = &ctx_token;
  return OK;
}

CUresult cuCtxSetCurrent(void *ctx) {
  if (ctx != &ctx_token) return ERR_INVALID_CONTEXT;
  have_ctx = 1;
  return OK;
}

CUresult cuCtxSynchronize(void) { return have_ctx ? OK : ERR_INVALID_CONTEXT; }

CUresult cuModuleLoadData(void **module, const void *image) {
  if (!have_ctx) return ERR_INVALID_CONTEXT;
  const char *ptx = image;
  if (!ptx || !strstr(ptx, ".target")) return ERR_INVALID_IMAGE;
  loaded_ptx = ptx;
  *module = &module_token;
  return OK;
}

/* The kernel must be a .entry of the loaded PTX, and compiled for the host. */
CUresult cuModuleGetFunction(void **fn, void *module, const char *name) {
  if (module != &module_token || !loaded_ptx) return ERR_INVALID_VALUE;
  char entry[512];
  snprintf(entry, sizeof entry, ".entry %s(", name);
  if (!strstr(loaded_ptx, entry)) return ERR_NOT_FOUND;
  for (int k = 0; k < tir_fake_nkernels; k++) {
    if (strcmp(tir_fake_kernels[k].name, name) == 0) {
      *fn = (void *)&tir_fake_kernels[k];
      return OK;
    }
  }
  return ERR_NOT_FOUND;
}

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void *stream, void **params, void **extra) {
  (void)stream;
  if (!have_ctx) return ERR_INVALID_CONTEXT;
  const struct tir_fake_kernel *k = f;
  if (!k || shared != 0 || extra != NULL) return ERR_INVALID_VALUE;
  if (gx < 1 || gy < 1 || gz < 1 || gx > 2147483647u || gy > 65535 || gz > 65535) return ERR_INVALID_VALUE;
  if (bx < 1 || by < 1 || bz < 1 || bx > 1024 || by > 1024 || bz > 64 ||
      (unsigned long long)bx * by * bz > 1024)
    return ERR_INVALID_VALUE;
  int32_t ids[12];
  ids[6] = (int32_t)bx, ids[7] = (int32_t)by, ids[8] = (int32_t)bz;
  ids[9] = (int32_t)gx, ids[10] = (int32_t)gy, ids[11] = (int32_t)gz;
  for (unsigned z = 0; z < gz; z++)
    for (unsigned y = 0; y < gy; y++)
      for (unsigned x = 0; x < gx; x++)
        for (unsigned tz = 0; tz < bz; tz++)
          for (unsigned ty = 0; ty < by; ty++)
            for (unsigned tx = 0; tx < bx; tx++) {
              ids[0] = (int32_t)tx, ids[1] = (int32_t)ty, ids[2] = (int32_t)tz;
              ids[3] = (int32_t)x, ids[4] = (int32_t)y, ids[5] = (int32_t)z;
              k->fn(params, ids);
            }
  return OK;
}

/* Device memory is host memory; allocations are tracked so that freeing an
   unknown pointer fails as it would on a GPU. */
#define MAX_ALLOCS 4096
static void *allocs[MAX_ALLOCS];

CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
  if (!have_ctx) return ERR_INVALID_CONTEXT;
  if (n == 0) return ERR_INVALID_VALUE;
  void *m = malloc(n);
  if (!m) return ERR_OUT_OF_MEMORY;
  for (int i = 0; i < MAX_ALLOCS; i++) {
    if (!allocs[i]) {
      allocs[i] = m;
      *p = (unsigned long long)(uintptr_t)m;
      return OK;
    }
  }
  free(m);
  return ERR_OUT_OF_MEMORY;
}

CUresult cuMemFree_v2(unsigned long long p) {
  for (int i = 0; i < MAX_ALLOCS; i++) {
    if (allocs[i] && (unsigned long long)(uintptr_t)allocs[i] == p) {
      free(allocs[i]);
      allocs[i] = NULL;
      return OK;
    }
  }
  return ERR_INVALID_VALUE;
}

CUresult cuMemcpyHtoD_v2(unsigned long long dst, const void *src, size_t n) {
  memcpy((void *)(uintptr_t)dst, src, n);
  return OK;
}

CUresult cuMemcpyDtoH_v2(void *dst, unsigned long long src, size_t n) {
  memcpy(dst, (const void *)(uintptr_t)src, n);
  return OK;
}

CUresult cuMemcpyDtoD_v2(unsigned long long dst, unsigned long long src, size_t n) {
  memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
  return OK;
}

CUresult cuGetErrorName(CUresult r, const char **s) {
  switch (r) {
  case OK: *s = "CUDA_SUCCESS"; break;
  case ERR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
  case ERR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
  case ERR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; break;
  case ERR_INVALID_CONTEXT: *s = "CUDA_ERROR_INVALID_CONTEXT"; break;
  case ERR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; break;
  case ERR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
  default: *s = "CUDA_ERROR_UNKNOWN"; return ERR_INVALID_VALUE;
  }
  return OK;
}

CUresult cuGetErrorString(CUresult r, const char **s) {
  *s = r == OK ? "no error" : "reported by the CUDA driver emulator of the tests";
  return OK;
}
