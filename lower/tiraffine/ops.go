package tiraffine

import (
	"strconv"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// opLowering evaluates one tir op at a point. The table is the whole
// description of how each op lowers, by op value; the ops without an
// entry are lowered generically (eval.go's at): the ops that only move
// data through lowerAccess, the other elementwise ops through
// lowerElementwise (scalar.go). tir.func and its terminators, and the scans
// (computed into buffers first, scan.go), are not evaluated at a point. A
// test names any op of tir.Ops() that none of these covers.
type opLowering func(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error)

var opLowerings map[*tir.Op]opLowering

func init() {
	opLowerings = map[*tir.Op]opLowering{
		tir.Constant:  lowerConstant,
		tir.Select:    lowerSelect,
		tir.Cast:      lowerCast,
		tir.MakeTuple: lowerMakeTuple,
		tir.TupleGet:  lowerTupleGet,
		tir.Pos:       lowerPos,
		tir.CanDeref:  lowerCanDeref,
		tir.Reduce:    lowerReduce,
		tir.Iota:      lowerIota,
		tir.Compress:  lowerCompressed,
		tir.Piecewise: lowerPiecewise,
		tir.Call: func(_ *evaluator, op *ir.Operation, _ tir.TensorType, _ point) (scalar, error) {
			return scalar{}, ir.Errorf(op.Loc, "tir.call must be inlined before lowering (run tir-inline)")
		},
	}
}

// constantValue is the attribute of the tir.constant that defines v (a 0-d
// float constant of another type, converted where it is used).
func constantValue(v *ir.Value) ir.Attribute {
	return tir.ConstantOp{Operation: v.DefiningOp()}.Value()
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
	if e, ok := tir.SizeValue(op); ok {
		// A size expression: computed from the size symbols, as tir.pos
		// computes its index.
		return scalar{parts: []*ir.Value{ev.b.value(arith.IndexCast, []*ir.Value{ev.index(e)}, ir.I64, nil)}}, nil
	}
	vals := constantLeaves(tir.ConstantOp{Operation: op}.Value(), t.Elem)
	types := leaves(t.Elem)
	var s scalar
	for i, a := range vals {
		s.parts = append(s.parts, ev.fl.constant(a, types[i]))
	}
	return s, nil
}

func lowerElementwise(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	var args []*ir.Value
	var masks []*ir.Value
	operands := ev.fl.operandOrder(op)
	for _, o := range operands {
		a, m, err := ev.single(o, pt)
		if err != nil {
			return scalar{}, err
		}
		// A float constant of another type converts at compile time.
		if ot, _ := tir.AsTensor(o.Type); !ir.TypeEqual(ot.Elem, t.Elem) && !op.Is(tir.Cmp) {
			if d := o.DefiningOp(); d != nil && d.Is(tir.Constant) && ir.IsFloat(ot.Elem) {
				a = ev.fl.constant(tir.ConstantOp{Operation: d}.Value(), t.Elem)
			}
		}
		args = append(args, a)
		masks = append(masks, m)
	}
	if op.Is(tir.Cmp) {
		// Compare in the operands' common type.
		if ir.IsFloat(args[0].Type) && ir.IsFloat(args[1].Type) && !ir.TypeEqual(args[0].Type, args[1].Type) {
			for i, o := range operands {
				if d := o.DefiningOp(); d != nil && d.Is(tir.Constant) {
					args[i] = ev.fl.constant(tir.ConstantOp{Operation: d}.Value(), args[1-i].Type)
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
			x = ev.fl.constant(constantValue(op.Operands[1]), types[i])
		}
		if !ir.TypeEqual(y.Type, types[i]) {
			y = ev.fl.constant(constantValue(op.Operands[2]), types[i])
		}
		s.parts = append(s.parts, ev.b.value(arith.Select, []*ir.Value{c, x, y}, types[i], nil))
	}
	if a.mask != nil || b.mask != nil {
		ma, mb := a.mask, b.mask
		if ma == nil {
			ma = ev.falseConst()
		}
		if mb == nil {
			mb = ev.falseConst()
		}
		s.mask = ev.b.value(arith.Select, []*ir.Value{c, ma, mb}, ir.I1, nil)
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
		return b.value(arith.Select, []*ir.Value{x, one, zero}, to, nil), nil
	}
	if it, ok := to.(ir.IntegerType); ok && it.Width == 1 {
		zero := ev.fl.constant(ir.IntegerAttr{Value: 0, Type: from}, from)
		if ir.IsFloat(from) {
			// Not zero, and NaN is false (spec 2.7: NaN converts to 0):
			// ordered and not equal, cmpf one (6), not une (13).
			return b.value(arith.CmpF, []*ir.Value{x, zero}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: 6, Type: ir.I64})), nil
		}
		return b.value(arith.CmpI, []*ir.Value{x, zero}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: 1, Type: ir.I64})), nil
	}
	switch f := from.(type) {
	case ir.FloatType:
		switch tt := to.(type) {
		case ir.FloatType:
			if tt.Bits() > f.Bits() {
				return b.value(arith.ExtF, []*ir.Value{x}, to, nil), nil
			}
			return b.value(arith.TruncF, []*ir.Value{x}, to, nil), nil
		case ir.IntegerType:
			return b.value(arith.FPToSI, []*ir.Value{x}, to, nil), nil
		}
	case ir.IntegerType:
		switch tt := to.(type) {
		case ir.FloatType:
			return b.value(arith.SIToFP, []*ir.Value{x}, to, nil), nil
		case ir.IntegerType:
			if tt.Width > f.Width {
				return b.value(arith.ExtSI, []*ir.Value{x}, to, nil), nil
			}
			return b.value(arith.TruncI, []*ir.Value{x}, to, nil), nil
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

func lowerPos(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	idx := ev.index(pt[tir.DimAttr(op)])
	return scalar{parts: []*ir.Value{ev.b.value(arith.IndexCast, []*ir.Value{idx}, ir.I64, nil)}}, nil
}

func lowerCanDeref(ev *evaluator, op *ir.Operation, _ tir.TensorType, pt point) (scalar, error) {
	x, err := ev.at(op.Operands[0], pt)
	if err != nil {
		return scalar{}, err
	}
	if x.mask == nil {
		return scalar{parts: []*ir.Value{ev.trueConst()}}, nil
	}
	return scalar{parts: []*ir.Value{ev.b.value(arith.XOrI, []*ir.Value{x.mask, ev.trueConst()}, ir.I1, nil)}}, nil
}

// lowerAccess evaluates an op that only moves data (shift, view, subset,
// broadcast, assume_shape, gather, concat) through its access rule: the
// operand is evaluated at the point the rule names (the index maps
// compose), a gathered coordinate is loaded from the table, and a concat
// picks the piece whose interval holds the point.
func lowerAccess(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	acc, ok := tir.AccessOf(op)
	if !ok {
		return scalar{}, ir.Errorf(op.Loc, "'%s' has no access rule", op.Name)
	}
	tables := map[int]bool{}
	for _, r := range acc {
		if r.Gathered != "" {
			tables[r.Table] = true
		}
	}
	var reads []tir.Read
	for _, r := range acc {
		if !tables[r.Operand] {
			reads = append(reads, r)
		}
	}
	return ev.readPieces(op, reads, t, pt)
}

// readPieces evaluates the first read whose piece holds the point, testing
// the pieces in order with scf.if, so that no piece is read outside its
// domain.
func (ev *evaluator) readPieces(op *ir.Operation, reads []tir.Read, t tir.TensorType, pt point) (scalar, error) {
	r := reads[0]
	if len(reads) == 1 || r.Along == "" {
		return ev.read(op, r, pt)
	}
	if yes, known := ev.nest.below(pt[r.Along], r.Within.Hi); known {
		if yes {
			return ev.read(op, r, pt)
		}
		return ev.readPieces(op, reads[1:], t, pt)
	}
	x := ev.index(pt[r.Along])
	cond := ev.b.value(arith.CmpI, []*ir.Value{x, ev.index(r.Within.Hi)}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: 2, Type: ir.I64}))
	return ev.branch(cond, leaves(t.Elem),
		func(c *evaluator) (scalar, error) { return c.read(op, r, pt) },
		func(c *evaluator) (scalar, error) { return c.readPieces(op, reads[1:], t, pt) })
}

// read evaluates operand r.Operand at the point r reads. A gathered
// coordinate is the table entry, masked where it falls outside the
// operand and clamped so that the read stays inside; when the operand may
// be empty along it, the read is guarded (there is no element to clamp to).
func (ev *evaluator) read(op *ir.Operation, r tir.Read, pt point) (scalar, error) {
	q := point(r.Point(pt))
	x := op.Operands[r.Operand]
	if r.Gathered == "" {
		return ev.at(x, q)
	}
	tv, tmask, err := ev.single(op.Operands[r.Table], pt)
	if err != nil {
		return scalar{}, err
	}
	xt, _ := tir.AsTensor(x.Type)
	d, _ := xt.Dim(r.Gathered)
	b := ev.b
	idx := b.value(arith.IndexCast, []*ir.Value{tv}, ir.Index, nil)
	lo, hi := ev.index(d.Lo), ev.index(d.Hi)
	pred := func(p int64, x, y *ir.Value) *ir.Value {
		return b.value(arith.CmpI, []*ir.Value{x, y}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: p, Type: ir.I64}))
	}
	// lo <= idx < hi as one unsigned comparison, idx - lo < hi - lo: a
	// negative difference wraps to a huge one. The span is clamped at zero
	// unless provably positive, so that an empty interval admits nothing.
	off, span := idx, sizeexpr.Sub(d.Hi, d.Lo)
	if c, ok := d.Lo.Const(); !ok || c != 0 {
		off = b.value(arith.SubI, []*ir.Value{idx, lo}, ir.Index, nil)
	}
	if !sizeexpr.ProveGE(span, sizeexpr.Const(0)) {
		span = sizeexpr.Max(span, sizeexpr.Const(0))
	}
	inRange := pred(6, off, ev.index(sizeexpr.Simplify(span)))
	safe := b.value(arith.Select, []*ir.Value{inRange, idx, lo}, ir.Index, nil)
	name := "g" + strconv.Itoa(len(ev.nest.ivs))
	ev.nest.ivs[name] = safe
	ev.nest.dynamic[name] = true
	q[r.Gathered] = sizeexpr.Dim(name, 1000+len(ev.nest.ivs))
	masked := b.value(arith.XOrI, []*ir.Value{inRange, ev.trueConst()}, ir.I1, nil)
	var s scalar
	if sizeexpr.ProveGE(sizeexpr.Sub(d.Hi, d.Lo), sizeexpr.Const(1)) || ev.fl.ownsNonEmpty(x) {
		s, err = ev.at(x, q)
	} else {
		nonEmpty := pred(2, lo, hi)
		s, err = ev.branch(nonEmpty, leaves(xt.Elem),
			func(c *evaluator) (scalar, error) { return c.at(x, q) },
			func(c *evaluator) (scalar, error) { return c.zeros(xt.Elem), nil })
	}
	if err != nil {
		return scalar{}, err
	}
	s.mask = ev.orMask(s.mask, tmask, masked)
	return s, nil
}

// branch emits scf.if cond, evaluating then and otherwise in their own
// blocks; the result has the given leaf types, and a mask unless neither
// arm has one (a concat of pieces that cannot be masked).
func (ev *evaluator) branch(cond *ir.Value, types []ir.Type, then, otherwise func(*evaluator) (scalar, error)) (scalar, error) {
	ifOp := ev.b.op(scf.If, []*ir.Value{cond}, append(append([]ir.Type(nil), types...), ir.I1), nil)
	thenB := builder{block: ifOp.AddRegion().AddBlock(), loc: ev.b.loc}
	elseB := builder{block: ifOp.AddRegion().AddBlock(), loc: ev.b.loc}
	arms := []struct {
		b    builder
		eval func(*evaluator) (scalar, error)
		s    scalar
	}{{b: thenB, eval: then}, {b: elseB, eval: otherwise}}
	masked := false
	for i := range arms {
		s, err := arms[i].eval(ev.child(arms[i].b))
		if err != nil {
			return scalar{}, err
		}
		arms[i].s = s
		masked = masked || s.mask != nil
	}
	n := len(types)
	if len(thenB.block.Ops) == 0 && len(elseB.block.Ops) == 0 {
		// Neither arm computes anything (a constant piece and a state
		// the loop carries, as a concat below a scan's first step reads):
		// a select, which keeps the loop body one block.
		ev.b.block.Remove(ifOp)
		var s scalar
		for i, t := range types {
			s.parts = append(s.parts, ev.b.value(arith.Select, []*ir.Value{cond, arms[0].s.parts[i], arms[1].s.parts[i]}, t, nil))
		}
		if masked {
			m := func(x *ir.Value) *ir.Value {
				if x == nil {
					return ev.falseConst()
				}
				return x
			}
			s.mask = ev.b.value(arith.Select, []*ir.Value{cond, m(arms[0].s.mask), m(arms[1].s.mask)}, ir.I1, nil)
		}
		return s, nil
	}
	if !masked {
		ifOp.SetResultTypes(types)
	}
	for _, arm := range arms {
		vals := append([]*ir.Value(nil), arm.s.parts...)
		if masked {
			m := arm.s.mask
			if m == nil {
				m = ev.falseConst()
			}
			vals = append(vals, m)
		}
		arm.b.op(scf.Yield, vals, nil, nil)
	}
	if !masked {
		return scalar{parts: ifOp.Results[:n]}, nil
	}
	return scalar{parts: ifOp.Results[:n], mask: ifOp.Results[n]}, nil
}

// zeros is a masked value of element type elem (an element that does not
// exist).
func (ev *evaluator) zeros(elem ir.Type) scalar {
	s := scalar{mask: ev.trueConst()}
	for _, t := range leaves(elem) {
		var a ir.Attribute = ir.IntegerAttr{Value: 0, Type: t}
		if ir.IsFloat(t) {
			a = ir.FloatAttr{Value: 0, Type: t}
		}
		s.parts = append(s.parts, ev.fl.constant(a, t))
	}
	return s
}
