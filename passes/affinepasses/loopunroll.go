package affinepasses

import (
	"fmt"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/passes"
)

// affine-loop-unroll: unroll innermost affine.for loops by a factor. The
// iterations keep their order, so unrolling is legal for every loop; what
// has to be right is the iteration space. The loop becomes a main loop
// stepping over chunks of `factor` iterations, whose body holds `factor`
// copies of the original body (copy k at %i + k*step, iter_args chained
// from one copy to the next), and a remainder loop (the original loop,
// starting where the main loop stopped, continuing the iter_args) for the
// last trip count mod factor iterations; see splitChunks for the bounds.
// Loops whose bounds do not allow an exact split, or that have fewer
// iterations than the factor, are left alone.
//
// With unroll-full-threshold=T (MLIR's option of the same name), a loop
// with a constant trip count of at most T is unrolled completely instead:
// its copies replace it in the enclosing block, with no loop left (a loop
// of no iteration becomes its initial iter_args). Short fixed loops (a
// mesh's 7 neighbours, an edge's 2 vertices) then cost no loop control,
// which llc alone (no LLVM loop passes) would keep. As with the factor,
// only the innermost loops of the input are unrolled (the loop around a
// completely unrolled one stays a loop), and only while the copies stay
// within fullUnrollBudget ops.
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-loop-unroll",
		Title:   "AffineLoopUnroll",
		Summary: "Unroll innermost affine.for loops by a factor, with a remainder loop (iter_args chained)",
		Anchor:  passes.AnchorFunc,
		Options: []passes.OptionSpec{
			{Name: "factor", Type: passes.OptInt, Default: 4, Help: "copies of the body per iteration of the unrolled loop (1: do nothing)"},
			{Name: "unroll-full-threshold", Type: passes.OptInt, Default: 0, Help: "unroll completely, with no loop left, the loops whose constant trip count is at most this (0: none); the factor then applies to the innermost loops that remain"},
		},
		Check: func(o passes.Options) error {
			if o.Int("factor") < 1 {
				return fmt.Errorf("factor must be at least 1")
			}
			if o.Int("unroll-full-threshold") < 0 {
				return fmt.Errorf("unroll-full-threshold must not be negative")
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			factor := int64(o.Int("factor"))
			fullThreshold := int64(o.Int("unroll-full-threshold"))
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				x := newValueExprs()
				rw := &ir.Rewriter{Root: fn}
				// The innermost loops of the input: a loop whose inner loops
				// are unrolled completely is not unrolled in turn, so that
				// code grows by one factor only.
				var innermost []*ir.Operation
				for _, loop := range forLoops(fn) {
					if isInnermost(loop) {
						innermost = append(innermost, loop)
					}
				}
				for _, loop := range innermost {
					if fullThreshold > 0 && unrollFull(x, rw, loop, fullThreshold) {
						continue
					}
					if factor > 1 {
						unrollLoop(x, rw, loop, factor)
					}
				}
				return nil
			})
		},
	})
}

// unrollLoop unrolls one innermost loop; it reports whether it did.
func unrollLoop(x *valueExprs, rw *ir.Rewriter, loop *ir.Operation, factor int64) bool {
	step := loopStep(loop)
	// The main loop's step must stay a valid step (affine.for's
	// verifier): below the index limit, which also keeps it from
	// overflowing.
	if step > (sizeexpr.IndexLimit-1)/factor {
		return false
	}
	split, ok := splitChunks(x, loop, step*factor)
	if !ok {
		return false
	}
	lbs, ubs, _ := loopBounds(x, loop)
	main, ok := newFor(x, loop.Loc, lbs, split.mainUB, step*factor, iterInits(loop))
	if !ok {
		return false
	}
	if affine.IsParallel(loop) {
		main.SetAttr(affine.ParallelAttr, ir.UnitAttr{}) // chunks of independent iterations
	}
	body := affine.ForBody(main)
	for i, a := range affine.ForBody(loop).Args {
		body.Args[i].NameHint = a.NameHint
	}
	iv := body.Args[0]
	vals := append([]*ir.Value(nil), body.Args[1:]...)
	origIV, origIters := affine.InductionVar(loop), affine.IterArgs(loop)
	yield := affine.ForBody(loop).Terminator()
	for k := int64(0); k < factor; k++ {
		mapping := map[*ir.Value]*ir.Value{}
		ivk := iv
		if k > 0 {
			m := affine.MapOf(1, 0, sizeexpr.Add(ir.MapDim(0), sizeexpr.Const(k*step)))
			ivk = body.Append(affine.NewApply(loop.Loc, m, []*ir.Value{iv})).Result(0)
		}
		mapping[origIV] = ivk
		for j, a := range origIters {
			mapping[a] = vals[j]
		}
		for _, o := range bodyOps(loop) {
			body.Append(o.Clone(mapping))
		}
		for j, v := range yield.Operands {
			if m, ok := mapping[v]; ok {
				vals[j] = m
			} else {
				vals[j] = v
			}
		}
	}
	body.Append(affine.NewYield(loop.Loc, vals...))
	foldApplies(x, rw, body)
	rw.InsertBefore(loop, main)
	if split.remLB == nil {
		rw.ReplaceOp(loop, main.Results)
		return true
	}
	setBounds(x, rw, loop, split.remLB, ubs, main.Results)
	return true
}

// fullUnrollBudget bounds the ops a complete unrolling may create (trip
// count times body ops, nested ones included), so that a threshold never
// multiplies a large body: 512 lets the 7 entries of a neighbour table's
// row unroll with a body of up to 73 ops (a scatter sweep's entry that
// also computes the cotangents over the table and carries sums), but
// not 8 copies of a body of 65 (docs/decisions.md).
const fullUnrollBudget = 512

// unrollFull replaces an innermost loop of at most threshold iterations
// (constant bounds) by copies of its body in the enclosing block, copy k
// at the constant lb + k*step, iter_args chained; it reports whether it
// did. The loop's results become the last copy's yielded values (the
// initial values for a loop of no iteration).
func unrollFull(x *valueExprs, rw *ir.Rewriter, loop *ir.Operation, threshold int64) bool {
	trip, ok := constTripCount(x, loop)
	if !ok || trip > threshold {
		return false
	}
	ops := bodyOps(loop)
	size := int64(0)
	for _, o := range ops {
		o.Walk(func(*ir.Operation) bool { size++; return true })
	}
	if trip*size > fullUnrollBudget {
		return false
	}
	lbs, ubs, _ := loopBounds(x, loop)
	lb, _, _ := constBounds(lbs, ubs)
	step := loopStep(loop)
	vals := append([]*ir.Value(nil), iterInits(loop)...)
	origIV, origIters := affine.InductionVar(loop), affine.IterArgs(loop)
	yield := affine.ForBody(loop).Terminator()
	block := loop.ParentBlock()
	for k := int64(0); k < trip; k++ {
		iv := rw.InsertBefore(loop, affine.NewApply(loop.Loc, affine.MapOf(0, 0, sizeexpr.Const(lb+k*step)), nil)).Result(0)
		mapping := map[*ir.Value]*ir.Value{origIV: iv}
		for j, a := range origIters {
			mapping[a] = vals[j]
		}
		for _, o := range ops {
			rw.InsertBefore(loop, o.Clone(mapping))
		}
		for j, v := range yield.Operands {
			if m, ok := mapping[v]; ok {
				vals[j] = m
			} else {
				vals[j] = v
			}
		}
	}
	rw.ReplaceOp(loop, vals)
	foldApplies(x, rw, block)
	return true
}

// foldApplies composes the affine.apply ops of a block into the affine
// loads and stores that use them (A[%i1] with %i1 = %i + 1 becomes
// A[%i + 1]), as MLIR's canonicalizer does, then drops the applies left
// unused. The LLVM emitter then sees one base address per access group.
func foldApplies(x *valueExprs, rw *ir.Rewriter, b *ir.Block) {
	for _, o := range b.Ops {
		switch o.Def {
		case affine.Load, affine.VectorLoad, affine.Store, affine.VectorStore:
		default:
			continue
		}
		val, mem, m, operands := affine.AccessParts(o)
		fromApply := false
		for _, v := range operands {
			if d := v.DefiningOp(); d.Is(affine.Apply) {
				fromApply = true
			}
		}
		if !fromApply {
			continue
		}
		subs, ok := x.apply(m, operands)
		if !ok {
			continue
		}
		nm, nops, ok := x.toMap(subs)
		if !ok {
			continue
		}
		prefix := []*ir.Value{mem}
		if val != nil {
			prefix = []*ir.Value{val, mem}
		}
		o.Operands = append(prefix, nops...)
		o.SetAttr(affine.AttrMap, ir.AffineMapAttr{Map: nm})
		rw.Modified(o)
	}
	for i := len(b.Ops) - 1; i >= 0; i-- {
		o := b.Ops[i]
		if o.Is(affine.Apply) && !usedIn(b, o.Result(0)) {
			rw.EraseOp(o)
		}
	}
}

// usedIn reports whether v is used by an op of b (or nested in one).
func usedIn(b *ir.Block, v *ir.Value) bool {
	for _, o := range b.Ops {
		if ir.HasUses(o, v) {
			return true
		}
	}
	return false
}
