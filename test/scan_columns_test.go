package test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tir/dialects/tir/interp"
)

// Scans read only by later scans of the same column (the tridiagonal
// pattern) keep their results in column-sized buffers on CPU targets
// (convert-tir-to-affine{scan-columns}); these tests check the values in
// every mode against a solver written here, and that the column buffers
// are really what the lowering allocates.

// thomas solves the tridiagonal systems along the middle dimension of
// n0 x nk x n1 row-major arrays, with the operations in the order of the
// tir program below.
func thomas(a, b, c, d []float64, n0, nk, n1 int) []float64 {
	x := make([]float64, len(a))
	for i := 0; i < n0; i++ {
		for j := 0; j < n1; j++ {
			at := func(k int) int { return (i*nk+k)*n1 + j }
			cp := make([]float64, nk)
			dp := make([]float64, nk)
			cprev, dprev := 0.0, 0.0
			for k := 0; k < nk; k++ {
				den := b[at(k)] - a[at(k)]*cprev
				cprev = c[at(k)] / den
				dprev = (d[at(k)] - a[at(k)]*dprev) / den
				cp[k], dp[k] = cprev, dprev
			}
			xk := 0.0
			for k := nk - 1; k >= 0; k-- {
				xk = dp[k] - cp[k]*xk
				x[at(k)] = xk
			}
		}
	}
	return x
}

// The scanned dimension K is in the middle of the storage order, so a
// column is strided in the inputs and contiguous in its buffer.
const tridiagMiddleK = `!col = !tir.tensor<f64, I[0:N], K[0:5], J[0:3]>
tir.func @solve(%a: !col, %b: !col, %c: !col, %d: !col) -> !col {
  %init = tir.constant (0.0, 0.0) : tuple<f64, f64>
  %cpdp = tir.scan forward along K init %init ins(%a, %b, %c, %d) {
  ^bb0(%st, %ak, %bk, %ck, %dk):
    %cp_prev = tir.tuple_get %st[0]
    %dp_prev = tir.tuple_get %st[1]
    %t   = tir.mul %ak, %cp_prev
    %den = tir.sub %bk, %t
    %cp  = tir.div %ck, %den
    %u   = tir.mul %ak, %dp_prev
    %num = tir.sub %dk, %u
    %dp  = tir.div %num, %den
    %nxt = tir.make_tuple %cp, %dp
    tir.yield %nxt
  }
  %zero = tir.constant 0.0 : f64
  %x = tir.scan backward along K init %zero ins(%cpdp) {
  ^bb0(%x_above, %cd):
    %cp = tir.tuple_get %cd[0]
    %dp = tir.tuple_get %cd[1]
    %m  = tir.mul %cp, %x_above
    %xk = tir.sub %dp, %m
    tir.yield %xk
  }
  tir.return %x : !col
}
`

// checkTridiag runs a tridiagonal solver along K of I x K x J arrays in
// every mode and checks it against thomas on diagonally dominant systems.
// Without J (n1 < 0) the arrays are I x K.
func checkTridiag(t *testing.T, src string, n0, nk, n1 int, syms map[string]int64) {
	t.Helper()
	dims := []interp.Dim{dim("I", 0, int64(n0)), dim("K", 0, int64(nk))}
	if n1 < 0 {
		n1 = 1
	} else {
		dims = append(dims, dim("J", 0, int64(n1)))
	}
	var a, b, c, d []float64
	for p := 0; p < n0*nk*n1; p++ {
		a = append(a, 0.25+float64(p%7)/16)
		b = append(b, 4+float64(p%5)/8)
		c = append(c, 0.5-float64(p%3)/16)
		d = append(d, float64(p%11)-3.5)
	}
	args := []*interp.Tensor{tensorOf(t, f64, dims, a), tensorOf(t, f64, dims, b), tensorOf(t, f64, dims, c), tensorOf(t, f64, dims, d)}
	expectAll(t, runAllModes(t, src, args, syms), thomas(a, b, c, d, n0, nk, n1))
}

func TestTridiagonalInColumns(t *testing.T) {
	const n0, nk, n1 = 2, 5, 3
	checkTridiag(t, tridiagMiddleK, n0, nk, n1, map[string]int64{"N": n0})

	// The forward sweep lives in two column buffers allocated in the
	// outermost loop (one per element of its tuple state), never in a
	// temporary of the whole domain; the outermost loop stays parallel.
	affine := lowerToAffine(t, tridiagMiddleK, "--convert-tir-to-affine")
	allocs := regexp.MustCompile(`memref\.alloc\([^)]*\) : (memref<[^>]*>)`).FindAllStringSubmatch(affine, -1)
	if len(allocs) != 2 || allocs[0][1] != "memref<5xf64>" || allocs[1][1] != "memref<5xf64>" {
		t.Errorf("want two column buffers memref<5xf64>, got %v:\n%s", allocs, affine)
	}
	if strings.Count(affine, "{tir.parallel}") != 1 {
		t.Errorf("want exactly the outermost loop parallel:\n%s", affine)
	}
	// GPU targets keep every loop parallel and whole-domain temporaries.
	gpu := lowerToAffine(t, tridiagMiddleK, "--convert-tir-to-affine=scan-columns=false")
	if !strings.Contains(gpu, "memref<?x5x3xf64>") || strings.Count(gpu, "{tir.parallel}") != 4 {
		t.Errorf("scan-columns=false: want whole-domain temporaries and parallel nests:\n%s", gpu)
	}
}

// A chain of three scans over a one-dimensional column: the first is read
// by the two others (a column buffer at function entry), the second by
// the third and returned (so it is computed into its result), the third
// returned.
const scanChain = `!k = !tir.tensor<f64, K[0:L]>
tir.func @chain(%x: !k) -> (!k, !k) {
  %z = tir.constant 0.0 : f64
  %s = tir.scan forward along K init %z ins(%x) {
  ^bb0(%acc, %xk):
    %n = tir.add %acc, %xk
    tir.yield %n
  }
  %one = tir.constant 1.0 : f64
  %r = tir.scan backward along K init %one ins(%s, %x) {
  ^bb0(%acc, %sk, %xk):
    %m = tir.mul %acc, %xk
    %n = tir.sub %sk, %m
    tir.yield %n
  }
  %q = tir.scan forward along K init %z ins(%s, %r) {
  ^bb0(%acc, %sk, %rk):
    %m = tir.mul %sk, %rk
    %n = tir.add %acc, %m
    tir.yield %n
  }
  tir.return %r, %q : !k, !k
}
`

func TestScanChainInColumns(t *testing.T) {
	const l = 6
	x := []float64{1.5, -2, 0.25, 3, -0.5, 2}
	s := make([]float64, l)
	acc := 0.0
	for k := 0; k < l; k++ {
		acc += x[k]
		s[k] = acc
	}
	r := make([]float64, l)
	acc = 1
	for k := l - 1; k >= 0; k-- {
		acc = s[k] - acc*x[k]
		r[k] = acc
	}
	q := make([]float64, l)
	acc = 0
	for k := 0; k < l; k++ {
		acc += s[k] * r[k]
		q[k] = acc
	}
	args := []*interp.Tensor{tensorOf(t, f64, []interp.Dim{dim("K", 0, l)}, x)}
	results := runAllModes(t, scanChain, args, map[string]int64{"L": l})
	expectAll(t, results, r)
	for mode, rs := range results {
		for k := range q {
			if rs[1].F64[k] != q[k] {
				t.Errorf("%s: q[%d] = %v, want %v", mode, k, rs[1].F64[k], q[k])
			}
		}
	}
	affine := lowerToAffine(t, scanChain, "--convert-tir-to-affine")
	if got := strings.Count(affine, "memref.alloc"); got != 1 || !strings.Contains(affine, "memref.alloc(%L) : memref<?xf64>") {
		t.Errorf("want one column buffer for the first scan, got %d allocations:\n%s", got, affine)
	}
}

func lowerToAffine(t *testing.T, src string, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.tir")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return runTCOpt(t, append(args, path)...)
}

// At -O2 the scans of a nest with outer dimensions run for
// four neighbouring columns of the innermost outer dimension in one loop
// (convert-tir-to-affine{scan-lanes=4}), each lane with its own column
// buffers; the columns left over (fewer than four) run one per loop. The
// values are checked for every count of columns up to two full groups and
// a remainder, including none at all.
func TestInterleavedScanLanes(t *testing.T) {
	src := strings.Replace(tridiagMiddleK, "J[0:3]", "J[0:M]", 1)
	const n0, nk = 2, 5
	for _, n1 := range []int{0, 1, 3, 4, 6, 9} {
		checkTridiag(t, src, n0, nk, n1, map[string]int64{"N": n0, "M": int64(n1)})
	}
	// With one outer dimension, the loop over groups of lanes is the
	// outermost one and allocates the lanes' columns in its body: it stays
	// parallel.
	src2d := strings.Replace(tridiagMiddleK, "I[0:N], K[0:5], J[0:3]", "I[0:N], K[0:5]", 1)
	for _, n0 := range []int{0, 1, 3, 4, 6, 9} {
		checkTridiag(t, src2d, n0, nk, -1, map[string]int64{"N": int64(n0)})
	}
	affine2d := lowerToAffine(t, src2d, "--convert-tir-to-affine=scan-lanes=4")
	if got := strings.Count(affine2d, "memref.alloc"); got != 10 || strings.Count(affine2d, "{tir.parallel}") != 2 {
		t.Errorf("want 8 + 2 column buffers and both loops over I parallel, got %d allocations:\n%s", got, affine2d)
	}

	affine := lowerToAffine(t, src, "--convert-tir-to-affine=scan-lanes=4")
	// Four lanes of two column buffers each, a loop over groups of four
	// columns and one over the rest, with the four lanes' states in one
	// loop (two per lane forward, one per lane backward).
	if got := strings.Count(affine, "memref.alloc"); got != 8 {
		t.Errorf("want 8 column buffers, got %d:\n%s", got, affine)
	}
	for _, want := range []string{
		"affine_map<()[s0] -> (s0 floordiv 4)>()[%M]",
		"affine_map<()[s0] -> (4*(s0 floordiv 4))>()[%M] to %M",
		"-> (f64, f64, f64, f64, f64, f64, f64, f64)",
		"-> (f64, f64, f64, f64)",
	} {
		if !strings.Contains(affine, want) {
			t.Errorf("want %q in:\n%s", want, affine)
		}
	}
	if strings.Count(affine, "{tir.parallel}") != 1 {
		t.Errorf("want exactly the outermost loop parallel:\n%s", affine)
	}
}

// Three chained scans with a state of two values each keep six column
// buffers per lane: with scan-lanes=4, the group runs in two lanes
// (laneColumnBudget in lower/tiraffine/scan.go: twelve columns), as the
// tridiagonal solver's adjoint does at -O2. The values are checked against
// the same chain computed here, for counts of columns around two lanes.
const sixColumnScans = `!t = !tir.tensor<f64, I[0:N], J[0:M], K[0:5]>
!c = !tir.tensor<tuple<f64, f64>, I[0:N], J[0:M], K[0:5]>
tir.func @chain(%x: !t) -> !t {
  %z = tir.constant (0.0, 0.0) : tuple<f64, f64>
  %half = tir.constant 0.5 : f64
  %a = tir.scan forward along K init %z ins(%x) {
  ^bb0(%st, %xk):
    %p = tir.tuple_get %st[0]
    %q = tir.tuple_get %st[1]
    %p1 = tir.add %p, %xk
    %h = tir.mul %q, %half
    %q1 = tir.add %h, %p1
    %n = tir.make_tuple %p1, %q1
    tir.yield %n
  } : !c
  %b = tir.scan backward along K init %z ins(%a) {
  ^bb0(%st, %ak):
    %p = tir.tuple_get %st[0]
    %q = tir.tuple_get %st[1]
    %a0 = tir.tuple_get %ak[0]
    %a1 = tir.tuple_get %ak[1]
    %p1 = tir.sub %a1, %p
    %m = tir.mul %q, %a0
    %q1 = tir.add %m, %half
    %n = tir.make_tuple %p1, %q1
    tir.yield %n
  } : !c
  %c = tir.scan forward along K init %z ins(%b) {
  ^bb0(%st, %bk):
    %p = tir.tuple_get %st[0]
    %q = tir.tuple_get %st[1]
    %b0 = tir.tuple_get %bk[0]
    %b1 = tir.tuple_get %bk[1]
    %p1 = tir.add %p, %b1
    %m = tir.mul %b0, %half
    %q1 = tir.sub %m, %q
    %n = tir.make_tuple %p1, %q1
    tir.yield %n
  } : !c
  %zero = tir.constant 0.0 : f64
  %y = tir.scan backward along K init %zero ins(%c) {
  ^bb0(%acc, %ck):
    %c0 = tir.tuple_get %ck[0]
    %c1 = tir.tuple_get %ck[1]
    %m = tir.mul %c0, %c1
    %n = tir.add %acc, %m
    tir.yield %n
  } : !t
  tir.return %y : !t
}
`

func TestScanLanesFitColumnBudget(t *testing.T) {
	const n0, nk = 2, 5
	for _, n1 := range []int{0, 1, 2, 3, 5} {
		var x []float64
		for p := 0; p < n0*n1*nk; p++ {
			x = append(x, float64(p%7)/4-0.75)
		}
		var want []float64
		for col := 0; col < n0*n1; col++ {
			xs := x[col*nk : (col+1)*nk]
			var a0, a1, b0, b1, c0, c1 [nk]float64
			p, q := 0.0, 0.0
			for k := 0; k < nk; k++ {
				p += xs[k]
				q = q*0.5 + p
				a0[k], a1[k] = p, q
			}
			p, q = 0, 0
			for k := nk - 1; k >= 0; k-- {
				p, q = a1[k]-p, q*a0[k]+0.5
				b0[k], b1[k] = p, q
			}
			p, q = 0, 0
			for k := 0; k < nk; k++ {
				p, q = p+b1[k], b0[k]*0.5-q
				c0[k], c1[k] = p, q
			}
			var y [nk]float64
			acc := 0.0
			for k := nk - 1; k >= 0; k-- {
				acc += c0[k] * c1[k]
				y[k] = acc
			}
			want = append(want, y[:]...)
		}
		dims := []interp.Dim{dim("I", 0, n0), dim("J", 0, int64(n1)), dim("K", 0, nk)}
		args := []*interp.Tensor{tensorOf(t, f64, dims, x)}
		expectAll(t, runAllModes(t, sixColumnScans, args, map[string]int64{"N": n0, "M": int64(n1)}), want)
	}
	affine := lowerToAffine(t, sixColumnScans, "--convert-tir-to-affine=scan-lanes=4")
	if got := strings.Count(affine, "memref.alloc"); got != 12 || !strings.Contains(affine, "(s0 floordiv 2)>()[%M]") {
		t.Errorf("want two lanes of six column buffers, got %d allocations:\n%s", got, affine)
	}
}

// A scan that is not in a column buffer (read by an op other than a scan,
// and shifted along the lanes' dimension) runs in lanes too; the groups of
// lanes stay parallel, since they share no buffer.
const laneShiftedScan = `!t = !tir.tensor<f64, I[0:N], J[0:M], K[0:4]>
tir.func @sums(%x: !t) -> !tir.tensor<f64, I[0:N], J[0:M-1], K[0:4]> {
  %z = tir.constant 0.0 : f64
  %s = tir.scan forward along K init %z ins(%x) {
  ^bb0(%acc, %xk):
    %n = tir.add %acc, %xk
    tir.yield %n
  }
  %sh = tir.shift %s [J + 1]
  %y = tir.mul %sh, %x
  tir.return %y : !tir.tensor<f64, I[0:N], J[0:M-1], K[0:4]>
}
`

func TestInterleavedScanLanesShifted(t *testing.T) {
	const n0, nk = 2, 4
	for _, n1 := range []int{0, 1, 2, 5, 6, 10} {
		dims := []interp.Dim{dim("I", 0, n0), dim("J", 0, int64(n1)), dim("K", 0, nk)}
		var x []float64
		for p := 0; p < n0*n1*nk; p++ {
			x = append(x, float64(p%13)/4-1)
		}
		// y(i, j, k) = (sum of x(i, j+1, 0..k)) * x(i, j, k)
		var want []float64
		for i := 0; i < n0; i++ {
			for j := 0; j < n1-1; j++ {
				acc := 0.0
				for k := 0; k < nk; k++ {
					acc += x[(i*n1+j+1)*nk+k]
					want = append(want, acc*x[(i*n1+j)*nk+k])
				}
			}
		}
		args := []*interp.Tensor{tensorOf(t, f64, dims, x)}
		expectAll(t, runAllModes(t, laneShiftedScan, args, map[string]int64{"N": n0, "M": int64(n1)}), want)
	}
	affine := lowerToAffine(t, laneShiftedScan, "--convert-tir-to-affine=scan-lanes=4")
	if !strings.Contains(affine, "floordiv 4") || !strings.Contains(affine, "-> (f64, f64, f64, f64)") {
		t.Errorf("want the scan in lanes of four:\n%s", affine)
	}
	if got := strings.Count(affine, "{tir.parallel}"); got < 4 {
		t.Errorf("want the scan's nest parallel (I, groups of lanes, rest) and the result's, got %d:\n%s", got, affine)
	}
}

// With K stored outermost (K, I, J), -O2 sweeps each scan in rows
// (convert-tir-to-affine{scan-rows}): a loop over K with the contiguous J
// loop inside, each step reading its columns' state where the step before
// stored it, a column scan's results in a K x J slab. The values are
// checked against the Go solver for empty and odd sizes, in 3-D and 2-D.
func TestScanRows(t *testing.T) {
	src := strings.Replace(tridiagMiddleK, "I[0:N], K[0:5], J[0:3]", "K[0:L], I[0:N], J[0:M]", 1)
	src2d := strings.Replace(tridiagMiddleK, "I[0:N], K[0:5], J[0:3]", "K[0:L], J[0:M]", 1)
	for _, s := range [][3]int{{0, 2, 3}, {1, 2, 3}, {5, 2, 0}, {5, 3, 1}, {7, 2, 9}, {4, 1, 17}} {
		nk, n0, n1 := s[0], s[1], s[2]
		checkTridiagLayout(t, src, []interp.Dim{dim("K", 0, int64(nk)), dim("I", 0, int64(n0)), dim("J", 0, int64(n1))},
			n0, nk, n1, func(i, k, j int) int { return (k*n0+i)*n1 + j }, map[string]int64{"L": int64(nk), "N": int64(n0), "M": int64(n1)})
		checkTridiagLayout(t, src2d, []interp.Dim{dim("K", 0, int64(nk)), dim("J", 0, int64(n1))},
			1, nk, n1, func(_, k, j int) int { return k*n1 + j }, map[string]int64{"L": int64(nk), "M": int64(n1)})
	}
	// Two outer loops (I, H) around the rows: the slabs belong to the inner
	// one. I and H together index like one dimension of 2 * 3 points.
	src4d := strings.Replace(tridiagMiddleK, "I[0:N], K[0:5], J[0:3]", "K[0:L], I[0:2], H[0:3], J[0:M]", 1)
	checkTridiagLayout(t, src4d, []interp.Dim{dim("K", 0, 5), dim("I", 0, 2), dim("H", 0, 3), dim("J", 0, 9)},
		6, 5, 9, func(i, k, j int) int { return (k*6+i)*9 + j }, map[string]int64{"L": 5, "M": 9})
	affine := lowerToAffine(t, src, "--convert-tir-to-affine=scan-rows=true")
	for _, want := range []string{"memref.alloc(%L, %M) : memref<?x?xf64>", "affine.load %slab[%rk_0 - 1, %j]", "affine.load %result[-%rk_2 + symbol(%L), %i, %j]"} {
		if !strings.Contains(affine, want) {
			t.Errorf("want %q in:\n%s", want, affine)
		}
	}
	// Both slabs are allocated once per loop over I, not per iteration.
	llvm := lowerToAffine(t, src, "-O2") // down to LLVM IR
	if head := llvm[strings.Index(llvm, "define internal i32 @solve.body"):]; strings.Count(head[:strings.Index(head, "i.header:")], "@aligned_alloc(") != 2 {
		t.Errorf("want the two slabs allocated before the loop over I:\n%s", llvm)
	}
}

// checkTridiagLayout is checkTridiag for any layout: at(i, k, j) is the
// row-major index of a point.
func checkTridiagLayout(t *testing.T, src string, dims []interp.Dim, n0, nk, n1 int, at func(i, k, j int) int, syms map[string]int64) {
	t.Helper()
	size := n0 * nk * n1
	var a, b, c, d []float64
	for p := 0; p < size; p++ {
		a = append(a, 0.25+float64(p%7)/16)
		b = append(b, 4+float64(p%5)/8)
		c = append(c, 0.5-float64(p%3)/16)
		d = append(d, float64(p%11)-3.5)
	}
	want := make([]float64, size)
	for i := 0; i < n0; i++ {
		for j := 0; j < n1; j++ {
			cp, dp := make([]float64, nk), make([]float64, nk)
			cprev, dprev := 0.0, 0.0
			for k := 0; k < nk; k++ {
				p := at(i, k, j)
				den := b[p] - a[p]*cprev
				cprev = c[p] / den
				dprev = (d[p] - a[p]*dprev) / den
				cp[k], dp[k] = cprev, dprev
			}
			xk := 0.0
			for k := nk - 1; k >= 0; k-- {
				xk = dp[k] - cp[k]*xk
				want[at(i, k, j)] = xk
			}
		}
	}
	args := []*interp.Tensor{tensorOf(t, f64, dims, a), tensorOf(t, f64, dims, b), tensorOf(t, f64, dims, c), tensorOf(t, f64, dims, d)}
	expectAll(t, runAllModes(t, src, args, syms), want)
}
