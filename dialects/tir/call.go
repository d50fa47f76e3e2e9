package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// tir.call: size symbols of the callee are bound by unifying its parameter
// types with the argument types; the results are the callee's result types
// under that binding.

// Callee returns the called function's name.
func Callee(op *ir.Operation) string {
	s, _ := op.Attr("callee").(ir.SymbolRefAttr)
	return string(s)
}

// Unify binds the callee's size symbols from the argument types and returns
// the substitution; it fails with a located message on a mismatch that is
// provable. Equalities it cannot decide are left to run-time checks.
func Unify(op *ir.Operation, callee *ir.Operation, args []*ir.Value) (map[string]sizeexpr.Expr, error) {
	ft, ok := FuncType(callee)
	if !ok {
		return nil, ir.Errorf(op.Loc, "@%s is not a tir.func", ir.SymbolName(callee))
	}
	if len(ft.Inputs) != len(args) {
		return nil, ir.Errorf(op.Loc, "call to @%s passes %d arguments, the function takes %d", ir.SymbolName(callee), len(args), len(ft.Inputs)).
			AddNote(callee.Loc, "@%s is defined here", ir.SymbolName(callee))
	}
	bind := map[string]sizeexpr.Expr{}
	subst := func(e sizeexpr.Expr) sizeexpr.Expr {
		return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			x, ok := bind[v.Name]
			return x, ok && v.Kind == sizeexpr.SymbolVar
		})
	}
	// tryBind solves `param == arg` when param is `SYM + c` with SYM free.
	tryBind := func(param, arg sizeexpr.Expr) {
		terms, c, ok := subst(param).Linear()
		if ok && len(terms) == 1 && terms[0].Coef == 1 && terms[0].Var.Kind == sizeexpr.SymbolVar {
			if _, done := bind[terms[0].Var.Name]; !done {
				bind[terms[0].Var.Name] = sizeexpr.Sub(arg, sizeexpr.Const(c))
			}
		}
	}
	for i, a := range args {
		pt, _ := AsTensor(ft.Inputs[i])
		at, ok := AsTensor(a.Type)
		if !ok {
			return nil, ir.Errorf(op.Loc, "call argument #%d is not a tensor", i)
		}
		if !ir.TypeEqual(pt.Elem, at.Elem) || len(pt.Dims) != len(at.Dims) {
			return nil, ir.Errorf(op.Loc, "call argument #%d has type %s, but @%s expects %s", i, at, ir.SymbolName(callee), pt).
				AddNote(callee.Loc, "@%s is defined here", ir.SymbolName(callee))
		}
		for _, pd := range pt.Dims {
			ad, ok := at.Dim(pd.Name)
			if !ok {
				return nil, ir.Errorf(op.Loc, "call argument #%d lacks dimension %s that @%s expects", i, pd.Name, ir.SymbolName(callee))
			}
			tryBind(pd.Lo, ad.Lo)
			tryBind(pd.Hi, ad.Hi)
		}
	}
	for i, a := range args {
		pt, _ := AsTensor(ft.Inputs[i])
		at, _ := AsTensor(a.Type)
		for _, pd := range pt.Dims {
			ad, _ := at.Dim(pd.Name)
			lo, hi := subst(pd.Lo), subst(pd.Hi)
			if provablyDifferent(lo, ad.Lo) || provablyDifferent(hi, ad.Hi) {
				return nil, ir.Errorf(op.Loc, "call argument #%d: dimension %s is %s, but @%s expects [%s:%s]", i, pd.Name, ad.Interval, ir.SymbolName(callee), lo, hi).
					AddNote(callee.Loc, "@%s is defined here", ir.SymbolName(callee))
			}
		}
	}
	return bind, nil
}

// CallResultTypes are the callee's result types under the binding.
func CallResultTypes(callee *ir.Operation, bind map[string]sizeexpr.Expr) []ir.Type {
	ft, _ := FuncType(callee)
	var out []ir.Type
	for _, r := range ft.Results {
		t, ok := AsTensor(r)
		if !ok {
			out = append(out, r)
			continue
		}
		nt := TensorType{Elem: t.Elem}
		for _, d := range t.Dims {
			s := func(e sizeexpr.Expr) sizeexpr.Expr {
				return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
					x, ok := bind[v.Name]
					return x, ok && v.Kind == sizeexpr.SymbolVar
				})
			}
			nt.Dims = append(nt.Dims, Dim{Name: d.Name, Interval: sizeexpr.Span(s(d.Lo), s(d.Hi))})
		}
		out = append(out, nt)
	}
	return out
}

// moduleOf finds the module op above an op.
func moduleOf(op *ir.Operation) *ir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name == "builtin.module" {
			return p
		}
	}
	return nil
}

func lookupIn(module *ir.Operation, name string) *ir.Operation {
	if module == nil {
		return nil
	}
	for _, o := range module.Regions[0].Blocks[0].Ops {
		if ir.SymbolName(o) == name {
			return o
		}
	}
	return nil
}

var callDef = &ir.OpDef{
	Name:        "tir.call",
	Summary:     "call another tir.func (its size symbols are bound by unification)",
	Syntax:      "%r = tir.call @g(%a, %b) : R",
	Traits:      0,
	NumOperands: -1, NumResults: -1,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		name, err := p.Symbol()
		if err != nil {
			return err
		}
		g, err := p.Group()
		if err != nil {
			return err
		}
		if !g.AtEnd() {
			if st.Operands, err = g.OperandList(); err != nil {
				return err
			}
		}
		if err := g.ExpectEnd(); err != nil {
			return err
		}
		st.Attrs = st.Attrs.With("callee", ir.SymbolRefAttr(name))
		extra, err := p.OptionalAttrDict()
		if err != nil {
			return err
		}
		for _, e := range extra {
			st.Attrs = st.Attrs.With(e.Name, e.Value)
		}
		ts, given, err := p.OptionalColonTypes()
		if err != nil {
			return err
		}
		if err := p.ExpectEnd(); err != nil {
			return err
		}
		callee := p.Host.LookupSymbol(name)
		if callee == nil {
			if !given {
				return ir.Errorf(st.Loc, "call to @%s needs its result types: the function is not defined before this call", name)
			}
			st.ResultTypes = ts
			return nil
		}
		probe := ir.NewOp("tir.call", st.Loc, st.Operands, nil, st.Attrs)
		bind, err := Unify(probe, callee, st.Operands)
		if err != nil {
			return err
		}
		inferred := CallResultTypes(callee, bind)
		if given && !ir.TypesEqual(ts, inferred) {
			return ir.Errorf(st.Loc, "call result types %s do not match @%s's results under the call's bindings: %s", ir.JoinTypes(ts), name, ir.JoinTypes(inferred))
		}
		st.ResultTypes = inferred
		return nil
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" @" + ir.SymbolRefAttr(Callee(op)).String()[1:] + "(")
		p.Values(op.Operands)
		p.Write(")")
		printResultType(p, op)
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		callee := lookupIn(moduleOf(op), Callee(op))
		if callee == nil {
			return ir.Errorf(op.Loc, "call to unknown function @%s", Callee(op))
		}
		if callee.Name != "tir.func" {
			return ir.Errorf(op.Loc, "@%s is not a tir.func", Callee(op))
		}
		bind, err := Unify(op, callee, op.Operands)
		if err != nil {
			return err
		}
		var got []ir.Type
		for _, r := range op.Results {
			got = append(got, r.Type)
		}
		if want := CallResultTypes(callee, bind); !ir.TypesEqual(got, want) {
			return ir.Errorf(op.Loc, "call to @%s returns %s, but the function gives %s for these arguments", Callee(op), ir.JoinTypes(got), ir.JoinTypes(want))
		}
		return nil
	},
}
