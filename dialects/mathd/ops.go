package mathd

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the math dialect are Go values, one per op, so that code names
// an op by value (op.Is(mathd.Exp), arith.NewElementwise(loc, mathd.Exp.Name,
// x)) and a misspelt op does not compile. Naming rule: the op's name after
// "math.", in CamelCase split as MLIR's C++ op class splits it, without its
// Op suffix: math.exp → Exp, math.absf → AbsF, math.expm1 → ExpM1,
// math.log1p → Log1p, math.copysign → CopySign, math.roundeven → RoundEven,
// math.fpowi → FPowI, math.ctpop → CtPop; math.ctlz and math.cttz (MLIR's
// CountLeadingZerosOp, CountTrailingZerosOp) are Ctlz and Cttz.
var allOps = append(append(append([]*ir.OpDef(nil), FloatUnaryOps...), FloatBinaryOps...),
	Fma, AbsI, Cbrt, RoundEven, IPowI, Ctlz, Cttz, CtPop, FPowI)

// Ops returns every op of the math dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

func init() { arith.Register(allOps...) }
