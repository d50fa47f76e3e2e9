package vector

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the vector dialect that TIR has are Go values, one per op, so
// that code names an op by value (op.Is(vector.Shuffle),
// ir.NewOpOf(vector.Broadcast, ...)) and a misspelt op does not compile.
// Naming rule: the op's name after "vector.", in CamelCase as MLIR's C++
// op class spells it, without its Op suffix: vector.broadcast → Broadcast,
// vector.reduction → Reduction, vector.shuffle → Shuffle.
var allOps = []*ir.OpDef{Broadcast, Reduction, Shuffle}

// Ops returns every op of the vector dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

func init() { arith.Register(allOps...) }
