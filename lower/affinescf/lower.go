// Package affinescf lowers the affine dialect to scf, arith and memref ops
// (MLIR's `lower-affine`): loops become scf.for, conditions scf.if, affine
// subscripts and bounds explicit index arithmetic, affine loads and stores
// memref.load and memref.store.
//
// The GPU path needs it: inside a kernel the loop indices come from
// gpu.thread_id and gpu.block_id, which are not valid affine dimensions or
// symbols, so kernel bodies hold no affine ops (as kernels produced by
// MLIR's own parallel-loop mapping do). Expression semantics are those of
// sizeexpr and MLIR: floordiv rounds toward negative infinity, ceildiv
// toward positive infinity, mod is non-negative.
package affinescf

import (
	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

// Lower rewrites every affine op nested in root (not root itself) in place.
// Ops it cannot express (vector loads and stores, parallel loops with
// reductions) give a located error; root is then partly rewritten.
func Lower(root *ir.Operation) error {
	rw := &ir.Rewriter{Root: root}
	for _, r := range root.Regions {
		for _, b := range r.Blocks {
			if err := lowerBlock(rw, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// lowerBlock lowers the ops of b, inner regions first.
func lowerBlock(rw *ir.Rewriter, b *ir.Block) error {
	for _, op := range append([]*ir.Operation(nil), b.Ops...) {
		for _, r := range op.Regions {
			for _, inner := range r.Blocks {
				if err := lowerBlock(rw, inner); err != nil {
					return err
				}
			}
		}
		if err := lowerOp(rw, op); err != nil {
			return err
		}
	}
	return nil
}

func lowerOp(rw *ir.Rewriter, op *ir.Operation) error {
	e := Emitter{Rewriter: rw, Anchor: op}
	switch op.Def {
	case affine.Load:
		_, mem, m, operands := affine.AccessParts(op)
		idx := e.Map(m, operands)
		rw.ReplaceOp(op, e.Append(memref.NewLoad(op.Loc, mem, idx)).Results)
	case affine.Store:
		val, mem, m, operands := affine.AccessParts(op)
		idx := e.Map(m, operands)
		e.Append(memref.NewStore(op.Loc, val, mem, idx))
		rw.EraseOp(op)
	case affine.Apply:
		m, operands := mapOperands(op)
		rw.ReplaceOp(op, e.Map(m, operands))
	case affine.Min, affine.Max:
		m, operands := mapOperands(op)
		rw.ReplaceOp(op, []*ir.Value{e.Bound(m, operands, op.Is(affine.Max))})
	case affine.For:
		lowerFor(&e, op)
	case affine.If:
		lowerIf(&e, op)
	case affine.Parallel:
		return lowerParallel(&e, op)
	case affine.Yield:
		// Rewritten with their parent (scf.yield), except in parents that
		// are not affine, which cannot hold one.
	case affine.VectorLoad, affine.VectorStore:
		return ir.Errorf(op.Loc, "lower-affine: '%s' is not supported (vectorize after choosing a CPU target)", op.Name)
	}
	return nil
}

func mapOperands(op *ir.Operation) (ir.AffineMap, []*ir.Value) {
	return op.Attr(affine.AttrMap).(ir.AffineMapAttr).Map, op.Operands
}

// lowerFor turns affine.for into scf.for over max(lower bounds) to
// min(upper bounds); the body region moves over unchanged but for its
// terminator.
func lowerFor(e *Emitter, op *ir.Operation) {
	lb, lbOps, ub, ubOps, step := affine.ForBounds(op)
	lo := e.Bound(lb, lbOps, true)
	hi := e.Bound(ub, ubOps, false)
	inits := op.Operands[len(lbOps)+len(ubOps):]
	loop := ir.NewOpOf(scf.For, op.Loc, append([]*ir.Value{lo, hi, e.Index(step)}, inits...), arith.ResultTypes(op), nil)
	moveRegion(op, loop, 0)
	e.Append(loop)
	e.Rewriter.ReplaceOp(op, loop.Results)
}

// lowerIf turns affine.if into scf.if on the conjunction of its constraints.
func lowerIf(e *Emitter, op *ir.Operation) {
	set := op.Attr(affine.AttrCondition).(ir.AffineSetAttr).Set
	var cond *ir.Value
	for _, c := range set.Constraints {
		m := ir.AffineMap{NumDims: set.NumDims, NumSyms: set.NumSyms, Results: []sizeexpr.Expr{c.Expr}}
		v := e.Map(m, op.Operands)[0]
		pred := "sge"
		if c.Eq {
			pred = "eq"
		}
		holds := e.Value(arith.NewCmpI(op.Loc, pred, v, e.Index(0)))
		if cond == nil {
			cond = holds
		} else {
			cond = e.Value(arith.NewBinary(op.Loc, "andi", cond, holds))
		}
	}
	if cond == nil { // an empty set always holds
		cond = e.Value(arith.NewConstant(op.Loc, ir.BoolAttr(true), ir.I1))
	}
	branch := ir.NewOpOf(scf.If, op.Loc, []*ir.Value{cond}, arith.ResultTypes(op), nil)
	moveRegion(op, branch, 0)
	moveRegion(op, branch, 1)
	e.Append(branch)
	e.Rewriter.ReplaceOp(op, branch.Results)
}

// lowerParallel turns affine.parallel without reductions into nested
// scf.for loops (it only carries independence information, which scf.for
// does not need).
func lowerParallel(e *Emitter, op *ir.Operation) error {
	lb, ub, steps, reductions := affine.ParallelParts(op)
	if len(reductions) > 0 {
		return ir.Errorf(op.Loc, "lower-affine: affine.parallel with reductions is not supported")
	}
	body := affine.ParallelBody(op)
	n := len(body.Args)
	loops := make([]*ir.Operation, n)
	var at *ir.Block
	lbRes, ubRes := 0, 0
	for d := 0; d < n; d++ {
		lbm := ir.AffineMap{NumDims: lb.Map.NumDims, NumSyms: lb.Map.NumSyms, Results: lb.Map.Results[lbRes : lbRes+int(lb.Groups[d])]}
		ubm := ir.AffineMap{NumDims: ub.Map.NumDims, NumSyms: ub.Map.NumSyms, Results: ub.Map.Results[ubRes : ubRes+int(ub.Groups[d])]}
		lbRes += int(lb.Groups[d])
		ubRes += int(ub.Groups[d])
		lo := e.Bound(lbm, lb.Operands, true)
		hi := e.Bound(ubm, ub.Operands, false)
		loops[d] = scf.NewFor(op.Loc, lo, hi, e.Index(steps[d]), nil)
		if at == nil {
			e.Append(loops[d])
		} else {
			at.Append(loops[d])
		}
		at = scf.ForBody(loops[d])
		// Later bounds are computed inside the loops already opened: they
		// only use values from outside the parallel op, which dominate.
		e = &Emitter{Rewriter: e.Rewriter, Block: at}
	}
	for d, a := range body.Args {
		ir.ReplaceAllUsesWith(op, a, scf.InductionVar(loops[d]))
	}
	for _, o := range append([]*ir.Operation(nil), body.Ops...) {
		if o.Is(affine.Yield) {
			continue
		}
		o.Erase()
		at.Append(o)
	}
	for d := n - 1; d >= 0; d-- {
		scf.ForBody(loops[d]).Append(scf.NewYield(op.Loc))
	}
	e.Rewriter.EraseOp(op)
	return nil
}

// moveRegion moves region i of from to the end of to's regions, turning
// the affine.yield terminators of its blocks into scf.yield.
func moveRegion(from, to *ir.Operation, i int) {
	r := from.Regions[i]
	for _, b := range r.Blocks {
		if t := b.Terminator(); t != nil && t.Is(affine.Yield) {
			b.Remove(t)
			b.Append(scf.NewYield(t.Loc, t.Operands...))
		}
	}
	to.AdoptRegion(r)
}
