// Package affine is MLIR's affine dialect as the affine stage uses it:
// affine.for, affine.parallel, affine.if, affine.yield, affine.load and
// affine.store (and their vector forms), affine.apply, affine.min and
// affine.max. Custom forms print exactly as MLIR 16 does, except that maps
// and sets are always written inline (affine_map<...>, never #map aliases);
// the internal representation is MLIR 16's generic form (see each op).
//
// Maps are ir.AffineMap values whose results are sizeexpr expressions over
// ir.MapDim(i) and ir.MapSym(i). Builders create ops with their body
// blocks but without terminators: the caller appends affine.yield.
package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// NewFor builds `affine.for %iv = max lb(lbOperands) to min ub(ubOperands)
// step step iter_args(inits)`. Its body block has the induction variable
// (index) then one argument per init, and NO terminator: the caller appends
// the body and an affine.yield (of the next iter values; an empty one
// without inits). The results have the types of inits.
func NewFor(loc ir.Location, lb ir.AffineMap, lbOperands []*ir.Value, ub ir.AffineMap, ubOperands []*ir.Value, step int64, inits []*ir.Value) *ir.Operation {
	operands := append(append(append([]*ir.Value(nil), lbOperands...), ubOperands...), inits...)
	types := arith.TypesOf(inits)
	op := ir.NewOpOf(For, loc, operands, types, ir.DictAttr{}.
		With("lower_bound", ir.AffineMapAttr{Map: lb}).
		With("upper_bound", ir.AffineMapAttr{Map: ub}).
		With("step", ir.IntegerAttr{Value: step, Type: ir.Index}))
	op.AddRegion().AddBlock(append([]ir.Type{ir.Index}, types...)...)
	return op
}

// NewConstantFor builds `affine.for %iv = lb to ub step step` with constant
// bounds and no iter_args (body block without terminator, as NewFor).
func NewConstantFor(loc ir.Location, lb, ub, step int64) *ir.Operation {
	return NewFor(loc, ConstantMap(lb), nil, ConstantMap(ub), nil, step, nil)
}

// ParallelAttr is the unit attribute with which the tir lowering marks an
// affine.for whose iterations are independent (no loop-carried dependence
// through memory or iter_args): loops over a materialized value's domain.
// Scan and reduction loops never carry it. It is an ordinary discardable
// attribute, so mlir-opt keeps it (`affine.for ... { } {tir.parallel}`);
// the GPU kernel outlining maps marked loops to threads.
const ParallelAttr = "tir.parallel"

// IsParallel reports whether an affine.for carries ParallelAttr.
func IsParallel(op *ir.Operation) bool {
	_, ok := op.Attr(ParallelAttr).(ir.UnitAttr)
	return op.Is(For) && ok
}

// ForBody is the body block of an affine.for.
func ForBody(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }

// InductionVar is the induction variable of an affine.for.
func InductionVar(op *ir.Operation) *ir.Value { return ForBody(op).Args[0] }

// IterArgs are the loop-carried values of an affine.for inside its body.
func IterArgs(op *ir.Operation) []*ir.Value { return ForBody(op).Args[1:] }

// ForBounds returns an affine.for's bound maps with their operands and its
// step.
func ForBounds(op *ir.Operation) (lb ir.AffineMap, lbOperands []*ir.Value, ub ir.AffineMap, ubOperands []*ir.Value, step int64) {
	lb, ub, lbOps, ubOps, _ := forParts(op)
	return lb, lbOps, ub, ubOps, op.Attr("step").(ir.IntegerAttr).Value
}

// NewYield builds `affine.yield %vals...`.
func NewYield(loc ir.Location, vals ...*ir.Value) *ir.Operation {
	return ir.NewOpOf(Yield, loc, vals, nil, nil)
}
