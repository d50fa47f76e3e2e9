package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// InlineCall replaces a tir.call by a copy of the callee's body: callee
// arguments become the call's operands (moved to the callee's origin by a
// tir.shift where the binding shifts a dimension), the callee's size
// symbols become the expressions unification bound them to, results move
// back to the caller's coordinates, and a returned value larger than the
// callee's declared output is restricted to it with tir.subset.
func InlineCall(call, callee *ir.Operation, rw *ir.Rewriter) error {
	bind, err := Unify(call, callee, call.Operands)
	if err != nil {
		return err
	}
	// move shifts a value between the caller's and the callee's
	// coordinates: sign +1 reads the caller's value at callee coordinates.
	move := func(v *ir.Value, sign int64) *ir.Value {
		t, _ := AsTensor(v.Type)
		var offs OffsetsAttr
		for _, d := range t.Dims {
			if sh, ok := bind.Shifted(d.Name); ok {
				offs.Dims = append(offs.Dims, d.Name)
				offs.Offsets = append(offs.Offsets, sizeexpr.Mul(sh, sign))
			}
		}
		if len(offs.Dims) == 0 {
			return v
		}
		op := ir.NewOp("tir.shift", call.Loc, []*ir.Value{v}, nil, ir.DictAttr{}.With("offsets", offs))
		op.SetResultTypes([]ir.Type{TensorType{Elem: t.Elem, Dims: domainOfRead(shiftReads(op, []TensorType{t})[0], t)}})
		rw.InsertBefore(call, op)
		return op.Results[0]
	}
	entry := callee.Regions[0].Entry()
	mapping := map[*ir.Value]*ir.Value{}
	// What unification could not prove about an argument is checked at
	// the call boundary (an assume_shape that reports the call).
	want := CallArgDomains(callee, bind)
	for i, a := range entry.Args {
		mapping[a] = move(callBoundary(call, call.Operands[i], want[i], rw), 1)
	}
	// Extents the callee computes from data get names of their own here.
	subst := bind.Subst
	if fresh := renameDataExtents(enclosingFunc(call), callee); fresh != nil {
		subst = func(e sizeexpr.Expr) sizeexpr.Expr {
			return bind.Subst(e).Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
				x, ok := fresh[v.Name]
				return x, ok
			})
		}
	}
	var ret *ir.Operation
	for _, o := range entry.Ops {
		if o.Name == "tir.return" {
			ret = o
			break
		}
		c := o.Clone(mapping)
		c.Loc = call.Loc
		c.Walk(func(x *ir.Operation) bool {
			substOp(x, subst)
			return true
		})
		rw.InsertBefore(call, c)
	}
	if ret == nil {
		return ir.Errorf(callee.Loc, "@%s has no tir.return", ir.SymbolName(callee))
	}
	outs := CallResultTypes(callee, bind)
	var vals []*ir.Value
	for i, v := range ret.Operands {
		m := mapping[v]
		if m == nil {
			m = v
		}
		m = move(m, -1)
		want, _ := AsTensor(outs[i])
		if !ir.TypeEqual(m.Type, want) {
			s := ir.NewOp("tir.subset", call.Loc, []*ir.Value{m}, []ir.Type{want}, ir.DictAttr{}.With("bounds", DomainAttr(want.Dims)))
			rw.InsertBefore(call, s)
			m = s.Results[0]
		}
		vals = append(vals, m)
	}
	rw.ReplaceOp(call, vals)
	return nil
}

// substOp rewrites the size symbols of an op's types and attributes.
func substOp(op *ir.Operation, sub func(sizeexpr.Expr) sizeexpr.Expr) {
	for _, r := range op.Results {
		r.Type = substType(r.Type, sub)
	}
	for _, reg := range op.Regions {
		for _, b := range reg.Blocks {
			for _, a := range b.Args {
				a.Type = substType(a.Type, sub)
			}
		}
	}
	for i, e := range op.Attrs {
		switch a := e.Value.(type) {
		case OffsetsAttr:
			n := OffsetsAttr{Dims: a.Dims}
			for _, o := range a.Offsets {
				n.Offsets = append(n.Offsets, sub(o))
			}
			op.Attrs[i].Value = n
		case DomainAttr:
			n := DomainAttr{}
			for _, d := range a {
				n = append(n, Dim{Name: d.Name, Interval: sizeexpr.Span(sub(d.Lo), sub(d.Hi))})
			}
			op.Attrs[i].Value = n
		case ViewAttr:
			n := ViewAttr{Dims: a.Dims}
			for _, x := range a.Exprs {
				n.Exprs = append(n.Exprs, sub(x))
			}
			op.Attrs[i].Value = n
		case SizeAttr:
			op.Attrs[i].Value = sizeConstantAttr(sub(a.Expr))
		case IntervalsAttr:
			n := IntervalsAttr{}
			for _, iv := range a {
				n = append(n, sizeexpr.Span(sub(iv.Lo), sub(iv.Hi)))
			}
			op.Attrs[i].Value = n
		}
	}
}

func substType(t ir.Type, sub func(sizeexpr.Expr) sizeexpr.Expr) ir.Type {
	tt, ok := AsTensor(t)
	if !ok {
		return t
	}
	n := TensorType{Elem: tt.Elem}
	for _, d := range tt.Dims {
		n.Dims = append(n.Dims, Dim{Name: d.Name, Interval: sizeexpr.Span(sub(d.Lo), sub(d.Hi))})
	}
	return n
}

// enclosingFunc is the tir.func an op is in (nil outside one).
func enclosingFunc(op *ir.Operation) *ir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name == "tir.func" {
			return p
		}
	}
	return nil
}

// maxInlineRounds bounds inlining so a recursive call chain is an error
// instead of a hang.
const maxInlineRounds = 64

// InlineAll inlines every tir.call of m, callees' calls included, until
// none is left (tir-inline; --emit=extents analyzes an inlined copy).
func InlineAll(m *ir.Module) error { return InlineCalls(m, m.Op) }

// InlineCalls inlines every tir.call inside root (a function, possibly not
// yet in m, or the whole module), callees' calls included, the callees
// looked up in m. A recursive call chain is an error after
// maxInlineRounds rounds instead of a hang.
func InlineCalls(m *ir.Module, root *ir.Operation) error {
	for round := 0; ; round++ {
		var calls []*ir.Operation
		root.Walk(func(o *ir.Operation) bool {
			if o.Is(Call) {
				calls = append(calls, o)
			}
			return true
		})
		if len(calls) == 0 {
			return nil
		}
		if round == maxInlineRounds {
			return ir.Errorf(calls[0].Loc, "calls are still left after %d rounds of inlining (a recursive function cannot be inlined)", maxInlineRounds)
		}
		for _, c := range calls {
			callee := m.Lookup(Callee(c))
			if callee == nil {
				return ir.Errorf(c.Loc, "call to unknown function @%s", Callee(c))
			}
			rw := &ir.Rewriter{Root: c.ParentOp()}
			for rw.Root.ParentOp() != nil && !rw.Root.Is(Func) {
				rw.Root = rw.Root.ParentOp()
			}
			if err := InlineCall(c, callee, rw); err != nil {
				return err
			}
		}
	}
}
