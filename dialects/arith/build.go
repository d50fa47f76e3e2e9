package arith

import (
	"strings"

	"tir/dialects/ir"
)

// MaskSelectAttr is the unit attribute with which the tir lowering marks
// an arith.select whose condition is a mask: true where a point is masked
// (a missing neighbour in a mesh table), which leaves the accumulator of
// a reduction unchanged. Padding in neighbour tables is rare or follows
// the table's structure, so the condition is predictable; the LLVM
// emission tells llc so (convert-to-llvm). It is an ordinary discardable
// attribute: mlir-opt keeps it, and nothing depends on it for meaning.
const MaskSelectAttr = "tir.mask"

// IsMaskSelect reports whether op is an arith.select marked MaskSelectAttr.
func IsMaskSelect(op *ir.Operation) bool {
	_, ok := op.Attr(MaskSelectAttr).(ir.UnitAttr)
	return ok && op.Is(Select)
}

// Builders for lowering passes. Each returns a detached op (append it to a
// block); loc is the location diagnostics will point at.

// NewConstant builds `arith.constant` for a typed value attribute
// (IntegerAttr, FloatAttr or DenseElementsAttr).
func NewConstant(loc ir.Location, value ir.Attribute, t ir.Type) *ir.Operation {
	return ir.NewOpOf(Constant, loc, nil, []ir.Type{t}, ir.DictAttr{}.With("value", value))
}

// NewConstantFloat builds `arith.constant v : t` for a float type t.
func NewConstantFloat(loc ir.Location, v float64, t ir.Type) *ir.Operation {
	return NewConstant(loc, ir.FloatAttr{Value: v, Type: t}, t)
}

// NewConstantInt builds `arith.constant v : t` for an integer or index type.
func NewConstantInt(loc ir.Location, v int64, t ir.Type) *ir.Operation {
	return NewConstant(loc, ir.IntegerAttr{Value: v, Type: t}, t)
}

// NewConstantIndex builds `arith.constant v : index`.
func NewConstantIndex(loc ir.Location, v int64) *ir.Operation {
	return NewConstantInt(loc, v, ir.Index)
}

// NewConstantSplat builds `arith.constant dense<v> : vt`, every element v.
func NewConstantSplat(loc ir.Location, v float64, vt ir.VectorType) *ir.Operation {
	var a ir.Attribute = ir.FloatAttr{Value: v, Type: vt.Elem}
	if !ir.IsFloat(vt.Elem) {
		a = ir.IntegerAttr{Value: int64(v), Type: vt.Elem}
	}
	return NewConstant(loc, ir.DenseElementsAttr{Type: vt, Values: []ir.Attribute{a}}, vt)
}

func fullName(name string) string {
	if strings.Contains(name, ".") {
		return name
	}
	return "arith." + name
}

// NewElementwise builds an elementwise op of arith (or of another dialect
// that defines its ops with ElementwiseOp, e.g. "math.exp"): name is
// "addf" or "arith.addf"; the result has the type of the first operand.
// Float ops get `fastmath = #arith.fastmath<none>`.
func NewElementwise(loc ir.Location, name string, operands ...*ir.Value) *ir.Operation {
	name = fullName(name)
	var attrs ir.DictAttr
	if HasFastMath(name) {
		attrs = attrs.With("fastmath", FastNone)
	}
	return ir.NewOp(name, loc, operands, []ir.Type{operands[0].Type}, attrs)
}

// NewBinary builds `%r = arith.NAME %a, %b : T` (name "addf", "muli", ...).
func NewBinary(loc ir.Location, name string, a, b *ir.Value) *ir.Operation {
	return NewElementwise(loc, name, a, b)
}

// NewCmpF builds `arith.cmpf PRED, %a, %b` (pred "olt", "oeq", ...).
func NewCmpF(loc ir.Location, pred string, a, b *ir.Value) *ir.Operation {
	return newCmp(loc, CmpF, CmpFPredicates, pred, a, b)
}

// NewCmpI builds `arith.cmpi PRED, %a, %b` (pred "slt", "eq", ...).
func NewCmpI(loc ir.Location, pred string, a, b *ir.Value) *ir.Operation {
	return newCmp(loc, CmpI, CmpIPredicates, pred, a, b)
}

func newCmp(loc ir.Location, cmp *ir.OpDef, preds []string, pred string, a, b *ir.Value) *ir.Operation {
	k := indexOf(preds, pred)
	if k < 0 {
		panic("arith: unknown " + cmp.Name + " predicate " + pred)
	}
	attrs := ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: int64(k), Type: ir.I64})
	return ir.NewOpOf(cmp, loc, []*ir.Value{a, b}, []ir.Type{WithElem(a.Type, ir.I1)}, attrs)
}

// NewSelect builds `arith.select %c, %a, %b`.
func NewSelect(loc ir.Location, c, a, b *ir.Value) *ir.Operation {
	return ir.NewOpOf(Select, loc, []*ir.Value{c, a, b}, []ir.Type{a.Type}, nil)
}

// NewCast builds a cast op (name "sitofp", "index_cast", ...) of x to type
// to.
func NewCast(loc ir.Location, name string, x *ir.Value, to ir.Type) *ir.Operation {
	return ir.NewOp(fullName(name), loc, []*ir.Value{x}, []ir.Type{to}, nil)
}
