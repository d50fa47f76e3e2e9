package interp

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
)

// Dim is a concrete named dimension on the half-open interval [Lo, Hi): a
// tir.Dim whose size expressions have been evaluated with the symbol values.
type Dim struct {
	Name   string
	Lo, Hi int64
}

// Extent is the number of points, 0 for an empty (or inverted) interval.
func (d Dim) Extent() int64 {
	if d.Hi < d.Lo {
		return 0
	}
	return d.Hi - d.Lo
}

func (d Dim) String() string { return fmt.Sprintf("%s[%d:%d]", d.Name, d.Lo, d.Hi) }

// Tensor is a value of the interpreter: a box of named dimensions (in
// storage order, row-major, the last dimension contiguous) holding one
// element per point.
//
// Exactly one of the data fields is used, chosen by the element type:
//   - F64 for f16, bf16, f32, f64: every value is exactly representable in
//     the element type (the interpreter rounds after every operation);
//   - I64 for i1, i8, i16, i32, i64: values are kept sign-extended to 64 bits
//     (wrapped at the width after every operation), except i1, which holds
//     0 (false) or 1 (true);
//   - Tuple for tuple element types: one component tensor per tuple element,
//     each with the same Dims and no Mask of its own (components of nested
//     tuples are tuple tensors themselves).
//
// Mask, when non-nil, has one entry per point; true means masked: there is
// no element (a tir.gather that found no neighbor). Masks propagate through
// elementwise ops; reductions skip masked points.
type Tensor struct {
	Elem  ir.Type
	Dims  []Dim
	F64   []float64
	I64   []int64
	Tuple []*Tensor
	Mask  []bool
}

// elemKind says which data field a tensor of an element type uses.
type elemKind int

const (
	kindFloat elemKind = iota
	kindInt
	kindTuple
)

func kindOf(elem ir.Type) (elemKind, error) {
	switch t := elem.(type) {
	case ir.FloatType:
		return kindFloat, nil
	case ir.IntegerType:
		if t.Width < 1 || t.Width > 64 {
			return 0, fmt.Errorf("unsupported element type %s (integers are at most 64 bits wide)", elem)
		}
		return kindInt, nil
	case ir.TupleType:
		return kindTuple, nil
	}
	return 0, fmt.Errorf("unsupported element type %v", elem)
}

// numPoints is the number of points of a box.
func numPoints(dims []Dim) int {
	n := int64(1)
	for _, d := range dims {
		n *= d.Extent()
	}
	return int(n)
}

// NewTensor returns a zero-filled, unmasked tensor.
func NewTensor(elem ir.Type, dims []Dim) (*Tensor, error) {
	k, err := kindOf(elem)
	if err != nil {
		return nil, err
	}
	t := &Tensor{Elem: elem, Dims: append([]Dim(nil), dims...)}
	n := numPoints(dims)
	switch k {
	case kindFloat:
		t.F64 = make([]float64, n)
	case kindInt:
		t.I64 = make([]int64, n)
	case kindTuple:
		for _, e := range elem.(ir.TupleType).Elems {
			c, err := NewTensor(e, dims)
			if err != nil {
				return nil, err
			}
			t.Tuple = append(t.Tuple, c)
		}
	}
	return t, nil
}

// mustTensor is NewTensor for element types already checked.
func mustTensor(elem ir.Type, dims []Dim) *Tensor {
	t, err := NewTensor(elem, dims)
	if err != nil {
		panic(err)
	}
	return t
}

// Len is the number of points.
func (t *Tensor) Len() int { return numPoints(t.Dims) }

// Shape is the extent of each dimension in storage order (the shape of the
// matching NumPy array).
func (t *Tensor) Shape() []int {
	s := make([]int, len(t.Dims))
	for i, d := range t.Dims {
		s[i] = int(d.Extent())
	}
	return s
}

// Masked reports whether point i (flat, row-major) is masked.
func (t *Tensor) Masked(i int) bool { return t.Mask != nil && t.Mask[i] }

// MaskedCount is the number of masked points.
func (t *Tensor) MaskedCount() int {
	n := 0
	for _, m := range t.Mask {
		if m {
			n++
		}
	}
	return n
}

// Offset returns the flat index of the point with the given coordinates
// (by dimension name; dimensions the tensor lacks are ignored, since it
// does not vary along them). ok is false when a coordinate is missing or
// outside the interval.
func (t *Tensor) Offset(point map[string]int64) (int, bool) {
	off := int64(0)
	for _, d := range t.Dims {
		x, ok := point[d.Name]
		if !ok || x < d.Lo || x >= d.Hi {
			return 0, false
		}
		off = off*d.Extent() + (x - d.Lo)
	}
	return int(off), true
}

// Find returns the index of the named dimension, or -1.
func (t *Tensor) Find(name string) int { return findDim(t.Dims, name) }

func findDim(dims []Dim, name string) int {
	for i, d := range dims {
		if d.Name == name {
			return i
		}
	}
	return -1
}

func dimsString(dims []Dim) string {
	if len(dims) == 0 {
		return "a 0-d domain"
	}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = d.String()
	}
	return strings.Join(parts, " ")
}

// String summarises the tensor (type and domain, not the data).
func (t *Tensor) String() string {
	return fmt.Sprintf("tensor<%s> on %s", t.Elem, dimsString(t.Dims))
}

// copyElem copies element j of src into element i of dst (same element
// type), recursing into tuple components. Masks are the caller's business.
func copyElem(dst *Tensor, i int, src *Tensor, j int) {
	switch kindOfTensor(dst) {
	case kindFloat:
		dst.F64[i] = src.F64[j]
	case kindInt:
		dst.I64[i] = src.I64[j]
	default:
		for k := range dst.Tuple {
			copyElem(dst.Tuple[k], i, src.Tuple[k], j)
		}
	}
}

// kindOfTensor is the data field a tensor uses (its element type was
// checked when it was made).
func kindOfTensor(t *Tensor) elemKind {
	k, _ := kindOf(t.Elem)
	return k
}

// take builds a tensor on dims whose point i is point idx[i] of src, or a
// masked point where idx[i] < 0. Masks of src carry over.
func take(src *Tensor, dims []Dim, idx []int) *Tensor {
	out := takeData(src, dims, idx)
	var mask []bool
	for i, j := range idx {
		if j < 0 || src.Masked(j) {
			if mask == nil {
				mask = make([]bool, len(idx))
			}
			mask[i] = true
		}
	}
	out.Mask = mask
	return out
}

func takeData(src *Tensor, dims []Dim, idx []int) *Tensor {
	out := &Tensor{Elem: src.Elem, Dims: append([]Dim(nil), dims...)}
	switch kindOfTensor(src) {
	case kindFloat:
		out.F64 = make([]float64, len(idx))
		for i, j := range idx {
			if j >= 0 {
				out.F64[i] = src.F64[j]
			}
		}
	case kindInt:
		out.I64 = make([]int64, len(idx))
		for i, j := range idx {
			if j >= 0 {
				out.I64[i] = src.I64[j]
			}
		}
	default:
		for _, c := range src.Tuple {
			out.Tuple = append(out.Tuple, takeData(c, dims, idx))
		}
	}
	return out
}

// clone is a deep copy of the data and mask (components shared with no one,
// so the copy may be written).
func clone(t *Tensor) *Tensor {
	idx := make([]int, t.Len())
	for i := range idx {
		idx[i] = i
	}
	out := takeData(t, t.Dims, idx)
	if t.Mask != nil {
		out.Mask = append([]bool(nil), t.Mask...)
	}
	return out
}

// orMasks combines the masks of tensors on the same domain (nil when none
// is masked).
func orMasks(n int, ts ...*Tensor) []bool {
	var mask []bool
	for _, t := range ts {
		if t.Mask == nil {
			continue
		}
		if mask == nil {
			mask = make([]bool, n)
		}
		for i, m := range t.Mask {
			mask[i] = mask[i] || m
		}
	}
	return mask
}
