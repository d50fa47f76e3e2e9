package interp

import (
	"sync/atomic"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// A scatter-add written densely (tir.ScatterAddOf: a sum over a table's
// dimensions of select(table == pos D, g, 0)) spells O(points x entries)
// values: the comparison and the select vary along the destination D and
// the table's dimensions at once (nabla's adjoint: NV x NE x 7). The
// interpreter evaluates it by one sweep over the entries instead, O(entries
// + points), with the dense form's result bit for bit:
//
//   - the comparison chain (the select, the cmp, the pos and its cast) is
//     not evaluated when nothing but such scatter-adds reads it (deferred;
//     forced on demand where the sweep does not apply);
//   - the table and g are read as the chain would read them (the same
//     alignments, minus D, which they lack), so a domain the dense form
//     would read outside of sends the op to the dense path and its error;
//   - each destination point receives its terms in the dense order (the
//     row-major order of the reduced dimensions): a sweep in that order
//     adds g at each entry into the point the entry names. The entries
//     naming no point of the result, masked entries and masked g add
//     nothing; the dense form adds 0 for the first and skips the others,
//     and adding 0 leaves a sum that starts at +0 unchanged (it is never
//     -0), so the sums are the same bits.
//
// Anything the sweep cannot reproduce exactly (a coordinate that wraps at
// the comparison's width, g varying along D, a chain on domains that do
// not nest) runs the dense definition (reduce.go), which stays the
// reference: TestScatterAddSweepIsDense compares the two bit for bit.

// sparseScatterAdds turns the sweep on; tests turn it off to run the dense
// definition.
var sparseScatterAdds = true

// sweepsRun counts the scatter-adds computed by a sweep (for tests: the
// sweep ran).
var sweepsRun atomic.Int64

// scatterChain is a recognized scatter-add's comparison chain.
type scatterChain struct {
	tir.ScatterAdd
	sel, cmp, cast, pos *ir.Operation
	// tableFirst: the table is the cmp's first operand (its element type
	// is then the comparison's).
	tableFirst bool
}

// chainOf returns the chain of a recognized scatter-add.
func chainOf(op *ir.Operation) (scatterChain, bool) {
	sa, ok := tir.ScatterAddOf(op)
	if !ok {
		return scatterChain{}, false
	}
	c := scatterChain{ScatterAdd: sa, sel: op.Operands[0].DefiningOp()}
	c.cmp = c.sel.Operands[0].DefiningOp()
	c.tableFirst = c.cmp.Operands[0] == sa.Table
	coord := c.cmp.Operands[1]
	if !c.tableFirst {
		coord = c.cmp.Operands[0]
	}
	c.pos = coord.DefiningOp()
	if c.pos.Is(tir.Cast) {
		c.cast, c.pos = c.pos, c.pos.Operands[0].DefiningOp()
	}
	return c, true
}

// blockScatters is what block knows of the scatter-adds of one block: the
// recognized ones, and the chain ops whose evaluation is deferred.
type blockScatters struct {
	chains   map[*ir.Operation]scatterChain
	deferred map[*ir.Operation]bool
}

// scatters returns (and caches) the scatter-adds of b. A chain op is
// deferred when it is in b and only deferred chain ops and recognized
// scatter-adds use its results.
func (ev *evaluator) scatters(b *ir.Block) *blockScatters {
	if s, ok := ev.scatterInfo[b]; ok {
		return s
	}
	if ev.scatterInfo == nil {
		ev.scatterInfo = map[*ir.Block]*blockScatters{}
	}
	s := &blockScatters{}
	ev.scatterInfo[b] = s
	if !sparseScatterAdds {
		return s
	}
	for _, op := range b.Ops {
		if c, ok := chainOf(op); ok {
			if s.chains == nil {
				s.chains = map[*ir.Operation]scatterChain{}
				s.deferred = map[*ir.Operation]bool{}
			}
			s.chains[op] = c
			for _, o := range []*ir.Operation{c.sel, c.cmp, c.cast, c.pos} {
				if o != nil && o.ParentBlock() == b {
					s.deferred[o] = true
				}
			}
		}
	}
	if s.chains == nil {
		return s
	}
	if ev.uses == nil {
		ev.uses = ir.UsesIn(ev.fn)
	}
	for changed := true; changed; {
		changed = false
		for o := range s.deferred {
			for _, r := range o.Results {
				for _, u := range ev.uses.Users(r) {
					if _, isScatter := s.chains[u]; !s.deferred[u] && !isScatter {
						delete(s.deferred, o)
						changed = true
					}
				}
			}
		}
	}
	return s
}

// value returns the tensor of v, evaluating its defining op first when
// that was deferred.
func (ev *evaluator) value(v *ir.Value, s *blockScatters) (*Tensor, bool, error) {
	if t, ok := ev.vals[v]; ok {
		return t, true, nil
	}
	d := v.DefiningOp()
	if d == nil || s == nil || !s.deferred[d] {
		return nil, false, nil
	}
	delete(s.deferred, d)
	in := make([]*Tensor, len(d.Operands))
	for i, w := range d.Operands {
		t, ok, err := ev.value(w, s)
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, ir.Errorf(d.Loc, "'%s' operand #%d has no value (not computed before its use)", d.Name, i)
		}
		in[i] = t
	}
	if err := ev.op(d, in); err != nil {
		return nil, false, err
	}
	t, ok := ev.vals[v]
	return t, ok, nil
}

// scatterAdd computes a recognized scatter-add by one sweep over its
// table and records its result; false when the sweep does not apply (the
// caller then runs the dense definition).
func (ev *evaluator) scatterAdd(op *ir.Operation, c scatterChain, s *blockScatters) (bool, error) {
	table, ok, err := ev.value(c.Table, s)
	if err != nil || !ok {
		return false, err
	}
	g, ok, err := ev.value(c.Values, s)
	if err != nil || !ok {
		return false, err
	}
	out, ok := ev.sweep(op, c, table, g)
	if !ok {
		return false, nil
	}
	ev.vals[op.Results[0]] = out
	sweepsRun.Add(1)
	return true, nil
}

// sweep is the scatter-add of g at the entries of table, or false where
// it would not be the dense form's result bit for bit.
func (ev *evaluator) sweep(op *ir.Operation, c scatterChain, table, g *Tensor) (*Tensor, bool) {
	D := c.Dim
	elem, R, err := ev.result(op, 0)
	if err != nil || table.Find(D) >= 0 || g.Find(D) >= 0 {
		return nil, false
	}
	selElem, S, err := ev.result(c.sel, 0)
	if err != nil {
		return nil, false
	}
	_, C, err := ev.result(c.cmp, 0)
	if err != nil {
		return nil, false
	}
	// The coordinate chain: pos D, its cast, the comparison on C, the
	// select on S, the reduction on R x the reduced box; each reads the
	// one before on its own interval of D, which must lie inside.
	var outer *Dim
	var widths []int
	for _, o := range []*ir.Operation{c.pos, c.cast} {
		if o == nil {
			continue
		}
		_, X, err := ev.result(o, 0)
		if err != nil || len(X) != 1 || X[0].Name != D || outer != nil && !within(X[0], *outer) {
			return nil, false
		}
		outer = &X[0]
		widths = append(widths, width(elemOf(o.Results[0])))
	}
	for _, dims := range [][]Dim{C, S, R} {
		k := findDim(dims, D)
		if k < 0 || !within(dims[k], *outer) {
			return nil, false
		}
		outer = &dims[k]
	}
	// The comparison reads both operands at its first operand's width;
	// the coordinates it sees are d itself when no width wraps them.
	w := width(elemOf(c.cmp.Operands[0]))
	cD := C[findDim(C, D)]
	for _, wd := range append(widths, w) {
		if cD.Extent() > 0 && (!fits(cD.Lo, wd) || !fits(cD.Hi-1, wd)) {
			return nil, false
		}
	}
	// The table and g as the chain reads them, without D.
	tC, err := align(table, without(C, D))
	if err != nil {
		return nil, false
	}
	tS, err1 := align(tC, without(S, D))
	gS, err2 := align(g, without(S, D))
	red, err3 := reducedBox(c.Over, []*Tensor{{Dims: S}})
	if err1 != nil || err2 != nil || err3 != nil {
		return nil, false
	}
	rest := without(append(append([]Dim(nil), R...), red...), D)
	tF, err1 := align(tS, rest)
	gF, err2 := align(gS, rest)
	if err1 != nil || err2 != nil {
		return nil, false
	}
	acc, err := initial(elem, R, nil, "add")
	if err != nil {
		return nil, false
	}
	k, _ := kindOf(elem)
	if gk, _ := kindOf(g.Elem); gk != k || k != kindFloat && k != kindInt {
		return nil, false
	}
	// Point i of rest is (o, q): o a point of R without D, q one of the
	// reduced box; the entry's destination is (o with D = the table's
	// value), taken in increasing i, the dense order of each sum.
	kD := findDim(R, D)
	lo, ext := R[kD].Lo, R[kD].Extent()
	inner := numPoints(R[kD+1:])
	nRed := numPoints(red)
	add, iadd := floatBinary["add"], intBinary["add"]
	aw := width(elem)
	n := numPoints(rest)
	for i := 0; i < n; i++ {
		if tF.Masked(i) || gF.Masked(i) {
			continue
		}
		d := signed(tF.I64[i], w) - lo
		if d < 0 || d >= ext {
			continue
		}
		o := i / nRed
		j := (int64(o/inner)*ext+d)*int64(inner) + int64(o%inner)
		if k == kindFloat {
			acc.F64[j] = RoundTo(elem, add(acc.F64[j], RoundTo(selElem, gF.F64[i])))
			continue
		}
		v, err := iadd(signed(acc.I64[j], aw), signed(gF.I64[i], aw))
		if err != nil {
			return nil, false
		}
		acc.I64[j] = wrap(v, aw)
	}
	return acc, true
}

// within reports whether the interval of d lies inside that of outer (an
// empty one lies anywhere).
func within(d, outer Dim) bool {
	return d.Extent() <= 0 || outer.Lo <= d.Lo && d.Hi <= outer.Hi
}

// fits reports whether x is a signed integer of w bits.
func fits(x int64, w int) bool {
	if w < 2 {
		return false
	}
	if w >= 64 {
		return true
	}
	return x >= -(1<<(w-1)) && x < 1<<(w-1)
}

// elemOf is the element type of a tensor value (nil for another type).
func elemOf(v *ir.Value) ir.Type {
	t, ok := tir.AsTensor(v.Type)
	if !ok {
		return nil
	}
	return t.Elem
}
