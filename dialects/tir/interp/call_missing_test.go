package interp

import (
	"strings"
	"testing"

	"tir/dialects/ir"
)

// A call whose callee has gone from the module (a pass removed it) names
// the callee once, with one '@'.
func TestCallToMissingFunction(t *testing.T) {
	src := `tir.func @g(%x: !tir.tensor<f64, I[0:4]>) -> !tir.tensor<f64, I[0:4]> {
  tir.return %x : !tir.tensor<f64, I[0:4]>
}
tir.func @f(%x: !tir.tensor<f64, I[0:4]>) -> !tir.tensor<f64, I[0:4]> {
  %y = tir.call @g(%x)
  tir.return %y : !tir.tensor<f64, I[0:4]>
}`
	f := parseFunc(t, src, "f")
	f.ParentBlock().Ops[0].Erase()
	x, err := NewTensor(ir.F64, []Dim{{Name: "I", Lo: 0, Hi: 4}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(f, []*Tensor{x}, nil)
	if err == nil || !strings.Contains(err.Error(), "no tir.func @g in the module") || strings.Contains(err.Error(), "@@") {
		t.Fatalf("got %v, want an error naming @g once", err)
	}
}
