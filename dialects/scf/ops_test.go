package scf_test

import (
	"testing"

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
