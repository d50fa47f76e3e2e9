package tiraffine

import (
	"fmt"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Scatter-adds (tir.ScatterAddOf: a reduce add of select(table == pos D,
// g, 0) over the table's dimensions, as the adjoint of a gather writes it)
// cost O(entries + points) instead of the O(points x entries) of their
// dense form, without atomics: the result is computed into a temporary,
// in program order with the other temporaries, by a loop nest that
// zeroes it, then one sequential sweep over the table's entries (in
// row-major order of the reduced dimensions), which adds g at each entry
// to the point the entry names (an entry outside the stored interval of
// D, or masked, names none; a masked g adds nothing). Every point thus
// receives its terms in the interpreter's order, so the sums are the
// interpreter's bit for bit (the dense form's zeros leave a sum
// unchanged), with or without --threads: the sweep is one sequential
// loop (no race, nothing to make atomic), and the nests that read the
// result stay parallel. On GPU targets the sweep runs as a one-thread
// kernel (gpuoutline), correct but sequential. An inverse table (CSR,
// then owner computes) would make the sums parallel but costs three
// passes over the entries per call, each at least the sweep's cost
// (docs/decisions.md).

// scatterAdd recognizes a reduction this lowering computes as a
// scatter-add. One whose table or values are computed from a scan keeps
// the dense form: a scan is computed before any temporary, and reads
// only what it can fuse.
func (fl *funcLowering) scatterAdd(op *ir.Operation) (tir.ScatterAdd, bool) {
	sa, ok := tir.ScatterAddOf(op)
	if !ok || readsScan(sa.Table) || readsScan(sa.Values) {
		return tir.ScatterAdd{}, false
	}
	return sa, true
}

// readsScan reports whether v is computed from a tir.scan's result.
func readsScan(v *ir.Value) bool {
	seen := map[*ir.Value]bool{}
	var from func(x *ir.Value) bool
	from = func(x *ir.Value) bool {
		if seen[x] {
			return false
		}
		seen[x] = true
		d := x.DefiningOp()
		if d == nil {
			return false
		}
		found := false
		d.Walk(func(o *ir.Operation) bool {
			if o.Is(tir.Scan) {
				found = true
			}
			for _, y := range o.Operands {
				if !found && from(y) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	return from(v)
}

// materializeScatter computes a scatter-add into a temporary holding the
// points its readers need.
func (fl *funcLowering) materializeScatter(sa tir.ScatterAdd) error {
	op := sa.Reduce
	v := op.Results[0]
	t, _ := tir.AsTensor(v.Type)
	t = fl.storageOrder(fl.needed(v, t))
	fl.storage[v] = t
	pad := tir.Gathered(fl.uses, v)
	if pad {
		fl.padded[v] = true
	}
	name := "scatter"
	if v.NameHint != "" {
		name = v.NameHint
	}
	buf := fl.allocIn(fl.entry, t, op.Loc, name, pad)
	fl.allocs = append(fl.allocs, buf)
	elem := t.Elem
	zero := fl.constant(identity("add", elem), elem)
	b := fl.entry
	b.loc = op.Loc

	// Zero, in parallel.
	n := newNest(fl)
	pt, bodies, err := fl.loopNest(n, b, t.Dims)
	if err != nil {
		return err
	}
	ev := fl.newEvaluator(n, bodies[len(bodies)-1])
	subs, _ := subscripts(t, pt)
	ev.storeAt(zero, buf, subs)
	closeNest(bodies)

	// The sweep over the entries, in order.
	// The sweep runs over the table's dimensions: the reduced ones, in
	// the reduction's order, then those it shares with the result (a
	// vertical K), over the points stored; an entry adds g at every point
	// of the result's other dimensions.
	d, _ := t.Dim(sa.Dim)
	tt, _ := tir.AsTensor(sa.Table.Type)
	var over, others []tir.Dim
	for _, name := range sa.Over {
		over = append(over, tir.Dim{Name: name, Interval: tir.ReducedInterval(op, name)})
	}
	for _, x := range t.Dims {
		switch {
		case x.Name == sa.Dim:
		case tt.Find(x.Name) >= 0:
			over = append(over, x)
		default:
			others = append(others, x)
		}
	}
	n = newNest(fl)
	pt, bodies, err = fl.loopNest(n, b, over)
	if err != nil {
		return err
	}
	sequential(bodies)
	c := fl.newEvaluator(n, bodies[len(bodies)-1])
	tv, tmask, err := c.single(sa.Table, pt)
	if err != nil {
		return err
	}
	idx := c.b.value(arith.IndexCast, []*ir.Value{tv}, ir.Index, nil)
	// lo <= idx < hi as one unsigned comparison (a negative offset wraps
	// to a huge one), as a gather tests its entries.
	off := c.b.value(arith.SubI, []*ir.Value{idx, c.index(d.Lo)}, ir.Index, nil)
	span := sizeexpr.Simplify(sizeexpr.Max(sizeexpr.Sub(d.Hi, d.Lo), sizeexpr.Const(0)))
	ok := cmpi(c.b, cmpiULT, off, c.index(span))
	if tmask != nil {
		ok = c.b.value(arith.AndI, []*ir.Value{ok, c.b.value(arith.XOrI, []*ir.Value{tmask, c.trueConst()}, ir.I1, nil)}, ir.I1, nil)
	}
	ifOp := c.b.op(scf.If, []*ir.Value{ok}, nil, nil)
	then := builder{block: ifOp.AddRegion().AddBlock(), loc: c.b.loc}
	ifOp.AddRegion()
	dname := fmt.Sprintf("scatter_%s%d", sa.Dim, len(n.ivs))
	n.ivs[dname] = idx
	n.dynamic[dname] = true
	inner, ibodies, err := fl.loopNestFrom(n, then, others, pt, len(over))
	if err != nil {
		return err
	}
	sequential(ibodies)
	q := inner.with(sa.Dim, sizeexpr.Dim(dname, 1000+len(n.ivs)))
	ic := c.child(ibodies[len(ibodies)-1])
	x, m, err := ic.single(sa.Values, q)
	if err != nil {
		return err
	}
	if !ir.TypeEqual(x.Type, elem) {
		// A 0-d constant of another type, converted where it is used.
		x = fl.constant(constantValue(sa.Values), elem)
	}
	osubs, err := subscripts(t, q)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	old, err := ic.load(buf, t, q)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	k := combiner["add"][1]
	if ir.IsFloat(elem) {
		k = combiner["add"][0]
	}
	sum := ic.b.value(k, []*ir.Value{old, x}, elem, nil)
	if m != nil {
		sum = ic.b.value(arith.Select, []*ir.Value{m, old, sum}, elem, ir.DictAttr{}.With(arith.MaskSelectAttr, ir.UnitAttr{}))
	}
	ic.storeAt(sum, buf, osubs)
	closeNest(ibodies)
	then.op(scf.Yield, nil, nil, nil)
	closeNest(bodies)
	fl.buffers[v] = []*ir.Value{buf}
	return nil
}

// sequential drops the parallel marks of the loops a nest opened (the
// first body is the builder it was opened in).
func sequential(bodies []builder) {
	for _, l := range bodies[1:] {
		p := l.block.ParentOp()
		p.Attrs = p.Attrs.Without(affine.ParallelAttr)
	}
}

// MLIR's cmpi predicate for unsigned less than (scalar.go).
const cmpiULT = 6
