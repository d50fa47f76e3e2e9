package tiraffine

import (
	"fmt"
	"slices"

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
// unchanged), with or without --threads. Scatter-adds through the same
// table into the same points share one sweep when the values of the
// later ones need nothing computed in between (nabla's two through
// V2E): the sweep is one sequential
// loop (no race, nothing to make atomic), and the nests that read the
// result stay parallel. With Options.AtomicScatters (GPU targets) the
// sweep's loops over the entries stay parallel and each update is a
// memref.atomic_rmw (addf, addi), guarded by the same tests: a kernel
// over the entries instead of one of one thread, whose sums are in
// the hardware's order. An inverse table (CSR,
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
	return computedFrom([]*ir.Value{v}, func(o *ir.Operation) bool { return o.Is(tir.Scan) })
}

// scatterGroup returns the scatter-adds of body from sa's on that one
// sweep computes with it: those after it over the same table, destination
// and intervals, read by someone, whose values need nothing that is not
// computed yet (a temporary, scan or scatter-add of a later point of the
// program). nabla's adjoint has two through V2E.
func (fl *funcLowering) scatterGroup(body *ir.Block, sa tir.ScatterAdd) []tir.ScatterAdd {
	key := func(x tir.ScatterAdd) string {
		t, _ := tir.AsTensor(x.Reduce.Results[0].Type)
		k := fmt.Sprintf("%p %s%s %s", x.Table, x.Dim, x.Interval, domainKey(fl.storageOrder(fl.needed(x.Reduce.Results[0], t))))
		for _, d := range x.Over {
			k += " " + d + tir.ReducedInterval(x.Reduce, d).String()
		}
		return k
	}
	want := key(sa)
	group := []tir.ScatterAdd{sa}
	after := false
	for _, op := range body.Ops {
		if op == sa.Reduce {
			after = true
			continue
		}
		if !after {
			continue
		}
		x, ok := fl.scatterAdd(op)
		if !ok || fl.buffers[op.Results[0]] != nil || key(x) != want || !fl.ready(x.Values) {
			continue
		}
		if _, read := fl.needs.Of(op.Results[0]); read {
			group = append(group, x)
		}
	}
	return group
}

// ready reports whether v can be evaluated now: what it reads is in
// memory or fused, and no temporary, scan or scatter-add it reads is
// still to be computed.
func (fl *funcLowering) ready(v *ir.Value) bool {
	seen := map[*ir.Value]bool{}
	var ok func(x *ir.Value) bool
	ok = func(x *ir.Value) bool {
		if seen[x] || fl.buffers[x] != nil {
			return true
		}
		seen[x] = true
		d := x.DefiningOp()
		if d == nil {
			return true
		}
		if d.Attr(tir.MaterializeAttr) != nil && !fl.recomputed[d] || d.Is(tir.Scan) {
			return false // a temporary not computed yet (one recomputed in its readers is fused)
		}
		if _, scatter := tir.ScatterAddOf(d); scatter {
			return false
		}
		good := true
		d.Walk(func(o *ir.Operation) bool {
			for _, y := range o.Operands {
				if good && !ok(y) {
					good = false
				}
			}
			return good
		})
		return good
	}
	return ok(v)
}

// materializeScatters computes scatter-adds over the same table,
// destination and intervals (scatterGroup) into temporaries holding the
// points their readers need, by one sweep.
func (fl *funcLowering) materializeScatters(group []tir.ScatterAdd) error {
	sa := group[0]
	op := sa.Reduce
	v := op.Results[0]
	t, _ := tir.AsTensor(v.Type)
	t = fl.storageOrder(fl.needed(v, t))
	var bufs []*ir.Value
	var types []tir.TensorType
	for _, x := range group {
		w := x.Reduce.Results[0]
		wt, _ := tir.AsTensor(w.Type)
		wt = t.WithElem(wt.Elem)
		types = append(types, wt)
		fl.storage[w] = wt
		pad := tir.Gathered(fl.uses, w)
		if pad {
			fl.padded[w] = true
		}
		buf := (*ir.Value)(nil)
		if !pad {
			// Returned as it is: the sweep sums into the result's
			// buffer, and nothing copies it there afterwards.
			buf = fl.resultBuffer(w, wt)
		}
		if buf == nil {
			name := "scatter"
			if w.NameHint != "" {
				name = w.NameHint
			}
			buf = fl.allocIn(fl.entry, wt, x.Reduce.Loc, name, pad)
			fl.allocs = append(fl.allocs, buf)
			if !pad {
				fl.hold(buf, wt)
			}
		}
		bufs = append(bufs, buf)
	}
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
	for i, buf := range bufs {
		elem := types[i].Elem
		ev.storeAt(fl.constant(identity("add", elem), elem), buf, subs)
	}
	closeNest(bodies)

	// The sweep runs over the table's dimensions: the reduced ones, in
	// the reduction's order, then those it shares with the result (a
	// vertical K), over the points stored; an entry adds g at every point
	// of the result's other dimensions.
	d, _ := t.Dim(sa.Dim)
	tt, _ := tir.AsTensor(sa.Table.Type)
	var others []tir.Dim
	over := fl.sweepDims(sa)
	for _, x := range t.Dims {
		switch {
		case x.Name == sa.Dim:
		case tt.Find(x.Name) >= 0:
			over = append(over, x)
		default:
			others = append(others, x)
		}
	}
	// One loop at a time: each level computes the results over the
	// dimensions open so far before the next loop (sweepRiders), or after
	// the inner loops, which then carry the sums they read.
	n = newNest(fl)
	bodies = []builder{b}
	pt = point{}
	var c *evaluator
	var levels []*sweepLevel
	for k := range over {
		var level []builder
		if pt, level, err = fl.loopNestFrom(n, bodies[k], over[k:k+1], pt, k); err != nil {
			return err
		}
		bodies = append(bodies, level[1])
		if c == nil {
			c = fl.newEvaluator(n, level[1])
		} else {
			c = c.child(level[1])
		}
		carryInto(levels, level[1].block.ParentOp(), k)
		lv, err := fl.sweepRiders(c, group, over[:k+1], over[k+1:], pt)
		if err != nil {
			return err
		}
		levels = append(levels, lv)
		if k < len(over)-1 && !fl.atomicScatters {
			if err := hoistValues(c, group, over[:k+1], pt); err != nil {
				return err
			}
		}
	}
	if !fl.atomicScatters {
		sequential(bodies)
	}
	next, err := carriedSums(levels, c, pt)
	if err != nil {
		return err
	}
	tv, tmask, err := c.single(sa.Table, pt)
	if err != nil {
		return err
	}
	idx := c.b.value(arith.IndexCast, []*ir.Value{tv}, ir.Index, nil)
	// lo <= idx < hi as one unsigned comparison (a negative offset wraps
	// to a huge one), as a gather tests its entries.
	off := idx
	if lo, ok := d.Lo.Const(); !ok || lo != 0 {
		off = c.b.value(arith.SubI, []*ir.Value{idx, c.index(d.Lo)}, ir.Index, nil)
	}
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
	osubs, err := subscripts(t, q)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	for i, x := range group {
		elem := types[i].Elem
		k := combiner["add"][1]
		if ir.IsFloat(elem) {
			k = combiner["add"][0]
		}
		g, m, err := ic.single(x.Values, q)
		if err != nil {
			return err
		}
		if !ir.TypeEqual(g.Type, elem) {
			// A 0-d constant of another type, converted where it is used.
			g = fl.constant(constantValue(x.Values), elem)
		}
		if fl.atomicScatters {
			// A masked value adds nothing: the atomic add is skipped.
			if m == nil {
				ic.atomicAddAt(g, bufs[i], osubs)
				continue
			}
			keep := ic.b.value(arith.XOrI, []*ir.Value{m, c.trueConst()}, ir.I1, nil)
			guard := ic.b.op(scf.If, []*ir.Value{keep}, nil, nil)
			gb := builder{block: guard.AddRegion().AddBlock(), loc: ic.b.loc}
			guard.AddRegion()
			ic.child(gb).atomicAddAt(g, bufs[i], osubs)
			gb.op(scf.Yield, nil, nil, nil)
			continue
		}
		old, err := ic.load(bufs[i], types[i], q)
		if err != nil {
			return ir.Errorf(op.Loc, "%v", err)
		}
		sum := ic.b.value(k, []*ir.Value{old, g}, elem, nil)
		if m != nil {
			sum = ic.b.value(arith.Select, []*ir.Value{m, old, sum}, elem, ir.DictAttr{}.With(arith.MaskSelectAttr, ir.UnitAttr{}))
		}
		ic.storeAt(sum, bufs[i], osubs)
	}
	closeNest(ibodies)
	then.op(scf.Yield, nil, nil, nil)
	if err := closeSweep(bodies, levels, next); err != nil {
		return err
	}
	for i, x := range group {
		fl.buffers[x.Reduce.Results[0]] = []*ir.Value{bufs[i]}
	}
	return nil
}

// sweepRiders computes, at point pt of a sweep over the table's dimensions
// whose loops over dims (the first ones, in the sweep's order) are open,
// the function's results over exactly those dimensions that need nothing
// still to compute (riders.go) but the sweep's own sums, before the next
// loop: what they read of the table's entries, and of what is gathered
// through them, is then read once. nabla's adjoint has three: the
// cotangent of the signs (over the table, Vertex x V2E: the edge values
// gathered through V2E times the vertex's cotangent, which the sweep reads
// too), that of the volumes (over Vertex, at the sweep's outer level: a
// sum over V2E of the same gathered values), and in the sweep through E2V
// the edges' cotangents of s_mxx and s_myy (over Edge: the edge's part of
// what the sweep adds). A result that sums over the loops still to open
// (inner, in the sweep's order and intervals: vol's two sums over V2E) is
// computed after them instead, from sums those loops carry (sweepLevel):
// the entries are then read once, not once for the sums and once more
// for the sweep. Not with Options.SweepRiders off (--threads: the sweep
// runs on one thread, a nest of their own on all).
func (fl *funcLowering) sweepRiders(c *evaluator, group []tir.ScatterAdd, dims, inner []tir.Dim, pt point) (*sweepLevel, error) {
	lv := &sweepLevel{ev: c, pt: pt, at: map[int]int{}}
	if !fl.sweepRidersOn {
		return lv, nil
	}
	var pending []output
	for _, x := range group {
		pending = append(pending, output{v: x.Reduce.Results[0]})
	}
	for _, o := range fl.ridersOf(pending, tir.TensorType{Dims: dims}, true) {
		if sums := innerSums(c, o.v, inner, pt); len(sums) > 0 {
			lv.riders = append(lv.riders, o)
			for _, op := range sums {
				independent := !slices.Contains(lv.ops, op)
				for _, m := range lv.ops {
					if reads(op, m.Results[0]) || reads(m, op.Results[0]) {
						independent = false
					}
				}
				if independent {
					lv.ops = append(lv.ops, op)
				}
			}
			continue
		}
		if err := fl.storeRider(c, o, pt); err != nil {
			return nil, err
		}
	}
	for _, op := range lv.ops {
		t, _ := tir.AsTensor(op.Results[0].Type)
		inits, mask, body, err := c.reduction(op, t, pt.restrict(t))
		if err != nil {
			return nil, err
		}
		lv.inits = append(lv.inits, inits...)
		lv.masks = append(lv.masks, mask)
		lv.bodies = append(lv.bodies, body)
		lv.widths = append(lv.widths, len(inits))
	}
	return lv, nil
}

// hoistValues evaluates, at pt of a sweep whose loops over dims are open
// (an outer level), what the values of the scatter-adds of group read
// (through elementwise ops and broadcasts) that varies along those
// dimensions only: the memo cache then hands it to the entries, so that
// it is computed once for all the entries of a row, not once per entry
// inside its guard. In the sweep through E2V, what an edge adds to each
// of its two vertices (`select(can_deref(ppe), broadcast(dsum), 0)`) is
// the edge's dsum, computed once per edge.
func hoistValues(c *evaluator, group []tir.ScatterAdd, dims []tir.Dim, pt point) error {
	open := map[string]bool{}
	for _, d := range dims {
		open[d.Name] = true
	}
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value) error
	walk = func(v *ir.Value) error {
		t, ok := tir.AsTensor(v.Type)
		op := v.DefiningOp()
		if seen[v] || !ok || op == nil || op.Is(tir.Constant) {
			return nil
		}
		seen[v] = true
		fits := len(t.Dims) > 0
		for _, d := range t.Dims {
			fits = fits && open[d.Name]
		}
		if fits {
			_, err := c.at(v, pt)
			return err
		}
		if c.fl.buffers[v] != nil || !op.HasTrait(ir.TraitElementwise) && !op.Is(tir.Broadcast) {
			return nil
		}
		for _, x := range op.Operands {
			if err := walk(x); err != nil {
				return err
			}
		}
		return nil
	}
	for _, x := range group {
		if err := walk(x.Values); err != nil {
			return err
		}
	}
	return nil
}

// storeRider computes a result at pt of a sweep, where pt lies in its
// domain.
func (fl *funcLowering) storeRider(c *evaluator, o output, pt point) error {
	ev, inside, done := c.within(*o.dom, pt)
	if !inside {
		return nil
	}
	if err := ev.fuseSiblingReductions([]*ir.Value{o.v}, pt); err != nil {
		return err
	}
	if err := ev.store(o, *o.dom, pt, c.b.loc); err != nil {
		return err
	}
	done()
	return nil
}

// sweepLevel is what a level of a sweep computes after its inner loops:
// the results (riders) that read sums over those loops (ops), whose
// accumulators the inner loops carry as iter_args, starting from inits.
// at[j] is where they start among the iter_args of the loop of level j.
type sweepLevel struct {
	ev     *evaluator
	pt     point
	riders []output
	ops    []*ir.Operation
	inits  []*ir.Value
	masks  []*ir.Value
	widths []int
	bodies []reduceBody
	at     map[int]int
}

// innerSums returns the reductions that v reads at pt through elementwise
// ops (as fuseSiblingReductions finds them) whose reduced dimensions are
// exactly the loops still to open, inner, in their order and over their
// intervals, and that are not computed at pt already.
func innerSums(c *evaluator, v *ir.Value, inner []tir.Dim, pt point) []*ir.Operation {
	if len(inner) == 0 {
		return nil
	}
	var out []*ir.Operation
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value)
	walk = func(v *ir.Value) {
		if seen[v] || c.fl.buffers[v] != nil {
			return
		}
		seen[v] = true
		op := v.DefiningOp()
		switch {
		case op == nil:
		case op.Is(tir.Reduce):
			t, _ := tir.AsTensor(v.Type)
			if _, done := c.lookupCache(cacheKey{v, pt.restrict(t).key()}); done {
				return
			}
			dims := tir.ReduceDims(op)
			if len(dims) != len(inner) {
				return
			}
			for i, d := range dims {
				if d != inner[i].Name || tir.ReducedInterval(op, d).String() != inner[i].Interval.String() {
					return
				}
			}
			out = append(out, op)
		case op.HasTrait(ir.TraitElementwise):
			for _, o := range op.Operands {
				walk(o)
			}
		}
	}
	walk(v)
	return out
}

// carryInto adds to the loop of level k of a sweep the accumulators of
// the levels before it that sum over it: their initial values at level
// k-1, else the iter_args of the loop of level k-1.
func carryInto(levels []*sweepLevel, loop *ir.Operation, k int) {
	blk := affine.ForBody(loop)
	for i, lv := range levels {
		if len(lv.ops) == 0 {
			continue
		}
		inits := lv.inits
		if i < k-1 {
			from := affine.IterArgs(levels[k-1].ev.b.block.ParentOp())
			inits = from[lv.at[k-1] : lv.at[k-1]+len(lv.inits)]
		}
		lv.at[k] = len(blk.Args) - 1
		loop.Operands = append(loop.Operands, inits...)
		var types []ir.Type
		for _, r := range loop.Results {
			types = append(types, r.Type)
		}
		for _, x := range inits {
			types = append(types, x.Type)
			blk.AddArg(x.Type, "")
		}
		loop.SetResultTypes(types)
	}
}

// carriedSums computes, at pt of the innermost level of a sweep, the next
// accumulators of every level's sums.
func carriedSums(levels []*sweepLevel, c *evaluator, pt point) ([][]*ir.Value, error) {
	last := len(levels) - 1
	loop := c.b.block.ParentOp()
	next := make([][]*ir.Value, len(levels))
	for i, lv := range levels[:last] {
		if len(lv.ops) == 0 {
			continue
		}
		acc := affine.IterArgs(loop)[lv.at[last]:]
		for j, body := range lv.bodies {
			out, err := body(c, pt, acc[:lv.widths[j]])
			if err != nil {
				return nil, err
			}
			next[i] = append(next[i], out...)
			acc = acc[lv.widths[j]:]
		}
	}
	return next, nil
}

// closeSweep terminates the loops of a sweep (bodies as loopNest returns
// them), innermost first: each loop yields the sums it carries (next at
// the innermost level), and after it the level around it computes the
// results that read its sums.
func closeSweep(bodies []builder, levels []*sweepLevel, next [][]*ir.Value) error {
	last := len(levels) - 1
	for k := last; k >= 0; k-- {
		var yield []*ir.Value
		if k < last {
			inner := bodies[k+2].block.ParentOp()
			lv := levels[k]
			if len(lv.ops) > 0 {
				res := inner.Results[lv.at[k+1]:]
				for j, op := range lv.ops {
					t, _ := tir.AsTensor(op.Results[0].Type)
					lv.ev.cache[cacheKey{op.Results[0], lv.pt.restrict(t).key()}] = scalar{parts: res[:lv.widths[j]], mask: lv.masks[j]}
					res = res[lv.widths[j]:]
				}
			}
			for _, o := range lv.riders {
				if err := lv.ev.fl.storeRider(lv.ev, o, lv.pt); err != nil {
					return err
				}
			}
			for _, x := range levels[:k] {
				if len(x.ops) > 0 {
					yield = append(yield, inner.Results[x.at[k+1]:x.at[k+1]+len(x.inits)]...)
				}
			}
		} else {
			for _, vs := range next {
				yield = append(yield, vs...)
			}
		}
		bodies[k+1].op(affine.Yield, yield, nil, nil)
	}
	return nil
}

// sweepDims are the reduced dimensions of a scatter-add, in the
// reduction's order: the outer loops of its sweep.
func (fl *funcLowering) sweepDims(sa tir.ScatterAdd) []tir.Dim {
	var over []tir.Dim
	for _, name := range sa.Over {
		over = append(over, tir.Dim{Name: name, Interval: tir.ReducedInterval(sa.Reduce, name)})
	}
	return over
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
