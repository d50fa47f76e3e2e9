package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the affine dialect are Go values, one per op, so that code
// names an op by value (op.Is(affine.For), ir.NewOpOf(affine.Yield, ...))
// and a misspelt op does not compile. Naming rule: the op's name after
// "affine.", in CamelCase as MLIR's C++ op class spells it, without its
// Affine prefix and Op suffix: affine.for → For, affine.apply → Apply,
// affine.vector_load → VectorLoad, affine.delinearize_index →
// DelinearizeIndex.
var allOps = []*ir.OpDef{
	For, Parallel, If, Yield, Apply, Min, Max,
	Load, Store, VectorLoad, VectorStore, DelinearizeIndex,
}

// Ops returns every op of the affine dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

// Kinds that verifiers and the helpers they call test ops for. They are set
// in init, not initialized here: the definitions of these ops call those
// verifiers and helpers, and Go rejects such a cycle in package-level
// initializers.
var (
	yieldParents []ir.OpKind // the parents affine.yield accepts
	loopOps      []ir.OpKind // ops whose body arguments are valid dims
	applyOps     []ir.OpKind // affine.apply
)

func init() {
	yieldParents = []ir.OpKind{For, Parallel, If}
	loopOps = []ir.OpKind{For, Parallel}
	applyOps = []ir.OpKind{Apply}
	arith.Register(allOps...)
}

// Attribute names of affine ops, for code outside the dialect that reads or
// builds them.
const (
	AttrMap        = "map"         // affine.load / affine.store / affine.apply subscripts
	AttrLowerBound = "lower_bound" // affine.for
	AttrUpperBound = "upper_bound" // affine.for
	AttrStep       = "step"        // affine.for
	AttrCondition  = "condition"   // affine.if's integer set
	AttrSteps      = "steps"       // affine.parallel
	AttrReductions = "reductions"  // affine.parallel
)
