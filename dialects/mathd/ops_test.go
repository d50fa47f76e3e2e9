package mathd_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/mathd"
)

// TestOpValues: every op registered under "math." has its value in
// mathd.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range mathd.Ops() {
		switch {
		case ir.Dialect(d.Name) != "math":
			t.Errorf("%s in mathd.Ops() is not of the math dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in mathd.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in mathd.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "math" && !listed[d] {
			t.Errorf("%s is registered but has no value in mathd.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, mathd.Ops(), map[*ir.OpDef]string{})
}
