package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// DelinearizeIndex is MLIR 16's `%r:2 = affine.delinearize_index %i into
// (%b0, %b1) : index, index`: the multi-index of a linear index in a basis.
var DelinearizeIndex = &ir.OpDef{
	Name:        "affine.delinearize_index",
	Summary:     "the multi-index of a linear index in a basis",
	Syntax:      "%r:2 = affine.delinearize_index %i into (%b0, %b1) : index, index",
	Traits:      ir.TraitPure,
	NumOperands: -1, NumResults: -1, NumRegions: 0,
	Format:       arith.Format("$linear_index check($linear_index:index) into index-group($basis) : types(res)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 || len(op.Operands) == 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if len(op.Operands) == 0 || len(op.Results) != len(op.Operands)-1 {
			return errf(op, "should return an index for each basis element")
		}
		for _, v := range append(append([]*ir.Value(nil), op.Operands...), op.Results...) {
			if !ir.TypeEqual(v.Type, ir.Index) {
				return errf(op, "operands and results must be index, got %s", v.Type)
			}
		}
		return nil
	},
}
