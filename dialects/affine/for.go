package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

// affine.for: operands are the lower bound map operands, the upper bound map
// operands, then the iter_args inits; attributes lower_bound, upper_bound
// (affine maps) and step (an index integer); one region whose entry block
// has the induction variable then the iter args, ending in affine.yield.

// For is affine.for.
var For = &ir.OpDef{
	Name:    "affine.for",
	Summary: "a loop with affine bounds (max of lower, min of upper bound results)",
	Syntax: "[%r = ] affine.for %i = LB to UB [step N] [iter_args(%acc = %init) -> (T)] { ... }\n" +
		"  LB, UB: 0 | %N | [max|min] affine_map<...>(%dims)[%syms]",
	NumOperands: -1, NumResults: -1, NumRegions: 1,
	Parse:        parseFor,
	Print:        printFor,
	NeedsGeneric: func(op *ir.Operation) bool { return forShapeError(op) != nil },
	Verify:       verifyFor,
}

func newYield(loc ir.Location) func() *ir.Operation {
	return func() *ir.Operation { return NewYield(loc) }
}

func parseFor(p *ir.OpParser, st *ir.OpState) error {
	iv, ivLoc, err := p.ValueName()
	if err != nil {
		return err
	}
	if err := p.ExpectPunct("="); err != nil {
		return err
	}
	lb, lbOps, err := parseBound(p, "max")
	if err != nil {
		return err
	}
	if err := p.ExpectWord("to"); err != nil {
		return err
	}
	ub, ubOps, err := parseBound(p, "min")
	if err != nil {
		return err
	}
	step := int64(1)
	if p.Word("step") {
		loc := p.CurLoc()
		if step, err = p.Integer(); err != nil {
			return err
		}
		if step <= 0 {
			return ir.Errorf(loc, "expected step to be representable as a positive signed integer")
		}
	}
	args := []ir.RegionArg{{Name: iv, Type: ir.Index, Loc: ivLoc}}
	inits, types, err := scf.ParseIterArgs(p, &args)
	if err != nil {
		return err
	}
	body, err := p.Region(args, nil)
	if err != nil {
		return err
	}
	if len(inits) == 0 {
		arith.EnsureTerminator(body, newYield(st.Loc))
	}
	// Other attributes follow the body, as MLIR prints them
	// (`affine.for ... { } {tir.parallel}`).
	extra, err := p.OptionalTrailingAttrDict()
	if err != nil {
		return err
	}
	for _, a := range extra {
		if a.Name == "lower_bound" || a.Name == "upper_bound" || a.Name == "step" {
			return p.Errorf("attribute '%s' is written in the loop header", a.Name)
		}
	}
	st.Operands = append(append(lbOps, ubOps...), inits...)
	st.ResultTypes = types
	st.Regions = []*ir.Region{body}
	st.Attrs = append(st.Attrs, extra...).With("lower_bound", ir.AffineMapAttr{Map: lb}).
		With("upper_bound", ir.AffineMapAttr{Map: ub}).
		With("step", ir.IntegerAttr{Value: step, Type: ir.Index})
	return p.ExpectEnd()
}

// forParts splits an affine.for's operands.
func forParts(op *ir.Operation) (lb, ub ir.AffineMap, lbOps, ubOps, inits []*ir.Value) {
	lb = op.Attr("lower_bound").(ir.AffineMapAttr).Map
	ub = op.Attr("upper_bound").(ir.AffineMapAttr).Map
	nl, nu := lb.NumDims+lb.NumSyms, ub.NumDims+ub.NumSyms
	return lb, ub, op.Operands[:nl], op.Operands[nl : nl+nu], op.Operands[nl+nu:]
}

// forShapeError checks what printing and the accessors rely on.
func forShapeError(op *ir.Operation) error {
	lb, ok1 := op.Attr("lower_bound").(ir.AffineMapAttr)
	ub, ok2 := op.Attr("upper_bound").(ir.AffineMapAttr)
	st, ok3 := op.Attr("step").(ir.IntegerAttr)
	if !ok1 || !ok2 || !ok3 || !ir.TypeEqual(st.Type, ir.Index) {
		return errf(op, "needs lower_bound and upper_bound affine maps and an index step")
	}
	nb := lb.Map.NumDims + lb.Map.NumSyms + ub.Map.NumDims + ub.Map.NumSyms
	if len(op.Operands) < nb {
		return errf(op, "the bound maps take %d operands but the op has %d", nb, len(op.Operands))
	}
	if len(op.Operands)-nb != len(op.Results) {
		return errf(op, "has %d iter_args inits but %d results", len(op.Operands)-nb, len(op.Results))
	}
	r := op.Regions[0]
	if len(r.Blocks) != 1 {
		return errf(op, "body must be one block")
	}
	want := append([]ir.Type{ir.Index}, arith.ResultTypes(op)...)
	if got := arith.TypesOf(r.Blocks[0].Args); !ir.TypesEqual(got, want) {
		return errf(op, "body arguments (%s) should be (%s): the induction variable then the iter_args", ir.JoinTypes(got), ir.JoinTypes(want))
	}
	if len(op.Results) == 0 && !arith.IsEmptyTerminator(r.Blocks[0]) {
		return errf(op, "body must end with affine.yield")
	}
	return nil
}

func printFor(p ir.OpPrinter, op *ir.Operation) {
	lb, ub, lbOps, ubOps, inits := forParts(op)
	body := op.Regions[0].Blocks[0]
	p.Write(" ")
	p.ArgName(body.Args[0])
	p.Write(" = ")
	printBound(p, lb, lbOps, "max")
	p.Write(" to ")
	printBound(p, ub, ubOps, "min")
	if s := op.Attr("step").(ir.IntegerAttr).Value; s != 1 {
		p.Write(" step " + itoa(s))
	}
	if len(inits) > 0 {
		p.Write(" iter_args(")
		for i, v := range inits {
			if i > 0 {
				p.Write(", ")
			}
			p.ArgName(body.Args[i+1])
			p.Write(" = ")
			p.Value(v)
		}
		p.Write(") -> (")
		p.Types(arith.ResultTypes(op))
		p.Write(")")
	}
	p.Write(" ")
	ir.PrintRegion(p, op.Regions[0], false, len(op.Results) > 0)
	if extra := op.Attrs.Without("lower_bound").Without("upper_bound").Without("step"); len(extra) > 0 {
		p.Write(" ")
		p.Attr(extra)
	}
}

func verifyFor(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if err := forShapeError(op); err != nil {
		return err
	}
	lb, ub, lbOps, ubOps, inits := forParts(op)
	if op.Attr("step").(ir.IntegerAttr).Value <= 0 {
		return errf(op, "expected step to be representable as a positive signed integer")
	}
	// Unrolling and tiling multiply the step: keep it in the range of
	// index values, as the bounds are.
	if s := op.Attr("step").(ir.IntegerAttr).Value; s >= sizeexpr.IndexLimit {
		return errf(op, "step %d is outside the range of index values (magnitude below 2^60)", s)
	}
	if len(lb.Results) == 0 || len(ub.Results) == 0 {
		return errf(op, "bound maps need at least one result")
	}
	if err := checkMapOperands(op, "lower bound", lb, lbOps); err != nil {
		return err
	}
	if err := checkMapOperands(op, "upper bound", ub, ubOps); err != nil {
		return err
	}
	for i, v := range inits {
		if !ir.TypeEqual(v.Type, op.Results[i].Type) {
			return errf(op, "init #%d has type %s but result #%d has type %s", i, v.Type, i, op.Results[i].Type)
		}
	}
	return scf.CheckYield(op, op.Regions[0], Yield, arith.ResultTypes(op))
}

// Yield is affine.yield.
var Yield = &ir.OpDef{
	Name:        "affine.yield",
	Summary:     "end an affine.for, affine.parallel or affine.if region, yielding its values",
	Syntax:      "affine.yield [%a : T]",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format:       arith.Format("values-types($operands)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		switch par := op.ParentOp(); {
		case par == nil:
			return errf(op, "must be inside an affine.for, affine.parallel or affine.if")
		case par.Is(yieldParents...):
			return nil // the parent checks the types
		}
		return errf(op, "expects parent op 'affine.for', 'affine.parallel' or 'affine.if', not '%s'", op.ParentOp().Name)
	},
}
