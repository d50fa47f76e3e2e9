package memref_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/memref"
)

// TestOpValues: every op registered under "memref." has its value in
// memref.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range memref.Ops() {
		switch {
		case ir.Dialect(d.Name) != "memref":
			t.Errorf("%s in memref.Ops() is not of the memref dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in memref.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in memref.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "memref" && !listed[d] {
			t.Errorf("%s is registered but has no value in memref.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, memref.Ops(), map[*ir.OpDef]string{
		memref.Global: "an optional visibility string, `constant`, and `= dense<...>` or `uninitialized` whose type is the one written before it",
	})
}
