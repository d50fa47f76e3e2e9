package scf

import (
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The scf ops TIR's lowering does not produce but users meet in what
// mlir-opt prints: scf.while (with scf.condition), scf.parallel (with
// scf.reduce and scf.reduce.return) and scf.execute_region, in MLIR 16's
// syntax and representation.

// parseAssignments reads `(%a = %x, %b = %y)`, appending region arguments
// of the values' types; it returns the values.
func parseAssignments(g *ir.OpParser, args *[]ir.RegionArg) ([]*ir.Value, error) {
	var vs []*ir.Value
	for !g.AtEnd() {
		name, loc, err := g.ValueName()
		if err != nil {
			return nil, err
		}
		if err := g.ExpectPunct("="); err != nil {
			return nil, err
		}
		v, err := g.Operand()
		if err != nil {
			return nil, err
		}
		*args = append(*args, ir.RegionArg{Name: name, Type: v.Type, Loc: loc})
		vs = append(vs, v)
		if !g.Punct(",") {
			break
		}
	}
	return vs, g.ExpectEnd()
}

// ---- scf.while ----

// While is scf.while.
var While = &ir.OpDef{
	Name:        "scf.while",
	Summary:     "a loop: the before region computes a condition and the values passed on, the after region the next iteration's values",
	Syntax:      "%r = scf.while (%a = %init) : (T) -> (R) { ... scf.condition(%c) %v : R } do { ^bb0(%x: R): ... scf.yield %n : T }",
	NumOperands: -1, NumResults: -1, NumRegions: 2,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		var args []ir.RegionArg
		var inits []*ir.Value
		if p.IsGroup() {
			g, err := p.Group()
			if err != nil {
				return err
			}
			if inits, err = parseAssignments(g, &args); err != nil {
				return err
			}
		}
		if err := p.ExpectPunct(":"); err != nil {
			return err
		}
		loc := p.CurLoc()
		t, err := p.Type()
		if err != nil {
			return err
		}
		ft, ok := t.(ir.FunctionType)
		if !ok || len(ft.Inputs) != len(inits) {
			return ir.Errorf(loc, "expected the function type (inits) -> (results) of 'scf.while'")
		}
		for i, v := range inits {
			if !ir.TypeEqual(v.Type, ft.Inputs[i]) {
				return ir.Errorf(loc, "init #%d has type %s, the type says %s", i, v.Type, ft.Inputs[i])
			}
		}
		if args == nil {
			args = []ir.RegionArg{}
		}
		before, err := p.Region(args, nil)
		if err != nil {
			return err
		}
		if err := p.ExpectWord("do"); err != nil {
			return err
		}
		after, err := p.Region(nil, ft.Results)
		if err != nil {
			return err
		}
		if d, err := p.OptionalAttrDict(); err != nil {
			return err
		} else {
			st.Attrs = d
		}
		st.Operands, st.ResultTypes, st.Regions = inits, ft.Results, []*ir.Region{before, after}
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		before := op.Regions[0].Entry()
		if len(op.Operands) > 0 {
			p.Write(" (")
			for i, v := range op.Operands {
				if i > 0 {
					p.Write(", ")
				}
				p.ArgName(before.Args[i])
				p.Write(" = ")
				p.Value(v)
			}
			p.Write(")")
		}
		p.Write(" : (")
		p.Types(arith.TypesOf(op.Operands))
		p.Write(") -> (")
		p.Types(arith.ResultTypes(op))
		p.Write(") ")
		p.Region(op.Regions[0], false)
		p.Write(" do ")
		p.Region(op.Regions[1], true)
		p.AttrDict(op.Attrs)
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		b := op.Regions[0].Entry()
		return b == nil || op.Regions[1].Entry() == nil || len(b.Args) != len(op.Operands)
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		b, a := op.Regions[0].Entry(), op.Regions[1].Entry()
		if b == nil || a == nil {
			return arith.Errf(op, "needs a before and an after region")
		}
		if !ir.TypesEqual(arith.TypesOf(b.Args), arith.TypesOf(op.Operands)) {
			return arith.Errf(op, "before region arguments (%s) must match the inits (%s)", ir.JoinTypes(arith.TypesOf(b.Args)), ir.JoinTypes(arith.TypesOf(op.Operands)))
		}
		if !ir.TypesEqual(arith.TypesOf(a.Args), arith.ResultTypes(op)) {
			return arith.Errf(op, "after region arguments (%s) must match the results (%s)", ir.JoinTypes(arith.TypesOf(a.Args)), ir.JoinTypes(arith.ResultTypes(op)))
		}
		if t := b.Terminator(); !t.Is(Condition) {
			return arith.Errf(op, "before region must end with 'scf.condition'")
		} else if got := arith.TypesOf(t.Operands[1:]); !ir.TypesEqual(got, arith.ResultTypes(op)) {
			return arith.Errf(op, "'scf.condition' passes (%s) but the results are (%s)", ir.JoinTypes(got), ir.JoinTypes(arith.ResultTypes(op)))
		}
		return CheckYield(op, op.Regions[1], Yield, arith.TypesOf(op.Operands))
	},
}

// Condition is scf.condition.
var Condition = &ir.OpDef{
	Name:        "scf.condition",
	Summary:     "end the before region of scf.while: continue when the i1 is true, passing the values on",
	Syntax:      "scf.condition(%c) %a, %b : T1, T2",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format:       arith.Format("($condition) check($condition:i1) values-types($args)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 || len(op.Operands) == 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if len(op.Operands) == 0 || !ir.TypeEqual(op.Operands[0].Type, ir.I1) {
			return arith.Errf(op, "needs an i1 condition")
		}
		if par := op.ParentOp(); !par.Is(conditionParents...) {
			return arith.Errf(op, "expects parent op 'scf.while'")
		}
		return nil
	},
}

// ---- scf.execute_region ----

// ExecuteRegion is scf.execute_region.
var ExecuteRegion = &ir.OpDef{
	Name:        "scf.execute_region",
	Summary:     "run a region (of any number of blocks) once, yielding its results",
	Syntax:      "%r = scf.execute_region -> T { ... scf.yield %v : T }",
	NumOperands: 0, NumResults: -1, NumRegions: 1,
	Format: arith.Format("results? region attr-dict-with-keyword"),
	NeedsGeneric: func(op *ir.Operation) bool {
		e := op.Regions[0].Entry()
		return e == nil || len(e.Args) > 0
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		e := op.Regions[0].Entry()
		if e == nil || len(e.Args) > 0 {
			return arith.Errf(op, "region must have an entry block without arguments")
		}
		return nil
	},
}

// ---- scf.parallel ----

// parseValueGroup reads `(%a, %b)` (possibly empty) and checks the types.
func parseValueGroup(p *ir.OpParser, t ir.Type) ([]*ir.Value, error) {
	g, err := p.Group()
	if err != nil {
		return nil, err
	}
	vs, locs, err := arith.Operands(g, -1)
	if err != nil {
		return nil, err
	}
	if t != nil {
		for i, v := range vs {
			if err := arith.CheckType(v, locs[i], t); err != nil {
				return nil, err
			}
		}
	}
	return vs, g.ExpectEnd()
}

// Parallel is scf.parallel.
var Parallel = &ir.OpDef{
	Name:        "scf.parallel",
	Summary:     "a parallel loop nest; scf.reduce ops in the body combine the results",
	Syntax:      "%r = scf.parallel (%i, %j) = (%lb0, %lb1) to (%ub0, %ub1) step (%s0, %s1) [init (%x) -> (T)] { ... }",
	NumOperands: -1, NumResults: -1, NumRegions: 1,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		g, err := p.Group()
		if err != nil {
			return err
		}
		var args []ir.RegionArg
		for !g.AtEnd() {
			name, loc, err := g.ValueName()
			if err != nil {
				return err
			}
			args = append(args, ir.RegionArg{Name: name, Type: ir.Index, Loc: loc})
			if !g.Punct(",") {
				break
			}
		}
		if err := g.ExpectEnd(); err != nil {
			return err
		}
		if err := p.ExpectPunct("="); err != nil {
			return err
		}
		var groups [][]*ir.Value
		for i, kw := range []string{"", "to", "step"} {
			if i > 0 {
				if err := p.ExpectWord(kw); err != nil {
					return err
				}
			}
			loc := p.CurLoc()
			vs, err := parseValueGroup(p, ir.Index)
			if err != nil {
				return err
			}
			if len(vs) != len(args) {
				return ir.Errorf(loc, "expected %d values, one per induction variable", len(args))
			}
			groups = append(groups, vs)
		}
		var inits []*ir.Value
		if p.Word("init") {
			if inits, err = parseValueGroup(p, nil); err != nil {
				return err
			}
			if err := p.ExpectPunct("->"); err != nil {
				return err
			}
			loc := p.CurLoc()
			ts, err := p.ResultTypeList()
			if err != nil {
				return err
			}
			if !ir.TypesEqual(ts, arith.TypesOf(inits)) {
				return ir.Errorf(loc, "result types (%s) must be the init types (%s)", ir.JoinTypes(ts), ir.JoinTypes(arith.TypesOf(inits)))
			}
			st.ResultTypes = ts
		}
		if args == nil {
			args = []ir.RegionArg{}
		}
		body, err := p.Region(args, nil)
		if err != nil {
			return err
		}
		arith.EnsureTerminator(body, newYield(st.Loc))
		if st.Attrs, err = arith.OptionalBareDict(p); err != nil {
			return err
		}
		st.Operands = append(append(append(append([]*ir.Value(nil), groups[0]...), groups[1]...), groups[2]...), inits...)
		st.Attrs = st.Attrs.With("operand_segment_sizes", ir.SegmentSizes(len(args), len(args), len(args), len(inits)))
		st.Regions = []*ir.Region{body}
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		body := op.Regions[0].Entry()
		n := len(body.Args)
		group := func(vs []*ir.Value) {
			p.Write("(")
			p.Values(vs)
			p.Write(")")
		}
		p.Write(" (")
		for i, a := range body.Args {
			if i > 0 {
				p.Write(", ")
			}
			p.ArgName(a)
		}
		p.Write(") = ")
		group(op.Operands[:n])
		p.Write(" to ")
		group(op.Operands[n : 2*n])
		p.Write(" step ")
		group(op.Operands[2*n : 3*n])
		if len(op.Operands) > 3*n {
			p.Write(" init ")
			group(op.Operands[3*n:])
			p.Write(" -> (")
			p.Types(arith.ResultTypes(op))
			p.Write(")")
		}
		p.Write(" ")
		ir.PrintRegion(p, op.Regions[0], false, !arith.IsEmptyTerminator(body))
		rest := op.Attrs.Without("operand_segment_sizes")
		if len(rest) > 0 {
			p.Write(" ")
			p.Attr(rest)
		}
	},
	NeedsGeneric: func(op *ir.Operation) bool { return parallelError(op) != nil },
	Verify:       func(op *ir.Operation, _ func(*ir.Diagnostic)) error { return parallelError(op) },
}

func parallelError(op *ir.Operation) error {
	r := op.Regions[0]
	if len(r.Blocks) != 1 {
		return arith.Errf(op, "body must be one block")
	}
	n := len(r.Blocks[0].Args)
	seg, ok := op.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
	if !ok || len(seg.Values) != 4 || seg.Values[0] != int64(n) || seg.Values[1] != int64(n) || seg.Values[2] != int64(n) ||
		int(seg.Values[3]) != len(op.Operands)-3*n || len(op.Operands) < 3*n {
		return arith.Errf(op, "needs operand_segment_sizes = array<i32: N, N, N, M> for N induction variables")
	}
	for i, v := range op.Operands[:3*n] {
		if !ir.TypeEqual(v.Type, ir.Index) {
			return arith.Errf(op, "bound or step #%d has type %s, expected index", i, v.Type)
		}
	}
	if !ir.TypesEqual(arith.TypesOf(op.Operands[3*n:]), arith.ResultTypes(op)) {
		return arith.Errf(op, "init types must be the result types")
	}
	if t := r.Blocks[0].Terminator(); !t.Is(Yield) || len(t.Operands) > 0 {
		return arith.Errf(op, "body must end with 'scf.yield' without operands")
	}
	return nil
}

// directives are scf's pieces of syntax for its formats (ir.Format), with
// arith's:
//
//	reduce-region($x)  a region whose entry block takes two arguments of
//	                   operand x's type (scf.reduce's)
var directives = arith.Directives.With(ir.Directives{
	"reduce-region": {
		Parse: func(c *ir.FormatParser, arg string) error {
			t := c.Operands(strings.TrimPrefix(arg, "$"))[0].Type
			r, err := c.Region(nil, []ir.Type{t, t})
			c.St.Regions = append(c.St.Regions, r)
			return err
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			c.Region(c.Op.Regions[0], true)
		},
	},
})

// Reduce is scf.reduce.
var Reduce = &ir.OpDef{
	Name:        "scf.reduce",
	Summary:     "contribute a value to a result of the enclosing scf.parallel, combined by the region",
	Syntax:      "scf.reduce(%v) : T { ^bb0(%lhs: T, %rhs: T): ... scf.reduce.return %r : T }",
	NumOperands: 1, NumResults: 0, NumRegions: 1,
	Format:       ir.NewFormat("($operand) : use-type($operand) reduce-region($operand)", directives, false),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		t := op.Operands[0].Type
		e := op.Regions[0].Entry()
		if e == nil || !ir.TypesEqual(arith.TypesOf(e.Args), []ir.Type{t, t}) {
			return arith.Errf(op, "region needs two arguments of type %s", t)
		}
		return CheckYield(op, op.Regions[0], ReduceReturn, []ir.Type{t})
	},
}

// ReduceReturn is scf.reduce.return.
var ReduceReturn = &ir.OpDef{
	Name:        "scf.reduce.return",
	Summary:     "end the region of scf.reduce with the combined value",
	Syntax:      "scf.reduce.return %r : T",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: 1, NumResults: 0, NumRegions: 0,
	Format:       arith.Format("values-types($operands)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
}
