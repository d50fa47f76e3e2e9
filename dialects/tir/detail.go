package tir

import (
	"strconv"
	"strings"

	"tir/dialects/ir"
)

// The ops' Detail facets: the part of the custom syntax that tells two
// ops of a kind apart, without operands and types.

func constantDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	return constantText(op.Attr("value"))
}

func shiftDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	a, _ := op.Attr("offsets").(OffsetsAttr)
	return a.Text()
}

func viewDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	a, _ := op.Attr("map").(ViewAttr)
	return a.Text()
}

func gatherDetail(op *ir.Operation, name func(*ir.Value) string) string {
	return "[" + DimAttr(op) + " = " + name(op.Operands[1]) + "]"
}

func subsetDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	a, _ := op.Attr("bounds").(DomainAttr)
	return a.Text()
}

func broadcastDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	a, _ := op.Attr("dims").(DomainAttr)
	return a.Text()
}

func posDetail(op *ir.Operation, _ func(*ir.Value) string) string { return DimAttr(op) }

func concatDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	return "along " + DimAttr(op)
}

func cmpDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	p, _ := op.Attr("predicate").(ir.StringAttr)
	return string(p)
}

func tupleGetDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	return "[" + strconv.Itoa(TupleIndex(op)) + "]"
}

func reduceDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	s := ReduceKind(op)
	if s != "" {
		s += " "
	}
	return s + "over [" + strings.Join(ReduceDims(op), ", ") + "]"
}

func scanDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	return ScanDirection(op) + " along " + DimAttr(op)
}

func callDetail(op *ir.Operation, _ func(*ir.Value) string) string { return "@" + Callee(op) }
