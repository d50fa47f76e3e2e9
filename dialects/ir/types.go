package ir

import (
	"strconv"
	"strings"
)

// Type is any IR type. Types are immutable values; two types are equal when
// their canonical printed forms are equal (TypeEqual), which keeps dialect
// types free of identity bookkeeping.
type Type interface {
	// String is the canonical textual form, as the printer writes it.
	String() string
}

// TypeEqual compares types structurally.
func TypeEqual(a, b Type) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	// Scalar types compare without printing: the verifier compares types
	// after every pass, and printing them was a tenth of a large
	// program's compile time. (Interface == would panic on the types that
	// hold slices.)
	switch x := a.(type) {
	case FloatType:
		if y, ok := b.(FloatType); ok {
			return x == y
		}
	case IntegerType:
		if y, ok := b.(IntegerType); ok {
			return x == y
		}
	case IndexType:
		if _, ok := b.(IndexType); ok {
			return true
		}
	}
	return a.String() == b.String()
}

// TypesEqual compares type lists element-wise.
func TypesEqual(a, b []Type) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !TypeEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}

// IntegerType is iN (signless, as in MLIR).
type IntegerType struct{ Width int }

func (t IntegerType) String() string { return "i" + strconv.Itoa(t.Width) }

// StorageBytes is the size of one element of type t in a buffer: a float's
// width, an integer's rounded up to whole bytes (i1 takes one), and 8 for
// index (64-bit targets).
func StorageBytes(t Type) int64 {
	switch t := t.(type) {
	case FloatType:
		return int64(t.Bits() / 8)
	case IntegerType:
		return int64(max(1, (t.Width+7)/8))
	}
	return 8
}

// IndexType is the target-sized integer used for subscripts and sizes.
type IndexType struct{}

func (IndexType) String() string { return "index" }

// FloatType is one of f16, bf16, f32, f64.
type FloatType struct{ Name string }

func (t FloatType) String() string { return t.Name }

// Bits is the storage width of the float type.
func (t FloatType) Bits() int {
	switch t.Name {
	case "f16", "bf16":
		return 16
	case "f32":
		return 32
	}
	return 64
}

// Common scalar types.
var (
	I1    = IntegerType{1}
	I8    = IntegerType{8}
	I16   = IntegerType{16}
	I32   = IntegerType{32}
	I64   = IntegerType{64}
	Index = IndexType{}
	F16   = FloatType{"f16"}
	BF16  = FloatType{"bf16"}
	F32   = FloatType{"f32"}
	F64   = FloatType{"f64"}
)

// BuiltinScalar returns the builtin type spelled by a bare word (i32, f64,
// index, ...), or nil.
func BuiltinScalar(word string) Type {
	switch word {
	case "index":
		return Index
	case "f16", "bf16", "f32", "f64":
		return FloatType{word}
	}
	if len(word) > 1 && word[0] == 'i' {
		if w, err := strconv.Atoi(word[1:]); err == nil && w > 0 && w <= 128 && strconv.Itoa(w) == word[1:] {
			return IntegerType{w}
		}
	}
	return nil
}

// IsFloat reports whether t is a float scalar type.
func IsFloat(t Type) bool { _, ok := t.(FloatType); return ok }

// IsInteger reports whether t is an integer (not index) scalar type.
func IsInteger(t Type) bool { _, ok := t.(IntegerType); return ok }

// TupleType is tuple<T, ...>, nestable.
type TupleType struct{ Elems []Type }

func (t TupleType) String() string { return "tuple<" + joinTypes(t.Elems) + ">" }

// Dynamic marks an unknown extent, stride or offset ('?').
const Dynamic int64 = -1 << 63

// StridedLayout is memref's strided<[s0, s1], offset: o> layout.
type StridedLayout struct {
	Strides []int64
	Offset  int64
}

func (l StridedLayout) String() string {
	var b strings.Builder
	b.WriteString("strided<[")
	for i, s := range l.Strides {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(dimString(s))
	}
	b.WriteString("]")
	if l.Offset != 0 {
		b.WriteString(", offset: " + dimString(l.Offset))
	}
	b.WriteString(">")
	return b.String()
}

// MemRefType is memref<4x?xf32[, layout][, memory space]>, or the
// unranked memref<*xf32[, memory space]>. The layout is strided<...> or an
// affine map (MLIR drops identity maps, and so does the parser).
type MemRefType struct {
	Shape  []int64
	Elem   Type
	Layout *StridedLayout
	// Map is an affine-map layout (nil for strided or the identity).
	Map *AffineMap
	// MemorySpace is the memory space attribute (nil for the default).
	MemorySpace Attribute
	// Unranked marks memref<*xT>; Shape is then empty.
	Unranked bool
}

func (t MemRefType) String() string {
	var b strings.Builder
	b.WriteString("memref<")
	if t.Unranked {
		b.WriteString("*x")
	}
	for _, d := range t.Shape {
		b.WriteString(dimString(d))
		b.WriteString("x")
	}
	b.WriteString(t.Elem.String())
	if t.Layout != nil {
		b.WriteString(", ")
		b.WriteString(t.Layout.String())
	}
	if t.Map != nil {
		b.WriteString(", " + t.Map.String())
	}
	if t.MemorySpace != nil {
		b.WriteString(", ")
		b.WriteString(t.MemorySpace.String())
	}
	b.WriteString(">")
	return b.String()
}

// VectorType is vector<8xf32>; Scalable, when set, marks the dimensions
// written [8] (vector<[8]xf32>, a multiple of 8 fixed at run time).
type VectorType struct {
	Shape    []int64
	Elem     Type
	Scalable []bool
}

func (t VectorType) String() string {
	var b strings.Builder
	b.WriteString("vector<")
	for i, d := range t.Shape {
		if i < len(t.Scalable) && t.Scalable[i] {
			b.WriteString("[" + dimString(d) + "]x")
			continue
		}
		b.WriteString(dimString(d))
		b.WriteString("x")
	}
	b.WriteString(t.Elem.String())
	b.WriteString(">")
	return b.String()
}

// FunctionType is (T, ...) -> (R, ...).
type FunctionType struct {
	Inputs  []Type
	Results []Type
}

func (t FunctionType) String() string {
	s := "(" + joinTypes(t.Inputs) + ") -> "
	if len(t.Results) == 1 {
		if _, isFn := t.Results[0].(FunctionType); !isFn {
			return s + t.Results[0].String()
		}
	}
	return s + "(" + joinTypes(t.Results) + ")"
}

// OpaqueType is a dialect type of a dialect that registered no parser:
// !dialect.name<body>, kept verbatim so unknown IR still round-trips.
type OpaqueType struct{ Name, Body string }

func (t OpaqueType) String() string {
	if t.Body == "" {
		return "!" + t.Name
	}
	return "!" + t.Name + "<" + t.Body + ">"
}

func dimString(d int64) string {
	if d == Dynamic {
		return "?"
	}
	return strconv.FormatInt(d, 10)
}

func joinTypes(ts []Type) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.String()
	}
	return strings.Join(parts, ", ")
}

// JoinTypes prints a comma-separated type list.
func JoinTypes(ts []Type) string { return joinTypes(ts) }

// SizedType is a type whose dimensions are size expressions (!tir.tensor).
// CheckSizes refuses a bound or an extent that overflowed int64 or lies
// outside sizeexpr.IndexLimit: such a type is an input error where it is
// written or inferred, and passes never see one.
type SizedType interface {
	Type
	CheckSizes() error
}

// CheckSizes is t's CheckSizes when t is a SizedType, and nil otherwise.
func CheckSizes(t Type) error {
	if s, ok := t.(SizedType); ok {
		return s.CheckSizes()
	}
	return nil
}

// CheckResultSizes checks the sizes of op's result types (CheckSizes), as
// an error at op: the parser calls it when it infers them, the verifier
// after every pass.
func CheckResultSizes(op *Operation) error {
	for i, r := range op.Results {
		if r.Type == nil {
			continue
		}
		if err := CheckSizes(r.Type); err != nil {
			if len(op.Results) == 1 {
				return Errorf(op.Loc, "'%s' result: %v", op.Name, err)
			}
			return Errorf(op.Loc, "'%s' result #%d: %v", op.Name, i, err)
		}
	}
	return nil
}
