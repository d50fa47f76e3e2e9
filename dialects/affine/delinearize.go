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
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		i, loc, err := arith.Operand(p)
		if err != nil {
			return err
		}
		if err := arith.CheckType(i, loc, ir.Index); err != nil {
			return err
		}
		if err := p.ExpectWord("into"); err != nil {
			return err
		}
		g, err := p.Group()
		if err != nil {
			return err
		}
		basis, locs, err := arith.Operands(g, -1)
		if err != nil {
			return err
		}
		if err := g.ExpectEnd(); err != nil {
			return err
		}
		for k, b := range basis {
			if err := arith.CheckType(b, locs[k], ir.Index); err != nil {
				return err
			}
		}
		if err := p.ExpectPunct(":"); err != nil {
			return err
		}
		ts, err := p.TypeList()
		if err != nil {
			return err
		}
		st.Operands, st.ResultTypes = append([]*ir.Value{i}, basis...), ts
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" ")
		p.Value(op.Operands[0])
		p.Write(" into (")
		p.Values(op.Operands[1:])
		p.Write(") : ")
		p.Types(arith.ResultTypes(op))
	},
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
