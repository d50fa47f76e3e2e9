package arith

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
)

// ElemKind is what element types an elementwise op accepts.
type ElemKind int

const (
	FloatElems       ElemKind = iota // f16 bf16 f32 f64
	IntElems                         // iN and index
	SignlessIntElems                 // iN only
)

func (k ElemKind) ok(t ir.Type) bool {
	switch k {
	case FloatElems:
		return IsFloatLike(t)
	case IntElems:
		return IsIntLike(t)
	}
	return IsSignlessInt(t)
}

func (k ElemKind) String() string {
	return [...]string{"float", "integer or index", "integer"}[k]
}

// ElementwiseOp defines an op `%r = NAME %a, %b, ... : T` whose operands and
// result all have type T (a scalar or a vector). With fastmath, the op
// carries MLIR's fastmath attribute.
func ElementwiseOp(name string, arity int, kind ElemKind, fastmath bool, summary string) *ir.OpDef {
	if fastmath {
		fastmathOps[name] = true
	}
	d := &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      fmt.Sprintf("%%r = %s %s : T", name, strings.TrimSuffix(strings.Repeat("%x, ", arity), ", ")),
		Traits:      ir.TraitPure,
		NumOperands: arity, NumResults: 1, NumRegions: 0,
		Format: Format(elementwiseFormat(arity, fastmath)),
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			return verifyElementwise(op, kind, fastmath)
		},
	}
	if fastmath {
		d.Infer = func(op *ir.Operation) ([]ir.Type, error) {
			defaultFastMath(op)
			return nil, nil
		}
		d.NeedsGeneric = func(op *ir.Operation) bool { return !OnlyAttrs(op, "fastmath") }
	} else {
		d.NeedsGeneric = func(op *ir.Operation) bool { return len(op.Attrs) > 0 }
	}
	return d
}

// elementwiseFormat is `$x0 , $x1 fastmath attr-dict : type(all)`: the
// operands, the flags of a fastmath op, one type for all.
func elementwiseFormat(arity int, fastmath bool) string {
	var parts []string
	for i := 0; i < arity; i++ {
		if i > 0 {
			parts = append(parts, ",")
		}
		parts = append(parts, fmt.Sprintf("$x%d", i))
	}
	if fastmath {
		parts = append(parts, "fastmath")
	}
	return strings.Join(append(parts, "attr-dict", ":", "type(all)"), " ")
}

func verifyElementwise(op *ir.Operation, kind ElemKind, fastmath bool) error {
	t := op.Results[0].Type
	for i, v := range op.Operands {
		if !ir.TypeEqual(v.Type, t) {
			return Errf(op, "operand #%d has type %s but the result has type %s", i, v.Type, t)
		}
	}
	if !kind.ok(t) {
		return Errf(op, "expects %s operands (scalars or vectors), got %s", kind, t)
	}
	if fastmath {
		return verifyFastMath(op)
	}
	return nil
}

// The elementwise ops, written out one by one (see Ops for the naming rule).
var (
	AddF = ElementwiseOp("arith.addf", 2, FloatElems, true, "float add")
	SubF = ElementwiseOp("arith.subf", 2, FloatElems, true, "float sub")
	MulF = ElementwiseOp("arith.mulf", 2, FloatElems, true, "float mul")
	DivF = ElementwiseOp("arith.divf", 2, FloatElems, true, "float div")
	RemF = ElementwiseOp("arith.remf", 2, FloatElems, true, "float rem")
	MaxF = ElementwiseOp("arith.maxf", 2, FloatElems, true, "float max")
	MinF = ElementwiseOp("arith.minf", 2, FloatElems, true, "float min")
	NegF = ElementwiseOp("arith.negf", 1, FloatElems, true, "float negation")

	AddI       = ElementwiseOp("arith.addi", 2, IntElems, false, "integer addi")
	SubI       = ElementwiseOp("arith.subi", 2, IntElems, false, "integer subi")
	MulI       = ElementwiseOp("arith.muli", 2, IntElems, false, "integer muli")
	DivSI      = ElementwiseOp("arith.divsi", 2, IntElems, false, "integer divsi")
	DivUI      = ElementwiseOp("arith.divui", 2, IntElems, false, "integer divui")
	RemSI      = ElementwiseOp("arith.remsi", 2, IntElems, false, "integer remsi")
	RemUI      = ElementwiseOp("arith.remui", 2, IntElems, false, "integer remui")
	FloorDivSI = ElementwiseOp("arith.floordivsi", 2, IntElems, false, "integer floordivsi")
	CeilDivSI  = ElementwiseOp("arith.ceildivsi", 2, IntElems, false, "integer ceildivsi")
	MaxSI      = ElementwiseOp("arith.maxsi", 2, IntElems, false, "integer maxsi")
	MaxUI      = ElementwiseOp("arith.maxui", 2, IntElems, false, "integer maxui")
	MinSI      = ElementwiseOp("arith.minsi", 2, IntElems, false, "integer minsi")
	MinUI      = ElementwiseOp("arith.minui", 2, IntElems, false, "integer minui")
	AndI       = ElementwiseOp("arith.andi", 2, IntElems, false, "integer andi")
	OrI        = ElementwiseOp("arith.ori", 2, IntElems, false, "integer ori")
	XOrI       = ElementwiseOp("arith.xori", 2, IntElems, false, "integer xori")
	ShLI       = ElementwiseOp("arith.shli", 2, IntElems, false, "integer shli")
	ShRSI      = ElementwiseOp("arith.shrsi", 2, IntElems, false, "integer shrsi")
	ShRUI      = ElementwiseOp("arith.shrui", 2, IntElems, false, "integer shrui")
)
