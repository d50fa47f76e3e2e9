// Package mathd is MLIR's math dialect (ops "math.*"; the directory is not
// named math to keep the standard library's name free): elementwise
// transcendental and rounding functions on floats (absi on integers), on
// scalars and vectors, with MLIR 16's syntax `%r = math.exp %x : f32` and
// representation (float ops carry `fastmath = #arith.fastmath<none>`).
package mathd

import (
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The elementwise float functions the lowering and the vectorizer use, and
// math.fma and math.absi (see Ops for the naming rule).
var (
	Exp   = arith.ElementwiseOp("math.exp", 1, arith.FloatElems, true, "elementwise exp")
	Exp2  = arith.ElementwiseOp("math.exp2", 1, arith.FloatElems, true, "elementwise exp2")
	ExpM1 = arith.ElementwiseOp("math.expm1", 1, arith.FloatElems, true, "elementwise expm1")
	Log   = arith.ElementwiseOp("math.log", 1, arith.FloatElems, true, "elementwise log")
	Log2  = arith.ElementwiseOp("math.log2", 1, arith.FloatElems, true, "elementwise log2")
	Log10 = arith.ElementwiseOp("math.log10", 1, arith.FloatElems, true, "elementwise log10")
	Log1p = arith.ElementwiseOp("math.log1p", 1, arith.FloatElems, true, "elementwise log1p")
	Sqrt  = arith.ElementwiseOp("math.sqrt", 1, arith.FloatElems, true, "elementwise sqrt")
	Rsqrt = arith.ElementwiseOp("math.rsqrt", 1, arith.FloatElems, true, "elementwise rsqrt")
	Sin   = arith.ElementwiseOp("math.sin", 1, arith.FloatElems, true, "elementwise sin")
	Cos   = arith.ElementwiseOp("math.cos", 1, arith.FloatElems, true, "elementwise cos")
	Tan   = arith.ElementwiseOp("math.tan", 1, arith.FloatElems, true, "elementwise tan")
	Tanh  = arith.ElementwiseOp("math.tanh", 1, arith.FloatElems, true, "elementwise tanh")
	Atan  = arith.ElementwiseOp("math.atan", 1, arith.FloatElems, true, "elementwise atan")
	Erf   = arith.ElementwiseOp("math.erf", 1, arith.FloatElems, true, "elementwise erf")
	Floor = arith.ElementwiseOp("math.floor", 1, arith.FloatElems, true, "elementwise floor")
	Ceil  = arith.ElementwiseOp("math.ceil", 1, arith.FloatElems, true, "elementwise ceil")
	Round = arith.ElementwiseOp("math.round", 1, arith.FloatElems, true, "elementwise round")
	Trunc = arith.ElementwiseOp("math.trunc", 1, arith.FloatElems, true, "elementwise trunc")
	AbsF  = arith.ElementwiseOp("math.absf", 1, arith.FloatElems, true, "elementwise absf")

	PowF     = arith.ElementwiseOp("math.powf", 2, arith.FloatElems, true, "elementwise powf")
	Atan2    = arith.ElementwiseOp("math.atan2", 2, arith.FloatElems, true, "elementwise atan2")
	CopySign = arith.ElementwiseOp("math.copysign", 2, arith.FloatElems, true, "elementwise copysign")

	Fma  = arith.ElementwiseOp("math.fma", 3, arith.FloatElems, true, "fused multiply-add a*b + c")
	AbsI = arith.ElementwiseOp("math.absi", 1, arith.SignlessIntElems, false, "integer absolute value")
)

// FloatUnaryOps lists the unary float ops.
var FloatUnaryOps = []*ir.OpDef{
	Exp, Exp2, ExpM1, Log, Log2, Log10, Log1p, Sqrt, Rsqrt,
	Sin, Cos, Tan, Tanh, Atan, Erf, Floor, Ceil, Round, Trunc, AbsF,
}

// FloatBinaryOps lists the binary float ops.
var FloatBinaryOps = []*ir.OpDef{PowF, Atan2, CopySign}

// FloatUnary lists the names of FloatUnaryOps without the "math." prefix.
var FloatUnary = shortNames(FloatUnaryOps)

// FloatBinary lists the names of FloatBinaryOps without the prefix.
var FloatBinary = shortNames(FloatBinaryOps)

func shortNames(defs []*ir.OpDef) []string {
	var out []string
	for _, d := range defs {
		out = append(out, strings.TrimPrefix(d.Name, "math."))
	}
	return out
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
	return arith.NewElementwise(loc, Fma.Name, a, b, c)
}

func fullName(name string) string {
	if len(name) > 5 && name[:5] == "math." {
		return name
	}
	return "math." + name
}
