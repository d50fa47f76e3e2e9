package arith

import "tir/dialects/ir"

// The ops of the arith dialect are Go values, one per op, so that code names
// an op by value (op.Is(arith.AddF), ir.NewOpOf(arith.Constant, ...)) and a
// misspelt op does not compile. Naming rule: the op's name after "arith.",
// in CamelCase split as MLIR's C++ op class splits it, without its Op
// suffix: arith.constant → Constant, arith.addf → AddF, arith.cmpi → CmpI,
// arith.divsi → DivSI, arith.xori → XOrI, arith.shrui → ShRUI,
// arith.sitofp → SIToFP, arith.index_castui → IndexCastUI,
// arith.addui_extended → AddUIExtended.
var allOps = []*ir.OpDef{
	Constant, Select, CmpF, CmpI,
	AddF, SubF, MulF, DivF, RemF, MaxF, MinF, NegF,
	AddI, SubI, MulI, DivSI, DivUI, RemSI, RemUI, FloorDivSI, CeilDivSI,
	MaxSI, MaxUI, MinSI, MinUI, AndI, OrI, XOrI, ShLI, ShRSI, ShRUI,
	IndexCast, IndexCastUI, SIToFP, UIToFP, FPToSI, FPToUI,
	ExtF, TruncF, ExtSI, ExtUI, TruncI, Bitcast,
	AddUIExtended, MulUIExtended, MulSIExtended,
}

// Ops returns every op of the arith dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

func init() { Register(allOps...) }

// Attribute names of arith ops, for code outside the dialect that reads or
// builds them.
const (
	AttrValue     = "value"     // arith.constant's value
	AttrPredicate = "predicate" // arith.cmpf / arith.cmpi
	AttrFastmath  = "fastmath"  // the fast-math flags of float ops
)
