package affine_test

import (
	"testing"

	"tir/dialects/affine"
	"tir/dialects/internal/dialecttest"
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

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, affine.Ops(), map[*ir.OpDef]string{
		affine.For:         "bounds are constants, values or `max`/`min` maps applied to operands; the induction variable and iter_args name the body's block arguments",
		affine.Parallel:    "bounds are affine expressions read into maps; the induction variables name the body's block arguments; optional reductions",
		affine.If:          "an integer set applied to operands, then and else regions with implicit yields",
		affine.Load:        "subscripts are affine expressions of the operands (`%i + 1, symbol(%N)`) from which the map and its operands follow; their count is checked against the memref's rank where they are written",
		affine.Store:       "as affine.load",
		affine.VectorLoad:  "as affine.load, with the vector type after the memref's",
		affine.VectorStore: "as affine.load, with the vector type after the memref's",
	})
}
