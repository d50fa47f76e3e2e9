package ir

import (
	"fmt"
	"strconv"
	"strings"
)

// Builtin shaped constants as MLIR writes them. They appear in the generic
// form of upstream ops (affine.parallel's bound groups, memref.alloc's
// operand_segment_sizes) and in vector constants (arith.constant
// dense<0.0> : vector<8xf32>).

// RankedTensorType is MLIR's builtin tensor<2xi32>. TIR itself computes on
// !tir.tensor; this type exists so that elements attributes of upstream ops
// (dense<1> : tensor<2xi32>) can be represented.
type RankedTensorType struct {
	Shape []int64
	Elem  Type
}

func (t RankedTensorType) String() string {
	var b strings.Builder
	b.WriteString("tensor<")
	for _, d := range t.Shape {
		b.WriteString(dimString(d))
		b.WriteString("x")
	}
	b.WriteString(t.Elem.String())
	b.WriteString(">")
	return b.String()
}

// DenseElementsAttr is `dense<v> : T` (a splat) or `dense<[v0, v1, ...]> : T`
// (one value per element, row-major) for a VectorType or RankedTensorType T.
// Values are IntegerAttr or FloatAttr of T's element type. Type is nil only
// while a custom op form is being parsed (the type follows the literal).
type DenseElementsAttr struct {
	Type   Type
	Values []Attribute
}

func (a DenseElementsAttr) String() string {
	parts := make([]string, len(a.Values))
	for i, v := range a.Values {
		parts[i] = elementText(v)
	}
	s := "dense<" + strings.Join(parts, ", ") + ">"
	if len(a.Values) > 1 {
		s = "dense<[" + strings.Join(parts, ", ") + "]>"
	}
	if a.Type == nil {
		return s
	}
	return s + " : " + a.Type.String()
}

// Literal is the attribute without its type: `dense<2.0>`.
func (a DenseElementsAttr) Literal() string {
	return DenseElementsAttr{Values: a.Values}.String()
}

// IsSplat reports whether one value fills every element.
func (a DenseElementsAttr) IsSplat() bool { return len(a.Values) == 1 }

func elementText(v Attribute) string {
	switch v := v.(type) {
	case FloatAttr:
		return FormatFloat(v.Value, v.Type)
	case IntegerAttr:
		if it, ok := v.Type.(IntegerType); ok && it.Width == 1 {
			if v.Value != 0 {
				return "true"
			}
			return "false"
		}
		return strconv.FormatInt(v.Value, 10)
	}
	return v.String()
}

// ShapeAndElem returns the shape and element type of a vector or ranked
// tensor type.
func ShapeAndElem(t Type) ([]int64, Type, bool) {
	switch t := t.(type) {
	case VectorType:
		return t.Shape, t.Elem, true
	case RankedTensorType:
		return t.Shape, t.Elem, true
	}
	return nil, nil, false
}

// TypedDense gives the values of a dense literal the element type of t (a
// vector or ranked tensor type) and checks their count: one (a splat) or
// one per element.
func TypedDense(a DenseElementsAttr, t Type) (DenseElementsAttr, error) {
	shape, elem, ok := ShapeAndElem(t)
	if !ok {
		return a, fmt.Errorf("dense elements need a vector or tensor type, got %s", t)
	}
	n := int64(1)
	for _, d := range shape {
		if d == Dynamic {
			return a, fmt.Errorf("dense elements need a static shape, got %s", t)
		}
		n *= d
	}
	if len(a.Values) != 1 && int64(len(a.Values)) != n {
		return a, fmt.Errorf("%d values for %s, which has %d elements", len(a.Values), t, n)
	}
	if len(a.Values) > 1 && allEqual(a.Values) {
		// MLIR stores (and prints) equal values as a splat.
		a.Values = a.Values[:1]
	}
	out := DenseElementsAttr{Type: t, Values: make([]Attribute, len(a.Values))}
	for i, v := range a.Values {
		switch et := elem.(type) {
		case FloatType:
			switch v := v.(type) {
			case FloatAttr:
				out.Values[i] = FloatAttr{Value: v.Value, Type: et}
			case IntegerAttr:
				out.Values[i] = FloatAttr{Value: float64(v.Value), Type: et}
			default:
				return a, fmt.Errorf("bad element %s for %s", v, t)
			}
		case IntegerType, IndexType:
			iv, ok := v.(IntegerAttr)
			if !ok {
				return a, fmt.Errorf("element %s of %s must be an integer", v, t)
			}
			out.Values[i] = IntegerAttr{Value: iv.Value, Type: et}
		default:
			return a, fmt.Errorf("unsupported element type %s in dense elements", elem)
		}
	}
	return out, nil
}

func allEqual(vs []Attribute) bool {
	for _, v := range vs[1:] {
		if !AttrEqual(v, vs[0]) {
			return false
		}
	}
	return true
}

// DenseArrayAttr is MLIR's `array<i32: 1, 0>` (a DenseI32ArrayAttr and
// friends), e.g. memref.alloc's operand_segment_sizes.
type DenseArrayAttr struct {
	Elem   Type
	Values []int64
}

func (a DenseArrayAttr) String() string {
	if len(a.Values) == 0 {
		return "array<" + a.Elem.String() + ">"
	}
	parts := make([]string, len(a.Values))
	for i, v := range a.Values {
		parts[i] = strconv.FormatInt(v, 10)
	}
	return "array<" + a.Elem.String() + ": " + strings.Join(parts, ", ") + ">"
}

// SegmentSizes builds the `array<i32: ...>` of an operand_segment_sizes
// attribute.
func SegmentSizes(sizes ...int) DenseArrayAttr {
	a := DenseArrayAttr{Elem: I32}
	for _, s := range sizes {
		a.Values = append(a.Values, int64(s))
	}
	return a
}
