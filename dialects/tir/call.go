package tir

import (
	"fmt"
	"strings"

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

// CallBinding is how a call instantiates its callee: the callee's size
// symbols as expressions of the caller's, and, per dimension name, where
// the callee's coordinates sit in the caller's (caller = callee + Shift[d]).
// A function written on I[0:N] applies to a value on I[1:N-1]: its domains
// are polymorphic in their origin, as a stencil function is in GT4Py.
type CallBinding struct {
	Syms  map[string]sizeexpr.Expr
	Shift map[string]sizeexpr.Expr
}

// Subst rewrites a callee expression in the caller's symbols.
func (b CallBinding) Subst(e sizeexpr.Expr) sizeexpr.Expr {
	return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
		x, ok := b.Syms[v.Name]
		return x, ok && v.Kind == sizeexpr.SymbolVar
	})
}

// Shifted reports the shift of dimension d, if it is not zero.
func (b CallBinding) Shifted(d string) (sizeexpr.Expr, bool) {
	sh, ok := b.Shift[d]
	if !ok {
		return sizeexpr.Expr{}, false
	}
	if c, isC := sh.Const(); isC && c == 0 {
		return sizeexpr.Expr{}, false
	}
	return sh, true
}

// Unify binds the callee's size symbols and origins from the argument
// types and returns them; it fails with a located message on a mismatch
// that is provable. Equalities it cannot decide are left to run-time
// checks. A lower bound that is a free symbol of the callee (I[L:H]) binds
// it; any other lower bound fixes the dimension's origin (the same for
// every argument that has the dimension), and upper bounds then bind
// extents.
func Unify(op *ir.Operation, callee *ir.Operation, args []*ir.Value) (CallBinding, error) {
	b := CallBinding{Syms: map[string]sizeexpr.Expr{}, Shift: map[string]sizeexpr.Expr{}}
	ft, ok := FuncType(callee)
	if !ok {
		return b, ir.Errorf(op.Loc, "@%s is not a tir.func", ir.SymbolName(callee))
	}
	name := ir.SymbolName(callee)
	if len(ft.Inputs) != len(args) {
		return b, ir.Errorf(op.Loc, "call to @%s passes %d arguments, the function takes %d", name, len(args), len(ft.Inputs)).
			AddNote(callee.Loc, "@%s is defined here", name)
	}
	// tryBind solves `param == arg` when param is `SYM + c` with SYM free;
	// boundBy remembers which argument bound each symbol, for messages.
	boundBy := map[string]int{}
	tryBind := func(param, arg sizeexpr.Expr, i int) {
		terms, c, ok := b.Subst(param).Linear()
		if ok && len(terms) == 1 && terms[0].Coef == 1 && terms[0].Var.Kind == sizeexpr.SymbolVar {
			if _, done := b.Syms[terms[0].Var.Name]; !done {
				b.Syms[terms[0].Var.Name] = sizeexpr.Sub(arg, sizeexpr.Const(c))
				boundBy[terms[0].Var.Name] = i
			}
		}
	}
	// mismatch adds to a refuted call the two sides: where the argument's
	// interval comes from, the parameter's declaration, and which
	// arguments bound the parameter's symbols.
	params := callee.Regions[0].Entry()
	mismatch := func(d *ir.Diagnostic, i int, pd Dim) *ir.Diagnostic {
		AddTrail(d, fmt.Sprintf("argument #%d", i), args[i], pd.Name)
		if params != nil && i < len(params.Args) {
			pa := params.Args[i]
			d.AddNote(DefLoc(pa), "@%s's parameter '%s' is declared with %s", name, pa.NameHint, pd)
		}
		var binds []string
		for _, v := range append(pd.Lo.Vars(), pd.Hi.Vars()...) {
			if j, ok := boundBy[v.Name]; ok && j != i {
				binds = append(binds, fmt.Sprintf("%s = %s by argument #%d", v.Name, b.Syms[v.Name], j))
			}
		}
		if len(binds) > 0 {
			d.AddNote(op.Loc, "the call binds %s", strings.Join(binds, ", "))
		}
		return d
	}
	// free reports whether a callee expression has a symbol no argument
	// has bound yet.
	free := func(e sizeexpr.Expr) bool {
		for _, v := range e.Vars() {
			if _, bound := b.Syms[v.Name]; v.Kind == sizeexpr.SymbolVar && !bound {
				return true
			}
		}
		return false
	}
	type pair struct {
		i      int
		pd, ad Dim
	}
	var pairs []pair
	for i, a := range args {
		pt, _ := AsTensor(ft.Inputs[i])
		at, ok := AsTensor(a.Type)
		if !ok {
			return b, ir.Errorf(op.Loc, "call argument #%d is not a tensor", i)
		}
		if !ir.TypeEqual(pt.Elem, at.Elem) || len(pt.Dims) != len(at.Dims) {
			return b, ir.Errorf(op.Loc, "call argument #%d has type %s, but @%s expects %s", i, at, name, pt).
				AddNote(callee.Loc, "@%s is defined here", name)
		}
		for _, pd := range pt.Dims {
			ad, ok := at.Dim(pd.Name)
			if !ok {
				return b, ir.Errorf(op.Loc, "call argument #%d lacks dimension %s that @%s expects", i, pd.Name, name)
			}
			pairs = append(pairs, pair{i, pd, ad})
		}
	}
	// Symbolic origins first, then the shifts of the other origins.
	for _, p := range pairs {
		if free(p.pd.Lo) {
			tryBind(p.pd.Lo, p.ad.Lo, p.i)
		}
	}
	for _, p := range pairs {
		if free(p.pd.Lo) {
			continue
		}
		sh := sizeexpr.Sub(p.ad.Lo, b.Subst(p.pd.Lo))
		if old, ok := b.Shift[p.pd.Name]; ok {
			if provablyDifferent(old, sh) {
				return b, mismatch(ir.Errorf(op.Loc, "call argument #%d: dimension %s starts at %s, which moves @%s's origin by %s, but another argument moves it by %s", p.i, p.pd.Name, p.ad.Lo, name, sh, old).
					AddNote(callee.Loc, "@%s is defined here", name), p.i, p.pd)
			}
			continue
		}
		b.Shift[p.pd.Name] = sh
	}
	for _, p := range pairs {
		tryBind(p.pd.Hi, sizeexpr.Sub(p.ad.Hi, b.Shift[p.pd.Name]), p.i)
	}
	for _, p := range pairs {
		sh := b.Shift[p.pd.Name]
		lo, hi := sizeexpr.Add(b.Subst(p.pd.Lo), sh), sizeexpr.Add(b.Subst(p.pd.Hi), sh)
		if provablyDifferent(lo, p.ad.Lo) || provablyDifferent(hi, p.ad.Hi) {
			return b, mismatch(ir.Errorf(op.Loc, "call argument #%d: dimension %s is %s, but @%s expects [%s:%s]", p.i, p.pd.Name, p.ad.Interval, name, lo, hi).
				AddNote(callee.Loc, "@%s is defined here", name), p.i, p.pd)
		}
	}
	// Every size parameter of the callee must now have a value in the
	// caller's terms. One that only the callee's body or results mention (a
	// shift by o) has none: a compiled function would take it as an extra
	// argument, which a call cannot pass (spec 2.6: an input error).
	for _, v := range Symbols(callee) {
		if _, bound := b.Syms[v.Name]; !bound {
			return b, ir.Errorf(op.Loc, "call to @%s cannot bind its size parameter %s: no parameter type determines it from the arguments", name, v.Name).
				AddNote(callee.Loc, "@%s is defined here; a call binds its callee's size parameters from the parameter types only", name)
		}
	}
	return b, nil
}

// CallResultTypes are the callee's result types under the binding, in the
// caller's coordinates.
func CallResultTypes(callee *ir.Operation, b CallBinding) []ir.Type {
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
			sh := b.Shift[d.Name]
			nt.Dims = append(nt.Dims, Dim{Name: d.Name, Interval: sizeexpr.Span(sizeexpr.Add(b.Subst(d.Lo), sh), sizeexpr.Add(b.Subst(d.Hi), sh))})
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

var Call = &Op{OpDef: ir.OpDef{
	Name:        "tir.call",
	Summary:     "call another tir.func (its size symbols are bound by unification)",
	Syntax:      "%r = tir.call @g(%a, %b) : R",
	Traits:      0,
	NumOperands: -1, NumResults: -1,
	Format: syntax("callee ($operands*) attr-dict-with-keyword types(res)?"),
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		callee := lookupIn(moduleOf(op), Callee(op))
		if callee == nil {
			return ir.Errorf(op.Loc, "call to unknown function @%s", Callee(op))
		}
		if callee.Name != "tir.func" {
			return ir.Errorf(op.Loc, "@%s is not a tir.func", Callee(op))
		}
		if err := checkDataResults(op, callee); err != nil {
			return err
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
},
	checks: callOpChecks,
	trail:  callTrail,
	Detail: callDetail,
}

// inferCallResults binds the callee's size symbols to the call's operands
// and infers the result types, which must equal those given.
func inferCallResults(c *ir.FormatParser, name string) error {
	st := c.St
	ts, given := st.ResultTypes, len(st.ResultTypes) > 0
	callee := c.Host.LookupSymbol(name)
	if callee == nil {
		if !given {
			return ir.Errorf(st.Loc, "call to @%s needs its result types: the function is not defined before this call", name)
		}
		return nil
	}
	probe := ir.NewOp("tir.call", st.Loc, st.Operands, nil, st.Attrs)
	if err := checkDataResults(probe, callee); err != nil {
		return err
	}
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
}
