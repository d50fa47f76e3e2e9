package tiraffine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// lowerPiecewise evaluates a tir.piecewise in the loop nest of its reader:
// one test of the point's coordinate per piece, in order (scf.if, or a
// select when neither arm computes anything), the else value in the last
// arm. No piece is evaluated at a level it does not supply, and nothing is
// copied: the pieces are fused like any other operand.
func lowerPiecewise(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	acc, ok := tir.AccessOf(op)
	if !ok {
		return scalar{}, ir.Errorf(op.Loc, "'%s' has no access rule", op.Name)
	}
	_, whole, pieces := tir.PiecewiseParts(op)
	return ev.choosePiece(op, acc, whole, pieces, t, pt)
}

func (ev *evaluator) choosePiece(op *ir.Operation, reads []tir.Read, whole sizeexpr.Interval, pieces tir.IntervalsAttr, t tir.TensorType, pt point) (scalar, error) {
	if len(pieces) == 0 {
		return ev.read(op, reads[0], pt)
	}
	dim := tir.DimAttr(op)
	p := pieces[0]
	x := ev.index(pt[dim])
	cmp := func(pred int64, a, b *ir.Value) *ir.Value {
		return ev.b.value(arith.CmpI, []*ir.Value{a, b}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: pred, Type: ir.I64}))
	}
	// The point is inside the whole interval: a bound of the piece that
	// reaches past it needs no test.
	var cond *ir.Value
	if !sizeexpr.ProveLE(p.Lo, whole.Lo) {
		cond = cmp(3, ev.index(p.Lo), x) // sle
	}
	if !sizeexpr.ProveGE(p.Hi, whole.Hi) {
		c := cmp(2, x, ev.index(p.Hi)) // slt
		if cond == nil {
			cond = c
		} else {
			cond = ev.b.value(arith.AndI, []*ir.Value{cond, c}, ir.I1, nil)
		}
	}
	if cond == nil {
		// The piece holds the whole interval: the others are never chosen.
		return ev.read(op, reads[0], pt)
	}
	return ev.branch(cond, leaves(t.Elem),
		func(c *evaluator) (scalar, error) { return c.read(op, reads[0], pt) },
		func(c *evaluator) (scalar, error) {
			return c.choosePiece(op, reads[1:], whole, pieces[1:], t, pt)
		})
}
