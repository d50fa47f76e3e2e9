package tiraffine

import (
	"sort"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// The order of dimensions in a value's type follows its first operand
// (spec 2.2): `%ck * %d2`, with %ck on K alone, is typed K, I, J, and
// `%d2 * %ck` is I, J, K. That order means nothing to the program, so
// nothing the lowering chooses may depend on it: a temporary is stored,
// and its nest runs, in an order taken from the function (its results,
// then its arguments), and a commutative op's operands are evaluated in
// the order the function defines them. Programs that differ only in the
// operand order of commutative ops then lower to the same code
// (test/commutative_test.go). The types of arguments and results keep
// their order: it is the ABI's storage order.

// storageOrder returns t with its dimensions in the function's order
// (tir.DimRanks; unranked names last, by name), for a buffer the lowering
// allocates itself.
func (fl *funcLowering) storageOrder(t tir.TensorType) tir.TensorType {
	if fl.dimRank == nil {
		fl.dimRank = tir.DimRanks(fl.src)
	}
	dims := append([]tir.Dim(nil), t.Dims...)
	sort.SliceStable(dims, func(i, j int) bool {
		ri, oki := fl.dimRank[dims[i].Name]
		rj, okj := fl.dimRank[dims[j].Name]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return dims[i].Name < dims[j].Name
	})
	return tir.TensorType{Elem: t.Elem, Dims: dims}
}

// operandOrder returns op's operands in the order they are evaluated:
// as written, or, for a commutative op, in the order the function
// defines what they read (source: arguments first, then op by op), a
// constant last (as MLIR's canonical form has it).
func (fl *funcLowering) operandOrder(op *ir.Operation) []*ir.Value {
	if !tir.Commutative(op) {
		return op.Operands
	}
	if fl.defOrder == nil {
		fl.defOrder = map[*ir.Value]int{}
		var walk func(b *ir.Block)
		walk = func(b *ir.Block) {
			for _, a := range b.Args {
				fl.defOrder[a] = len(fl.defOrder)
			}
			for _, o := range b.Ops {
				for _, r := range o.Regions {
					for _, rb := range r.Blocks {
						walk(rb)
					}
				}
				for _, v := range o.Results {
					fl.defOrder[v] = len(fl.defOrder)
				}
			}
		}
		for _, r := range fl.src.Regions {
			for _, b := range r.Blocks {
				walk(b)
			}
		}
	}
	a, b := op.Operands[0], op.Operands[1]
	isConst := func(v *ir.Value) bool { d := v.DefiningOp(); return d != nil && d.Is(tir.Constant) }
	if ca, cb := isConst(a), isConst(b); ca != cb {
		if ca {
			return []*ir.Value{b, a}
		}
		return op.Operands
	}
	ka, kb := fl.defOrder[source(a)], fl.defOrder[source(b)]
	if kb < ka || (kb == ka && fl.defOrder[b] < fl.defOrder[a]) {
		return []*ir.Value{b, a}
	}
	return op.Operands
}

// source follows v back through ops that only move the data of one
// operand (a view, a shift, a subset, a broadcast): `I(n, c, h + kh) *
// Wt(m, c, kh)` in TC makes the view of I first, `Wt(...) * I(...)` the
// view of Wt, and ordering by the views alone would tell the two apart.
func source(v *ir.Value) *ir.Value {
	for {
		d := v.DefiningOp()
		if d == nil || !tir.MovesData(d) || len(d.Operands) != 1 {
			return v
		}
		v = d.Operands[0]
	}
}

// sameUpToOrder reports whether two tensor types hold the same points of
// the same element type, whatever the order of their dimensions: a value
// so typed can be stored into a buffer of the other type.
func sameUpToOrder(a, b ir.Type) bool {
	at, ok1 := tir.AsTensor(a)
	bt, ok2 := tir.AsTensor(b)
	if !ok1 || !ok2 || len(at.Dims) != len(bt.Dims) || !ir.TypeEqual(at.Elem, bt.Elem) {
		return false
	}
	for _, d := range at.Dims {
		e, ok := bt.Dim(d.Name)
		if !ok || !d.Interval.Equal(e.Interval) {
			return false
		}
	}
	return true
}
