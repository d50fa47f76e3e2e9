package arith

import (
	"tir/dialects/ir"
)

// Casts: `%y = arith.sitofp %x : i32 to f32`, elementwise on vectors.

func isInt(t ir.Type) bool   { return ir.IsInteger(t) }
func isIndex(t ir.Type) bool { return ir.TypeEqual(t, ir.Index) }

func intWidth(t ir.Type) int { return t.(ir.IntegerType).Width }

func floatBits(t ir.Type) int { return t.(ir.FloatType).Bits() }

func bitWidth(t ir.Type) int {
	switch t := t.(type) {
	case ir.IntegerType:
		return t.Width
	case ir.FloatType:
		return t.Bits()
	}
	return -1
}

func intOrIndex(a, b ir.Type) bool { return isIndex(a) && isInt(b) || isInt(a) && isIndex(b) }

// The casts, written out one by one (see Ops for the naming rule).
var (
	IndexCast   = castDef("arith.index_cast", "integer <-> index", intOrIndex, "index to an integer or an integer to index")
	IndexCastUI = castDef("arith.index_castui", "unsigned integer <-> index", intOrIndex, "index to an integer or an integer to index")
	SIToFP      = castDef("arith.sitofp", "signed integer to float", func(a, b ir.Type) bool { return isInt(a) && ir.IsFloat(b) }, "an integer to a float")
	UIToFP      = castDef("arith.uitofp", "unsigned integer to float", func(a, b ir.Type) bool { return isInt(a) && ir.IsFloat(b) }, "an integer to a float")
	FPToSI      = castDef("arith.fptosi", "float to signed integer", func(a, b ir.Type) bool { return ir.IsFloat(a) && isInt(b) }, "a float to an integer")
	FPToUI      = castDef("arith.fptoui", "float to unsigned integer", func(a, b ir.Type) bool { return ir.IsFloat(a) && isInt(b) }, "a float to an integer")
	ExtF        = castDef("arith.extf", "float widening", func(a, b ir.Type) bool { return ir.IsFloat(a) && ir.IsFloat(b) && floatBits(a) < floatBits(b) }, "a float to a wider float")
	TruncF      = castDef("arith.truncf", "float narrowing", func(a, b ir.Type) bool { return ir.IsFloat(a) && ir.IsFloat(b) && floatBits(a) > floatBits(b) }, "a float to a narrower float")
	ExtSI       = castDef("arith.extsi", "sign extension", func(a, b ir.Type) bool { return isInt(a) && isInt(b) && intWidth(a) < intWidth(b) }, "an integer to a wider integer")
	ExtUI       = castDef("arith.extui", "zero extension", func(a, b ir.Type) bool { return isInt(a) && isInt(b) && intWidth(a) < intWidth(b) }, "an integer to a wider integer")
	TruncI      = castDef("arith.trunci", "integer truncation", func(a, b ir.Type) bool { return isInt(a) && isInt(b) && intWidth(a) > intWidth(b) }, "an integer to a narrower integer")
	Bitcast     = castDef("arith.bitcast", "reinterpret the bits", func(a, b ir.Type) bool {
		return bitWidth(a) > 0 && bitWidth(a) == bitWidth(b)
	}, "between types of one bit width")
)

// castDef defines a cast; ok accepts the element types it converts, what
// says which in diagnostics.
func castDef(name, summary string, ok func(from, to ir.Type) bool, what string) *ir.OpDef {
	return &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      "%y = " + name + " %x : A to B",
		Traits:      ir.TraitPure,
		NumOperands: 1, NumResults: 1, NumRegions: 0,
		Format:       Format(ConversionFormat),
		NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			from, to := op.Operands[0].Type, op.Results[0].Type
			if !SameShape(from, to) {
				return Errf(op, "operand %s and result %s must both be scalars or vectors of one shape", from, to)
			}
			if !ok(Elem(from), Elem(to)) {
				return Errf(op, "cannot cast %s to %s: expects %s", from, to, what)
			}
			return nil
		},
	}
}

// ConversionFormat is the custom form of a one-operand conversion,
// `%x : A to B` (arith casts, vector.broadcast): a type that disagrees
// with %x is reported at %x, as MLIR does.
const ConversionFormat = "$x : use-type($x) to type(res)"
