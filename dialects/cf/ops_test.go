package cf_test

import (
	"testing"

	"tir/dialects/cf"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
)

// TestOpValues: every op registered under "cf." has its value in
// cf.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range cf.Ops() {
		switch {
		case ir.Dialect(d.Name) != "cf":
			t.Errorf("%s in cf.Ops() is not of the cf dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in cf.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in cf.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "cf" && !listed[d] {
			t.Errorf("%s is registered but has no value in cf.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, cf.Ops(), map[*ir.OpDef]string{
		cf.Br:     "a successor with its operands and their types, `^bb1(%a : i32)`",
		cf.CondBr: "two successors, each with its operands and their types",
		cf.Switch: "a case table of integers and successors with a default",
	})
}
