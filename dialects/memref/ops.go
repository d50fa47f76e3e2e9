package memref

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the memref dialect are Go values, one per op, so that code
// names an op by value (op.Is(memref.Load), ir.NewOpOf(memref.Alloc, ...))
// and a misspelt op does not compile. Naming rule: the op's name after
// "memref.", in CamelCase split as MLIR's C++ op class splits it, without
// its Op suffix: memref.alloc → Alloc, memref.get_global → GetGlobal,
// memref.subview → SubView, memref.atomic_rmw → AtomicRMW,
// memref.alloca_scope.return → AllocaScopeReturn.
var allOps = []*ir.OpDef{
	Alloc, Alloca, Dealloc, Load, Store, Dim, Cast, Copy,
	SubView, ReinterpretCast, CollapseShape, ExpandShape, View, Reshape, Realloc,
	GetGlobal, AssumeAlignment, ExtractStridedMetadata, AtomicRMW, Rank,
	ExtractAlignedPointerAsIndex, GenericAtomicRMW, AllocaScope, AllocaScopeReturn,
	AtomicYield, Prefetch, Global,
}

// Ops returns every op of the memref dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

func init() { arith.Register(allOps...) }
