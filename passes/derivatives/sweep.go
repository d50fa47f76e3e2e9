package derivatives

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// inputsOf are the values an op reads: its operands, then the values its
// regions use from outside them.
func inputsOf(op *ir.Operation) []*ir.Value {
	ins := append([]*ir.Value(nil), op.Operands...)
	if len(op.Regions) == 0 {
		return ins
	}
	inside := map[*ir.Value]bool{}
	op.Walk(func(o *ir.Operation) bool {
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args {
					inside[a] = true
				}
			}
		}
		for _, r := range o.Results {
			inside[r] = true
		}
		return true
	})
	op.Walk(func(o *ir.Operation) bool {
		if o != op {
			for _, v := range o.Operands {
				if !inside[v] {
					ins = append(ins, v)
				}
			}
		}
		return true
	})
	return ins
}

// capturesAny reports whether op's regions read a value of the set from
// outside (a derivative the rule of its operands would not see).
func capturesAny(op *ir.Operation, set func(*ir.Value) bool) bool {
	for _, v := range inputsOf(op)[len(op.Operands):] {
		if set(v) {
			return true
		}
	}
	return false
}

// capturedWhy says why an op with a body that reads a differentiable
// value from outside is refused, naming a value that varies along a
// dimension the op's state lacks (the scanned one, one it reduces over):
// no step can take it as an input, which is how such values are
// differentiated.
func capturedWhy(op *ir.Operation, varied func(*ir.Value) bool) string {
	why := "its body reads a differentiable value from outside"
	rt, ok := tir.AsTensor(op.Results[0].Type)
	if !ok {
		return why
	}
	state := rt
	if op.Is(tir.Scan) {
		state = dropDim(rt, tir.DimAttr(op))
	}
	for _, v := range inputsOf(op)[len(op.Operands):] {
		vt, ok := tir.AsTensor(v.Type)
		if !ok || !varied(v) {
			continue
		}
		for _, d := range vt.Dims {
			if state.Find(d.Name) < 0 {
				name := "a value"
				if v.NameHint != "" {
					name = "%" + v.NameHint
				}
				return fmt.Sprintf("%s (%s, along %s, which its state lacks)", why, name, d.Name)
			}
		}
	}
	return why
}

// jvp builds @f_jvp: @f's computation, then the tangent of every value
// that depends on a differentiable argument, in program order.
func jvp(m *ir.Module, fn *ir.Operation) (*ir.Operation, error) {
	ft, _ := tir.FuncType(fn)
	d, outs, err := copyFunc(m, fn, ir.SymbolName(fn)+"_jvp")
	if err != nil {
		return nil, err
	}
	entry := d.Regions[0].Entry()
	tangent := map[*ir.Value]*ir.Value{}
	inputs := append([]ir.Type(nil), ft.Inputs...)
	for i, a := range append([]*ir.Value(nil), entry.Args...) {
		if isDiff(a.Type) {
			tangent[a] = entry.AddArg(a.Type, argName(a, fmt.Sprintf("d%d", i)))
			inputs = append(inputs, a.Type)
		}
	}
	b := newBuilder(entry)
	for _, op := range append([]*ir.Operation(nil), entry.Ops...) {
		if err := tangentOf(b, op, tangent); err != nil {
			return nil, err
		}
	}
	b.loc = fn.Loc
	rets := append([]*ir.Value(nil), outs...)
	results := append([]ir.Type(nil), ft.Results...)
	for j, v := range outs {
		if !isDiff(ft.Results[j]) {
			continue
		}
		rt, _ := tir.AsTensor(ft.Results[j])
		t := tangent[v]
		if t == nil {
			t = b.Const(rt.Elem, 0)
		}
		if t, err = b.Fit(t, rt); err != nil {
			return nil, err
		}
		rets = append(rets, t)
		results = append(results, ft.Results[j])
	}
	entry.Append(ir.NewOpOf(tir.Return, fn.Loc, rets, nil, nil))
	setSignature(d, inputs, results)
	removeDead(d)
	return d, nil
}

// tangentOf records the tangents of op's results.
func tangentOf(b *builder, op *ir.Operation, tangent map[*ir.Value]*ir.Value) error {
	diffResult := false
	for _, r := range op.Results {
		diffResult = diffResult || isDiff(r.Type)
	}
	if !diffResult {
		return nil
	}
	dx := make([]*ir.Value, len(op.Operands))
	varied := false
	for i, x := range op.Operands {
		if t := tangent[x]; t != nil && isDiff(x.Type) {
			dx[i], varied = t, true
		}
	}
	captured := capturesAny(op, func(v *ir.Value) bool { return tangent[v] != nil })
	if !varied && !captured {
		return nil
	}
	r, err := ruleOf(op)
	if err != nil {
		return err
	}
	if captured && len(op.Regions) > 0 {
		return tir.NotDifferentiableYet(op, capturedWhy(op, func(v *ir.Value) bool { return tangent[v] != nil }))
	}
	if r.Tangent == nil {
		return nil
	}
	b.loc = op.Loc
	dy, err := r.Tangent(b, tir.DerivativeOp{Op: op, X: op.Operands, Y: op.Results}, dx)
	if err != nil {
		return err
	}
	for i, t := range dy {
		if t == nil || i >= len(op.Results) || !isDiff(op.Results[i].Type) {
			continue
		}
		rt, _ := tir.AsTensor(op.Results[i].Type)
		if t, err = b.Fit(t, rt); err != nil {
			return err
		}
		if tir.MayBeMasked(op.Results[i]) {
			// 0 where the value is masked, as the value is skipped by
			// what reads it (an operand without a tangent does not
			// carry its mask into the sum of the others').
			ok, err := b.Build(tir.CanDeref, []*ir.Value{op.Results[i]}, nil, nil)
			if err != nil {
				return err
			}
			if t, err = b.Build(tir.Select, []*ir.Value{ok, t, b.Const(rt.Elem, 0)}, nil, nil); err != nil {
				return err
			}
		}
		if t.NameHint == "" {
			t.NameHint = argName(op.Results[i], "")
		}
		tangent[op.Results[i]] = t
	}
	return nil
}

// adjoint is a reverse sweep: the contributions to each value's
// cotangent, and which values depend on a differentiable input.
type adjoint struct {
	b        *builder
	contribs map[*ir.Value][]*ir.Value
	varied   map[*ir.Value]bool
}

func newAdjoint(b *builder) *adjoint {
	return &adjoint{b: b, contribs: map[*ir.Value][]*ir.Value{}, varied: map[*ir.Value]bool{}}
}

// markVaried records which results of ops depend on a varied value.
func (a *adjoint) markVaried(ops []*ir.Operation) {
	for _, op := range ops {
		v := false
		for _, x := range inputsOf(op) {
			v = v || a.varied[x]
		}
		for _, r := range op.Results {
			a.varied[r] = v && isDiff(r.Type)
		}
	}
}

// contribute adds a contribution to v's cotangent, fitted to v's domain.
func (a *adjoint) contribute(v, c *ir.Value) error {
	vt, _ := tir.AsTensor(v.Type)
	if tir.MayBeMasked(c) {
		// A contribution read from a masked value (the partial of a
		// product with a gathered factor) is 0 where it is masked: the
		// reduction that reads the product skipped that point.
		ok, err := a.b.Build(tir.CanDeref, []*ir.Value{c}, nil, nil)
		if err != nil {
			return err
		}
		if c, err = a.b.Build(tir.Select, []*ir.Value{ok, c, a.b.Const(vt.Elem, 0)}, nil, nil); err != nil {
			return err
		}
	}
	c, err := a.b.Fit(c, vt)
	if err != nil {
		return err
	}
	a.contribs[v] = append(a.contribs[v], c)
	return nil
}

// unmasked is g where v is not masked, 0 where it is.
func (a *adjoint) unmasked(v, g *ir.Value) (*ir.Value, error) {
	ok, err := a.b.Build(tir.CanDeref, []*ir.Value{v}, nil, nil)
	if err != nil {
		return nil, err
	}
	return a.b.Build(tir.Select, []*ir.Value{ok, g, a.b.Const(tensorType(g).Elem, 0)}, nil, nil)
}

// total is v's cotangent, the sum of its contributions (nil: none).
func (a *adjoint) total(v *ir.Value) (*ir.Value, error) {
	cs := a.contribs[v]
	if len(cs) == 0 {
		return nil, nil
	}
	s := cs[0]
	for _, c := range cs[1:] {
		var err error
		if s, err = a.b.add(s, c); err != nil {
			return nil, err
		}
	}
	if s.NameHint == "" {
		s.NameHint = argName(v, "")
	}
	a.contribs[v] = []*ir.Value{s}
	return s, nil
}

// sweep runs the ops' adjoint rules in reverse order.
func (a *adjoint) sweep(ops []*ir.Operation) error {
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		dy := make([]*ir.Value, len(op.Results))
		any := false
		for k, r := range op.Results {
			var err error
			if dy[k], err = a.total(r); err != nil {
				return err
			}
			if dy[k] != nil && tir.MayBeMasked(r) {
				// A masked point takes no part in what reads it (a
				// reduction skips it, a result holds 0 there): it has
				// no derivative to pass on.
				if dy[k], err = a.unmasked(r, dy[k]); err != nil {
					return err
				}
			}
			any = any || dy[k] != nil
		}
		if !any {
			continue
		}
		need := make([]bool, len(op.Operands))
		needAny := false
		for j, x := range op.Operands {
			need[j] = a.varied[x] && isDiff(x.Type)
			needAny = needAny || need[j]
		}
		captured := capturesAny(op, func(v *ir.Value) bool { return a.varied[v] })
		if !needAny && !captured {
			continue
		}
		r, err := ruleOf(op)
		if err != nil {
			return err
		}
		if captured && len(op.Regions) > 0 {
			return tir.NotDifferentiableYet(op, capturedWhy(op, func(v *ir.Value) bool { return a.varied[v] }))
		}
		if r.Adjoint == nil {
			continue
		}
		a.b.loc = op.Loc
		cs, err := r.Adjoint(a.b, tir.DerivativeOp{Op: op, X: op.Operands, Y: op.Results}, dy, need)
		if err != nil {
			return err
		}
		for j, c := range cs {
			if c != nil && j < len(need) && need[j] {
				if err := a.contribute(op.Operands[j], c); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// vjp builds @f_vjp: @f's computation, then the cotangents in reverse
// program order: each op's cotangent is the sum of what its readers
// contributed, each contribution fitted to the op's whole domain (zero
// where that reader does not read), and its rule contributes to its
// operands in turn.
func vjp(m *ir.Module, fn *ir.Operation) (*ir.Operation, error) {
	ft, _ := tir.FuncType(fn)
	d, outs, err := copyFunc(m, fn, ir.SymbolName(fn)+"_vjp")
	if err != nil {
		return nil, err
	}
	entry := d.Regions[0].Entry()
	args := append([]*ir.Value(nil), entry.Args...)
	ops := append([]*ir.Operation(nil), entry.Ops...)
	b := newBuilder(entry)
	b.loc = fn.Loc
	a := newAdjoint(b)
	for _, x := range args {
		a.varied[x] = isDiff(x.Type)
	}
	a.markVaried(ops)
	inputs := append([]ir.Type(nil), ft.Inputs...)
	for j, v := range outs {
		if !isDiff(ft.Results[j]) {
			continue
		}
		dr := entry.AddArg(ft.Results[j], argName(v, fmt.Sprintf("dr%d", j)))
		inputs = append(inputs, ft.Results[j])
		if a.varied[v] {
			if err := a.contribute(v, dr); err != nil {
				return nil, err
			}
		}
	}
	if err := a.sweep(ops); err != nil {
		return nil, err
	}
	b.loc = fn.Loc
	var rets []*ir.Value
	var results []ir.Type
	for _, x := range args {
		if !isDiff(x.Type) {
			continue
		}
		at, _ := tir.AsTensor(x.Type)
		c, err := a.total(x)
		if err != nil {
			return nil, err
		}
		if c == nil {
			if c, err = b.Fit(b.Const(at.Elem, 0), at); err != nil {
				return nil, err
			}
		}
		rets = append(rets, c)
		results = append(results, x.Type)
	}
	entry.Append(ir.NewOpOf(tir.Return, fn.Loc, rets, nil, nil))
	setSignature(d, inputs, results)
	removeDead(d)
	return d, nil
}
