package derivatives

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// builder appends ops at the end of the derivative function's body; it is
// the tir.DerivativeBuilder the rules build through. Every op it makes
// carries the location of the op being differentiated (loc), so an error
// in a rule points at the source.
type builder struct {
	block  *ir.Block
	loc    ir.Location
	consts map[string]*ir.Value
}

func newBuilder(block *ir.Block) *builder {
	return &builder{block: block, consts: map[string]*ir.Value{}}
}

// Build implements tir.DerivativeBuilder.
func (b *builder) Build(k *tir.Op, operands []*ir.Value, attrs ir.DictAttr, result ir.Type) (*ir.Value, error) {
	op := ir.NewOpOf(k, b.loc, operands, []ir.Type{result}, attrs)
	ts, err := k.Infer(op)
	if err != nil {
		return nil, err
	}
	op.SetResultTypes(ts)
	b.block.Append(op)
	return op.Results[0], nil
}

// Const implements tir.DerivativeBuilder; one constant per element type
// and value serves the whole function.
func (b *builder) Const(elem ir.Type, x float64) *ir.Value {
	key := fmt.Sprintf("%s %v", elem, x)
	if v, ok := b.consts[key]; ok {
		return v
	}
	op := ir.NewOpOf(tir.Constant, b.loc, nil, []ir.Type{tir.Scalar(elem)}, ir.DictAttr{}.With(tir.AttrValue, constAttr(elem, x)))
	b.block.Append(op)
	b.consts[key] = op.Results[0]
	return op.Results[0]
}

func constAttr(elem ir.Type, x float64) ir.Attribute {
	switch t := elem.(type) {
	case ir.FloatType:
		return ir.FloatAttr{Value: x, Type: elem}
	case ir.IntegerType:
		return ir.IntegerAttr{Value: int64(x), Type: elem}
	case ir.TupleType:
		var a ir.ArrayAttr
		for _, e := range t.Elems {
			if ir.IsInteger(e) {
				a = append(a, constAttr(e, 0))
			} else {
				a = append(a, constAttr(e, x))
			}
		}
		return a
	}
	return nil
}

func tensorType(v *ir.Value) tir.TensorType {
	t, _ := tir.AsTensor(v.Type)
	return t
}

// Fit implements tir.DerivativeBuilder.
func (b *builder) Fit(v *ir.Value, t tir.TensorType) (*ir.Value, error) {
	vt := tensorType(v)
	var extra []string
	for _, d := range vt.Dims {
		if t.Find(d.Name) < 0 {
			extra = append(extra, d.Name)
		}
	}
	var err error
	if len(extra) > 0 {
		if v, err = b.sum(v, extra); err != nil {
			return nil, err
		}
	}
	for _, td := range t.Dims {
		vd, ok := tensorType(v).Dim(td.Name)
		if !ok || vd.Interval.Equal(td.Interval) {
			continue
		}
		inner := vd.Interval
		if inside, _ := td.Contains(vd.Interval); !inside {
			inner = vd.Intersect(td.Interval)
			if !inner.Equal(vd.Interval) {
				v, err = b.Build(tir.Subset, []*ir.Value{v}, ir.DictAttr{}.With(tir.AttrBounds, tir.DomainAttr{{Name: td.Name, Interval: inner}}), nil)
				if err != nil {
					return nil, err
				}
			}
		}
		if v, err = b.pad(v, td.Name, inner, td.Interval); err != nil {
			return nil, err
		}
	}
	var missing tir.DomainAttr
	for _, td := range t.Dims {
		if tensorType(v).Find(td.Name) < 0 {
			missing = append(missing, td)
		}
	}
	if len(missing) > 0 {
		return b.Build(tir.Broadcast, []*ir.Value{v}, ir.DictAttr{}.With(tir.AttrDims, missing), nil)
	}
	return v, nil
}

// pad extends v, defined on inner along dim, with zeros to outer.
func (b *builder) pad(v *ir.Value, dim string, inner, outer sizeexpr.Interval) (*ir.Value, error) {
	vt := tensorType(v)
	zeros := func(iv sizeexpr.Interval) (*ir.Value, error) {
		dims := append(tir.DomainAttr(nil), vt.Dims...)
		dims[vt.Find(dim)].Interval = iv
		return b.Build(tir.Broadcast, []*ir.Value{b.Const(vt.Elem, 0)}, ir.DictAttr{}.With(tir.AttrDims, dims), nil)
	}
	var pieces []*ir.Value
	if !sizeexpr.ProveEQ(outer.Lo, inner.Lo) {
		z, err := zeros(sizeexpr.Span(outer.Lo, inner.Lo))
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, z)
	}
	pieces = append(pieces, v)
	if !sizeexpr.ProveEQ(inner.Hi, outer.Hi) {
		z, err := zeros(sizeexpr.Span(inner.Hi, outer.Hi))
		if err != nil {
			return nil, err
		}
		pieces = append(pieces, z)
	}
	if len(pieces) == 1 {
		return v, nil
	}
	return b.Build(tir.Concat, pieces, ir.DictAttr{}.With(tir.AttrDim, ir.StringAttr(dim)), nil)
}

// components splits a tuple value into its components (tuple_get).
func (b *builder) components(v *ir.Value, tt ir.TupleType) ([]*ir.Value, error) {
	parts := make([]*ir.Value, len(tt.Elems))
	for i := range tt.Elems {
		p, err := b.Build(tir.TupleGet, []*ir.Value{v}, ir.DictAttr{}.With(tir.AttrIndex, ir.IntegerAttr{Value: int64(i), Type: ir.I64}), nil)
		if err != nil {
			return nil, err
		}
		parts[i] = p
	}
	return parts, nil
}

// sum reduces v over dims with add (a tuple component by component).
func (b *builder) sum(v *ir.Value, dims []string) (*ir.Value, error) {
	if tt, ok := tensorType(v).Elem.(ir.TupleType); ok {
		parts, err := b.components(v, tt)
		if err != nil {
			return nil, err
		}
		for i, p := range parts {
			if parts[i], err = b.sum(p, dims); err != nil {
				return nil, err
			}
		}
		return b.Build(tir.MakeTuple, parts, nil, nil)
	}
	var names ir.ArrayAttr
	for _, d := range dims {
		names = append(names, ir.StringAttr(d))
	}
	return b.Build(tir.Reduce, []*ir.Value{v}, ir.DictAttr{}.With(tir.AttrKind, ir.StringAttr("add")).With(tir.AttrDims, names), nil)
}

// add sums two values of one element type (a tuple component by
// component).
func (b *builder) add(x, y *ir.Value) (*ir.Value, error) {
	if tt, ok := tensorType(x).Elem.(ir.TupleType); ok {
		xs, err := b.components(x, tt)
		if err != nil {
			return nil, err
		}
		ys, err := b.components(y, tt)
		if err != nil {
			return nil, err
		}
		for i := range xs {
			if xs[i], err = b.add(xs[i], ys[i]); err != nil {
				return nil, err
			}
		}
		return b.Build(tir.MakeTuple, xs, nil, nil)
	}
	return b.Build(tir.Add, []*ir.Value{x, y}, nil, nil)
}
