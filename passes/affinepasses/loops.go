package affinepasses

import (
	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

// forLoops lists the affine.for ops nested in root, innermost first
// (post-order), so a pass that rewrites a loop has already seen the loops
// inside it.
func forLoops(root *ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	var visit func(op *ir.Operation)
	visit = func(op *ir.Operation) {
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, o := range b.Ops {
					visit(o)
				}
			}
		}
		if op.Is(affine.For) && op != root {
			out = append(out, op)
		}
	}
	visit(root)
	return out
}

// loopBounds returns the lower bounds (the loop starts at their max) and
// upper bounds (it stops before their min) of an affine.for as
// expressions over values.
func loopBounds(x *valueExprs, loop *ir.Operation) (lbs, ubs []sizeexpr.Expr, ok bool) {
	lb, lbOps, ub, ubOps, _ := affine.ForBounds(loop)
	lbs, ok1 := x.apply(lb, lbOps)
	ubs, ok2 := x.apply(ub, ubOps)
	return lbs, ubs, ok1 && ok2
}

func loopStep(loop *ir.Operation) int64 {
	_, _, _, _, s := affine.ForBounds(loop)
	return s
}

// iterInits are the iter_args initial values of an affine.for.
func iterInits(loop *ir.Operation) []*ir.Value {
	return loop.Operands[len(loop.Operands)-len(loop.Results):]
}

// constBounds returns the bounds of a loop whose bounds are all constants.
func constBounds(lbs, ubs []sizeexpr.Expr) (lb, ub int64, ok bool) {
	for i, e := range lbs {
		c, isC := e.Const()
		if !isC {
			return 0, 0, false
		}
		if i == 0 || c > lb {
			lb = c
		}
	}
	for i, e := range ubs {
		c, isC := e.Const()
		if !isC {
			return 0, 0, false
		}
		if i == 0 || c < ub {
			ub = c
		}
	}
	return lb, ub, len(lbs) > 0 && len(ubs) > 0
}

// newFor builds an affine.for from bounds written over values.
func newFor(x *valueExprs, loc ir.Location, lbs, ubs []sizeexpr.Expr, step int64, inits []*ir.Value) (*ir.Operation, bool) {
	lb, lbOps, ok1 := x.toMap(lbs)
	ub, ubOps, ok2 := x.toMap(ubs)
	if !ok1 || !ok2 {
		return nil, false
	}
	return affine.NewFor(loc, lb, lbOps, ub, ubOps, step, inits), true
}

// setBounds rewrites an affine.for's bounds (and iter_args inits) in place.
func setBounds(x *valueExprs, rw *ir.Rewriter, loop *ir.Operation, lbs, ubs []sizeexpr.Expr, inits []*ir.Value) bool {
	lb, lbOps, ok1 := x.toMap(lbs)
	ub, ubOps, ok2 := x.toMap(ubs)
	if !ok1 || !ok2 {
		return false
	}
	loop.Operands = append(append(append([]*ir.Value(nil), lbOps...), ubOps...), inits...)
	loop.SetAttr(affine.AttrLowerBound, ir.AffineMapAttr{Map: lb})
	loop.SetAttr(affine.AttrUpperBound, ir.AffineMapAttr{Map: ub})
	rw.Modified(loop)
	return true
}

// chunkSplit cuts a loop's iterations into a main part made of full chunks
// (chunk = step * factor consecutive iterations, for unrolling or
// vectorizing) and a remainder that runs the rest one by one.
type chunkSplit struct {
	mainUB []sizeexpr.Expr // the main loop's upper bound (min of)
	remLB  []sizeexpr.Expr // the remainder's lower bound (max of); nil when nothing remains
}

// splitChunks computes the split of loop for chunks of chunk iterations'
// worth of induction variable. The main loop keeps the lower bound l and
// runs chunk by chunk up to f(u) = l + ((u - l + step - 1) floordiv chunk)
// * chunk, the end of the last full chunk below the upper bound u; the
// remainder runs from there to u. f is monotonic, so for u = min(u1, u2),
// f(u) = min(f(u1), f(u2)): a min upper bound is fine for the main loop.
// The remainder's lower bound is a max, and max(l, min(...)) cannot be
// written as one; it is exact in the cases handled here: one non-constant
// upper bound r (remainder from max(l, f(r))), optionally with bounds
// l + C whose smallest C is a multiple of chunk (a tile's point loop:
// min(d0 + 32, N)). Other shapes, a lower bound with several results, or
// a loop that has no full chunk are refused (ok false).
func splitChunks(x *valueExprs, loop *ir.Operation, chunk int64) (chunkSplit, bool) {
	lbs, ubs, ok := loopBounds(x, loop)
	if !ok || chunk <= 0 {
		return chunkSplit{}, false
	}
	step := loopStep(loop)
	full := func(extent int64) int64 { // the part of [0, extent) made of full chunks
		if extent <= 0 {
			return 0
		}
		return (extent + step - 1) / chunk * chunk
	}
	if lb, ub, isConst := constBounds(lbs, ubs); isConst {
		k := full(ub - lb)
		if k == 0 {
			return chunkSplit{}, false
		}
		s := chunkSplit{mainUB: []sizeexpr.Expr{sizeexpr.Const(lb + k)}}
		if lb+k < ub {
			s.remLB = []sizeexpr.Expr{sizeexpr.Const(lb + k)}
		}
		return s, true
	}
	if len(lbs) != 1 {
		return chunkSplit{}, false
	}
	l := lbs[0]
	var cMin int64
	hasC := false
	var rest []sizeexpr.Expr
	for _, u := range ubs {
		if c, isC := sizeexpr.Sub(u, l).Const(); isC {
			if !hasC || c < cMin {
				cMin, hasC = c, true
			}
			continue
		}
		rest = append(rest, u)
	}
	f := func(u sizeexpr.Expr) sizeexpr.Expr {
		q, _ := sizeexpr.FloorDiv(sizeexpr.Add(sizeexpr.Sub(u, l), sizeexpr.Const(step-1)), chunk)
		return sizeexpr.Add(l, sizeexpr.Mul(q, chunk))
	}
	switch {
	case len(rest) == 0:
		k := full(cMin)
		if k == 0 {
			return chunkSplit{}, false
		}
		end := sizeexpr.Add(l, sizeexpr.Const(k))
		s := chunkSplit{mainUB: []sizeexpr.Expr{end}}
		if k < cMin {
			s.remLB = []sizeexpr.Expr{end}
		}
		return s, true
	case len(rest) == 1 && !hasC:
		return chunkSplit{mainUB: []sizeexpr.Expr{f(rest[0])}, remLB: []sizeexpr.Expr{l, f(rest[0])}}, true
	case len(rest) == 1 && cMin > 0 && cMin%chunk == 0:
		return chunkSplit{
			mainUB: []sizeexpr.Expr{sizeexpr.Add(l, sizeexpr.Const(cMin)), f(rest[0])},
			remLB:  []sizeexpr.Expr{l, f(rest[0])},
		}, true
	}
	return chunkSplit{}, false
}

// constTripCount returns the number of iterations of a loop with constant
// bounds.
func constTripCount(x *valueExprs, loop *ir.Operation) (int64, bool) {
	lbs, ubs, ok := loopBounds(x, loop)
	if !ok {
		return 0, false
	}
	lb, ub, ok := constBounds(lbs, ubs)
	if !ok {
		return 0, false
	}
	if ub <= lb {
		return 0, true
	}
	s := loopStep(loop)
	return (ub - lb + s - 1) / s, true
}

// provablyNonEmpty reports whether loop runs at least once whenever it is
// reached: every upper bound exceeds every lower bound, knowing the ranges
// of the enclosing loops' induction variables (a tile's point loop
// `%i = %t to min(%t + 32, %N)` inside `%t = 0 to %N` runs at least once).
func provablyNonEmpty(x *valueExprs, loop *ir.Operation) bool {
	lbs, ubs, ok := loopBounds(x, loop)
	if !ok {
		return false
	}
	for _, l := range lbs {
		for _, u := range ubs {
			budget := 64
			if !proveNonNeg(x, sizeexpr.Sub(sizeexpr.Sub(u, l), sizeexpr.Const(1)), &budget) {
				return false
			}
		}
	}
	return true
}

// proveNonNeg proves e >= 0 by bounding the enclosing loops' induction
// variables, innermost first: an IV with a positive coefficient is
// replaced by one of its lower bounds, one with a negative coefficient by
// one of its upper bounds minus one. What remains must be a constant.
func proveNonNeg(x *valueExprs, e sizeexpr.Expr, budget *int) bool {
	*budget--
	if *budget < 0 {
		return false
	}
	if c, ok := e.Const(); ok {
		return c >= 0
	}
	terms, _, ok := e.Linear()
	if !ok {
		return false
	}
	var pick *ir.Value
	var coef int64
	depth := -1
	for _, t := range terms {
		v := x.value(t.Var)
		if v == nil || v.OwnerBlock() == nil {
			continue
		}
		owner := v.OwnerBlock().ParentOp()
		if !owner.Is(affine.For) || v.ArgIndex() != 0 {
			continue
		}
		if d := nesting(owner); d > depth {
			pick, coef, depth = v, t.Coef, d
		}
	}
	if pick == nil {
		return false
	}
	lbs, ubs, ok := loopBounds(x, pick.OwnerBlock().ParentOp())
	if !ok {
		return false
	}
	subst := func(r sizeexpr.Expr) sizeexpr.Expr {
		return x.renameValues(e, func(v *ir.Value) (sizeexpr.Expr, bool) {
			if v == pick {
				return r, true
			}
			return sizeexpr.Expr{}, false
		})
	}
	if coef > 0 {
		for _, l := range lbs {
			if proveNonNeg(x, subst(l), budget) {
				return true
			}
		}
		return false
	}
	for _, u := range ubs {
		if proveNonNeg(x, subst(sizeexpr.Sub(u, sizeexpr.Const(1))), budget) {
			return true
		}
	}
	return false
}

// nesting is the number of ops enclosing op.
func nesting(op *ir.Operation) int {
	n := 0
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		n++
	}
	return n
}

// isInnermost reports whether a loop contains no other loop.
func isInnermost(loop *ir.Operation) bool {
	inner := false
	loop.Walk(func(o *ir.Operation) bool {
		if o != loop && o.Is(affine.For, affine.Parallel, scf.For) {
			inner = true
		}
		return !inner
	})
	return !inner
}

// bodyOps are the ops of a loop body without its terminator.
func bodyOps(loop *ir.Operation) []*ir.Operation {
	b := affine.ForBody(loop)
	ops := b.Ops
	if t := b.Terminator(); t != nil {
		ops = ops[:len(ops)-1]
	}
	return append([]*ir.Operation(nil), ops...)
}

// newGuard builds `affine.if` on "every expression of cs is >= 0" (cs
// written over values), with an empty then block, and with results of the
// given types and an empty else block when there are any.
func newGuard(x *valueExprs, loc ir.Location, cs []sizeexpr.Expr, results []ir.Type) (*ir.Operation, bool) {
	m, operands, ok := x.toMap(cs)
	if !ok {
		return nil, false
	}
	set := ir.AffineSet{NumDims: m.NumDims, NumSyms: m.NumSyms}
	for _, c := range m.Results {
		set.Constraints = append(set.Constraints, ir.AffineConstraint{Expr: c})
	}
	return affine.NewIf(loc, set, operands, results, len(results) > 0), true
}
