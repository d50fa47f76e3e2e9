// Package scf is the part of MLIR's scf dialect the affine stage uses for
// loops and branches that are not affine: scf.for (operands lb, ub, step,
// then the iter_args inits; one region whose entry block has the induction
// variable then the iter args), scf.if (operand cond; then and else
// regions, the else region empty when absent) and scf.yield. Syntax and
// representation are MLIR 16's; custom forms leave out yields without
// operands.
package scf

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

func newYield(loc ir.Location) func() *ir.Operation {
	return func() *ir.Operation { return NewYield(loc) }
}

// For is scf.for.
var For = &ir.OpDef{
	Name:        "scf.for",
	Summary:     "a counted loop lb <= i < ub by step, with loop-carried values",
	Syntax:      "[%r = ] scf.for %i = %lb to %ub step %s [iter_args(%acc = %init) -> (T)] { ... }",
	NumOperands: -1, NumResults: -1, NumRegions: 1,
	Parse: parseFor,
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		body := op.Regions[0].Entry()
		p.Write(" ")
		p.ArgName(body.Args[0])
		p.Write(" = ")
		p.Value(op.Operands[0])
		p.Write(" to ")
		p.Value(op.Operands[1])
		p.Write(" step ")
		p.Value(op.Operands[2])
		if len(op.Operands) > 3 {
			p.Write(" iter_args(")
			for i, init := range op.Operands[3:] {
				if i > 0 {
					p.Write(", ")
				}
				p.ArgName(body.Args[i+1])
				p.Write(" = ")
				p.Value(init)
			}
			p.Write(") -> (")
			p.Types(arith.ResultTypes(op))
			p.Write(")")
		}
		p.Write(" ")
		ir.PrintRegion(p, op.Regions[0], false, len(op.Results) > 0)
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		r := op.Regions[0]
		return len(op.Attrs) > 0 || len(op.Operands) < 3 || len(r.Blocks) != 1 ||
			len(r.Blocks[0].Args) != len(op.Operands)-2 || len(op.Results) == 0 && !arith.IsEmptyTerminator(r.Blocks[0])
	},
	Verify: verifyFor,
}

func parseFor(p *ir.OpParser, st *ir.OpState) error {
	iv, ivLoc, err := p.ValueName()
	if err != nil {
		return err
	}
	if err := p.ExpectPunct("="); err != nil {
		return err
	}
	var bounds []*ir.Value
	for i, kw := range []string{"", "to", "step"} {
		if i > 0 {
			if err := p.ExpectWord(kw); err != nil {
				return err
			}
		}
		v, loc, err := arith.Operand(p)
		if err != nil {
			return err
		}
		if err := arith.CheckType(v, loc, ir.Index); err != nil {
			return err
		}
		bounds = append(bounds, v)
	}
	args := []ir.RegionArg{{Name: iv, Type: ir.Index, Loc: ivLoc}}
	inits, types, err := ParseIterArgs(p, &args)
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
	st.Operands = append(bounds, inits...)
	st.ResultTypes = types
	st.Regions = []*ir.Region{body}
	return p.ExpectEnd()
}

// ParseIterArgs reads an optional `iter_args(%a = %init, ...) -> (T, ...)`,
// appending the region arguments to args; it returns the init values and
// the result types (shared with affine.for).
func ParseIterArgs(p *ir.OpParser, args *[]ir.RegionArg) ([]*ir.Value, []ir.Type, error) {
	if !p.Word("iter_args") {
		return nil, nil, nil
	}
	g, err := p.Group()
	if err != nil {
		return nil, nil, err
	}
	var inits []*ir.Value
	var locs []ir.Location
	for !g.AtEnd() {
		name, loc, err := g.ValueName()
		if err != nil {
			return nil, nil, err
		}
		if err := g.ExpectPunct("="); err != nil {
			return nil, nil, err
		}
		v, vloc, err := arith.Operand(g)
		if err != nil {
			return nil, nil, err
		}
		*args = append(*args, ir.RegionArg{Name: name, Type: v.Type, Loc: loc})
		inits = append(inits, v)
		locs = append(locs, vloc)
		if !g.Punct(",") {
			break
		}
	}
	if err := g.ExpectEnd(); err != nil {
		return nil, nil, err
	}
	if err := p.ExpectPunct("->"); err != nil {
		return nil, nil, err
	}
	types, err := p.ResultTypeList()
	if err != nil {
		return nil, nil, err
	}
	if len(types) != len(inits) {
		return nil, nil, p.Errorf("%d iter_args but %d result types", len(inits), len(types))
	}
	for i, v := range inits {
		if err := arith.CheckType(v, locs[i], types[i]); err != nil {
			return nil, nil, err
		}
	}
	return inits, types, nil
}

// CheckYield verifies that region r's blocks end with a yield op (scf.Yield,
// affine.Yield, ...) of the given types.
func CheckYield(op *ir.Operation, r *ir.Region, yield ir.OpKind, types []ir.Type) error {
	yieldName := yield.Def().Name
	for _, b := range r.Blocks {
		t := b.Terminator()
		if !t.Is(yield) {
			return arith.Errf(op, "region must end with '%s'", yieldName)
		}
		if got := arith.TypesOf(t.Operands); !ir.TypesEqual(got, types) {
			return arith.Errf(op, "'%s' yields (%s) but the op's results are (%s)", yieldName, ir.JoinTypes(got), ir.JoinTypes(types))
		}
	}
	return nil
}

func verifyFor(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if len(op.Operands) < 3 {
		return arith.Errf(op, "needs lower bound, upper bound and step operands")
	}
	for i, v := range op.Operands[:3] {
		if !ir.TypeEqual(v.Type, ir.Index) {
			return arith.Errf(op, "operand #%d (bound or step) has type %s, expected index", i, v.Type)
		}
	}
	inits := op.Operands[3:]
	if len(inits) != len(op.Results) {
		return arith.Errf(op, "has %d iter_args inits but %d results", len(inits), len(op.Results))
	}
	for i, v := range inits {
		if !ir.TypeEqual(v.Type, op.Results[i].Type) {
			return arith.Errf(op, "init #%d has type %s but result #%d has type %s", i, v.Type, i, op.Results[i].Type)
		}
	}
	r := op.Regions[0]
	if len(r.Blocks) != 1 {
		return arith.Errf(op, "body must be one block")
	}
	want := append([]ir.Type{ir.Index}, arith.ResultTypes(op)...)
	if got := arith.TypesOf(r.Blocks[0].Args); !ir.TypesEqual(got, want) {
		return arith.Errf(op, "body arguments (%s) should be (%s): the induction variable then the iter_args", ir.JoinTypes(got), ir.JoinTypes(want))
	}
	return CheckYield(op, r, Yield, arith.ResultTypes(op))
}

// Yield is scf.yield.
var Yield = &ir.OpDef{
	Name:        "scf.yield",
	Summary:     "end an scf region, yielding its values",
	Syntax:      "scf.yield [%a : T]",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format:       arith.Format("values-types($operands)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if par := op.ParentOp(); !par.Is(yieldParents...) {
			return arith.Errf(op, "expects parent op 'scf.for', 'scf.if', 'scf.while', 'scf.parallel' or 'scf.execute_region'")
		}
		return nil // the parent checks the types
	},
}
