package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// A scatter-add written densely (the transpose of a gather, as the
// gather's adjoint rule writes it; a user can write it too):
//
//	%p = tir.pos D of %x              // D[lo:hi], maybe cast to the table's type
//	%h = tir.cmp eq %table, %p        // or %p, %table
//	%s = tir.select %h, %g, %zero     // %zero a constant 0
//	%r = tir.reduce add %s over [O1, ..., On]
//
// where the reduced dimensions are dimensions of the table (its others,
// such as a vertical K, are dimensions of the result too). Every point
// r(D = p) is the sum of g over the table entries equal to p, in row-major
// order of O1..On; an entry outside D's interval, or masked, matches
// nothing, and a masked g adds nothing. Lowerings may compute it in O(entries + points)
// through an inverse table instead of the O(points x entries) the dense
// form spells (lower/tiraffine/scatter.go).

// ScatterAdd is a reduction recognized as a scatter-add.
type ScatterAdd struct {
	// Reduce is the tir.reduce.
	Reduce *ir.Operation
	// Table holds the destination coordinate of each entry; the reduced
	// dimensions are among its dimensions.
	Table *ir.Value
	// Dim is the destination dimension (the tir.pos's), and Interval its
	// interval in the reduction's result.
	Dim      string
	Interval sizeexpr.Interval
	// Values is what is summed (the select's chosen operand).
	Values *ir.Value
	// Over are the reduced dimensions, in the reduction's order.
	Over []string
}

// ScatterAddOf recognizes a reduction that is a scatter-add written
// densely (see above).
func ScatterAddOf(op *ir.Operation) (ScatterAdd, bool) {
	if op == nil || !op.Is(Reduce) || ReduceKind(op) != "add" {
		return ScatterAdd{}, false
	}
	ins, init := ReduceOperands(op)
	if init != nil || len(ins) != 1 {
		return ScatterAdd{}, false
	}
	sel := ins[0].DefiningOp()
	if sel == nil || !sel.Is(Select) || !isZeroConstant(sel.Operands[2]) {
		return ScatterAdd{}, false
	}
	cmp := sel.Operands[0].DefiningOp()
	if cmp == nil || !cmp.Is(Cmp) || (CmpOp{cmp}).Predicate() != "eq" {
		return ScatterAdd{}, false
	}
	table, dim := cmp.Operands[0], coordinateDim(cmp.Operands[1])
	if dim == "" {
		table, dim = cmp.Operands[1], coordinateDim(cmp.Operands[0])
	}
	if dim == "" {
		return ScatterAdd{}, false
	}
	tt, ok := AsTensor(table.Type)
	if !ok || !ir.IsInteger(tt.Elem) || tt.Find(dim) >= 0 {
		return ScatterAdd{}, false
	}
	over := ReduceDims(op)
	for _, d := range over {
		if tt.Find(d) < 0 || d == dim {
			return ScatterAdd{}, false
		}
	}
	rt, ok := AsTensor(op.Results[0].Type)
	if !ok {
		return ScatterAdd{}, false
	}
	d, ok := rt.Dim(dim)
	if !ok {
		return ScatterAdd{}, false
	}
	gt, ok := AsTensor(sel.Operands[1].Type)
	if !ok || !ir.IsFloat(gt.Elem) && !ir.IsInteger(gt.Elem) {
		return ScatterAdd{}, false
	}
	return ScatterAdd{Reduce: op, Table: table, Dim: dim, Interval: d.Interval, Values: sel.Operands[1], Over: over}, true
}

// coordinateDim is D when v is `tir.pos D of ...`, possibly cast to an
// integer type of at least 32 bits (a coordinate that fits), else "".
func coordinateDim(v *ir.Value) string {
	op := v.DefiningOp()
	if op != nil && op.Is(Cast) {
		t, ok := AsTensor(v.Type)
		it, isInt := t.Elem.(ir.IntegerType)
		if !ok || !isInt || it.Width < 32 {
			return ""
		}
		op = op.Operands[0].DefiningOp()
	}
	if op == nil || !op.Is(Pos) {
		return ""
	}
	t, ok := AsTensor(op.Results[0].Type)
	if !ok || len(t.Dims) != 1 {
		return ""
	}
	return DimAttr(op)
}

// isZeroConstant reports whether v is a scalar tir.constant equal to 0.
func isZeroConstant(v *ir.Value) bool {
	op := v.DefiningOp()
	if op == nil || !op.Is(Constant) {
		return false
	}
	switch a := (ConstantOp{op}).Value().(type) {
	case ir.FloatAttr:
		return a.Value == 0
	case ir.IntegerAttr:
		return a.Value == 0
	}
	return false
}
