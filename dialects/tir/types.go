// Package tir is the tensor dialect: tensors with named dimensions defined on
// integer intervals, elementwise ops that broadcast by name, shifts, views,
// gathers, reductions and scans. Every op is one entry of the table in
// ops.go; type rules live in infer.go, custom syntax helpers in syntax.go.
package tir

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Dim is a named dimension with its half-open interval [Lo:Hi).
type Dim struct {
	Name string
	sizeexpr.Interval
}

// String prints I[lo:hi].
func (d Dim) String() string { return d.Name + "[" + d.Lo.String() + ":" + d.Hi.String() + "]" }

// TensorType is !tir.tensor<ELT, DIM, ...>. Dimension order is storage
// order; semantics match dimensions by name.
type TensorType struct {
	Elem ir.Type
	Dims []Dim
}

func (t TensorType) String() string {
	var b strings.Builder
	b.WriteString("!tir.tensor<")
	b.WriteString(t.Elem.String())
	for _, d := range t.Dims {
		b.WriteString(", ")
		b.WriteString(d.String())
	}
	b.WriteString(">")
	return b.String()
}

// Rank is the number of dimensions.
func (t TensorType) Rank() int { return len(t.Dims) }

// Find returns the index of the named dimension, or -1.
func (t TensorType) Find(name string) int {
	for i, d := range t.Dims {
		if d.Name == name {
			return i
		}
	}
	return -1
}

// Dim returns the named dimension.
func (t TensorType) Dim(name string) (Dim, bool) {
	if i := t.Find(name); i >= 0 {
		return t.Dims[i], true
	}
	return Dim{}, false
}

// WithElem returns the type with another element type.
func (t TensorType) WithElem(e ir.Type) TensorType { return TensorType{Elem: e, Dims: t.Dims} }

// Scalar is a 0-d tensor of the element type.
func Scalar(elem ir.Type) TensorType { return TensorType{Elem: elem} }

// AsTensor returns the tensor type of a value, if it is one.
func AsTensor(t ir.Type) (TensorType, bool) {
	tt, ok := t.(TensorType)
	return tt, ok
}

// IsElementType reports whether t may be a tensor element: a scalar of the
// dialect or a (nested) tuple of them.
func IsElementType(t ir.Type) bool {
	switch t := t.(type) {
	case ir.IntegerType:
		switch t.Width {
		case 1, 8, 16, 32, 64:
			return true
		}
	case ir.FloatType:
		return true
	case ir.TupleType:
		for _, e := range t.Elems {
			if !IsElementType(e) {
				return false
			}
		}
		return len(t.Elems) > 0
	}
	return false
}

func parseTensorType(p *ir.TypeParams) (ir.Type, error) {
	if len(p.Params) == 0 || p.Params[0].Kind != ir.ParamType {
		return nil, ir.Errorf(p.Loc, "!tir.tensor expects an element type first")
	}
	elem := p.Params[0].Type
	if !IsElementType(elem) {
		return nil, ir.Errorf(p.Params[0].Loc, "'%s' is not a tensor element type (expected i1, i8, i16, i32, i64, f16, bf16, f32, f64 or a tuple of them)", elem)
	}
	t := TensorType{Elem: elem}
	for _, prm := range p.Params[1:] {
		if prm.Kind != ir.ParamDim {
			return nil, ir.Errorf(prm.Loc, "expected a dimension NAME[lo:hi]")
		}
		if t.Find(prm.Name) >= 0 {
			return nil, ir.Errorf(prm.Loc, "duplicate dimension %s in tensor type", prm.Name)
		}
		resolve := symbolResolver(p.Host)
		lo := sizeexpr.Const(0)
		if prm.Lo != nil {
			e, err := prm.Lo.ToExpr(resolve)
			if err != nil {
				return nil, err
			}
			lo = e
		}
		hi, err := prm.Hi.ToExpr(resolve)
		if err != nil {
			return nil, err
		}
		t.Dims = append(t.Dims, Dim{Name: prm.Name, Interval: sizeexpr.Interval{Lo: lo, Hi: hi}})
	}
	return t, nil
}

// symbolResolver reads names in bounds as module-wide size symbols.
func symbolResolver(h ir.ParserHost) ir.Resolver {
	return func(n *ir.ExprNode) (sizeexpr.Expr, error) {
		switch n.Kind {
		case ir.ExprName:
			return h.SizeSymbol(n.Name), nil
		case ir.ExprUnknown:
			return sizeexpr.Expr{}, ir.Errorf(n.Loc, "unknown extents '?' are not supported yet")
		}
		return sizeexpr.Expr{}, ir.Errorf(n.Loc, "'%s' is not allowed in a size expression", n)
	}
}

func init() {
	ir.RegisterType("tir.tensor", parseTensorType)
}
