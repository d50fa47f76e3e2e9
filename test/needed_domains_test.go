package test

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
)

// Temporaries and scans are computed on the points their readers need
// (the extent analysis, tir.Needs), never on more of their domain; a
// scan always starts at the first step of its interval. Each case checks
// the values in every mode against values computed here, and the sizes of
// the buffers and loops in the affine output.

// exp(x) lives on I[0:12] but is read at two offsets only by a result on
// I[4:8]: it is computed on I[3:9] (6 points).
const neededTemp = `tir.func @part(%x: !tir.tensor<f64, I[0:12]>) -> !tir.tensor<f64, I[4:8]> {
  %e = tir.exp %x
  %l = tir.shift %e [I - 1]
  %r = tir.shift %e [I + 1]
  %s = tir.add %l, %r
  %o = tir.subset %s [I[4:8]]
  tir.return %o : !tir.tensor<f64, I[4:8]>
}
`

func TestTemporaryOnNeededPoints(t *testing.T) {
	x := make([]float64, 12)
	for i := range x {
		x[i] = float64(i)/4 - 1
	}
	var want []float64
	for i := 4; i < 8; i++ {
		want = append(want, math.Exp(x[i-1])+math.Exp(x[i+1]))
	}
	args := []*interp.Tensor{tensorOf(t, f64, []interp.Dim{dim("I", 0, 12)}, x)}
	expectAll(t, runAllModes(t, neededTemp, args, nil), want)
	affine := lowerToAffine(t, neededTemp, "--tir-temporaries", "--convert-tir-to-affine")
	if !strings.Contains(affine, "memref.alloc() : memref<6xf64>") || !strings.Contains(affine, "affine.for %i = 3 to 9") {
		t.Errorf("want exp(x) computed on I[3:9] into memref<6xf64>:\n%s", affine)
	}
}

// A forward and a backward running sum over K[0:10], read only on K[5:7]
// and K[2:4]: the forward scan runs its steps 0..6, the backward one its
// steps 9 down to 2, each from its own start.
const neededScans = `!k = !tir.tensor<i64, K[0:10]>
tir.func @sums(%x: !k) -> (!tir.tensor<i64, K[5:7]>, !tir.tensor<i64, K[2:4]>) {
  %z = tir.constant 0 : i64
  %f = tir.scan forward along K init %z ins(%x) {
  ^bb0(%s, %xk):
    %n = tir.add %s, %xk
    tir.yield %n
  }
  %b = tir.scan backward along K init %z ins(%x) {
  ^bb0(%s, %xk):
    %n = tir.add %s, %xk
    tir.yield %n
  }
  %one = tir.constant 1 : i64
  %f1 = tir.add %f, %one
  %b1 = tir.add %b, %one
  %fo = tir.subset %f1 [K[5:7]]
  %bo = tir.subset %b1 [K[2:4]]
  tir.return %fo, %bo : !tir.tensor<i64, K[5:7]>, !tir.tensor<i64, K[2:4]>
}
`

func TestScanOnNeededSteps(t *testing.T) {
	x := []float64{3, -1, 4, 1, -5, 9, 2, -6, 5, 3}
	prefix := func(k int) (s float64) {
		for i := 0; i <= k; i++ {
			s += x[i]
		}
		return s
	}
	suffix := func(k int) (s float64) {
		for i := k; i < len(x); i++ {
			s += x[i]
		}
		return s
	}
	args := []*interp.Tensor{tensorOf(t, i64, []interp.Dim{dim("K", 0, 10)}, x)}
	results := runAllModes(t, neededScans, args, nil)
	expectAll(t, results, []float64{prefix(5) + 1, prefix(6) + 1})
	for mode, rs := range results {
		if got := rs[1].I64; len(got) != 2 || float64(got[0]) != suffix(2)+1 || float64(got[1]) != suffix(3)+1 {
			t.Errorf("%s: backward sums %v, want [%v %v]", mode, got, suffix(2)+1, suffix(3)+1)
		}
	}
	affine := lowerToAffine(t, neededScans, "--convert-tir-to-affine")
	allocs := regexp.MustCompile(`memref\.alloc\(\) : memref<(\d+)xi64>`).FindAllStringSubmatch(affine, -1)
	if len(allocs) != 2 || allocs[0][1] != "7" || allocs[1][1] != "8" {
		t.Errorf("want the forward scan on K[0:7] and the backward one on K[2:10], got %v:\n%s", allocs, affine)
	}
	if !strings.Contains(affine, "affine.for %rk = 0 to 7") || !strings.Contains(affine, "affine.for %rk_0 = 2 to 10") {
		t.Errorf("want the scans' loops over steps [0:7] and [2:10]:\n%s", affine)
	}
}

var i64 = ir.IntegerType{Width: 64}
