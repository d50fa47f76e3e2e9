package test

import (
	"fmt"
	"strings"
	"testing"

	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// stencilChain is a stencil applied `levels` times in a row:
// u(k+1) = (u(k)(I+1) + u(k)) * 0.5, all plain arithmetic. Fused
// completely, level k needs the level below at k+1 points, so one output
// point would recompute O(levels²) ops (and the loop body would grow as
// fast); tir-temporaries materializes a level whenever fusing it costs more
// than max-fused evaluations per point (passes/tirpasses/footprint.go).
func stencilChain(levels int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tir.func @chain(%%u0: !tir.tensor<f64, I[0:N]>) {\n  %%half = tir.constant 0.5 : f64\n")
	for k := 0; k < levels; k++ {
		fmt.Fprintf(&b, "  %%s%d = tir.shift %%u%d [I + 1]\n  %%a%d = tir.add %%s%d, %%u%d\n  %%u%d = tir.mul %%a%d, %%half\n", k, k, k, k, k, k+1, k)
	}
	fmt.Fprintf(&b, "  tir.return %%u%d\n}\n", levels)
	return b.String()
}

// TestStencilChainComputed: a 40-level chain gives, in every mode, the
// binomial smoothing computed here: u40(i) = sum_j C(40, j) u0(i+j) / 2^40.
func TestStencilChainComputed(t *testing.T) {
	const levels, n = 40, 50
	vals := make([]float64, n)
	for i := range vals {
		vals[i] = float64(i*i%7) - 3
	}
	want := make([]float64, n-levels)
	for i := range want {
		c, sum := 1.0, 0.0 // c = C(levels, j)
		for j := 0; j <= levels; j++ {
			sum += c * vals[i+j]
			c = c * float64(levels-j) / float64(j+1)
		}
		want[i] = sum / (1 << levels)
	}
	args := tensorOf(t, f64, []interp.Dim{dim("I", 0, n)}, vals)
	results := runAllModes(t, stencilChain(levels), []*interp.Tensor{args}, map[string]int64{"N": n})
	for mode, rs := range results {
		got := rs[0]
		if got.Len() != len(want) {
			t.Fatalf("%s: %d elements, want %d", mode, got.Len(), len(want))
		}
		for i, w := range want {
			// The sums are exact in f64 up to rounding of the halvings,
			// which are exact; only the additions round.
			if d := got.F64[i] - w; d > 1e-12 || d < -1e-12 {
				t.Errorf("%s: element %d = %v, want %v", mode, i, got.F64[i], w)
			}
		}
	}
}

// TestStencilChainLinearCode: the compiled code of a stencil chain grows
// linearly with the chain (it grew quadratically before: 1,000 ops made a
// 170,000-op loop body and took 9 s to compile).
func TestStencilChainLinearCode(t *testing.T) {
	size := func(levels int) int {
		llvm, err := native.Compile("chain.tir", stencilChain(levels), 2, "x86_64")
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(llvm, "\n")
	}
	small, large := size(100), size(400)
	t.Logf("LLVM IR lines: %d for 100 levels, %d for 400", small, large)
	if large > 5*small {
		t.Errorf("4 times the levels give %.1f times the code (%d lines, %d for 100 levels): not linear", float64(large)/float64(small), large, small)
	}
}
