package test

import (
	"strings"
	"testing"

	"tir/dialects/tir/interp"
)

// An expensive per-edge value (a division) read by two cheap products,
// each gathered by the vertices: tir-temporaries computes the value once
// into one temporary and fuses the products into the gathers
// (passes/tirpasses/temporaries.go, cheapRereaders). The results are
// checked in every mode against values computed here, and the lowering
// is checked to allocate one temporary of the edge domain, not two.
const sharedEdgeValue = `!ef = !tir.tensor<f64, Edge[0:NE]>
!vk = !tir.tensor<f64, Vertex[0:NV], K[0:3]>
tir.func @shared(%x: !ef, %s: !ef, %t: !ef, %v2e: !tir.tensor<i32, Vertex[0:NV], K[0:3]>) -> (!vk, !vk) {
  %one = tir.constant 1.0 : f64
  %e = tir.div %one, %x
  %a = tir.mul %s, %e
  %b = tir.mul %t, %e
  %av = tir.gather %a [Edge = %v2e]
  %bv = tir.gather %b [Edge = %v2e]
  tir.return %av, %bv : !vk, !vk
}
`

func TestSharedTemporary(t *testing.T) {
	const ne, nv = 5, 4
	x := []float64{2, -4, 0.5, 8, 3}
	s := []float64{1.5, 2, -3, 0.25, 7}
	tt := []float64{-1, 0.5, 6, 2, -0.125}
	v2e := []float64{0, 1, 2, 4, 3, 1, 2, 2, 0, 3, 4, 1}
	edges := []interp.Dim{dim("Edge", 0, ne)}
	args := []*interp.Tensor{
		tensorOf(t, f64, edges, x), tensorOf(t, f64, edges, s), tensorOf(t, f64, edges, tt),
		tensorOf(t, i32, []interp.Dim{dim("Vertex", 0, nv), dim("K", 0, 3)}, v2e),
	}
	var wantA, wantB []float64
	for _, e := range v2e {
		wantA = append(wantA, s[int(e)]*(1/x[int(e)]))
		wantB = append(wantB, tt[int(e)]*(1/x[int(e)]))
	}
	results := runAllModes(t, sharedEdgeValue, args, map[string]int64{"NE": ne, "NV": nv})
	expectAll(t, results, wantA)
	for mode, rs := range results {
		for i, w := range wantB {
			if rs[1].F64[i] != w {
				t.Errorf("%s: result #1 element %d = %v, want %v", mode, i, rs[1].F64[i], w)
			}
		}
	}
	affine := lowerToAffine(t, sharedEdgeValue, "--tir-temporaries", "--convert-tir-to-affine")
	if got := strings.Count(affine, "memref.alloc"); got != 1 {
		t.Errorf("want one temporary (the shared value), got %d allocations:\n%s", got, affine)
	}
}
