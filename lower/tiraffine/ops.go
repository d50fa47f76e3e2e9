package tiraffine

import (
	"strconv"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// opLowering evaluates one tir op at a point. The table is the whole
// description of how each op lowers; elementwise ops without an entry go
// through lowerElementwise.
type opLowering func(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error)

var opLowerings map[string]opLowering

func init() {
	opLowerings = map[string]opLowering{
		"tir.constant":     lowerConstant,
		"tir.shift":        lowerShift,
		"tir.select":       lowerSelect,
		"tir.cast":         lowerCast,
		"tir.make_tuple":   lowerMakeTuple,
		"tir.tuple_get":    lowerTupleGet,
		"tir.view":         lowerView,
		"tir.subset":       lowerSame,
		"tir.assume_shape": lowerSame,
		"tir.broadcast":    lowerSame,
		"tir.pos":          lowerPos,
		"tir.can_deref":    lowerCanDeref,
		"tir.gather":       lowerGather,
		"tir.reduce":       lowerReduce,
		"tir.concat":       lowerConcat,
		"tir.call": func(_ *evaluator, op *ir.Operation, _ tir.TensorType, _ point) (scalar, error) {
			return scalar{}, ir.Errorf(op.Loc, "tir.call must be inlined before lowering (run tir-inline)")
		},
	}
}

func constantLeaves(a ir.Attribute, t ir.Type) []ir.Attribute {
	if arr, ok := a.(ir.ArrayAttr); ok {
		tt, _ := t.(ir.TupleType)
		var out []ir.Attribute
		for i, e := range arr {
			var et ir.Type
			if i < len(tt.Elems) {
				et = tt.Elems[i]
			}
			out = append(out, constantLeaves(e, et)...)
		}
		return out
	}
	return []ir.Attribute{a}
}

func lowerConstant(ev *evaluator, op *ir.Operation, t tir.TensorType, _ point) (scalar, error) {
	vals := constantLeaves(op.Attr("value"), t.Elem)
	types := leaves(t.Elem)
	var s scalar
	for i, a := range vals {
		s.parts = append(s.parts, ev.fl.constant(a, types[i]))
	}
	return s, nil
}

func lowerShift(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	offs, _ := op.Attr("offsets").(tir.OffsetsAttr)
	q := point{}
	for d, e := range pt {
		q[d] = sizeexpr.Add(e, offs.Offset(d))
	}
	return ev.at(op.Operands[0], q)
}

func lowerSame(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	return ev.at(op.Operands[0], pt)
}

func lowerElementwise(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	var args []*ir.Value
	var masks []*ir.Value
	for _, o := range op.Operands {
		a, m, err := ev.single(o, pt)
		if err != nil {
			return scalar{}, err
		}
		// A float constant of another type converts at compile time.
		if ot, _ := tir.AsTensor(o.Type); !ir.TypeEqual(ot.Elem, t.Elem) && op.Name != "tir.cmp" {
			if d := o.DefiningOp(); d != nil && d.Name == "tir.constant" && ir.IsFloat(ot.Elem) {
				a = ev.fl.constant(d.Attr("value"), t.Elem)
			}
		}
		args = append(args, a)
		masks = append(masks, m)
	}
	if op.Name == "tir.cmp" {
		// Compare in the operands' common type.
		if ir.IsFloat(args[0].Type) && ir.IsFloat(args[1].Type) && !ir.TypeEqual(args[0].Type, args[1].Type) {
			for i, o := range op.Operands {
				if d := o.DefiningOp(); d != nil && d.Name == "tir.constant" {
					args[i] = ev.fl.constant(d.Attr("value"), args[1-i].Type)
				}
			}
		}
	}
	r, err := scalarOp(ev.b, op, args, t.Elem)
	if err != nil {
		return scalar{}, err
	}
	return scalar{parts: []*ir.Value{r}, mask: ev.orMask(masks...)}, nil
}

func (ev *evaluator) falseConst() *ir.Value {
	return ev.fl.constant(ir.IntegerAttr{Value: 0, Type: ir.I1}, ir.I1)
}

func (ev *evaluator) trueConst() *ir.Value {
	return ev.fl.constant(ir.IntegerAttr{Value: 1, Type: ir.I1}, ir.I1)
}

// lowerSelect: masked only where the chosen branch is masked.
func lowerSelect(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	c, cm, err := ev.single(op.Operands[0], pt)
	if err != nil {
		return scalar{}, err
	}
	a, err := ev.at(op.Operands[1], pt)
	if err != nil {
		return scalar{}, err
	}
	b, err := ev.at(op.Operands[2], pt)
	if err != nil {
		return scalar{}, err
	}
	types := leaves(t.Elem)
	var s scalar
	for i := range a.parts {
		x, y := a.parts[i], b.parts[i]
		if !ir.TypeEqual(x.Type, types[i]) {
			x = ev.fl.constant(op.Operands[1].DefiningOp().Attr("value"), types[i])
		}
		if !ir.TypeEqual(y.Type, types[i]) {
			y = ev.fl.constant(op.Operands[2].DefiningOp().Attr("value"), types[i])
		}
		s.parts = append(s.parts, ev.b.value("arith.select", []*ir.Value{c, x, y}, types[i], nil))
	}
	if a.mask != nil || b.mask != nil {
		ma, mb := a.mask, b.mask
		if ma == nil {
			ma = ev.falseConst()
		}
		if mb == nil {
			mb = ev.falseConst()
		}
		s.mask = ev.b.value("arith.select", []*ir.Value{c, ma, mb}, ir.I1, nil)
	}
	s.mask = ev.orMask(cm, s.mask)
	return s, nil
}

func lowerCast(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	x, m, err := ev.single(op.Operands[0], pt)
	if err != nil {
		return scalar{}, err
	}
	r, err := convert(ev, x, t.Elem)
	if err != nil {
		return scalar{}, ir.Errorf(op.Loc, "%v", err)
	}
	return scalar{parts: []*ir.Value{r}, mask: m}, nil
}

// convert changes a scalar's type with C's conversion rules (float to
// integer truncates toward zero; i1 converts as 0 or 1).
func convert(ev *evaluator, x *ir.Value, to ir.Type) (*ir.Value, error) {
	from := x.Type
	b := ev.b
	if ir.TypeEqual(from, to) {
		return x, nil
	}
	if it, ok := from.(ir.IntegerType); ok && it.Width == 1 {
		one, zero := ev.fl.constant(ir.IntegerAttr{Value: 1, Type: to}, to), ev.fl.constant(ir.IntegerAttr{Value: 0, Type: to}, to)
		return b.value("arith.select", []*ir.Value{x, one, zero}, to, nil), nil
	}
	if it, ok := to.(ir.IntegerType); ok && it.Width == 1 {
		zero := ev.fl.constant(ir.IntegerAttr{Value: 0, Type: from}, from)
		if ir.IsFloat(from) {
			return b.value("arith.cmpf", []*ir.Value{x, zero}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: 13, Type: ir.I64})), nil
		}
		return b.value("arith.cmpi", []*ir.Value{x, zero}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: 1, Type: ir.I64})), nil
	}
	switch f := from.(type) {
	case ir.FloatType:
		switch tt := to.(type) {
		case ir.FloatType:
			if tt.Bits() > f.Bits() {
				return b.value("arith.extf", []*ir.Value{x}, to, nil), nil
			}
			return b.value("arith.truncf", []*ir.Value{x}, to, nil), nil
		case ir.IntegerType:
			return b.value("arith.fptosi", []*ir.Value{x}, to, nil), nil
		}
	case ir.IntegerType:
		switch tt := to.(type) {
		case ir.FloatType:
			return b.value("arith.sitofp", []*ir.Value{x}, to, nil), nil
		case ir.IntegerType:
			if tt.Width > f.Width {
				return b.value("arith.extsi", []*ir.Value{x}, to, nil), nil
			}
			return b.value("arith.trunci", []*ir.Value{x}, to, nil), nil
		}
	}
	return nil, errorString("cannot convert " + from.String() + " to " + to.String())
}

func lowerMakeTuple(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	var s scalar
	var masks []*ir.Value
	for _, o := range op.Operands {
		x, err := ev.at(o, pt)
		if err != nil {
			return scalar{}, err
		}
		s.parts = append(s.parts, x.parts...)
		masks = append(masks, x.mask)
	}
	s.mask = ev.orMask(masks...)
	return s, nil
}

func lowerTupleGet(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	x, err := ev.at(op.Operands[0], pt)
	if err != nil {
		return scalar{}, err
	}
	tt, _ := tir.AsTensor(op.Operands[0].Type)
	tup := tt.Elem.(ir.TupleType)
	start := 0
	idx := tir.TupleIndex(op)
	for i := 0; i < idx; i++ {
		start += len(leaves(tup.Elems[i]))
	}
	n := len(leaves(tup.Elems[idx]))
	return scalar{parts: x.parts[start : start+n], mask: x.mask}, nil
}

func lowerView(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	m, _ := op.Attr("map").(tir.ViewAttr)
	q := point{}
	for i, d := range m.Dims {
		q[d] = m.Exprs[i].Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			if v.Kind != sizeexpr.DimVar {
				return sizeexpr.Expr{}, false
			}
			x, ok := pt[v.Name]
			return x, ok
		})
	}
	return ev.at(op.Operands[0], q)
}

func lowerPos(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	idx := ev.index(pt[tir.DimAttr(op)])
	return scalar{parts: []*ir.Value{ev.b.value("arith.index_cast", []*ir.Value{idx}, ir.I64, nil)}}, nil
}

func lowerCanDeref(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	x, err := ev.at(op.Operands[0], pt)
	if err != nil {
		return scalar{}, err
	}
	if x.mask == nil {
		return scalar{parts: []*ir.Value{ev.trueConst()}}, nil
	}
	return scalar{parts: []*ir.Value{ev.b.value("arith.xori", []*ir.Value{x.mask, ev.trueConst()}, ir.I1, nil)}}, nil
}

// lowerGather loads the table entry, masks it when it falls outside the
// gathered interval, clamps it so the read stays in bounds, and evaluates
// the operand at that data-dependent coordinate.
func lowerGather(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	dim := tir.DimAttr(op)
	tv, tmask, err := ev.single(op.Operands[1], pt)
	if err != nil {
		return scalar{}, err
	}
	xt, _ := tir.AsTensor(op.Operands[0].Type)
	d, _ := xt.Dim(dim)
	b := ev.b
	idx := b.value("arith.index_cast", []*ir.Value{tv}, ir.Index, nil)
	lo, hi := ev.index(d.Lo), ev.index(d.Hi)
	pred := func(p int64, x, y *ir.Value) *ir.Value {
		return b.value("arith.cmpi", []*ir.Value{x, y}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: p, Type: ir.I64}))
	}
	inRange := b.value("arith.andi", []*ir.Value{pred(5, idx, lo), pred(2, idx, hi)}, ir.I1, nil)
	safe := b.value("arith.select", []*ir.Value{inRange, idx, lo}, ir.Index, nil)
	name := "g" + strconv.Itoa(len(ev.nest.ivs))
	ev.nest.ivs[name] = safe
	ev.nest.dynamic[name] = true
	q := point{}
	for k, e := range pt {
		q[k] = e
	}
	q[dim] = sizeexpr.Dim(name, 1000+len(ev.nest.ivs))
	x, err := ev.at(op.Operands[0], q)
	if err != nil {
		return scalar{}, err
	}
	masked := b.value("arith.xori", []*ir.Value{inRange, ev.trueConst()}, ir.I1, nil)
	x.mask = ev.orMask(x.mask, tmask, masked)
	return x, nil
}

// lowerConcat picks the piece whose interval holds the point with scf.if,
// so no piece is read outside its domain.
func lowerConcat(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	dim := tir.DimAttr(op)
	return ev.concatFrom(op, op.Operands, t, pt, dim)
}

func (ev *evaluator) concatFrom(op *ir.Operation, pieces []*ir.Value, t tir.TensorType, pt point, dim string) (scalar, error) {
	if len(pieces) == 1 {
		return ev.at(pieces[0], pt)
	}
	first, _ := tir.AsTensor(pieces[0].Type)
	d, _ := first.Dim(dim)
	x := ev.index(pt[dim])
	cond := ev.b.value("arith.cmpi", []*ir.Value{x, ev.index(d.Hi)}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: 2, Type: ir.I64}))
	types := leaves(t.Elem)
	ifOp := ev.b.op("scf.if", []*ir.Value{cond}, append(append([]ir.Type(nil), types...), ir.I1), nil)
	thenB := builder{block: ifOp.AddRegion().AddBlock(), loc: ev.b.loc}
	elseB := builder{block: ifOp.AddRegion().AddBlock(), loc: ev.b.loc}
	branch := func(b builder, eval func(*evaluator) (scalar, error)) error {
		c := ev.child(b)
		s, err := eval(c)
		if err != nil {
			return err
		}
		m := s.mask
		if m == nil {
			m = ev.falseConst()
		}
		b.op("scf.yield", append(append([]*ir.Value(nil), s.parts...), m), nil, nil)
		return nil
	}
	if err := branch(thenB, func(c *evaluator) (scalar, error) { return c.at(pieces[0], pt) }); err != nil {
		return scalar{}, err
	}
	if err := branch(elseB, func(c *evaluator) (scalar, error) { return c.concatFrom(op, pieces[1:], t, pt, dim) }); err != nil {
		return scalar{}, err
	}
	n := len(types)
	return scalar{parts: ifOp.Results[:n], mask: ifOp.Results[n]}, nil
}
