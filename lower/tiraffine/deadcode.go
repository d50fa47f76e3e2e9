package tiraffine

import (
	"slices"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/scf"
)

// Dead code the lowering leaves. Evaluating a value for one of its parts
// computes the others too: tir.can_deref reads only a gather's mask, yet
// the gathered value is loaded (and a value recomputed in its readers,
// version.go, is recomputed: a loop over a neighbour table); a
// scatter-add's sweep tests the table's entries the way the values' masks
// do. Nothing reads those, and no pass after the lowering removes them
// (canonicalize runs on tir, and llc keeps a loop whose results are
// unused), so removeDeadCode erases them: an op whose results nothing
// uses that is pure, only reads memory (loads), or is a loop or branch
// (affine.for, affine.if, scf.for, scf.if) holding only such ops and its
// terminators, as MLIR's isOpTriviallyDead has it (RecursiveMemoryEffects:
// loads are reads, which a dead op may drop).
func removeDeadCode(f *ir.Operation) {
	d := &deadCode{uses: map[*ir.Value]int{}, users: ir.UsesIn(f)}
	f.Walk(func(o *ir.Operation) bool {
		for _, v := range o.Operands {
			d.uses[v]++
		}
		return true
	})
	for _, r := range f.Regions {
		for _, b := range r.Blocks {
			d.block(b)
		}
	}
}

type deadCode struct {
	uses  map[*ir.Value]int
	users ir.UseLists
}

// block erases the dead ops of b, users before their operands, and looks
// for dead ops inside the ops it keeps. An scf.if first loses the results
// nothing uses (MLIR's canonicalization of scf.if does the same): a
// gather's guard yields its value and its mask, and where only the mask
// is read, what computes the value is then dead in both arms.
func (d *deadCode) block(b *ir.Block) {
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		if op.Is(scf.If) {
			op = d.pruneIf(op)
		}
		if unused(op, d.uses) && removable(op) {
			op.Walk(func(o *ir.Operation) bool {
				for _, v := range o.Operands {
					d.uses[v]--
				}
				return true
			})
			op.Erase()
			continue
		}
		for _, r := range op.Regions {
			for _, nb := range r.Blocks {
				d.block(nb)
			}
		}
	}
}

// pruneIf replaces an scf.if some of whose results nothing uses by one
// without them (its arms yield the others only).
func (d *deadCode) pruneIf(op *ir.Operation) *ir.Operation {
	var keep []int
	for i, r := range op.Results {
		if d.uses[r] > 0 {
			keep = append(keep, i)
		}
	}
	if len(keep) == len(op.Results) {
		return op
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			if y := b.Terminator(); y == nil || len(y.Operands) != len(op.Results) {
				return op
			}
		}
	}
	var types []ir.Type
	for _, i := range keep {
		types = append(types, op.Results[i].Type)
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			y := b.Terminator()
			var kept []*ir.Value
			for i, v := range y.Operands {
				if slices.Contains(keep, i) {
					kept = append(kept, v)
				} else {
					d.uses[v]--
				}
			}
			y.Operands = kept
		}
	}
	n := ir.NewOpOf(scf.If, op.Loc, op.Operands, types, op.Attrs)
	for _, r := range op.Regions {
		n.AdoptRegion(r)
	}
	for k, i := range keep {
		old, now := op.Results[i], n.Results[k]
		for _, u := range d.users.Users(old) {
			for j, v := range u.Operands {
				if v == old {
					u.Operands[j] = now
				}
			}
		}
		d.uses[now] = d.uses[old]
		d.users[now] = d.users[old]
	}
	b := op.ParentBlock()
	b.InsertAt(b.IndexOf(op), n)
	b.Remove(op)
	return n
}

func unused(op *ir.Operation, uses map[*ir.Value]int) bool {
	for _, r := range op.Results {
		if uses[r] > 0 {
			return false
		}
	}
	return true
}

// removable reports whether op may be dropped when its results are
// unused: it has no effect but reading memory.
func removable(op *ir.Operation) bool {
	if op.Def == nil || op.HasTrait(ir.TraitTerminator) {
		return false
	}
	if len(op.Regions) == 0 {
		return op.HasTrait(ir.TraitPure) || op.HasTrait(ir.TraitReadOnly)
	}
	if !op.Is(affine.For, affine.If, scf.For, scf.If) {
		return false
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				if !o.HasTrait(ir.TraitTerminator) && !removable(o) {
					return false
				}
			}
		}
	}
	return true
}
