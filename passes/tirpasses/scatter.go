package tirpasses

import (
	"tir/dialects/ir"
	"tir/dialects/tir"
)

// Scatter-adds written densely (tir.ScatterAddOf: the transpose of a
// gather, as the derivatives write it) are computed by the lowering into
// a temporary by one sweep over the table, which reads the summed values
// once per entry: the reduction is a temporary whatever its cost, the
// comparison chain (select, cmp, pos and its cast) is never evaluated,
// and the values are read at their own point, not broadcast along the
// destination dimension as the dense form's select would say.

// scatterChain returns the ops of the entry block's scatter-adds that the
// lowering does not evaluate: each one's select, cmp, pos and the pos's
// cast, where the scatter-add is their only reader.
func scatterChain(uses ir.UseLists, entry *ir.Block) map[*ir.Operation]bool {
	chain := map[*ir.Operation]bool{}
	only := func(op, reader *ir.Operation) bool {
		us := uses.Users(op.Results[0])
		return len(us) > 0 && all(us, func(u *ir.Operation) bool { return u == reader })
	}
	for _, op := range entry.Ops {
		if _, ok := tir.ScatterAddOf(op); !ok {
			continue
		}
		ins, _ := tir.ReduceOperands(op)
		sel := ins[0].DefiningOp()
		if !only(sel, op) {
			continue
		}
		chain[sel] = true
		cmp := sel.Operands[0].DefiningOp()
		if !only(cmp, sel) {
			continue
		}
		chain[cmp] = true
		for _, x := range cmp.Operands {
			c := x.DefiningOp()
			if c == nil || !c.Is(tir.Cast, tir.Pos) || !only(c, cmp) {
				continue
			}
			chain[c] = true
			if p := c.Operands[0].DefiningOp(); c.Is(tir.Cast) && p != nil && p.Is(tir.Pos) && only(p, c) {
				chain[p] = true
			}
		}
	}
	return chain
}

// scatterValues reports whether u is the select of a scatter-add that
// sums v: the lowering reads v once per table entry, at v's own point.
func scatterValues(uses ir.UseLists, u *ir.Operation, v *ir.Value) bool {
	if !u.Is(tir.Select) || len(u.Operands) != 3 || u.Operands[1] != v || u.Operands[0] == v || u.Operands[2] == v {
		return false
	}
	us := uses.Users(u.Results[0])
	if len(us) != 1 {
		return false
	}
	sa, ok := tir.ScatterAddOf(us[0])
	return ok && sa.Values == v
}

func all(ops []*ir.Operation, f func(*ir.Operation) bool) bool {
	for _, o := range ops {
		if !f(o) {
			return false
		}
	}
	return true
}
