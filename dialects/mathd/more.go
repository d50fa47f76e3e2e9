package mathd

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The math ops of MLIR 16 that TIR's lowering does not produce: they are
// read and printed (with MLIR's syntax and representation) so that IR from
// mlir-opt round-trips, but passes do not treat them specially (FPowI,
// below, too).
var (
	Cbrt      = arith.ElementwiseOp("math.cbrt", 1, arith.FloatElems, true, "elementwise cube root")
	RoundEven = arith.ElementwiseOp("math.roundeven", 1, arith.FloatElems, true, "elementwise round half to even")
	IPowI     = arith.ElementwiseOp("math.ipowi", 2, arith.SignlessIntElems, false, "integer power")
	Ctlz      = arith.ElementwiseOp("math.ctlz", 1, arith.SignlessIntElems, false, "count leading zeros")
	Cttz      = arith.ElementwiseOp("math.cttz", 1, arith.SignlessIntElems, false, "count trailing zeros")
	CtPop     = arith.ElementwiseOp("math.ctpop", 1, arith.SignlessIntElems, false, "count set bits")
)

// FPowI is `%r = math.fpowi %base, %power [fastmath<...>] : f32, i32`: a
// float to an integer power (shapes agree).
var FPowI = &ir.OpDef{
	Name:        "math.fpowi",
	Summary:     "float base to an integer power",
	Syntax:      "%r = math.fpowi %base, %power : f32, i32",
	Traits:      ir.TraitPure,
	NumOperands: 2, NumResults: 1, NumRegions: 0,
	Format:       arith.Format("$base , $power fastmath : types($base,$power) res-type($base)"),
	NeedsGeneric: func(op *ir.Operation) bool { return !arith.OnlyAttrs(op, "fastmath") },
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		if op.Attr("fastmath") == nil {
			op.SetAttr("fastmath", arith.FastNone)
		}
		return nil, nil
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		b, e := op.Operands[0].Type, op.Operands[1].Type
		if !arith.IsFloatLike(b) || !arith.IsSignlessInt(e) || !arith.SameShape(b, e) || !ir.TypeEqual(op.Results[0].Type, b) {
			return arith.Errf(op, "expects a float base, an integer power of the same shape and the base's type as result")
		}
		return nil
	},
}
