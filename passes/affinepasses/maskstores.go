package affinepasses

import (
	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/passes"
)

// What sink-masked-updates does around the scf.if {tir.mask} it builds,
// besides moving the updates in (masksink.go).
//
// A result stored beside a masked reduction reads the same mask: the
// adjoint of a gather along V2E stores, at each neighbour, the cotangent
// of the gathered value, zero where the neighbour is missing,
//
//	%valid = arith.xori %masked, true
//	%a = arith.select %valid, %x, 0.0
//	%b = arith.select %valid, %y, 0.0
//	%m = arith.select %valid, %masked, false
//	%s = arith.addf %a, %b
//	%r = arith.select %m, 0.0, %s
//	affine.store %r, %out[...]
//	%acc = scf.if %masked {...} else {...} {tir.mask}
//
// and llc turns each float select into a branch of its own: three per
// neighbour beside the scf.if's one. sinkStores moves such a store into
// both arms of the scf.if, where the mask is known: the selects resolve
// (%m is false in both arms; %a and %b are 0.0 in the masked arm and %x
// and %y in the other), 0.0 + 0.0 folds, and what computes the value
// moves into the arm that stores it. One branch per neighbour is left.
// The stored values are bitwise the same: only selects whose condition
// the arm decides, and arithmetic on two constants, are folded.

// sinkStores moves the stores right before ifOp in b (an scf.if on masked
// with both arms) into its arms, when their value reads a select that
// masked decides: at the start of each arm, so that they keep their place
// among the memory accesses, with a copy of what computes the value in
// the masked (then) arm and the value itself in the other, whose
// computation then moves there with the other ops only that arm uses.
func sinkStores(b *ir.Block, ifOp *ir.Operation, masked *ir.Value) {
	if len(ifOp.Regions) != 2 || len(ifOp.Regions[0].Blocks) != 1 || len(ifOp.Regions[1].Blocks) != 1 {
		return
	}
	then, els := ifOp.Regions[0].Blocks[0], ifOp.Regions[1].Blocks[0]
	knownT := knownFrom(masked, true)
	var stores []*ir.Operation
	for i := b.IndexOf(ifOp) - 1; i >= 0; i-- {
		s := b.Ops[i]
		if !s.Is(affine.Store, memref.Store) {
			break
		}
		if _, vec := s.Operands[0].Type.(ir.VectorType); vec || len(maskedCone(b, s, knownT)) == 0 {
			break
		}
		stores = append(stores, s)
	}
	if len(stores) == 0 {
		return
	}
	// stores runs backwards: each goes in front of the ones after it.
	for _, s := range stores {
		mapping := map[*ir.Value]*ir.Value{}
		cone := maskedCone(b, s, knownT)
		s.Erase()
		at := 0
		for _, o := range cone {
			then.InsertAt(at, o.Clone(mapping))
			at++
		}
		then.InsertAt(at, s.Clone(mapping))
		els.InsertAt(0, s)
	}
	// The copies resolve before anything moves, so that what they read
	// before resolving keeps no op out of the other arm.
	foldKnownSelects(then, knownT)
	sinkInto(b, ifOp, els)
}

// maskedCone lists, in block order, the ops of b before s that compute
// s's stored value from a select whose condition known decides: pure ops
// without regions, between such a select and the value. It is empty when
// the value reads no such select.
func maskedCone(b *ir.Block, s *ir.Operation, known knownBools) []*ir.Operation {
	in := map[*ir.Operation]bool{}
	var visit func(v *ir.Value) bool
	visit = func(v *ir.Value) bool {
		d := v.DefiningOp()
		if d == nil || d.ParentBlock() != b || len(d.Regions) > 0 || len(d.Results) != 1 || !d.HasTrait(ir.TraitPure) {
			return false
		}
		if in[d] {
			return true
		}
		hit := false
		if d.Is(arith.Select) && len(d.Operands) == 3 {
			_, hit = known.eval(d.Operands[0])
		}
		for _, o := range d.Operands {
			if visit(o) {
				hit = true
			}
		}
		if hit {
			in[d] = true
		}
		return hit
	}
	if !visit(s.Operands[0]) {
		return nil
	}
	var cone []*ir.Operation
	for _, o := range b.Ops {
		if in[o] {
			cone = append(cone, o)
		}
	}
	return cone
}

// sinkInto moves into arm (an arm of ifOp, in b) the ops of b before ifOp
// whose results only arm uses (and ops moved with them), at its start and
// in their order: pure ops, and loads after the last op that may write.
// The moved ops run only where the arm does, after the same writes.
func sinkInto(b *ir.Block, ifOp *ir.Operation, arm *ir.Block) {
	end := b.IndexOf(ifOp)
	lastWrite := lastWriteBefore(b, end)
	uses := ir.UsesIn(b.ParentOp())
	moved := map[*ir.Operation]bool{}
	inArm := func(u *ir.Operation) bool {
		for ; u != nil; u = u.ParentOp() {
			if u.ParentBlock() == arm {
				return true
			}
			if u == ifOp {
				return false
			}
		}
		return false
	}
	for i := end - 1; i >= 0; i-- {
		o := b.Ops[i]
		if len(o.Results) == 0 || o.HasTrait(ir.TraitTerminator) || o.Is(arith.Constant) {
			continue
		}
		if !isPureTree(o) && !(i > lastWrite && !passes.MayWrite(o)) {
			continue
		}
		only := true
		for _, r := range o.Results {
			for _, u := range uses.Users(r) {
				if top := b.FindAncestor(u); top == nil || !moved[top] && !(top == ifOp && inArm(u)) {
					only = false
				}
			}
			if len(uses.Users(r)) == 0 {
				only = false // dead: left to whoever removes dead code
			}
		}
		if only {
			moved[o] = true
		}
	}
	at := 0
	for _, o := range append([]*ir.Operation(nil), b.Ops[:end]...) {
		if moved[o] {
			o.Erase()
			arm.InsertAt(at, o)
			at++
		}
	}
}

// foldConstantArith folds, in b, the float additions, subtractions and
// products of two scalar constants into a constant, computed in the
// type's precision (IEEE round to nearest, as the hardware would).
func foldConstantArith(b *ir.Block) {
	for i := 0; i < len(b.Ops); i++ {
		o := b.Ops[i]
		if !o.Is(arith.AddF, arith.SubF, arith.MulF) || len(o.Operands) != 2 || len(o.Results) != 1 {
			continue
		}
		t := o.Results[0].Type
		x, xok := floatConstant(o.Operands[0])
		y, yok := floatConstant(o.Operands[1])
		if !xok || !yok || !(ir.TypeEqual(t, ir.F64) || ir.TypeEqual(t, ir.F32)) {
			continue
		}
		var r float64
		switch o.Def {
		case arith.AddF.Def():
			r = x + y
		case arith.SubF.Def():
			r = x - y
		default:
			r = x * y
		}
		if ir.TypeEqual(t, ir.F32) {
			// The f64 result of two f32 operands rounds to the f32 one:
			// 53 bits hold a sum, difference or product of 24-bit
			// significands closely enough that rounding twice is exact.
			r = float64(float32(r))
		}
		c := arith.NewConstantFloat(o.Loc, r, t)
		b.InsertAt(i, c)
		ir.ReplaceAllUsesWith(b.ParentOp(), o.Results[0], c.Results[0])
		o.Erase()
	}
}

// floatConstant is the value of a scalar float arith.constant.
func floatConstant(v *ir.Value) (float64, bool) {
	d := v.DefiningOp()
	if !d.Is(arith.Constant) {
		return 0, false
	}
	a, ok := d.Attr(arith.AttrValue).(ir.FloatAttr)
	return a.Value, ok
}

// resolveGuardedSelects resolves, in the arms of every scalar scf.if of
// fn, the selects whose condition the if's decides (true in the then arm,
// false in the else arm): a scatter's entry adds `select %valid, %g, 0.0`
// under `scf.if %inside`, with %valid derived from %inside, and llc would
// branch twice on one test.
func resolveGuardedSelects(fn *ir.Operation) {
	fn.Walk(func(o *ir.Operation) bool {
		if !o.Is(scf.If) || len(o.Operands) != 1 || !ir.TypeEqual(o.Operands[0].Type, ir.I1) {
			return true
		}
		for i, r := range o.Regions {
			if i > 1 || len(r.Blocks) != 1 {
				continue
			}
			foldKnownSelects(r.Blocks[0], knownFrom(o.Operands[0], i == 0))
		}
		return true
	})
}
