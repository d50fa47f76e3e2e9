// Package tir is the tensor dialect: tensors with named dimensions defined on
// integer intervals, elementwise ops that broadcast by name, shifts, views,
// gathers, reductions and scans. Every op is one entry of the table in
// ops.go; type rules live in infer.go, custom syntax helpers in syntax.go.
package tir

import (
	"fmt"
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

// CheckSizes refuses a dimension whose bounds or extent overflowed int64
// or lie outside sizeexpr.IndexLimit (ir.SizedType).
func (t TensorType) CheckSizes() error {
	for _, d := range t.Dims {
		if err := d.CheckLimit(); err != nil {
			return fmt.Errorf("dimension %s: %v", d.Name, err)
		}
	}
	return nil
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
			e, err := prm.Lo.ToIndexExpr(resolve)
			if err != nil {
				return nil, err
			}
			lo = e
		}
		hi, err := prm.Hi.ToIndexExpr(resolve)
		if err != nil {
			return nil, err
		}
		d := Dim{Name: prm.Name, Interval: sizeexpr.Interval{Lo: lo, Hi: hi}}
		if err := d.CheckLimit(); err != nil {
			return nil, ir.Errorf(prm.Loc, "dimension %s: %v", prm.Name, err)
		}
		t.Dims = append(t.Dims, d)
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
			if n.Name != "" {
				return h.SizeSymbol(n.Name), nil
			}
			// A placeholder: the function signature names it after its
			// argument and dimension (NameUnknownExtents).
			return h.SizeSymbol(unknownPlaceholder), nil
		}
		return sizeexpr.Expr{}, ir.Errorf(n.Loc, "'%s' is not allowed in a size expression", n)
	}
}

func init() {
	ir.RegisterType("tir.tensor", parseTensorType)
}

// unknownPlaceholder is the symbol a bare `?` parses to until the function
// signature that declares it gives it its name.
const unknownPlaceholder = "?"

// IsUnknownExtent reports whether a size symbol stands for an extent bound
// at run time from an argument's descriptor (`?` in an argument type).
func IsUnknownExtent(v sizeexpr.Var) bool {
	return v.Kind == sizeexpr.SymbolVar && strings.HasPrefix(v.Name, "?")
}

// hasPlaceholder reports whether a type still has an unnamed `?`.
func hasPlaceholder(t ir.Type) bool {
	tt, ok := AsTensor(t)
	if !ok {
		return false
	}
	for _, d := range tt.Dims {
		for _, e := range []sizeexpr.Expr{d.Lo, d.Hi} {
			for _, v := range e.Vars() {
				if v.Name == unknownPlaceholder {
					return true
				}
			}
		}
	}
	return false
}

// NameUnknownExtents gives each `?` of an argument type its own symbol,
// ?_ARG_DIM: the extent is bound at run time from that argument, and the
// name says where from. Only an upper bound may be unknown.
func NameUnknownExtents(h ir.ParserHost, t ir.Type, arg string, loc ir.Location) (ir.Type, error) {
	tt, ok := AsTensor(t)
	if !ok || !hasPlaceholder(t) {
		return t, nil
	}
	out := TensorType{Elem: tt.Elem}
	for _, d := range tt.Dims {
		if v, ok := d.Hi.AsVar(); !ok || v.Name != unknownPlaceholder || hasVar(d.Lo, unknownPlaceholder) {
			if hasVar(d.Lo, unknownPlaceholder) || hasVar(d.Hi, unknownPlaceholder) {
				return nil, ir.Errorf(loc, "'?' must be the whole upper bound of a dimension (I[0:?] or I[?]), not part of %s", d)
			}
			out.Dims = append(out.Dims, d)
			continue
		}
		name := "?_" + arg + "_" + d.Name
		out.Dims = append(out.Dims, Dim{Name: d.Name, Interval: sizeexpr.Span(d.Lo, h.SizeSymbol(name))})
	}
	return out, nil
}

func hasVar(e sizeexpr.Expr, name string) bool {
	for _, v := range e.Vars() {
		if v.Name == name {
			return true
		}
	}
	return false
}
