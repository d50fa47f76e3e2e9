package gpu

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the gpu dialect that TIR has are Go values, one per op, so that
// code names an op by value (op.Is(gpu.Func), ir.NewOpOf(gpu.Return, ...))
// and a misspelt op does not compile. Naming rule: the op's name after
// "gpu.", in CamelCase, each word after an underscore capitalised, "id"
// written ID as Go does: gpu.module → Module, gpu.module_end → ModuleEnd,
// gpu.launch_func → LaunchFunc, gpu.thread_id → ThreadID, gpu.block_dim →
// BlockDim.
var allOps = append([]*ir.OpDef{Module, ModuleEnd, Func, Return, LaunchFunc}, IndexOps...)

// Ops returns every op of the gpu dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

// The parents a terminator's verifier accepts. They are set in init, as the
// parents' definitions refer to the terminator (Go rejects the cycle in
// package-level initializers).
var moduleEndParents []ir.OpKind

func init() {
	moduleEndParents = []ir.OpKind{Module}
	arith.Register(allOps...)
}
