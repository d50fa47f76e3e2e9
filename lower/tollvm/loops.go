package tollvm

import (
	"fmt"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	memrefd "tir/dialects/memref"
	"tir/dialects/scf"
)

// controlOps lowers the structured control flow and the affine index ops.
var controlOps map[*ir.OpDef]func(*fnEmitter, *ir.Operation) error

func init() {
	controlOps = map[*ir.OpDef]func(*fnEmitter, *ir.Operation) error{
		affine.For:      emitAffineFor,
		affine.Parallel: emitAffineParallel,
		affine.If:       emitAffineIf,
		affine.Apply:    emitAffineApply,
		affine.Min:      emitAffineApply,
		affine.Max:      emitAffineApply,
		scf.For:         emitSCFFor,
		scf.If:          emitSCFIf,
	}
}

// loopBody emits one iteration given the induction variable and the
// current iteration values, and returns the next iteration values.
type loopBody func(iv value.Value, iters []value.Value) ([]value.Value, error)

// emitCountedLoop emits
//
//	preheader:  (the current block; bounds were computed here, once)
//	  br header
//	header:
//	  %iv = phi [lb, preheader], [%iv.next, latch]; one phi per iter value
//	  br (iv < ub), body, exit
//	body: ...
//	latch:
//	  %iv.next = add nsw %iv, step
//	  br header
//	exit:
//
// and returns the iteration values as seen in the exit block (the header
// phis). The comparison is signed, as for affine.for and scf.for, and step
// must be positive.
func (fe *fnEmitter) emitCountedLoop(ivName string, lb, ub, step value.Value, inits []value.Value, body loopBody) ([]value.Value, error) {
	pre := fe.cur
	header := fe.place(fe.newBlock(ivName + ".header"))
	bodyB := fe.newBlock(ivName + ".body")
	latch := fe.newBlock(ivName + ".latch")
	exit := fe.newBlock(ivName + ".exit")
	pre.NewBr(header)

	fe.cur = header
	iv := header.NewPhi(ll.NewIncoming(lb, pre))
	iv.SetName(fe.unique(ivName))
	iters := make([]value.Value, len(inits))
	phis := make([]*ll.InstPhi, len(inits))
	for i, x := range inits {
		phis[i] = header.NewPhi(ll.NewIncoming(x, pre))
		phis[i].SetName(fe.unique(ivName + ".acc"))
		iters[i] = phis[i]
	}
	cond := header.NewICmp(enum.IPredSLT, iv, ub)
	cond.SetName(fe.unique(ivName + ".cond"))
	header.NewCondBr(cond, bodyB, exit)

	fe.cur = fe.place(bodyB)
	fe.depth++
	next, err := body(iv, iters)
	fe.depth--
	if err != nil {
		return nil, err
	}
	if len(next) != len(inits) {
		return nil, fmt.Errorf("loop body yields %d values, expected %d", len(next), len(inits))
	}
	fe.cur.NewBr(latch)
	fe.cur = fe.place(latch)
	ivNext := latch.NewAdd(iv, step)
	ivNext.OverflowFlags = nswFlags
	ivNext.SetName(fe.unique(ivName + ".next"))
	latch.NewBr(header)
	iv.Incs = append(iv.Incs, ll.NewIncoming(ivNext, latch))
	for i, p := range phis {
		p.Incs = append(p.Incs, ll.NewIncoming(next[i], latch))
	}
	fe.cur = fe.place(exit)
	return iters, nil
}

// boundsOf evaluates a bound map in the current block: the max of its
// results for a lower bound, the min for an upper bound (affine.for and
// affine.parallel semantics).
func (fe *fnEmitter) boundsOf(m ir.AffineMap, operands []value.Value, lower bool) (value.Value, error) {
	rs, err := fe.applyMap(m, operands)
	if err != nil {
		return nil, err
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("bound map %s has no results", m)
	}
	return fe.reduceBounds(rs, lower), nil
}

func (fe *fnEmitter) reduceBounds(rs []value.Value, lower bool) value.Value {
	v := rs[0]
	for _, r := range rs[1:] {
		if lower {
			v = fe.smax(v, r)
		} else {
			v = fe.smin(v, r)
		}
	}
	return v
}

// bindRegionArgs maps the entry block arguments of a loop region to the
// induction variable and iteration values.
func (fe *fnEmitter) bindRegionArgs(op *ir.Operation, blk *ir.Block, vals []value.Value) error {
	if len(blk.Args) != len(vals) {
		return ir.Errorf(op.Loc, "tollvm: '%s' body has %d block arguments, expected %d", op.Name, len(blk.Args), len(vals))
	}
	for i, a := range blk.Args {
		fe.vals[a] = vals[i]
	}
	return nil
}

// emitAffineFor lowers affine.for. Operands: the lower bound map's
// operands, the upper bound map's operands, then the iter_args inits.
func emitAffineFor(fe *fnEmitter, op *ir.Operation) error {
	if fe.outlines(op) {
		if done, err := fe.emitOutlined(op); done || err != nil {
			return err
		}
	}
	lbMap, err := mapAttr(op, "lower_bound")
	if err != nil {
		return err
	}
	ubMap, err := mapAttr(op, "upper_bound")
	if err != nil {
		return err
	}
	step := int64(1)
	if a, ok := op.Attr(affine.AttrStep).(ir.IntegerAttr); ok {
		step = a.Value
	}
	if step <= 0 {
		return ir.Errorf(op.Loc, "tollvm: affine.for step must be positive, got %d", step)
	}
	nlb, nub := lbMap.NumDims+lbMap.NumSyms, ubMap.NumDims+ubMap.NumSyms
	if len(op.Operands) < nlb+nub || len(op.Operands)-nlb-nub != len(op.Results) {
		return ir.Errorf(op.Loc, "tollvm: affine.for has %d operands, which does not match its bound maps and %d results", len(op.Operands), len(op.Results))
	}
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	blk, err := singleBlock(op, 0)
	if err != nil || blk == nil || len(blk.Args) == 0 {
		return ir.Errorf(op.Loc, "tollvm: affine.for needs a body with an induction variable")
	}
	lb, err := fe.boundsOf(lbMap, args[:nlb], true)
	if err != nil {
		return ir.Errorf(op.Loc, "tollvm: affine.for lower bound: %v", err)
	}
	ub, err := fe.boundsOf(ubMap, args[nlb:nlb+nub], false)
	if err != nil {
		return ir.Errorf(op.Loc, "tollvm: affine.for upper bound: %v", err)
	}
	name := fe.ivName(blk.Args[0])
	freeHoisted, err := fe.hoistPrivateAllocs(blk)
	if err != nil {
		return err
	}
	res, err := fe.emitCountedLoop(name, lb, ub, i64(step), args[nlb+nub:], func(iv value.Value, iters []value.Value) ([]value.Value, error) {
		if err := fe.bindRegionArgs(op, blk, append([]value.Value{iv}, iters...)); err != nil {
			return nil, err
		}
		return fe.emitBlock(blk)
	})
	if err != nil {
		return wrapErr(op, err)
	}
	if err := freeHoisted(); err != nil {
		return err
	}
	for i, r := range op.Results {
		fe.bind(r, res[i], "")
	}
	return nil
}

// wrapErr locates a plain error at op; located errors pass through.
func wrapErr(op *ir.Operation, err error) error {
	if _, ok := err.(*ir.Diagnostic); ok {
		return err
	}
	if _, ok := err.(ir.DiagList); ok {
		return err
	}
	return ir.Errorf(op.Loc, "tollvm: '%s': %v", op.Name, err)
}

// emitSCFFor lowers scf.for: operands lb, ub, step, then iter inits.
func emitSCFFor(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Operands) < 3 || len(op.Operands)-3 != len(op.Results) {
		return ir.Errorf(op.Loc, "tollvm: malformed scf.for")
	}
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	blk, err := singleBlock(op, 0)
	if err != nil || blk == nil || len(blk.Args) == 0 {
		return ir.Errorf(op.Loc, "tollvm: scf.for needs a body with an induction variable")
	}
	name := fe.ivName(blk.Args[0])
	res, err := fe.emitCountedLoop(name, args[0], args[1], args[2], args[3:], func(iv value.Value, iters []value.Value) ([]value.Value, error) {
		if err := fe.bindRegionArgs(op, blk, append([]value.Value{iv}, iters...)); err != nil {
			return nil, err
		}
		return fe.emitBlock(blk)
	})
	if err != nil {
		return wrapErr(op, err)
	}
	for i, r := range op.Results {
		fe.bind(r, res[i], "")
	}
	return nil
}

// emitAffineIf lowers affine.if: the condition attribute is an integer set
// whose constraints (e >= 0, e == 0) all hold; operands are the set's dims
// then symbols. Results come from the affine.yield of each branch.
func emitAffineIf(fe *fnEmitter, op *ir.Operation) error {
	sa, ok := op.Attr(affine.AttrCondition).(ir.AffineSetAttr)
	if !ok {
		return ir.Errorf(op.Loc, "tollvm: affine.if needs an integer set attribute 'condition'")
	}
	set := sa.Set
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	env, err := envFor(ir.AffineMap{NumDims: set.NumDims, NumSyms: set.NumSyms}, args)
	if err != nil {
		return wrapErr(op, err)
	}
	var cond value.Value = constant.True
	for _, c := range set.Constraints {
		e, err := fe.lowerExpr(c.Expr, env)
		if err != nil {
			return wrapErr(op, err)
		}
		pred := enum.IPredSGE
		if c.Eq {
			pred = enum.IPredEQ
		}
		var ok value.Value
		if k, isConst := constInt(e); isConst {
			ok = constant.NewBool(k >= 0 && !c.Eq || k == 0 && c.Eq)
		} else {
			ok = fe.cur.NewICmp(pred, e, i64(0))
		}
		if cond == constant.True {
			cond = ok
		} else {
			cond = fe.cur.NewAnd(cond, ok)
		}
	}
	return fe.emitIf(op, cond)
}

// emitSCFIf lowers scf.if (operand: the i1 condition).
func emitSCFIf(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Operands) != 1 {
		return ir.Errorf(op.Loc, "tollvm: malformed scf.if")
	}
	cond, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	return fe.emitIf(op, cond)
}

// emitIf emits the two-region if shared by affine.if and scf.if, with phis
// in the merge block for the results.
func (fe *fnEmitter) emitIf(op *ir.Operation, cond value.Value) error {
	thenBlk, err := singleBlock(op, 0)
	if err != nil {
		return err
	}
	var elseBlk *ir.Block
	if len(op.Regions) > 1 {
		if elseBlk, err = singleBlock(op, 1); err != nil {
			return err
		}
	}
	if elseBlk != nil && len(elseBlk.Ops) == 0 {
		elseBlk = nil
	}
	if len(op.Results) > 0 && (thenBlk == nil || elseBlk == nil) {
		return ir.Errorf(op.Loc, "tollvm: '%s' with results needs both branches", op.Name)
	}
	thenB := fe.newBlock("if.then")
	merge := fe.newBlock("if.end")
	elseB := merge
	if elseBlk != nil {
		elseB = fe.newBlock("if.else")
	}
	br := fe.cur.NewCondBr(cond, thenB, elseB)
	if _, masked := op.Attr(arith.MaskSelectAttr).(ir.UnitAttr); masked {
		// A masked update (sink-masked-updates): the mask is rarely
		// true, as at a masked select.
		br.Metadata = append(br.Metadata, fe.me.rarelyTrue())
	}

	type arm struct {
		from *ll.Block
		vals []value.Value
	}
	var arms []arm
	for _, br := range []struct {
		b   *ll.Block
		blk *ir.Block
	}{{thenB, thenBlk}, {elseB, elseBlk}} {
		if br.b == merge {
			continue
		}
		fe.cur = fe.place(br.b)
		var ys []value.Value
		if br.blk != nil {
			if ys, err = fe.emitBlock(br.blk); err != nil {
				return err
			}
		}
		if len(ys) != len(op.Results) {
			return ir.Errorf(op.Loc, "tollvm: '%s' branch yields %d values, expected %d", op.Name, len(ys), len(op.Results))
		}
		fe.cur.NewBr(merge)
		arms = append(arms, arm{fe.cur, ys})
	}
	fe.cur = fe.place(merge)
	for i, r := range op.Results {
		incs := make([]*ll.Incoming, len(arms))
		for k, a := range arms {
			incs[k] = ll.NewIncoming(a.vals[i], a.from)
		}
		fe.bind(r, merge.NewPhi(incs...), "")
	}
	return nil
}

// hoistPrivateAllocs emits, before a loop with body blk, the buffers the
// body allocates at its top level from sizes defined outside the loop and
// frees at its top level too (buffers private to an iteration: the columns
// and slabs of scans), and returns the function that frees them after the
// loop. One allocation per loop (per thread, for an outlined parallel
// loop) replaces one per iteration: glibc gives a large freed block back to
// the system, and every iteration then faulted its pages in again. A loop
// that runs no iteration now allocates them too: the sizes are those of
// its data, so this costs no more than one iteration would have.
func (fe *fnEmitter) hoistPrivateAllocs(blk *ir.Block) (func() error, error) {
	freed := map[*ir.Value]*ir.Operation{}
	for _, op := range blk.Ops {
		if op.Is(memrefd.Dealloc) && len(op.Operands) == 1 {
			freed[op.Operands[0]] = op
		}
	}
	var deallocs []*ir.Operation
	for _, op := range blk.Ops {
		if !op.Is(memrefd.Alloc) || len(op.Results) != 1 || freed[op.Results[0]] == nil || fe.cachesBuffers(op) {
			continue
		}
		inside := false
		for _, v := range op.Operands {
			if d := v.DefiningOp(); d != nil && d.ParentBlock() == blk || d == nil && v.OwnerBlock() == blk {
				inside = true
			}
		}
		if inside {
			continue
		}
		if err := fe.emitOp(op); err != nil {
			return nil, err
		}
		if fe.hoisted == nil {
			fe.hoisted = map[*ir.Operation]bool{}
		}
		d := freed[op.Results[0]]
		fe.hoisted[op], fe.hoisted[d] = true, true
		deallocs = append(deallocs, d)
	}
	return func() error {
		for _, d := range deallocs {
			if err := fe.emitOp(d); err != nil {
				return err
			}
		}
		return nil
	}, nil
}
