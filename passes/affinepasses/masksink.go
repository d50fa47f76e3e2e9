package affinepasses

import (
	"slices"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/passes"
)

// sink-masked-updates: a masked reduction step, as the tir lowering writes
// it, computes the neighbour's contribution at every point and keeps the
// accumulator where the neighbour is missing:
//
//	%t   = ... loads and arithmetic at the (clamped) neighbour ...
//	%new = arith.addf %acc, %t
//	%r   = arith.select %masked, %acc, %new {tir.mask}
//
// The code is branch-free, as a vector loop needs, but a scalar loop pays
// for the contribution of every missing neighbour, and llc turns each
// scalar float select into a branch of its own around nothing. The pass
// turns the selects of one block that test the same mask into one
//
//	%r = scf.if %masked -> (...) { scf.yield %acc } else { %t = ...; ...; scf.yield %new } {tir.mask}
//
// and moves into the else arm every op that only computes the updates:
// what hand-written C does with `if (missing) continue;`. The ops moved
// are pure ops and loads (ops with regions too, when everything in them
// is); a load is only moved when no write lies between it and the select.
// Moving an op into an arm only removes executions of it, so no op that
// could trap runs where it did not before. Vector selects are left alone.
// A store right before the scf.if whose value selects on the mask moves
// into both arms, and the selects that an scf.if's condition decides are
// resolved in its arms (maskstores.go). Runs on the scalar code of CPU
// targets, after unrolling (a completely unrolled neighbour loop gives
// one block per point).
func init() {
	passes.Register(&passes.Def{
		Name:    "sink-masked-updates",
		Title:   "SinkMaskedUpdates",
		Summary: "Turn the masked reduction selects ({tir.mask}) of a block that test one mask into an scf.if that computes the updates only where the mask is clear (a store beside it whose value selects on the mask moves into its arms); resolve the selects an scf.if's condition decides in its arms",
		Anchor:  passes.AnchorFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				rw := &ir.Rewriter{Root: fn}
				blocks := nestedBlocks(fn)
				for _, b := range blocks {
					resolveNestedSelects(fn, b)
				}
				for len(blocks) > 0 {
					b := blocks[0]
					blocks = blocks[1:]
					blocks = append(blocks, sinkMaskedUpdates(rw, b)...)
				}
				resolveGuardedSelects(fn)
				return nil
			})
		},
	})
}

// maskGroup is a run of masked selects of one block on one condition
// whose results are not used before the last of them.
type maskGroup struct {
	cond    *ir.Value
	selects []*ir.Operation
}

// sinkMaskedUpdates rewrites the mask groups of b, and returns the arms it
// created (they may hold masked selects of their own: a sum over an edge's
// vertices inside a sum over a vertex's edges).
func sinkMaskedUpdates(rw *ir.Rewriter, b *ir.Block) []*ir.Block {
	var arms []*ir.Block
	for _, g := range maskGroups(b) {
		if arm := sinkGroup(rw, b, g); arm != nil {
			arms = append(arms, arm)
		}
	}
	return arms
}

func isScalarMaskSelect(o *ir.Operation) bool {
	if !arith.IsMaskSelect(o) || len(o.Operands) != 3 || len(o.Results) != 1 {
		return false
	}
	_, vec := o.Results[0].Type.(ir.VectorType)
	return !vec
}

// maskGroups collects the groups of b in order. A group closes before the
// first op that uses one of its results; a later select on the same
// condition then starts a new group.
func maskGroups(b *ir.Block) []maskGroup {
	var done []maskGroup
	open := map[*ir.Value]*maskGroup{}
	var order []*ir.Value // conditions of the open groups, in opening order
	members := map[*ir.Value]*ir.Value{}
	for _, o := range b.Ops {
		var closing []*ir.Value
		o.Walk(func(u *ir.Operation) bool {
			for _, v := range u.Operands {
				if c, ok := members[v]; ok && open[c] != nil {
					closing = append(closing, c)
				}
			}
			return true
		})
		for _, c := range closing {
			if g := open[c]; g != nil {
				done = append(done, *g)
				for _, s := range g.selects {
					delete(members, s.Results[0])
				}
				open[c] = nil
			}
		}
		if !isScalarMaskSelect(o) {
			continue
		}
		c := o.Operands[0]
		if open[c] == nil {
			open[c] = &maskGroup{cond: c}
			order = append(order, c)
		}
		open[c].selects = append(open[c].selects, o)
		members[o.Results[0]] = c
	}
	for _, c := range order {
		if g := open[c]; g != nil {
			done = append(done, *g)
			open[c] = nil
		}
	}
	return done
}

// sinkGroup replaces g's selects by one scf.if and moves the ops that only
// feed their updates into its else arm, which it returns; it does nothing
// (and returns nil) when no op would move.
func sinkGroup(rw *ir.Rewriter, b *ir.Block, g maskGroup) *ir.Block {
	last := g.selects[len(g.selects)-1]
	end := b.IndexOf(last)
	inGroup := map[*ir.Operation]bool{}
	for _, s := range g.selects {
		inGroup[s] = true
	}
	// Loads after the last op before the selects that may write memory may
	// move down to the selects.
	lastWrite := lastWriteBefore(b, end)
	uses := ir.UsesIn(b.ParentOp())
	moved := map[*ir.Operation]bool{}
	// onlyFeedsUpdates: every use of v is an op that moves, or the update
	// operand of a select of the group (and nothing else of it).
	onlyFeedsUpdates := func(v *ir.Value) bool {
		for _, u := range uses.Users(v) {
			top := b.FindAncestor(u)
			switch {
			case top == nil:
				return false
			case inGroup[top] && top == u:
				if u.Operands[0] == v || u.Operands[1] == v {
					return false
				}
			case !moved[top]:
				return false
			}
		}
		return true
	}
	for i := end - 1; i >= 0; i-- {
		o := b.Ops[i]
		if len(o.Results) == 0 || inGroup[o] || o.HasTrait(ir.TraitTerminator) || o.Is(arith.Constant) {
			continue
		}
		if !isPureTree(o) && !(i > lastWrite && !passes.MayWrite(o)) {
			continue
		}
		feeds := true
		for _, r := range o.Results {
			if !onlyFeedsUpdates(r) {
				feeds = false
				break
			}
		}
		if feeds {
			moved[o] = true
		}
	}
	if len(moved) == 0 {
		return nil
	}
	types := make([]ir.Type, len(g.selects))
	keep := make([]*ir.Value, len(g.selects))
	update := make([]*ir.Value, len(g.selects))
	for i, s := range g.selects {
		types[i], keep[i], update[i] = s.Results[0].Type, s.Operands[1], s.Operands[2]
	}
	ifOp := ir.NewOpOf(scf.If, last.Loc, []*ir.Value{g.cond}, types, ir.DictAttr{}.With(arith.MaskSelectAttr, ir.UnitAttr{}))
	ifOp.AddRegion().AddBlock().Append(scf.NewYield(last.Loc, keep...))
	arm := ifOp.AddRegion().AddBlock()
	for _, o := range append([]*ir.Operation(nil), b.Ops[:end]...) {
		if moved[o] {
			o.Erase()
			arm.Append(o)
		}
	}
	yield := arm.Append(scf.NewYield(last.Loc, update...))
	rw.InsertBefore(last, ifOp)
	for i, s := range g.selects {
		rw.ReplaceOp(s, []*ir.Value{ifOp.Results[i]})
	}
	mergeGuard(b, ifOp, arm, yield, g.cond)
	sinkStores(b, ifOp, g.cond)
	foldKnownSelects(arm, knownFrom(g.cond, false))
	return arm
}

// mergeGuard moves into arm (before its yield) the then arm of the
// scf.if that follows ifOp in b when that one runs exactly where masked
// is false (its condition is the mask's negation), has no results nor
// else arm, and does not read ifOp's results: a scatter sweep's entry
// sums where its table entry is valid and adds into the point the entry
// names under the same test, one branch instead of two.
func mergeGuard(b *ir.Block, ifOp *ir.Operation, arm *ir.Block, yield *ir.Operation, masked *ir.Value) {
	i := b.IndexOf(ifOp)
	if i < 0 || i+1 >= len(b.Ops) {
		return
	}
	next := b.Ops[i+1]
	if !next.Is(scf.If) || len(next.Results) != 0 || len(next.Regions) == 0 || len(next.Regions[0].Blocks) != 1 {
		return
	}
	if len(next.Regions) > 1 && len(next.Regions[1].Blocks) > 0 && len(next.Regions[1].Blocks[0].Ops) > 1 {
		return // an else arm that does something
	}
	if v, ok := knownFrom(masked, false).eval(next.Operands[0]); !ok || !v {
		return
	}
	for _, r := range ifOp.Results {
		for _, r2 := range next.Regions {
			for _, blk := range r2.Blocks {
				if used(blk, r) {
					return
				}
			}
		}
	}
	then := next.Regions[0].Blocks[0]
	at := arm.IndexOf(yield)
	for _, o := range append([]*ir.Operation(nil), then.Ops...) {
		if o.HasTrait(ir.TraitTerminator) {
			continue
		}
		o.Erase()
		arm.InsertAt(at, o)
		at++
	}
	next.Erase()
}

// knownBools maps i1 values to what they are where a condition has a
// known value (a mask is false in the arm that computes the updates)
// (undecided: those eval could not decide, so that a DAG of masks is
// walked once).
type knownBools struct {
	vals, undecided map[*ir.Value]bool
}

// knownFrom learns, from cond being val, the values of the ors, ands and
// negations the lowering builds masks with: `ori %a, %b` false makes both
// false, and true makes %b true when %a is the constant false (the
// lowering's first mask of a reduction, `ori false, %outside`).
func knownFrom(cond *ir.Value, val bool) knownBools {
	k := knownBools{vals: map[*ir.Value]bool{}, undecided: map[*ir.Value]bool{}}
	var learn func(v *ir.Value, val bool)
	learn = func(v *ir.Value, val bool) {
		if _, seen := k.vals[v]; seen {
			return
		}
		k.vals[v] = val
		d := v.DefiningOp()
		if d == nil || len(d.Operands) != 2 {
			return
		}
		a, b := d.Operands[0], d.Operands[1]
		switch d.Def {
		case arith.OrI, arith.AndI:
			// An or that is false, an and that is true: both operands
			// are; an or that is true (an and that is false) with one
			// operand the constant false (true): the other is.
			neutral := d.Def == arith.AndI
			switch {
			case val == neutral:
				learn(a, val)
				learn(b, val)
			case isBool(a, neutral):
				learn(b, val)
			case isBool(b, neutral):
				learn(a, val)
			}
		case arith.XOrI:
			if c, ok := boolConstant(b); ok {
				learn(a, val != c)
			} else if c, ok := boolConstant(a); ok {
				learn(b, val != c)
			}
		}
	}
	learn(cond, val)
	return k
}

// isBool reports whether v is the i1 constant c.
func isBool(v *ir.Value, c bool) bool {
	x, ok := boolConstant(v)
	return ok && x == c
}

// eval decides v from what is known, through constants, ors, ands, xors
// and selects of decided values (a negation of the mask, `xori %masked,
// true`, is true where the mask is false; `select %valid, %masked, false`
// is false wherever %valid = not %masked decides it).
func (k knownBools) eval(v *ir.Value) (bool, bool) {
	if x, ok := k.vals[v]; ok {
		return x, true
	}
	if k.undecided[v] {
		return false, false
	}
	if c, ok := boolConstant(v); ok {
		return c, true
	}
	d := v.DefiningOp()
	if d.Is(arith.Select) && len(d.Operands) == 3 && ir.TypeEqual(v.Type, ir.I1) {
		x, ok := false, false
		if c, cok := k.eval(d.Operands[0]); cok {
			if c {
				x, ok = k.eval(d.Operands[1])
			} else {
				x, ok = k.eval(d.Operands[2])
			}
		} else if t, tok := k.eval(d.Operands[1]); tok {
			if f, fok := k.eval(d.Operands[2]); fok && f == t {
				x, ok = t, true
			}
		}
		if ok {
			k.vals[v] = x
		} else {
			k.undecided[v] = true
		}
		return x, ok
	}
	if d == nil || len(d.Operands) != 2 || !ir.TypeEqual(v.Type, ir.I1) {
		return false, false
	}
	a, aok := k.eval(d.Operands[0])
	b, bok := k.eval(d.Operands[1])
	x, ok := false, false
	switch d.Def {
	case arith.OrI:
		x, ok = aok && a || bok && b, aok && a || bok && b || aok && bok
	case arith.AndI:
		x, ok = !(aok && !a || bok && !b), aok && !a || bok && !b || aok && bok
	case arith.XOrI:
		x, ok = a != b, aok && bok
	}
	if ok {
		k.vals[v] = x
	} else {
		k.undecided[v] = true
	}
	return x, ok
}

// foldKnownSelects resolves, in the ops of arm (which runs where known
// holds: a mask is false), the selects whose condition that decides: a
// gather clamps its index with `select %inside, %index, 0` and masks with
// `xori %inside, true`, so in the arm the index is used as it is, with no
// clamp left for llc to turn into a branch. It follows the ors, ands,
// negations and selects the lowering builds masks with, and folds the
// float additions, subtractions and products of two constants that this
// leaves (the masked arm of a store that sinkStores moved: 0.0 + 0.0).
func foldKnownSelects(arm *ir.Block, known knownBools) {
	for _, top := range arm.Ops {
		top.Walk(func(o *ir.Operation) bool {
			for i, v := range o.Operands {
				d := v.DefiningOp()
				if !d.Is(arith.Select) || len(d.Operands) != 3 {
					continue
				}
				if c, ok := known.eval(d.Operands[0]); ok {
					if c {
						o.Operands[i] = d.Operands[1]
					} else {
						o.Operands[i] = d.Operands[2]
					}
				}
			}
			return true
		})
	}
	foldConstantArith(arm)
	// The clamps left unused in the arm (moved there with their users),
	// and what only they used.
	for i := len(arm.Ops) - 1; i >= 0; i-- {
		if o := arm.Ops[i]; o.HasTrait(ir.TraitPure) && len(o.Regions) == 0 && len(o.Results) == 1 && !used(arm, o.Results[0]) {
			o.Erase()
		}
	}
}

// used reports whether some op in b (or nested in it) reads v.
func used(b *ir.Block, v *ir.Value) bool {
	found := false
	for _, top := range b.Ops {
		top.Walk(func(o *ir.Operation) bool {
			for _, w := range o.Operands {
				if w == v {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// boolConstant is the value of an i1 arith.constant.
func boolConstant(v *ir.Value) (bool, bool) {
	d := v.DefiningOp()
	if !d.Is(arith.Constant) || !ir.TypeEqual(v.Type, ir.I1) {
		return false, false
	}
	a, ok := d.Attr(arith.AttrValue).(ir.IntegerAttr)
	return a.Value != 0, ok
}

// isPureTree: o and every op nested in it are pure (structured ops count
// by their contents; terminators move with their region).
func isPureTree(o *ir.Operation) bool {
	ok := true
	o.Walk(func(u *ir.Operation) bool {
		if !(u.HasTrait(ir.TraitPure) || structuredOps[u.Def] || u.HasTrait(ir.TraitTerminator)) {
			ok = false
		}
		return ok
	})
	return ok
}

// resolveNestedSelects resolves, in the operands of a scalar
// `arith.select %c, %t, %f` of b, the selects on the same %c that only it
// observes: %t is read only where %c holds, so a `select %c, %a, %b`
// reached from %t through pure ops of b that have no other user is %a
// there (and one reached from %f is %b). The lowering writes a masked
// product so: `select %valid, (select %valid, %g, 0) * %w, 0` (the
// cotangent of a gathered value, zero at a masked entry) becomes
// `select %valid, %g * %w, 0`, one float select for llc to turn into a
// branch instead of two. Bitwise the same values.
func resolveNestedSelects(fn *ir.Operation, b *ir.Block) {
	var uses ir.UseLists
	for _, o := range b.Ops {
		if !o.Is(arith.Select) || len(o.Operands) != 3 || !ir.IsFloat(o.Results[0].Type) {
			continue
		}
		if uses == nil {
			uses = ir.UsesIn(fn)
		}
		c := o.Operands[0]
		var resolve func(v *ir.Value, arm int, depth int)
		resolve = func(v *ir.Value, arm int, depth int) {
			d := v.DefiningOp()
			if d == nil || d.ParentBlock() != b || depth > 8 || len(uses[v]) != 1 || len(d.Results) != 1 || len(d.Regions) != 0 || !d.HasTrait(ir.TraitPure) {
				return
			}
			for i, x := range d.Operands {
				if s := x.DefiningOp(); s.Is(arith.Select) && len(s.Operands) == 3 && s.Operands[0] == c {
					a := s.Operands[arm]
					d.Operands[i] = a
					// Keep the use lists true: d may no longer read x,
					// and now reads a.
					if !slices.Contains(d.Operands, x) {
						uses[x] = slices.DeleteFunc(uses[x], func(u *ir.Operation) bool { return u == d })
					}
					if !slices.Contains(uses[a], d) {
						uses[a] = append(uses[a], d)
					}
					continue
				}
				resolve(x, arm, depth+1)
			}
		}
		resolve(o.Operands[1], 1, 0)
		resolve(o.Operands[2], 2, 0)
	}
}

// lastWriteBefore is the index of the last op of b before index end that
// may write memory, or -1: a load after it reads the same memory anywhere
// up to end, so it may move there.
func lastWriteBefore(b *ir.Block, end int) int {
	last := -1
	for i := 0; i < end; i++ {
		if passes.MayWrite(b.Ops[i]) {
			last = i
		}
	}
	return last
}
