// Package vector holds the part of MLIR's vector dialect that the affine
// stage uses: vector.broadcast of a scalar to a 1-D vector, with MLIR 16's
// syntax `%v = vector.broadcast %x : f32 to vector<16xf32>` (so printed IR
// stays readable by upstream mlir-opt), vector.reduction, which folds
// the lanes of a vector (reduction.go), and vector.shuffle, which picks
// lanes from two vectors (shuffle.go). affine-contraction-tile emits the
// broadcast for the operand of a contraction that is the same along the
// vector lanes (A(m, k) in C(m, n) += A(m, k) * B(k, n)); convert-to-llvm
// lowers it to an insertelement and a zero-mask shufflevector, which llc
// selects as one broadcast instruction (vbroadcastss, dup).
package vector

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// Broadcast is vector.broadcast.
var Broadcast = &ir.OpDef{
	Name:        "vector.broadcast",
	Summary:     "a 1-D vector whose every element is the scalar operand",
	Syntax:      "%v = vector.broadcast %x : T to vector<NxT>",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1, NumRegions: 0,
	Format:       arith.Format(arith.ConversionFormat),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		from, to := op.Operands[0].Type, op.Results[0].Type
		vt, ok := to.(ir.VectorType)
		if !ok || len(vt.Shape) != 1 || vt.Shape[0] < 1 {
			return arith.Errf(op, "result must be a 1-D vector of static length, not %s", to)
		}
		if _, isVec := from.(ir.VectorType); isVec || !ir.TypeEqual(from, vt.Elem) {
			return arith.Errf(op, "operand %s must be a scalar of the result's element type %s", from, vt.Elem)
		}
		return nil
	},
}

// NewBroadcast builds `%v = vector.broadcast %x : T to vector<lanes x T>`.
func NewBroadcast(loc ir.Location, x *ir.Value, lanes int64) *ir.Operation {
	t := ir.VectorType{Shape: []int64{lanes}, Elem: x.Type}
	return ir.NewOpOf(Broadcast, loc, []*ir.Value{x}, []ir.Type{t}, nil)
}

// AttrKind is vector.reduction's combining kind.
const AttrKind = "kind"
