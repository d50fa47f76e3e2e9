// Package affinepasses holds the loop transformations of the affine stage
// (spec 4.2), registered in the pass table from init:
//
//	affine-loop-tile{sizes=32,8}   tile perfectly nested bands
//	affine-loop-unroll{factor=4}   unroll innermost loops, with a remainder loop;
//	                               unroll-full-threshold=N: short ones completely
//	affine-loop-unswitch           one copy of a nest per outcome of a test
//	                               fixed before it (a gather's emptiness test)
//	affine-vectorize{width=8}      innermost contiguous loops to vector<8xT>,
//	                               order-free reductions to vector accumulators;
//	                               outer=true (default): a loop around float sums
//	                               kept in order, one lane per iteration
//	affine-contraction-tile        register tiles and packed panels for
//	                               contractions (matmul, Linear, convolutions,
//	                               tensordot), epilogues in the tile's store
//	affine-loop-fusion             producer-consumer fusion of sibling nests
//	affine-licm                    hoist loop-invariant code out of affine.for
//	affine-scalar-replace          store-to-load forwarding, redundant loads
//	sink-masked-updates            a masked reduction's selects to one branch
//	                               around the neighbour's loads and arithmetic
//
// Every pass checks legality on the IR it is given rather than assuming
// the shape convert-tir-to-affine produces: a transformation that cannot be
// proved to preserve every memory dependence is not applied. The shared
// analyses are small and conservative:
//
//   - exprs.go writes subscripts and bounds as affine expressions over SSA
//     values (affine.apply and index constants folded in), so accesses
//     written through different maps can be compared;
//   - effects.go lists the memory accesses of an op and decides aliasing:
//     distinct allocations never alias, and distinct function arguments do
//     not either, the contract convert-to-llvm already relies on when it
//     marks every buffer argument noalias (docs/abi.md: results must not
//     overlap inputs); anything else (memref.cast, unknown ops) may alias;
//   - dependence.go computes dependence distances between two accesses
//     along paired loops (ZIV, GCD and strong-SIV tests), "unknown" when it
//     cannot tell;
//   - loops.go has the loop helpers: trip counts, splitting a loop into full
//     chunks plus a remainder, proving a loop runs at least once.
package affinepasses

import (
	// The passes run on func.func: its definition (isolated from above,
	// which makes function arguments valid affine symbols) must be
	// registered wherever they are linked.
	_ "tir/dialects/fn"
)
