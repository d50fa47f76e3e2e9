package affinepasses

import (
	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/passes"
)

// affine-licm: hoist loop-invariant code out of affine.for loops, innermost
// loops first, so code climbs as far as it is invariant. An op of a loop
// body (not nested deeper) is hoisted when all its operands are defined
// outside the loop and it is either
//
//   - pure and without regions, and cannot trap: integer division and
//     remainder are only hoisted with a constant divisor other than 0 and
//     -1, since the loop may run zero times (or divide only on the paths it
//     takes); every other pure op is safe to evaluate speculatively;
//   - a load (affine.load, affine.vector_load, memref.load) from a memref
//     that nothing in the loop may write, in a loop without calls,
//     asserts or other ops of unknown effect, and that provably runs at
//     least once: a load is hoisted only where it would have executed
//     anyway, never speculated past a bound check;
//   - an affine.for that computes a value from invariants alone: pure
//     ops and loops like it, reading no memory (a TC size used as a
//     value, `float(D)`, is a reduction over the one point D:D+1; left in
//     the loop it is evaluated per element and keeps the loop scalar).
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-licm",
		Title:   "AffineLICM",
		Summary: "Hoist loop-invariant pure ops, and loads from memrefs the loop does not write, out of affine.for",
		Anchor:  passes.AnchorFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				x := newValueExprs()
				rw := &ir.Rewriter{Root: fn}
				for _, loop := range forLoops(fn) {
					hoistInvariants(x, rw, loop)
				}
				return nil
			})
		},
	})
}

// hoistInvariants moves the invariant ops of loop's body before loop.
func hoistInvariants(x *valueExprs, rw *ir.Rewriter, loop *ir.Operation) {
	loadsOK := -1     // undecided: computed on the first candidate load
	var accs []access // the loop's accesses, once loads are considered
	for _, o := range bodyOps(loop) {
		if (len(o.Regions) > 0 && !pureLoop(o, loop)) || o.HasTrait(ir.TraitTerminator) {
			continue
		}
		invariant := true
		for _, v := range o.Operands {
			if ir.DefinedInside(v, loop) {
				invariant = false
				break
			}
		}
		if !invariant {
			continue
		}
		switch {
		case len(o.Regions) > 0: // pureLoop
		case o.HasTrait(ir.TraitPure):
			if mayTrap(o) {
				continue
			}
		case isLoad(o):
			if loadsOK < 0 {
				loadsOK = 0
				if loadsMayMove(x, loop) {
					loadsOK = 1
				}
				accs, _ = effects(x, loop)
			}
			if loadsOK == 0 || !readOnly(accs, o.Operands[0]) {
				continue
			}
		default:
			continue
		}
		o.Erase()
		rw.InsertBefore(loop, o)
	}
}

// pureLoop reports whether o is an affine.for whose body holds only pure
// ops that cannot trap and loops like it, and uses no value of loop's body
// but its own: evaluating it before loop computes the same values, and
// nothing else.
func pureLoop(o, loop *ir.Operation) bool {
	if !o.Is(affine.For) {
		return false
	}
	ok := true
	o.Walk(func(in *ir.Operation) bool {
		if in != o {
			switch {
			case in.Is(affine.For, affine.Yield):
			case in.HasTrait(ir.TraitPure) && len(in.Regions) == 0 && !mayTrap(in):
			default:
				ok = false
			}
			for _, v := range in.Operands {
				if ir.DefinedInside(v, loop) && !ir.DefinedInside(v, o) {
					ok = false
				}
			}
		}
		return ok
	})
	return ok
}

// isLoad reports the ops that only read memory (affine.load,
// affine.vector_load, memref.load: ir.TraitReadOnly).
func isLoad(o *ir.Operation) bool { return o.HasTrait(ir.TraitReadOnly) }

// loadsMayMove reports whether loads may be hoisted out of loop at all: it
// runs at least once and holds no op of unknown effect.
func loadsMayMove(x *valueExprs, loop *ir.Operation) bool {
	if _, unknown := effects(x, loop); unknown {
		return false
	}
	return provablyNonEmpty(x, loop)
}

// readOnly reports whether none of accs writes memory mem may share.
func readOnly(accs []access, mem *ir.Value) bool {
	for _, a := range accs {
		if a.write && mayAlias(a.mem, mem) {
			return false
		}
	}
	return true
}

// mayTrap reports pure ops whose evaluation can be undefined: integer
// division or remainder by a divisor that may be 0 (or -1, which
// overflows for the smallest integer).
func mayTrap(o *ir.Operation) bool {
	switch o.Def {
	case arith.DivSI, arith.DivUI, arith.RemSI, arith.RemUI, arith.FloorDivSI, arith.CeilDivSI:
	default:
		return false
	}
	d := o.Operands[1].DefiningOp()
	if !d.Is(arith.Constant) {
		return true
	}
	c, ok := d.Attr(arith.AttrValue).(ir.IntegerAttr)
	return !ok || c.Value == 0 || c.Value == -1
}
