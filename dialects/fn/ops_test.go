package fn_test

import (
	"testing"

	"tir/dialects/fn"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
)

// TestOpValues: every op registered under "func." has its value in
// fn.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range fn.Ops() {
		switch {
		case ir.Dialect(d.Name) != "func":
			t.Errorf("%s in fn.Ops() is not of the func dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in fn.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in fn.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "func" && !listed[d] {
			t.Errorf("%s is registered but has no value in fn.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, fn.Ops(), map[*ir.OpDef]string{
		fn.Func: "a signature that names the entry block's arguments (or only types for a declaration), with optional visibility and result attributes",
		fn.Call: "the function type `(T1, T2) -> R` is checked argument by argument where each is used, with its own count error, against a zero-or-more argument list",
	})
}
