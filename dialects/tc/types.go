package tc

import (
	"sort"
	"strings"

	"tir/dialects/ir"
)

// scalarTypes maps TC's scalar type names to tir element types. tir
// integers are signless (as in MLIR) and every integer op of the dialect
// is signed (division rounds toward negative infinity), so an unsigned TC
// type becomes the signed integer of the same width: values above the
// signed maximum read as negative numbers. This is documented in
// docs/tc.md; a TC program that needs them must widen explicitly.
var scalarTypes = map[string]ir.Type{
	"bool":     ir.I1,
	"int8":     ir.I8,
	"int16":    ir.I16,
	"int32":    ir.I32,
	"int64":    ir.I64,
	"uint8":    ir.I8,
	"uint16":   ir.I16,
	"uint32":   ir.I32,
	"uint64":   ir.I64,
	"half":     ir.F16,
	"float16":  ir.F16,
	"bfloat16": ir.BF16,
	"float":    ir.F32,
	"float32":  ir.F32,
	"double":   ir.F64,
	"float64":  ir.F64,
}

func scalarTypeNames() string {
	var names []string
	for n := range scalarTypes {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// rank orders element types for C's usual arithmetic conversions: the
// operands of a binary operator are converted to the higher rank; any
// float outranks any integer. f16 and bf16 meet in f32 (neither holds the
// other).
func rank(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width // 1..64
	case ir.FloatType:
		return 100 + t.Bits()
	}
	return -1
}

// promote is the common type of two typed operands.
func promote(a, b ir.Type) ir.Type {
	if ir.TypeEqual(a, b) {
		return a
	}
	if ir.TypeEqual(a, ir.F16) && ir.TypeEqual(b, ir.BF16) || ir.TypeEqual(a, ir.BF16) && ir.TypeEqual(b, ir.F16) {
		return ir.F32
	}
	if rank(a) >= rank(b) {
		return a
	}
	return b
}

// litKind says whether an expression's type is fixed by its operands or is
// that of a bare literal, which adapts to the other operand (`A(i) * 2`
// stays f32 where C would not quite agree, `A(i) * 0.5` stays f32 where C
// would compute in double).
type litKind int

const (
	typed    litKind = iota
	intLit           // an integer literal, or an expression of them
	floatLit         // a float literal, or an expression with one
)

// etype is the static type of an expression: a tir element type, or a
// literal kind whose type is decided by the context.
type etype struct {
	t   ir.Type
	lit litKind
}

// unify is the type both operands of a binary operator are converted to.
func unify(a, b etype) etype {
	switch {
	case a.lit == typed && b.lit == typed:
		return etype{t: promote(a.t, b.t)}
	case a.lit == typed:
		return adapt(a.t, b.lit)
	case b.lit == typed:
		return adapt(b.t, a.lit)
	case a.lit == floatLit || b.lit == floatLit:
		return etype{lit: floatLit}
	}
	return etype{lit: intLit}
}

// adapt is the type of a typed operand meeting a literal: an integer
// literal takes any type, a float literal turns integers into f32.
func adapt(t ir.Type, lit litKind) etype {
	if lit == floatLit && !ir.IsFloat(t) {
		return etype{t: ir.F32}
	}
	return etype{t: t}
}

// concrete gives a literal type its default when nothing else decides it:
// the context type when it is of the literal's kind (an integer literal
// is never computed as a float: `1/2` is 0, as in C), else i32 for
// integers (C's int) and f32 for floats (TC's float).
func (e etype) concrete(context ir.Type) ir.Type {
	switch {
	case e.lit == typed:
		return e.t
	case e.lit == intLit && context != nil && ir.IsInteger(context):
		return context
	case e.lit == floatLit && context != nil && ir.IsFloat(context):
		return context
	case e.lit == floatLit:
		return ir.F32
	}
	return ir.I32
}

// arith is the type arithmetic is done in: C promotes bool to int.
func arith(e etype) etype {
	if e.lit == typed && ir.TypeEqual(e.t, ir.I1) {
		return etype{t: ir.I32}
	}
	return e
}

// floating is the type of a float-only builtin's operand (exp, sqrt, ...):
// integers are converted to f32.
func floating(e etype) etype {
	if e.lit == typed && ir.IsFloat(e.t) {
		return e
	}
	if e.lit != typed {
		return etype{lit: floatLit}
	}
	return etype{t: ir.F32}
}
