// Package sizeexpr implements the size expressions of the tir dialect
// (spec 2.5): integer expressions over size symbols (N, M, ...) used as
// tensor bounds, and the affine index expressions over index variables
// (i, j, d0, ...) used by views, shifts and affine maps.
//
// Every Expr is kept in one canonical form, built by the constructors (Add,
// Sub, Mul, FloorDiv, Min, ...), so that two expressions that the simplifier
// knows to be equal are structurally equal: golden files, type equality and
// interval intersection all rely on that. The canonical form is
//
//	sum of coef*atom + constant
//
// where an atom is a variable or a non-linear sub-expression (floordiv,
// ceildiv, mod by a positive constant, or a min/max of canonical
// expressions). Terms are sorted: variables first by (Order, Name, Kind), then
// non-linear atoms by their canonical text; the constant comes last.
// Arguments of min/max are flattened, folded when the prover can order them,
// and sorted the same way as sums (by leading term, then coefficient, ...,
// constants last), so min(M, N) prints min(N, M) and max(0, N - 1) prints
// max(N - 1, 0). A division keeps its dividend's constant in [0, divisor):
// (N - 1) floordiv 2 + 1 prints (N + 1) floordiv 2.
//
// An Expr is an immutable value: copy it freely and compare it with Equal
// (never with ==). The zero Expr is the constant 0.
//
// Size symbols are assumed >= 0 (spec 2.5); index variables (Dim) have no
// sign assumption. The decision procedures (Compare, ProveLE, ...) are sound
// but incomplete: they answer "proved" only when the comparison holds for
// every non-negative value of the symbols and every value of the dims.
//
// Coefficient arithmetic is exact int64 arithmetic. A constructor whose
// result would overflow int64 returns an overflowed value (Overflowed)
// rather than a wrapped one, because a wrapped bound would make the prover
// unsound; the value propagates through every constructor like a NaN,
// proves nothing, and panics when read, so overflow is an input error
// where the parsers and the verifier test for it (CheckOverflow,
// CheckLimit and IndexLimit in bounds.go) and never a wrong bound. Eval
// reports overflow as an error.
package sizeexpr
