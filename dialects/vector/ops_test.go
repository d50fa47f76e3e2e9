package vector_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/vector"
)

// TestOpValues: every op registered under "vector." has its value in
// vector.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range vector.Ops() {
		switch {
		case ir.Dialect(d.Name) != "vector":
			t.Errorf("%s in vector.Ops() is not of the vector dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in vector.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in vector.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "vector" && !listed[d] {
			t.Errorf("%s is registered but has no value in vector.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, vector.Ops(), map[*ir.OpDef]string{
		vector.Reduction: "one or two operands (`%v [, %acc]`) with their own count error, checked against the vector and result types only once both are read",
	})
}
