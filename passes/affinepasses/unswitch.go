package affinepasses

import (
	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/passes"
)

// affine-loop-unswitch: a loop nest that branches on a condition fixed
// before the nest starts is duplicated, one copy per outcome, under a
// single scf.if in front of it; in each copy the branches on that
// condition are replaced by the arm they take. The lowering of a gather
// from an operand that may be empty (`is the table's target non-empty`,
// decided by the size symbols) is such a branch, taken the same way at
// every point: without unswitching llc keeps it in the inner loop, where
// it splits the gathered load from the arithmetic around it (nabla's edge
// loop ran 25% slower with it). LLVM's loop-unswitch does the same, but
// tc-opt's output goes to llc alone.
//
// The condition is the operand of an scf.if nested in an affine.for and
// computed from values defined outside that loop, by pure ops that cannot
// trap; those are hoisted in front of the loop (affine-licm leaves ops
// nested in an arm where they are, and a fused gather of a gather tests
// its operand inside the outer gather's arm). The outermost such loop is
// the one duplicated. Code grows by one copy of the nest per condition,
// so a nest is unswitched on at most unswitchMaxConditions conditions,
// and only while it has at most unswitchMaxOps ops.
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-loop-unswitch",
		Title:   "AffineLoopUnswitch",
		Summary: "Duplicate loop nests that branch (scf.if) on a condition defined before them, one copy per outcome with the branch resolved",
		Anchor:  passes.AnchorFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				rw := &ir.Rewriter{Root: fn}
				done := map[*ir.Operation]int{} // conditions resolved per outermost loop (copies inherit it)
				for {
					loop, test := nextUnswitch(fn, done)
					if loop == nil {
						return nil
					}
					unswitch(rw, loop, test, done)
				}
			})
		},
	})
}

const (
	unswitchMaxConditions = 2
	unswitchMaxOps        = 2000
)

// nextUnswitch finds a loop to unswitch and the test to unswitch it on:
// the first scf.if (in program order) nested in an affine.for whose
// condition is invariant in the loop, with the outermost such loop.
func nextUnswitch(fn *ir.Operation, done map[*ir.Operation]int) (loop, test *ir.Operation) {
	sizes := map[*ir.Operation]int{} // opCount of the loops met, counted once
	fn.Walk(func(o *ir.Operation) bool {
		if loop != nil {
			return false
		}
		if !o.Is(scf.If) || len(o.Operands) != 1 {
			return true
		}
		c := o.Operands[0]
		var outer *ir.Operation
		for p := o.ParentOp(); p != nil && p != fn; p = p.ParentOp() {
			if p.Is(affine.For) && invariantIn(c, p, 4) {
				outer = p
			}
		}
		if outer == nil || done[outer] >= unswitchMaxConditions {
			return true
		}
		if _, ok := sizes[outer]; !ok {
			sizes[outer] = opCount(outer)
		}
		if sizes[outer] > unswitchMaxOps {
			return true
		}
		loop, test = outer, o
		return false
	})
	return loop, test
}

// invariantIn reports whether v is defined outside loop, or computed
// there by pure ops without regions from such values (at most depth ops
// deep).
func invariantIn(v *ir.Value, loop *ir.Operation, depth int) bool {
	if !ir.DefinedInside(v, loop) {
		return true
	}
	d := v.DefiningOp()
	if d == nil || depth == 0 || !d.HasTrait(ir.TraitPure) || len(d.Regions) > 0 || mayTrap(d) {
		return false
	}
	for _, w := range d.Operands {
		if !invariantIn(w, loop, depth-1) {
			return false
		}
	}
	return true
}

// hoistBefore moves the ops inside loop that compute v (invariantIn) in
// front of it, operands first.
func hoistBefore(rw *ir.Rewriter, v *ir.Value, loop *ir.Operation) {
	if !ir.DefinedInside(v, loop) {
		return
	}
	d := v.DefiningOp()
	for _, w := range d.Operands {
		hoistBefore(rw, w, loop)
	}
	d.ParentBlock().Remove(d)
	rw.InsertBefore(loop, d)
}

// opCount is the number of ops in op, op included.
func opCount(op *ir.Operation) int {
	n := 0
	op.Walk(func(*ir.Operation) bool { n++; return true })
	return n
}

// unswitch replaces loop by `scf.if cond { loop with cond true } else {
// loop with cond false }`, cond being test's condition.
func unswitch(rw *ir.Rewriter, loop, test *ir.Operation, done map[*ir.Operation]int) {
	types := make([]ir.Type, len(loop.Results))
	for i, r := range loop.Results {
		types[i] = r.Type
	}
	hoistBefore(rw, test.Operands[0], loop)
	// The same test written again deeper in the nest (each fused gather
	// tests its operand) becomes this one, so that it is resolved too;
	// the hoisted test itself may become an equal one computed earlier
	// (for a previous nest), hence cond is read after CSE.
	if passes.CSE(rw.Root) {
		rw.Changed = true
	}
	cond := test.Operands[0]
	ifOp := scf.NewIf(loop.Loc, cond, types, true)
	if test.Is(scf.If) {
		// What marks the test (tir.split_width) marks the if that now
		// makes its choice.
		ifOp.Attrs = test.Attrs
	}
	var copies []*ir.Operation
	for _, b := range []*ir.Block{scf.ThenBlock(ifOp), scf.ElseBlock(ifOp)} {
		c := b.Append(loop.Clone(map[*ir.Value]*ir.Value{}))
		b.Append(scf.NewYield(loop.Loc, c.Results...))
		done[c] = done[loop] + 1
		copies = append(copies, c)
	}
	// Inserted first: uses are replaced within the function (rw.Root).
	rw.InsertBefore(loop, ifOp)
	resolveBranches(rw, copies[0], cond, true)
	resolveBranches(rw, copies[1], cond, false)
	rw.ReplaceOp(loop, ifOp.Results)
	delete(done, loop)
}

// resolveBranches replaces every scf.if on cond inside root by the ops of
// the arm it takes (then when taken is true), the if's results by what
// that arm yields. An if nested in an arm is resolved in the next round,
// once the arm's ops stand in the enclosing block.
func resolveBranches(rw *ir.Rewriter, root *ir.Operation, cond *ir.Value, taken bool) {
	for {
		var ifs []*ir.Operation
		root.Walk(func(o *ir.Operation) bool {
			if o.Is(scf.If) && len(o.Operands) == 1 && o.Operands[0] == cond {
				ifs = append(ifs, o)
				return false
			}
			return true
		})
		if len(ifs) == 0 {
			return
		}
		for _, o := range ifs {
			arm := scf.ThenBlock(o)
			if !taken {
				arm = scf.ElseBlock(o)
			}
			var yields []*ir.Value
			if arm != nil {
				mapping := map[*ir.Value]*ir.Value{}
				for _, a := range arm.Ops {
					if !a.Is(scf.Yield) {
						rw.InsertBefore(o, a.Clone(mapping))
						continue
					}
					for _, v := range a.Operands {
						if m, ok := mapping[v]; ok {
							v = m
						}
						yields = append(yields, v)
					}
				}
			}
			rw.ReplaceOp(o, yields)
		}
	}
}
