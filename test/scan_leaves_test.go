package test

import (
	"regexp"
	"strings"
	"testing"

	"tir/dialects/tir/interp"
)

// A scan whose tuple state is read only through tir.tuple_get ops that the
// function returns as they are (an adjoint scan's shape: the cotangent of
// the state carried beside the inputs' cotangents) is computed straight
// into the result buffers, one per returned component, and stores nothing
// of the component nobody reads (c here, which only the step reads).
const scanLeaves = `!k = !tir.tensor<f64, DIMS>
tir.func @leaves(%x: !k) -> (!k, !k) {
  %z = tir.constant (0.0, 0.0, 1.0) : tuple<f64, f64, f64>
  %s = tir.scan forward along K init %z ins(%x) {
  ^bb0(%st, %xk):
    %a = tir.tuple_get %st[0]
    %c = tir.tuple_get %st[2]
    %a1 = tir.add %a, %xk
    %b1 = tir.mul %c, %xk
    %c1 = tir.sub %xk, %c
    %n = tir.make_tuple %a1, %b1, %c1
    tir.yield %n
  }
  %p = tir.tuple_get %s[1]
  %q = tir.tuple_get %s[0]
  tir.return %p, %q : !k, !k
}
`

func TestScanTupleLeavesIntoResults(t *testing.T) {
	const n, l = 3, 5
	// K inside (columns) and K outermost (rows, which load each state
	// where the step before stored it: the unread leaf gets a temporary).
	for _, layout := range []struct {
		dims string
		at   func(i, k int) int
		ds   []interp.Dim
	}{
		{"I[0:N], K[0:L]", func(i, k int) int { return i*l + k }, []interp.Dim{dim("I", 0, n), dim("K", 0, l)}},
		{"K[0:L], I[0:N]", func(i, k int) int { return k*n + i }, []interp.Dim{dim("K", 0, l), dim("I", 0, n)}},
	} {
		src := strings.Replace(scanLeaves, "DIMS", layout.dims, 1)
		x := make([]float64, n*l)
		for p := range x {
			x[p] = float64(p%7)/4 - 0.75
		}
		p, q := make([]float64, n*l), make([]float64, n*l)
		for i := 0; i < n; i++ {
			a, c := 0.0, 1.0
			for k := 0; k < l; k++ {
				xk := x[layout.at(i, k)]
				p[layout.at(i, k)] = c * xk
				a, c = a+xk, xk-c
				q[layout.at(i, k)] = a
			}
		}
		args := []*interp.Tensor{tensorOf(t, f64, layout.ds, x)}
		results := runAllModes(t, src, args, map[string]int64{"N": n, "L": l})
		expectAll(t, results, p)
		for mode, rs := range results {
			for i := range q {
				if rs[1].F64[i] != q[i] {
					t.Errorf("%s (%s): q[%d] = %v, want %v", layout.dims, mode, i, rs[1].F64[i], q[i])
				}
			}
		}
	}
	affine := lowerToAffine(t, strings.Replace(scanLeaves, "DIMS", "I[0:N], K[0:L]", 1), "--convert-tir-to-affine")
	if strings.Contains(affine, "memref.alloc") {
		t.Errorf("want no temporary: the components go to the results, the unread one nowhere:\n%s", affine)
	}
	stores := regexp.MustCompile(`affine\.store [^,]*, %(\w+)\[`).FindAllStringSubmatch(affine, -1)
	if len(stores) != 2 || stores[0][1] != "result0" && stores[0][1] != "result1" {
		t.Errorf("want one store into each result, got %v:\n%s", stores, affine)
	}
}

// Two scans of one column group whose results are returned through
// arithmetic (an adjoint's two contributions to one input, summed): the
// group computes the returned values in its nest, from the columns, once
// a column's scans have run, so neither scan needs a whole-domain
// temporary.
const scanEpilogue = `!k = !tir.tensor<f64, I[0:N], K[0:L]>
tir.func @sums(%x: !k) -> (!k, !k) {
  %z = tir.constant 0.0 : f64
  %half = tir.constant 0.5 : f64
  %s = tir.scan forward along K init %z ins(%x) {
  ^bb0(%acc, %xk):
    %n = tir.add %acc, %xk
    tir.yield %n
  }
  %r = tir.scan backward along K init %z ins(%s, %x) {
  ^bb0(%acc, %sk, %xk):
    %m = tir.mul %acc, %half
    %n = tir.sub %sk, %m
    tir.yield %n
  }
  %t = tir.add %s, %r
  %u = tir.mul %r, %x
  tir.return %t, %u : !k, !k
}
`

func TestScanOutputsInColumns(t *testing.T) {
	const n, l = 3, 6
	x := make([]float64, n*l)
	for p := range x {
		x[p] = float64(p%5)/2 - 1
	}
	tw, uw := make([]float64, n*l), make([]float64, n*l)
	for i := 0; i < n; i++ {
		s := make([]float64, l)
		acc := 0.0
		for k := 0; k < l; k++ {
			acc += x[i*l+k]
			s[k] = acc
		}
		acc = 0
		for k := l - 1; k >= 0; k-- {
			acc = s[k] - acc*0.5
			tw[i*l+k] = s[k] + acc
			uw[i*l+k] = acc * x[i*l+k]
		}
	}
	args := []*interp.Tensor{tensorOf(t, f64, []interp.Dim{dim("I", 0, n), dim("K", 0, l)}, x)}
	results := runAllModes(t, scanEpilogue, args, map[string]int64{"N": n, "L": l})
	expectAll(t, results, tw)
	for mode, rs := range results {
		for i := range uw {
			if rs[1].F64[i] != uw[i] {
				t.Errorf("%s: u[%d] = %v, want %v", mode, i, rs[1].F64[i], uw[i])
			}
		}
	}
	affine := lowerToAffine(t, scanEpilogue, "--convert-tir-to-affine")
	allocs := regexp.MustCompile(`memref\.alloc\([^)]*\) : (memref<[^>]*>)`).FindAllStringSubmatch(affine, -1)
	if len(allocs) != 2 || allocs[0][1] != "memref<?xf64>" || allocs[1][1] != "memref<?xf64>" {
		t.Errorf("want two column buffers, got %v:\n%s", allocs, affine)
	}
	// GPU targets (no columns) keep the scans in temporaries.
	gpu := lowerToAffine(t, scanEpilogue, "--convert-tir-to-affine=scan-columns=false")
	if !strings.Contains(gpu, "memref<?x?xf64>") {
		t.Errorf("scan-columns=false: want whole-domain temporaries:\n%s", gpu)
	}
}

// A tuple scan swept in rows (along I, stored before K) of which a later
// scan reads one component: the other is stored nowhere but in the rows'
// own slab, which the later scan's nest must not read (the random
// programs found a load of it outside the nest that allocates it).
const scanRowsLeaf = `!a = !tir.tensor<f64, I[0:N], J[0:M], K[0:L]>
tir.func @rowsleaf(%x: !a) -> !a {
  %z = tir.constant (0.0, 1.0) : tuple<f64, f64>
  %half = tir.constant 0.5 : f64
  %s = tir.scan forward along I init %z ins(%x) {
  ^bb0(%st, %xk):
    %a = tir.tuple_get %st[0]
    %c = tir.tuple_get %st[1]
    %xc = tir.mul %xk, %c
    %a1 = tir.add %a, %xc
    %ch = tir.mul %c, %half
    %c1 = tir.add %ch, %xk
    %n = tir.make_tuple %a1, %c1
    tir.yield %n
  }
  %p = tir.tuple_get %s[0]
  %zero = tir.constant 0.0 : f64
  %r = tir.scan backward along K init %zero ins(%p) {
  ^bb0(%acc, %pk):
    %m = tir.mul %acc, %half
    %n = tir.add %m, %pk
    tir.yield %n
  }
  tir.return %r : !a
}
`

func TestScanRowsUnreadLeaf(t *testing.T) {
	const n, m, l = 4, 2, 6
	at := func(i, j, k int) int { return (i*m+j)*l + k }
	x := make([]float64, n*m*l)
	for p := range x {
		x[p] = float64(p%7)/4 - 0.5
	}
	p := make([]float64, n*m*l)
	for j := 0; j < m; j++ {
		for k := 0; k < l; k++ {
			a, c := 0.0, 1.0
			for i := 0; i < n; i++ {
				xk := x[at(i, j, k)]
				a, c = a+xk*c, c*0.5+xk
				p[at(i, j, k)] = a
			}
		}
	}
	want := make([]float64, n*m*l)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			acc := 0.0
			for k := l - 1; k >= 0; k-- {
				acc = acc*0.5 + p[at(i, j, k)]
				want[at(i, j, k)] = acc
			}
		}
	}
	args := []*interp.Tensor{tensorOf(t, f64, []interp.Dim{dim("I", 0, n), dim("J", 0, m), dim("K", 0, l)}, x)}
	expectAll(t, runAllModes(t, scanRowsLeaf, args, map[string]int64{"N": n, "M": m, "L": l}), want)
	affine := lowerToAffine(t, scanRowsLeaf, "--convert-tir-to-affine=scan-rows=true")
	if !strings.Contains(affine, "%slab = memref.alloc") {
		t.Errorf("want the unread component in a slab of the rows' nest:\n%s", affine)
	}
}
