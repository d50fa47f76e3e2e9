package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// InlineCall replaces a tir.call by a copy of the callee's body: callee
// arguments become the call's operands, the callee's size symbols become
// the expressions unification bound them to, and a returned value larger
// than the callee's declared output is restricted to it with tir.subset.
func InlineCall(call, callee *ir.Operation, rw *ir.Rewriter) error {
	bind, err := Unify(call, callee, call.Operands)
	if err != nil {
		return err
	}
	sub := func(e sizeexpr.Expr) sizeexpr.Expr {
		return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			x, ok := bind[v.Name]
			return x, ok && v.Kind == sizeexpr.SymbolVar
		})
	}
	entry := callee.Regions[0].Entry()
	mapping := map[*ir.Value]*ir.Value{}
	for i, a := range entry.Args {
		mapping[a] = call.Operands[i]
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
			substOp(x, sub)
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
