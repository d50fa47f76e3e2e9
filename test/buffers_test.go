package test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/tools/native"
)

// Temporaries are kept between calls (lower/tollvm/buffers.go): a call
// reuses the buffer of the previous one when it is large enough, grows it
// otherwise, and a call that finds it taken by another thread allocates
// its own. This harness calls a function with a temporary at growing and
// shrinking sizes (across glibc's mmap threshold) from one thread, then
// from four threads at once, and compares every result with values
// computed in C; under AddressSanitizer when gcc supports it, so a buffer
// used after it is freed, or too small for the call, is reported.

const smoothTIR = `tir.func @smooth(%x: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N - 1]> {
  %e = tir.exp %x
  %l = tir.shift %e [I - 1]
  %r = tir.shift %e [I + 1]
  %s = tir.add %l, %r
  tir.return %s : !tir.tensor<f64, I[1:N - 1]>
}
`

const smoothHarness = `#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct { double *allocated, *aligned; int64_t offset, sizes[1], strides[1]; } desc1;
int32_t smooth(const desc1 *x, desc1 *result, int64_t N);

static int check(int64_t n, unsigned seed) {
  double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)(n - 2));
  for (int64_t i = 0; i < n; i++) x[i] = (double)((seed + 7 * i) % 101) / 50.0 - 1.0;
  desc1 dx = {x, x, 0, {n}, {1}}, dy = {y, y, 0, {n - 2}, {1}};
  int32_t rc = smooth(&dx, &dy, n);
  int bad = rc != 0;
  /* exp may be tc-opt's expansion (within an ulp of the C library's):
     a wrong buffer is off by far more. */
  for (int64_t i = 1; i < n - 1 && !bad; i++)
    if (fabs(y[i - 1] - (exp(x[i - 1]) + exp(x[i + 1]))) > 1e-14 * (exp(x[i - 1]) + exp(x[i + 1]))) {
      fprintf(stderr, "n=%lld: element %lld = %.17g, want %.17g\n", (long long)n, (long long)i, y[i - 1], exp(x[i - 1]) + exp(x[i + 1]));
      bad = 1;
    }
  free(x);
  free(y);
  return bad;
}

static const int64_t sizes[] = {3, 1000, 10, 600000, 5, 4096, 600001, 17};

static void *worker(void *arg) {
  long t = (long)arg, bad = 0;
  for (int r = 0; r < 12; r++) bad += check(sizes[(r + t) % 8], (unsigned)(r * 4 + t));
  return (void *)bad;
}

int main(void) {
  int bad = 0;
  for (int r = 0; r < 16; r++) bad += check(sizes[r % 8], (unsigned)r);
  pthread_t th[4];
  for (long t = 0; t < 4; t++) pthread_create(&th[t], 0, worker, (void *)t);
  for (int t = 0; t < 4; t++) {
    void *b;
    pthread_join(th[t], &b);
    bad += (int)(long)b;
  }
  if (bad) return 1;
  printf("ok\n");
  return 0;
}
`

func TestTemporariesKeptBetweenCalls(t *testing.T) {
	needToolchain(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "smooth.tir")
	if err := os.WriteFile(src, []byte(smoothTIR), 0o644); err != nil {
		t.Fatal(err)
	}
	llvm := runTCOpt(t, "-O2", src)
	// The temporary of exp(x) goes through a slot.
	if !strings.Contains(llvm, "@tir.buffer.acquire") || !strings.Contains(llvm, "@tir.buffer.release") {
		t.Fatalf("the temporary is not kept between calls:\n%s", llvm)
	}
	ll := filepath.Join(dir, "smooth.ll")
	if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
		t.Fatal(err)
	}
	llc, err := native.Tool("llc")
	if err != nil {
		t.Fatal(err)
	}
	obj := filepath.Join(dir, "smooth.o")
	if out, err := exec.Command(llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj).CombinedOutput(); err != nil {
		t.Fatalf("llc: %v\n%s", err, out)
	}
	harness := filepath.Join(dir, "harness.c")
	if err := os.WriteFile(harness, []byte(smoothHarness), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, flags := range [][]string{{"-fsanitize=address"}, nil} {
		exe := filepath.Join(dir, "harness")
		args := append(append([]string{"-O1", "-g"}, flags...), harness, obj, "-o", exe, "-lm", "-lpthread")
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			if flags != nil {
				t.Logf("gcc %v failed, trying without AddressSanitizer: %s", flags, out)
				continue
			}
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		out, err := exec.Command(exe).CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "ok" {
			t.Fatalf("harness %v: %v\n%s", flags, err, out)
		}
		return
	}
}
