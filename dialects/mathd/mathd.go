// Package mathd is MLIR's math dialect (ops "math.*"; the directory is not
// named math to keep the standard library's name free): elementwise
// transcendental and rounding functions on floats (absi on integers), on
// scalars and vectors, with MLIR 16's syntax `%r = math.exp %x : f32` and
// representation (float ops carry `fastmath = #arith.fastmath<none>`).
package mathd

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// FloatUnary lists the unary float ops (without the "math." prefix).
var FloatUnary = []string{
	"exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt",
	"sin", "cos", "tan", "tanh", "atan", "erf", "floor", "ceil", "round", "trunc", "absf",
}

// FloatBinary lists the binary float ops.
var FloatBinary = []string{"powf", "atan2", "copysign"}

func init() {
	var defs []*ir.OpDef
	for _, n := range FloatUnary {
		defs = append(defs, arith.ElementwiseOp("math."+n, 1, arith.FloatElems, true, "elementwise "+n))
	}
	for _, n := range FloatBinary {
		defs = append(defs, arith.ElementwiseOp("math."+n, 2, arith.FloatElems, true, "elementwise "+n))
	}
	defs = append(defs,
		arith.ElementwiseOp("math.fma", 3, arith.FloatElems, true, "fused multiply-add a*b + c"),
		arith.ElementwiseOp("math.absi", 1, arith.SignlessIntElems, false, "integer absolute value"),
	)
	arith.Register(defs...)
}

// NewUnary builds `%r = math.NAME %x : T` (name "exp" or "math.exp").
func NewUnary(loc ir.Location, name string, x *ir.Value) *ir.Operation {
	return arith.NewElementwise(loc, fullName(name), x)
}

// NewBinary builds `%r = math.NAME %a, %b : T` (powf, atan2, copysign).
func NewBinary(loc ir.Location, name string, a, b *ir.Value) *ir.Operation {
	return arith.NewElementwise(loc, fullName(name), a, b)
}

// NewFma builds `%r = math.fma %a, %b, %c : T` (a*b + c).
func NewFma(loc ir.Location, a, b, c *ir.Value) *ir.Operation {
	return arith.NewElementwise(loc, "math.fma", a, b, c)
}

func fullName(name string) string {
	if len(name) > 5 && name[:5] == "math." {
		return name
	}
	return "math." + name
}
