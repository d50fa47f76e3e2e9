package affine_test

import (
	"testing"

	"tir/dialects/affine"
	"tir/dialects/ir"
)

// TestOpValues: every op registered under "affine." has its value in
// affine.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range affine.Ops() {
		switch {
		case ir.Dialect(d.Name) != "affine":
			t.Errorf("%s in affine.Ops() is not of the affine dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in affine.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in affine.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "affine" && !listed[d] {
			t.Errorf("%s is registered but has no value in affine.Ops(): give it one", d.Name)
		}
	}
}
