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
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-loop-unroll",
		Title:   "AffineLoopUnroll",
		Summary: "Unroll innermost affine.for loops by a factor, with a remainder loop (iter_args chained)",
		Anchor:  passes.AnchorFunc,
		Options: []passes.OptionSpec{
			{Name: "factor", Type: passes.OptInt, Default: 4, Help: "copies of the body per iteration of the unrolled loop (1: do nothing)"},
		},
		Check: func(o passes.Options) error {
			if o.Int("factor") < 1 {
				return fmt.Errorf("factor must be at least 1")
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			factor := int64(o.Int("factor"))
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				if factor == 1 {
					return nil
				}
				x := newValueExprs()
				rw := &ir.Rewriter{Root: fn}
				for _, loop := range forLoops(fn) {
					if isInnermost(loop) {
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

// foldApplies composes the affine.apply ops of a block into the affine
// loads and stores that use them (A[%i1] with %i1 = %i + 1 becomes
// A[%i + 1]), as MLIR's canonicalizer does, then drops the applies left
// unused. The LLVM emitter then sees one base address per access group.
func foldApplies(x *valueExprs, rw *ir.Rewriter, b *ir.Block) {
	for _, o := range b.Ops {
		switch o.Name {
		case "affine.load", "affine.vector_load", "affine.store", "affine.vector_store":
		default:
			continue
		}
		val, mem, m, operands := affine.AccessParts(o)
		fromApply := false
		for _, v := range operands {
			if d := v.DefiningOp(); d != nil && d.Name == "affine.apply" {
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
		o.SetAttr("map", ir.AffineMapAttr{Map: nm})
		rw.Modified(o)
	}
	for i := len(b.Ops) - 1; i >= 0; i-- {
		o := b.Ops[i]
		if o.Name == "affine.apply" && !usedIn(b, o.Result(0)) {
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
