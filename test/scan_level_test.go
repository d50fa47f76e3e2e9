package test

import (
	"math"
	"path/filepath"
	"testing"
)

// TestEndToEndLevelScanDirect checks the level-by-level scans of
// testdata/e2e/scan_level.tir against their recurrences computed here,
// not through the interpreter: @level's first result (a step that reads
// its state at J = 0, its input a pointwise scan) and its second (a
// backward step that sums its state over J and reads its input at J = 4).
func TestEndToEndLevelScanDirect(t *testing.T) {
	needToolchain(t)
	fn, prog := compileExample(t, filepath.Join("testdata", "e2e", "scan_level.tir"))
	const nc, nk, nj = 3, 6, 5
	syms := map[string]int64{"N": nc}
	args := randomArgs(t, fn, syms, 5)
	got, _, err := prog.Run(args, syms, 1)
	if err != nil {
		t.Fatal(err)
	}
	a, s0 := args[0].F64, args[1].F64
	at := func(c, k, j int) float64 { return a[(c*nk+k)*nj+j] }
	idx := func(c, k, j int) int { return (c*nk+k)*nj + j }
	f := make([]float64, nc*nk*nj)
	b := make([]float64, nc*nk*nj)
	for c := 0; c < nc; c++ {
		// %p0 and %f, forward.
		p, st := make([]float64, nj), make([]float64, nj)
		copy(st, s0[c*nj:(c+1)*nj])
		for k := 0; k < nk; k++ {
			next := make([]float64, nj)
			for j := 0; j < nj; j++ {
				p[j] = p[j]*at(c, k, j) + at(c, k, j)
				next[j] = math.Sin(st[j]*st[0]) + p[j]
				f[idx(c, k, j)] = next[j]
			}
			st = next
		}
		// %b, backward from 0.
		st = make([]float64, nj)
		for k := nk - 1; k >= 0; k-- {
			sum := 0.0
			for _, x := range st {
				sum += x
			}
			next := make([]float64, nj)
			for j := 0; j < nj; j++ {
				next[j] = math.Cos(sum*at(c, k, nj-1)) + at(c, k, j)
				b[idx(c, k, j)] = next[j]
			}
			st = next
		}
	}
	for r, want := range [][]float64{f, b} {
		out := got[r].F64
		if len(out) != len(want) {
			t.Fatalf("result #%d: %d elements, want %d", r, len(out), len(want))
		}
		for i, w := range want {
			if d := math.Abs(out[i] - w); d > 1e-12*math.Max(1, math.Abs(w)) {
				t.Fatalf("result #%d element %d: got %v, want %v", r, i, out[i], w)
			}
		}
	}
}
