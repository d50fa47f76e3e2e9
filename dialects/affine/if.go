package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// affine.if affine_set<(d0)[s0] : (d0 - 1 >= 0)>(%i)[%N] [-> T] { ... } [else { ... }]
// Generic: operands are the set operands, attribute `condition`, two
// regions (the else region empty when absent).

// If is affine.if.
var If = &ir.OpDef{
	Name:        "affine.if",
	Summary:     "run the then region if the integer set holds for the operands, else the else region",
	Syntax:      "[%r = ] affine.if affine_set<...>(%dims)[%syms] [-> T] { ... } [else { ... }]",
	NumOperands: -1, NumResults: -1, NumRegions: 2,
	Parse: parseIf,
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		set := op.Attr("condition").(ir.AffineSetAttr)
		p.Write(" ")
		p.Attr(set)
		printDimsAndSyms(p, set.Set.NumDims, op.Operands)
		if len(op.Results) == 1 {
			p.Write(" -> ")
			p.Type(op.Results[0].Type)
		} else if len(op.Results) > 1 {
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
		if rest := op.Attrs.Without("condition"); len(rest) > 0 {
			p.Write(" ")
			p.Attr(rest)
		}
	},
	NeedsGeneric: func(op *ir.Operation) bool { return ifShapeError(op) != nil },
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		arith.DropEmptyBlock(op.Regions[1])
		return nil, nil
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if err := ifShapeError(op); err != nil {
			return err
		}
		set := op.Attr("condition").(ir.AffineSetAttr).Set
		// The set's operands follow the rules of a map's.
		var exprs []sizeexpr.Expr
		for _, c := range set.Constraints {
			exprs = append(exprs, c.Expr)
		}
		m := ir.AffineMap{NumDims: set.NumDims, NumSyms: set.NumSyms, Results: exprs}
		if err := checkMapOperands(op, "condition", m, op.Operands); err != nil {
			return err
		}
		if len(op.Results) > 0 && len(op.Regions[1].Blocks) == 0 {
			return errf(op, "must have an else region when it defines values")
		}
		for _, r := range op.Regions {
			if len(r.Blocks) > 0 {
				if err := checkYieldOf(op, r); err != nil {
					return err
				}
			}
		}
		return nil
	},
}

func checkYieldOf(op *ir.Operation, r *ir.Region) error {
	t := r.Blocks[0].Terminator()
	if !t.Is(Yield) {
		return errf(op, "region must end with 'affine.yield'")
	}
	if got := arith.TypesOf(t.Operands); !ir.TypesEqual(got, arith.ResultTypes(op)) {
		return errf(op, "'affine.yield' yields (%s) but the op's results are (%s)", ir.JoinTypes(got), ir.JoinTypes(arith.ResultTypes(op)))
	}
	return nil
}

func ifShapeError(op *ir.Operation) error {
	set, ok := op.Attr("condition").(ir.AffineSetAttr)
	if !ok {
		return errf(op, "needs an integer set attribute 'condition'")
	}
	if set.Set.NumDims+set.Set.NumSyms != len(op.Operands) {
		return errf(op, "the set takes %d operands but the op has %d", set.Set.NumDims+set.Set.NumSyms, len(op.Operands))
	}
	for i, r := range op.Regions {
		if len(r.Blocks) > 1 || len(r.Blocks) == 1 && len(r.Blocks[0].Args) > 0 {
			return errf(op, "region #%d must be one block without arguments", i)
		}
		if len(r.Blocks) == 1 && len(op.Results) == 0 && !arith.IsEmptyTerminator(r.Blocks[0]) {
			return errf(op, "region #%d must end with affine.yield", i)
		}
	}
	if len(op.Regions[0].Blocks) == 0 {
		return errf(op, "the then region must not be empty")
	}
	return nil
}

func parseIf(p *ir.OpParser, st *ir.OpState) error {
	it := p.Peek()
	if it == nil || it.Kind != ir.ItemAttr {
		return p.Errorf("expected an integer set (affine_set<...>)")
	}
	sa, ok := it.Attr.(ir.AffineSetAttr)
	if !ok {
		return p.Errorf("expected an integer set, found %s", it.Attr)
	}
	p.Next()
	ops, err := parseDimsAndSyms(p, sa.Set.NumDims, sa.Set.NumSyms, it.Loc)
	if err != nil {
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
	}
	if len(types) == 0 {
		arith.EnsureTerminator(then, newYield(st.Loc))
		arith.EnsureTerminator(els, newYield(st.Loc))
	}
	// Other attributes follow the last region, as MLIR prints them.
	extra, err := p.OptionalTrailingAttrDict()
	if err != nil {
		return err
	}
	st.Operands, st.ResultTypes = ops, types
	st.Regions = []*ir.Region{then, els}
	st.Attrs = append(extra, ir.NamedAttr{Name: "condition", Value: sa})
	return p.ExpectEnd()
}

// NewIf builds `affine.if set(operands) -> (resultTypes)` with an empty then
// block and, when withElse, an empty else block; no terminators (the caller
// appends affine.yield to each block).
func NewIf(loc ir.Location, set ir.AffineSet, operands []*ir.Value, resultTypes []ir.Type, withElse bool) *ir.Operation {
	op := ir.NewOpOf(If, loc, operands, resultTypes, ir.DictAttr{}.With("condition", ir.AffineSetAttr{Set: set}))
	op.AddRegion().AddBlock()
	els := op.AddRegion()
	if withElse {
		els.AddBlock()
	}
	return op
}

// ThenBlock is the then block of an affine.if.
func ThenBlock(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }

// ElseBlock is the else block of an affine.if, or nil.
func ElseBlock(op *ir.Operation) *ir.Block { return op.Regions[1].Entry() }
