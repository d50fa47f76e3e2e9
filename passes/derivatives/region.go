package derivatives

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Add implements tir.DerivativeBuilder.
func (b *builder) Add(x, y *ir.Value) (*ir.Value, error) { return b.add(x, y) }

// rebuild builds a block's ops again at the current point, its arguments
// bound to args and its types inferred again; it returns the new ops and
// the value the block yields (or the new value of of, when not nil).
func (b *builder) rebuild(body *ir.Block, args []*ir.Value, of *ir.Value) ([]*ir.Operation, *ir.Value, error) {
	m := map[*ir.Value]*ir.Value{}
	for i, a := range body.Args {
		m[a] = args[i]
	}
	start := len(b.block.Ops)
	y, err := b.rebuildInto(body, m, of)
	if err != nil {
		return nil, nil, err
	}
	return b.block.Ops[start:], y, nil
}

// rebuildInto builds body's ops at the end of b's block, each operand read
// through m (a value the body does not define stands for itself), which
// it extends with the values it builds; it returns the new value of of, or
// of what the body yields. An op with a body (a fold or a scan inside a
// step) is built again with its body, whose arguments take the types the
// new operands give them; a view or assume_shape, whose result type is
// written, gets the dimensions the new operand has beyond the old one.
func (b *builder) rebuildInto(body *ir.Block, m map[*ir.Value]*ir.Value, of *ir.Value) (*ir.Value, error) {
	at := func(v *ir.Value) *ir.Value {
		if n, ok := m[v]; ok {
			return n
		}
		return v
	}
	for _, op := range body.Ops {
		if op.Is(tir.Yield) {
			if of == nil {
				of = op.Operands[0]
			}
			return at(of), nil
		}
		k := tir.OpOf(op)
		if k == nil || len(op.Regions) > 0 && !op.Is(tir.Scan, tir.Reduce) {
			return nil, tir.NotDifferentiableYet(op, "this op in a scan's body is not handled yet")
		}
		operands := make([]*ir.Value, len(op.Operands))
		for i, v := range op.Operands {
			operands[i] = at(v)
		}
		var result ir.Type
		attrs := op.Attrs
		switch {
		case op.Is(tir.Cast):
			t, _ := tir.AsTensor(op.Results[0].Type)
			result = t
		case op.Is(tir.View, tir.AssumeShape):
			var extra []string
			result, extra = widened(op, operands[0])
			if vm, ok := op.Attr(tir.AttrMap).(tir.ViewAttr); ok && len(extra) > 0 {
				// The new dimensions map to themselves.
				vm = tir.ViewAttr{Dims: append([]string(nil), vm.Dims...), Exprs: append([]sizeexpr.Expr(nil), vm.Exprs...)}
				for _, d := range extra {
					vm.Dims = append(vm.Dims, d)
					vm.Exprs = append(vm.Exprs, tir.DimVar(d))
				}
				attrs = attrs.With(tir.AttrMap, vm)
			}
		}
		b.loc = op.Loc
		var r *ir.Value
		var err error
		if len(op.Regions) > 0 {
			r, err = b.rebuildRegionOp(k, op, operands, m)
		} else {
			r, err = b.Build(k, operands, attrs, result)
		}
		if err != nil {
			return nil, err
		}
		r.NameHint = op.Results[0].NameHint
		m[op.Results[0]] = r
	}
	return nil, ir.Errorf(body.ParentOp().Loc, "tir-derivatives: a body without tir.yield")
}

// widened is the result type of a view or assume_shape of x, which has
// the dimensions of the op's old operand and maybe others (a body built
// again over whole tensors): the old result type, with each dimension x
// has beyond the old operand's added as x has it; extra names them (a
// view maps them to themselves).
func widened(op *ir.Operation, x *ir.Value) (ir.Type, []string) {
	rt, _ := tir.AsTensor(op.Results[0].Type)
	ot, _ := tir.AsTensor(op.Operands[0].Type)
	out := tir.TensorType{Elem: rt.Elem, Dims: append([]tir.Dim(nil), rt.Dims...)}
	var extra []string
	for _, d := range tensorType(x).Dims {
		if ot.Find(d.Name) < 0 && out.Find(d.Name) < 0 {
			out.Dims = append(out.Dims, d)
			extra = append(extra, d.Name)
		}
	}
	return out, extra
}

// rebuildRegionOp builds a scan or a region reduce again over operands,
// its body built again inside it with the arguments its new operands
// give it (the state, each input without the dimensions it runs along).
func (b *builder) rebuildRegionOp(k *tir.Op, op *ir.Operation, operands []*ir.Value, m map[*ir.Value]*ir.Value) (*ir.Value, error) {
	n := ir.NewOpOf(k, op.Loc, operands, []ir.Type{nil}, op.Attrs)
	region := n.AddRegion() // a reduce with a region reads its operands as init, ins
	ts, err := k.Infer(n)
	if err != nil {
		return nil, err
	}
	n.SetResultTypes(ts)
	rt := tensorType(n.Results[0])
	state, drop := rt, tir.ReduceDims(op)
	if op.Is(tir.Scan) {
		drop = []string{tir.DimAttr(op)}
		state = dropDim(rt, drop[0])
	}
	argTypes := []ir.Type{state}
	for _, v := range operands[1:] {
		t := tensorType(v)
		for _, d := range drop {
			t = dropDim(t, d)
		}
		argTypes = append(argTypes, t)
	}
	old := op.Regions[0].Entry()
	block := region.AddBlock(argTypes...)
	for i, a := range old.Args {
		block.Args[i].NameHint = a.NameHint
		m[a] = block.Args[i]
	}
	inner := newBuilder(block)
	inner.loc = op.Loc
	y, err := inner.rebuildInto(old, m, nil)
	if err != nil {
		return nil, err
	}
	block.Append(ir.NewOpOf(tir.Yield, op.Loc, []*ir.Value{y}, nil, nil))
	b.block.Append(n)
	return n.Results[0], nil
}

// BodyTangent implements tir.DerivativeBuilder.
func (b *builder) BodyTangent(body *ir.Block, args, dargs []*ir.Value, of *ir.Value) (*ir.Value, *ir.Value, error) {
	loc := b.loc
	defer func() { b.loc = loc }()
	ops, y, err := b.rebuild(body, args, of)
	if err != nil {
		return nil, nil, err
	}
	tangent := map[*ir.Value]*ir.Value{}
	for i, a := range args {
		if dargs[i] != nil {
			tangent[a] = dargs[i]
		}
	}
	for _, op := range ops {
		if err := tangentOf(b, op, tangent); err != nil {
			return nil, nil, err
		}
	}
	return y, tangent[y], nil
}

// BodyAdjoint implements tir.DerivativeBuilder.
func (b *builder) BodyAdjoint(body *ir.Block, args []*ir.Value, dy *ir.Value, need []bool, of *ir.Value) ([]*ir.Value, error) {
	return b.bodyAdjoint(body, args, dy, need, of, nil)
}

// BodyAdjointKnown implements tir.DerivativeBuilder.
func (b *builder) BodyAdjointKnown(body *ir.Block, args []*ir.Value, known, dy *ir.Value, need []bool) ([]*ir.Value, error) {
	return b.bodyAdjoint(body, args, dy, need, nil, known)
}

func (b *builder) bodyAdjoint(body *ir.Block, args []*ir.Value, dy *ir.Value, need []bool, of, known *ir.Value) ([]*ir.Value, error) {
	loc := b.loc
	defer func() { b.loc = loc }()
	ops, y, err := b.rebuild(body, args, of)
	if err != nil {
		return nil, err
	}
	if known != nil {
		defer b.readKnown(ops, y, known)
	}
	a := newAdjoint(b)
	for i, x := range args {
		a.varied[x] = a.varied[x] || need[i] && isDiff(x.Type)
	}
	a.markVaried(ops)
	out := make([]*ir.Value, len(args))
	if dy == nil || !a.varied[y] {
		return out, nil
	}
	if err := a.contribute(y, dy); err != nil {
		return nil, err
	}
	if err := a.sweep(ops); err != nil {
		return nil, err
	}
	// A value bound to several arguments (ins(%x, %x)) gets its whole
	// cotangent once, at the first of them.
	given := map[*ir.Value]bool{}
	for i, x := range args {
		if need[i] && !given[x] {
			given[x] = true
			if out[i], err = a.total(x); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// readKnown makes the uses of y, a value the ops built again compute, read
// known instead; when y is made by tir.make_tuple, its components are read
// from known's (a tir.tuple_get at the start of the block, known being
// one of its arguments or defined before). A value of another type (a
// domain inferred otherwise) is left as it is.
func (b *builder) readKnown(ops []*ir.Operation, y, known *ir.Value) {
	built := map[*ir.Operation]bool{}
	for _, op := range ops {
		built[op] = true
	}
	parent := b.block.ParentOp()
	at := 0
	if d := known.DefiningOp(); d != nil {
		if at = b.block.IndexOf(d) + 1; at <= 0 {
			return
		}
	}
	var visit func(y, known *ir.Value)
	visit = func(y, known *ir.Value) {
		d := y.DefiningOp()
		if d == nil || !built[d] || !ir.TypeEqual(y.Type, known.Type) {
			return
		}
		if !d.Is(tir.MakeTuple) {
			ir.ReplaceAllUsesWith(parent, y, known)
			return
		}
		for i, x := range d.Operands {
			get := ir.NewOpOf(tir.TupleGet, b.loc, []*ir.Value{known}, []ir.Type{nil}, ir.DictAttr{}.With(tir.AttrIndex, ir.IntegerAttr{Value: int64(i), Type: ir.I64}))
			ts, err := tir.TupleGet.Infer(get)
			if err != nil {
				return
			}
			get.SetResultTypes(ts)
			b.block.InsertAt(at, get)
			at++
			visit(x, get.Results[0])
		}
	}
	visit(y, known)
}

// BuildScan implements tir.DerivativeBuilder.
func (b *builder) BuildScan(init *ir.Value, ins []*ir.Value, attrs ir.DictAttr, step func(tir.DerivativeBuilder, []*ir.Value) (*ir.Value, error)) (*ir.Value, error) {
	op := ir.NewOpOf(tir.Scan, b.loc, append([]*ir.Value{init}, ins...), []ir.Type{nil}, attrs)
	ts, err := tir.Scan.Infer(op)
	if err != nil {
		return nil, err
	}
	op.SetResultTypes(ts)
	dim := tir.DimAttr(op)
	rt, _ := tir.AsTensor(ts[0])
	state := dropDim(rt, dim)
	argTypes := []ir.Type{state}
	for _, v := range ins {
		argTypes = append(argTypes, dropDim(tensorType(v), dim))
	}
	block := op.AddRegion().AddBlock(argTypes...)
	inner := newBuilder(block)
	inner.loc = b.loc
	next, err := step(inner, block.Args)
	if err != nil {
		return nil, err
	}
	if next, err = inner.Fit(next, state); err != nil {
		return nil, err
	}
	block.Append(ir.NewOpOf(tir.Yield, b.loc, []*ir.Value{next}, nil, nil))
	b.block.Append(op)
	return op.Results[0], nil
}

// dropDim is t without the named dimension.
func dropDim(t tir.TensorType, dim string) tir.TensorType {
	out := tir.TensorType{Elem: t.Elem}
	for _, d := range t.Dims {
		if d.Name != dim {
			out.Dims = append(out.Dims, d)
		}
	}
	return out
}
