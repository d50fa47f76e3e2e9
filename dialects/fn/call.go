package fn

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// Return is func.return.
var Return = &ir.OpDef{
	Name:        "func.return",
	Summary:     "return from a func.func",
	Syntax:      "func.return [%a, %b : T1, T2]",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format:       arith.Format("values-types($operands)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		fn := op.ParentOp()
		if !fn.Is(Func) {
			return arith.Errf(op, "expects parent op 'func.func'")
		}
		ft, ok := FuncType(fn)
		if !ok {
			return nil
		}
		if len(op.Operands) != len(ft.Results) {
			return arith.Errf(op, "has %d operands, but enclosing function (@%s) returns %d", len(op.Operands), ir.SymbolName(fn), len(ft.Results))
		}
		for i, v := range op.Operands {
			if !ir.TypeEqual(v.Type, ft.Results[i]) {
				return arith.Errf(op, "type of return operand %d (%s) doesn't match function result type (%s) in function @%s", i, v.Type, ft.Results[i], ir.SymbolName(fn))
			}
		}
		return nil
	},
}

// Call is func.call.
var Call = &ir.OpDef{
	Name:        "func.call",
	Summary:     "call a function by symbol",
	Syntax:      "%r = func.call @f(%a, %b) : (T1, T2) -> R",
	NumOperands: -1, NumResults: -1, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		callee, err := p.Symbol()
		if err != nil {
			return err
		}
		g, err := p.Group()
		if err != nil {
			return err
		}
		vs, locs, err := arith.Operands(g, -1)
		if err != nil {
			return err
		}
		if err := g.ExpectEnd(); err != nil {
			return err
		}
		tloc := p.CurLoc()
		t, err := arith.ColonType(p)
		if err != nil {
			return err
		}
		ft, ok := t.(ir.FunctionType)
		if !ok {
			return ir.Errorf(tloc, "expected a function type (T, ...) -> R")
		}
		if len(ft.Inputs) != len(vs) {
			return ir.Errorf(tloc, "%d arguments but the type lists %d", len(vs), len(ft.Inputs))
		}
		for i, v := range vs {
			if err := arith.CheckType(v, locs[i], ft.Inputs[i]); err != nil {
				return err
			}
		}
		st.Operands, st.ResultTypes = vs, ft.Results
		st.Attrs = st.Attrs.With("callee", ir.SymbolRefAttr(callee))
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" " + op.Attr("callee").String() + "(")
		p.Values(op.Operands)
		p.Write(") : ")
		p.Type(ir.FunctionType{Inputs: arith.TypesOf(op.Operands), Results: arith.ResultTypes(op)})
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		_, ok := op.Attr("callee").(ir.SymbolRefAttr)
		return !ok || !arith.OnlyAttrs(op, "callee")
	},
	Verify: verifyCall,
}

func verifyCall(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	callee, ok := op.Attr("callee").(ir.SymbolRefAttr)
	if !ok {
		return arith.Errf(op, "requires a 'callee' symbol reference attribute")
	}
	// Find the enclosing symbol table (the module).
	top := op
	for top.ParentOp() != nil {
		top = top.ParentOp()
	}
	if top == op || len(top.Regions) == 0 || len(top.Regions[0].Blocks) == 0 {
		return nil
	}
	var fnOp *ir.Operation
	for _, o := range top.Regions[0].Blocks[0].Ops {
		if o.Is(Func) && ir.SymbolName(o) == string(callee) {
			fnOp = o
		}
	}
	if fnOp == nil {
		return arith.Errf(op, "'%s' does not reference a valid function", callee)
	}
	ft, _ := FuncType(fnOp)
	if !ir.TypesEqual(arith.TypesOf(op.Operands), ft.Inputs) || !ir.TypesEqual(arith.ResultTypes(op), ft.Results) {
		return arith.Errf(op, "type %s does not match the callee's type %s",
			ir.FunctionType{Inputs: arith.TypesOf(op.Operands), Results: arith.ResultTypes(op)}, ft)
	}
	return nil
}
