package scf_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/scf"
)

// TestOpValues: every op registered under "scf." has its value in
// scf.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range scf.Ops() {
		switch {
		case ir.Dialect(d.Name) != "scf":
			t.Errorf("%s in scf.Ops() is not of the scf dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in scf.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in scf.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "scf" && !listed[d] {
			t.Errorf("%s is registered but has no value in scf.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, scf.Ops(), map[*ir.OpDef]string{
		scf.For:      "the induction variable and iter_args are the body's block arguments, named by the syntax; the yield is implicit when it has no values",
		scf.If:       "optional `-> (T)`, then and else regions with implicit yields, the else left out when empty",
		scf.While:    "`(%a = %init) : (T) -> (R)` names the before region's arguments; two regions joined by `do`",
		scf.Parallel: "`(%i, ...) = (...) to (...) step (...)` names the body's block arguments; optional init values",
	})
}
