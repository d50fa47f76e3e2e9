package arith_test

import (
	"testing"

	"tir/dialects/arith"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
)

// TestOpValues: every op registered under "arith." has its value in
// arith.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range arith.Ops() {
		switch {
		case ir.Dialect(d.Name) != "arith":
			t.Errorf("%s in arith.Ops() is not of the arith dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in arith.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in arith.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "arith" && !listed[d] {
			t.Errorf("%s is registered but has no value in arith.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, arith.Ops(), map[*ir.OpDef]string{
		arith.Constant: "the value's literal decides its attribute and the result type (`1.5 : f32`, `true`, `dense<...> : vector<8xf32>`), as MLIR's custom parser reads it",
	})
}
