// Package arith is MLIR's arith dialect as TIR uses it at the affine stage:
// constants, integer and float arithmetic, comparisons, select and casts,
// on scalars and on vectors (the vectorizer produces vector<8xf32> arith).
//
// Custom forms and generic forms are exactly MLIR 16's, so printed IR is
// accepted by upstream mlir-opt, and the internal representation is MLIR's
// generic form: float ops carry `fastmath = #arith.fastmath<none>`,
// comparison predicates are `predicate = N : i64` (MLIR's enum values), a
// constant's value is an IntegerAttr, FloatAttr or DenseElementsAttr.
//
// The package also exports the small syntax and type helpers that the other
// upstream dialects (mathd, memref, affine, scf, fn) share.
package arith
