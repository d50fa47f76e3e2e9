package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Gradual calls. A call binds its callee's size symbols from the
// arguments' types (Unify), so what an argument with an unknown extent
// gives stays symbolic in the results (J[0:?_x_I + 1]). What unification
// cannot decide is checked once at entry, at the call's place among the
// function's checks: an argument whose interval must equal what the
// callee expects under the binding (a parameter on I[0:10], or a second
// parameter sharing the symbol the first one bound). A mismatch that is
// provable is a compile error (Unify). tir-inline keeps the check as a
// tir.assume_shape marked with CallBoundaryAttr, whose message is the
// call's, so the interpreter (which runs calls) and compiled code (which
// inlines them) fail with the same words.

// CallBoundaryAttr marks a tir.assume_shape that tir-inline put at a call
// boundary; its value is the callee's name.
const CallBoundaryAttr = "tir.call_boundary"

// pendingCheck is a RuntimeCheck under construction.
type pendingCheck struct {
	NonNeg []sizeexpr.Expr
	ok     bool
	msg    *message
}

// shapeCheck is the check that a value's interval have equals want along
// dim (any is false when that is proven):
//
//	PREFIX: argument 'a' dimension X: expected extent 20, got 18
//	PREFIX: argument 'a' dimension X: expected [1:N + 1] = [1:13], got [0:12]
func shapeCheck(prefix, name, dim string, have, want sizeexpr.Interval) (c pendingCheck, ok, any bool) {
	if sizeexpr.ProveEQ(have.Lo, want.Lo) && sizeexpr.ProveEQ(have.Hi, want.Hi) {
		return c, true, false
	}
	a, aok := inside(have, want)
	b, bok := inside(want, have)
	msg := &message{}
	msg.text("%s: %s dimension %s: expected ", prefix, name, dim)
	if sizeexpr.ProveEQ(have.Lo, want.Lo) {
		msg.text("extent ")
		msg.expr(want.Extent(), true)
		msg.text(", got ")
		msg.value(have.Extent(), true, have.Extent().String())
	} else {
		msg.interval(want)
		msg.text(", got ")
		msg.actual(have)
	}
	return pendingCheck{NonNeg: append(a, b...), ok: aok && bok, msg: msg}, aok && bok, true
}

// CallArgDomains are the intervals a call's arguments must have: the
// callee's parameter types under the binding, in the caller's
// coordinates.
func CallArgDomains(callee *ir.Operation, b CallBinding) []TensorType {
	ft, _ := FuncType(callee)
	var out []TensorType
	for _, p := range ft.Inputs {
		t, _ := AsTensor(p)
		nt := TensorType{Elem: t.Elem}
		for _, d := range t.Dims {
			sh := b.Shift[d.Name]
			nt.Dims = append(nt.Dims, Dim{Name: d.Name, Interval: sizeexpr.Span(sizeexpr.Add(b.Subst(d.Lo), sh), sizeexpr.Add(b.Subst(d.Hi), sh))})
		}
		out = append(out, nt)
	}
	return out
}

// callChecks are the run-time checks of a call's boundary.
func callChecks(fn, call *ir.Operation) []pendingCheck {
	callee := lookupIn(moduleOf(call), Callee(call))
	if callee == nil || callee.Name != "tir.func" {
		return nil
	}
	bind, err := Unify(call, callee, call.Operands)
	if err != nil {
		return nil
	}
	var out []pendingCheck
	for i, want := range CallArgDomains(callee, bind) {
		if i >= len(call.Operands) {
			break
		}
		have, _ := AsTensor(call.Operands[i].Type)
		for _, d := range want.Dims {
			hd, ok := have.Dim(d.Name)
			if !ok {
				continue
			}
			if c, _, any := shapeCheck("call to @"+Callee(call), valueName(fn, call.Operands[i]), d.Name, hd.Interval, d.Interval); any {
				out = append(out, c)
			}
		}
	}
	return out
}

// callBoundary returns v as the callee expects it: v itself when its
// type provably is want, else a tir.assume_shape to want (inserted
// before the call) that carries the call's check.
func callBoundary(call *ir.Operation, v *ir.Value, want TensorType, rw *ir.Rewriter) *ir.Value {
	have, ok := AsTensor(v.Type)
	if !ok || len(have.Dims) != len(want.Dims) {
		return v
	}
	same := true
	dims := make([]Dim, len(have.Dims))
	for k, hd := range have.Dims {
		wd, ok := want.Dim(hd.Name)
		if !ok {
			return v
		}
		dims[k] = wd
		if !sizeexpr.ProveEQ(hd.Lo, wd.Lo) || !sizeexpr.ProveEQ(hd.Hi, wd.Hi) {
			same = false
		}
	}
	if same {
		return v
	}
	// The operand's own dimension order: assume_shape keeps it.
	t := TensorType{Elem: have.Elem, Dims: dims}
	op := ir.NewOp("tir.assume_shape", call.Loc, []*ir.Value{v}, []ir.Type{t},
		ir.DictAttr{}.With(CallBoundaryAttr, ir.StringAttr(Callee(call))))
	rw.InsertBefore(call, op)
	return op.Results[0]
}
