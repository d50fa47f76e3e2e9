package scf

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the scf dialect are Go values, one per op, so that code names
// an op by value (op.Is(scf.For), ir.NewOpOf(scf.Yield, ...)) and a
// misspelt op does not compile. Naming rule: the op's name after "scf.", in
// CamelCase as MLIR's C++ op class spells it, without its Op suffix:
// scf.for → For, scf.execute_region → ExecuteRegion, scf.reduce.return →
// ReduceReturn.
var allOps = []*ir.OpDef{
	For, If, Yield, While, Condition, Parallel, Reduce, ReduceReturn, ExecuteRegion,
}

// Ops returns every op of the scf dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

// The parents a terminator's verifier accepts. They are set in init, as the
// parents' definitions refer to the terminator (Go rejects the cycle in
// package-level initializers).
var yieldParents, conditionParents []ir.OpKind

func init() {
	yieldParents = []ir.OpKind{For, If, While, Parallel, ExecuteRegion}
	conditionParents = []ir.OpKind{While}
	arith.Register(allOps...)
}
