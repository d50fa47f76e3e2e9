package affinepasses

import (
	"fmt"
	"strings"
	"testing"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/parser"
)

// TestDistance checks the dependence test on the store and the load of a
// 2-D nest: which pairs it proves independent and which distances it
// finds along (%i, %j), from the store's instance to the load's.
func TestDistance(t *testing.T) {
	cases := []struct {
		store, load string
		want        string // "indep" or the distances, "?" for unknown
	}{
		{"%A[%i, %j]", "%A[%i, %j]", "0 0"},
		{"%A[%i, %j]", "%A[%i - 1, %j + 2]", "1 -2"},          // reads what (i-1, j+2) wrote
		{"%A[%i, %j]", "%B[%i, %j]", "indep"},                 // distinct arguments
		{"%A[%i, 0]", "%A[%i, 1]", "indep"},                   // ZIV
		{"%A[2 * %i, %j]", "%A[2 * %i + 1, %j]", "indep"},     // GCD
		{"%A[%i, %j]", "%A[%j, %i]", "? ?"},                   // transposed: unknown
		{"%A[%i, 0]", "%A[%i, 0]", "0 ?"},                     // every %j
		{"%A[%i + %j, 0]", "%A[%i + %j, 0]", "? ?"},           // coupled
		{"%A[%i, %j]", "%A[%i + 1, %j + symbol(%n)]", "-1 ?"}, // symbolic offset
		{"%A[%i, %j]", "%A[%i, %j + 1]", "0 -1"},
		{"%A[%i, %j]", "%A[%i + 1, %j + 3]", "-1 -3"},
		{"%A[%i, %j floordiv 2]", "%A[%i, %j floordiv 2]", "0 ?"}, // not linear: no information
	}
	for _, c := range cases {
		src := fmt.Sprintf(`func.func @f(%%A: memref<64x64xf32>, %%B: memref<64x64xf32>, %%n: index) {
  affine.for %%i = 0 to 32 {
    affine.for %%j = 0 to 32 {
      %%c = arith.constant 1.0 : f32
      affine.store %%c, %s : memref<64x64xf32>
      %%v = affine.load %s : memref<64x64xf32>
    }
  }
  func.return
}
`, c.store, c.load)
		m, diags := parser.Parse("d.mlir", src)
		if len(diags) > 0 {
			t.Fatalf("%v\n%s", diags, src)
		}
		root := m.Lookup("f")
		var outer, inner *ir.Operation
		root.Walk(func(o *ir.Operation) bool {
			if o.Name == "affine.for" {
				if outer == nil {
					outer = o
				} else {
					inner = o
				}
			}
			return true
		})
		x := newValueExprs()
		accs, _ := effects(x, outer)
		side := depSide{ivs: []*ir.Value{affine.InductionVar(outer), affine.InductionVar(inner)}, scope: outer}
		indep, d := distance(x, accs[0], accs[1], side, side)
		got := "indep"
		if !indep {
			var parts []string
			for _, c := range d {
				if c.known {
					parts = append(parts, fmt.Sprint(c.d))
				} else {
					parts = append(parts, "?")
				}
			}
			got = strings.Join(parts, " ")
		}
		if got != c.want {
			t.Errorf("store %s, load %s: got %q, want %q", c.store, c.load, got, c.want)
		}
	}
}
