package scf

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// If is scf.if.
var If = &ir.OpDef{
	Name:        "scf.if",
	Summary:     "run the then region if the condition holds, else the else region",
	Syntax:      "[%r = ] scf.if %c [-> (T)] { ... } [else { ... }] [{attrs}]",
	NumOperands: 1, NumResults: -1, NumRegions: 2,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		c, loc, err := arith.Operand(p)
		if err != nil {
			return err
		}
		if err := arith.CheckType(c, loc, ir.I1); err != nil {
			return err
		}
		var types []ir.Type
		if p.Punct("->") {
			if types, err = p.ResultTypeList(); err != nil {
				return err
			}
		}
		then, err := p.Region([]ir.RegionArg{}, nil)
		if err != nil {
			return err
		}
		els := &ir.Region{}
		if p.Word("else") {
			if els, err = p.Region([]ir.RegionArg{}, nil); err != nil {
				return err
			}
		} else if len(types) > 0 {
			return p.Errorf("an scf.if with results needs an else region")
		}
		if st.Attrs, err = p.OptionalTrailingAttrDict(); err != nil {
			return err
		}
		if len(types) == 0 {
			arith.EnsureTerminator(then, newYield(st.Loc))
			arith.EnsureTerminator(els, newYield(st.Loc))
		}
		st.Operands, st.ResultTypes = []*ir.Value{c}, types
		st.Regions = []*ir.Region{then, els}
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" ")
		p.Value(op.Operands[0])
		if len(op.Results) > 0 {
			p.Write(" -> (")
			p.Types(arith.ResultTypes(op))
			p.Write(")")
		}
		p.Write(" ")
		ir.PrintRegion(p, op.Regions[0], false, len(op.Results) > 0)
		if len(op.Regions[1].Blocks) > 0 {
			p.Write(" else ")
			ir.PrintRegion(p, op.Regions[1], false, len(op.Results) > 0)
		}
		// MLIR prints other attributes after the regions.
		if len(op.Attrs) > 0 {
			p.Write(" ")
			p.Attr(op.Attrs)
		}
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		for _, r := range op.Regions {
			if len(r.Blocks) > 1 || len(r.Blocks) == 1 && (len(r.Blocks[0].Args) > 0 ||
				len(op.Results) == 0 && !arith.IsEmptyTerminator(r.Blocks[0])) {
				return true
			}
		}
		return len(op.Regions[0].Blocks) == 0
	},
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		arith.DropEmptyBlock(op.Regions[1])
		return nil, nil
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if !ir.TypeEqual(op.Operands[0].Type, ir.I1) {
			return arith.Errf(op, "condition must be i1, got %s", op.Operands[0].Type)
		}
		for i, r := range op.Regions {
			if len(r.Blocks) > 1 || len(r.Blocks) == 1 && len(r.Blocks[0].Args) > 0 {
				return arith.Errf(op, "region #%d must be one block without arguments", i)
			}
		}
		if len(op.Regions[0].Blocks) == 0 {
			return arith.Errf(op, "the then region must not be empty")
		}
		if len(op.Results) > 0 && len(op.Regions[1].Blocks) == 0 {
			return arith.Errf(op, "must have an else region when it defines values")
		}
		for _, r := range op.Regions {
			if err := CheckYield(op, r, Yield, arith.ResultTypes(op)); err != nil {
				return err
			}
		}
		return nil
	},
}

// NewYield builds `scf.yield %vals...`.
func NewYield(loc ir.Location, vals ...*ir.Value) *ir.Operation {
	return ir.NewOpOf(Yield, loc, vals, nil, nil)
}

// NewFor builds `scf.for %iv = %lb to %ub step %step iter_args(...)` with a
// body block holding the induction variable then one argument per init, and
// no terminator: the caller appends the body and an scf.yield (of the next
// iter values; an empty one without inits).
func NewFor(loc ir.Location, lb, ub, step *ir.Value, inits []*ir.Value) *ir.Operation {
	types := arith.TypesOf(inits)
	op := ir.NewOpOf(For, loc, append([]*ir.Value{lb, ub, step}, inits...), types, nil)
	op.AddRegion().AddBlock(append([]ir.Type{ir.Index}, types...)...)
	return op
}

// ForBody is the body block of an scf.for.
func ForBody(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }

// InductionVar is the induction variable of an scf.for.
func InductionVar(op *ir.Operation) *ir.Value { return ForBody(op).Args[0] }

// NewIf builds `scf.if %cond -> (resultTypes)` with an empty then block,
// and an empty else block when withElse (required with results). No
// terminators: the caller appends scf.yield to each block.
func NewIf(loc ir.Location, cond *ir.Value, resultTypes []ir.Type, withElse bool) *ir.Operation {
	op := ir.NewOpOf(If, loc, []*ir.Value{cond}, resultTypes, nil)
	op.AddRegion().AddBlock()
	els := op.AddRegion()
	if withElse {
		els.AddBlock()
	}
	return op
}

// ThenBlock and ElseBlock are the blocks of an scf.if (ElseBlock is nil
// without an else region).
func ThenBlock(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }

// ElseBlock is the else block of an scf.if, or nil.
func ElseBlock(op *ir.Operation) *ir.Block { return op.Regions[1].Entry() }
