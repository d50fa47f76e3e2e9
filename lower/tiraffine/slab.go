package tiraffine

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Scans along a dimension K that is not the innermost one in storage (a
// column model's vertical levels stored outermost, J contiguous) are swept
// in rows: for each point of the outer dimensions but the innermost, J,
// each scan runs its K loop with a loop over J inside. Each step reads its
// columns' state where the step before stored it, and a scan kept in
// columns lives in a K x J slab, so the J loop reads and writes contiguous
// memory and is parallel: affine-vectorize turns it into vector code
// across columns, as a C programmer writes such a solver. One column at a
// time would read one element per cache line of every input at each level.

// rowsFit reports whether the group's scans all store their dimension K
// before their innermost other dimension, last.
func (fl *funcLowering) rowsFit(g *scanGroup, last string) bool {
	for _, op := range g.scans {
		t, _ := tir.AsTensor(op.Results[0].Type)
		t = fl.storageOrder(t)
		k, j := t.Find(tir.DimAttr(op)), t.Find(last)
		if k < 0 || j < 0 || k > j {
			return false
		}
	}
	return true
}

// slabScans emits the group's nest in rows: loops over outer minus its
// innermost dimension, slabs allocated in the innermost of them (so that
// they stay private to a thread), and one sweep per scan.
func (fl *funcLowering) slabScans(g *scanGroup, b builder, outer []tir.Dim, steps map[*ir.Operation]tir.Dim) error {
	n := newNest(fl)
	row := outer[len(outer)-1]
	pt, bodies, err := fl.loopNest(n, b, outer[:len(outer)-1])
	if err != nil {
		return err
	}
	home := bodies[len(bodies)-1]
	var slabs []*ir.Value
	for _, op := range g.scans {
		if !g.column[op] {
			continue
		}
		t, _ := tir.AsTensor(op.Results[0].Type)
		slab := tir.TensorType{Elem: t.Elem, Dims: []tir.Dim{steps[op], row}}
		var bufs []*ir.Value
		for _, lt := range leaves(t.Elem) {
			bufs = append(bufs, fl.allocIn(home, slab.WithElem(lt), op.Loc, "slab", false))
		}
		slabs = append(slabs, bufs...)
		fl.storage[op.Results[0]] = slab
		fl.buffers[op.Results[0]] = bufs
	}
	// A component of a state that nothing reads (leafResults, leavesRead)
	// is still loaded by the next step: a slab of its own, for this nest
	// only (later readers of the scan skip the component).
	type leaf struct {
		v *ir.Value
		j int
	}
	var own []leaf
	for _, op := range g.scans {
		if g.column[op] {
			continue
		}
		t, _ := tir.AsTensor(op.Results[0].Type)
		for j, buf := range fl.buffers[op.Results[0]] {
			if buf != nil {
				continue
			}
			lt := leaves(t.Elem)[j]
			slab := tir.TensorType{Elem: lt, Dims: []tir.Dim{steps[op], row}}
			a := fl.allocIn(home, slab, op.Loc, "slab", false)
			slabs = append(slabs, a)
			fl.buffers[op.Results[0]][j] = a
			if fl.leafStorage[op.Results[0]] == nil {
				fl.leafStorage[op.Results[0]] = map[int]tir.TensorType{}
			}
			fl.leafStorage[op.Results[0]][j] = slab
			own = append(own, leaf{op.Results[0], j})
		}
	}
	defer func() {
		for _, l := range own {
			fl.buffers[l.v][l.j] = nil
			delete(fl.leafStorage[l.v], l.j)
		}
	}()
	ev := fl.newEvaluator(n, home)
	for _, run := range g.runs {
		if err := ev.sweepRows(run, pt, row, steps[run[0]], len(outer)-1); err != nil {
			return err
		}
	}
	fl.closeWithBuffers(bodies, home, slabs)
	return nil
}

// sweepRows emits a run of scans (fuseRuns) at the outer point pt as two
// loops over the steps kd, each with a parallel loop over the row
// dimension jd inside: the first runs the first step alone, from the
// initial state; the second the others, each reading the state of its
// column where the step before stored it (the scan's buffer holds every
// step). No state is carried in registers or rows, so the J loop is all
// independent iterations.
func (ev *evaluator) sweepRows(run []*ir.Operation, pt point, jd, kd tir.Dim, depth int) error {
	saved := ev.b.loc
	ev.b.loc = run[0].Loc
	defer func() { ev.b.loc = saved }()
	first := sizeexpr.Span(kd.Lo, sizeexpr.Min(kd.Hi, sizeexpr.Add(kd.Lo, sizeexpr.Const(1))))
	if err := ev.rowSteps(run, pt, jd, kd, first, depth, true); err != nil {
		return err
	}
	rest := sizeexpr.Span(sizeexpr.Add(kd.Lo, sizeexpr.Const(1)), kd.Hi)
	return ev.rowSteps(run, pt, jd, kd, rest, depth, false)
}

// rowSteps emits the steps t of steps (a part of kd) of a run of scans, in
// a sequential loop with the parallel loop over jd inside. The step t
// visits k = t forward, k = lo + hi - 1 - t backward; a scan's state is
// the initial one (initial) or the one it stored at the previous k. A
// later scan of the run reads an earlier one's state at the step before
// and at its own step without loading it again (seedState).
func (ev *evaluator) rowSteps(run []*ir.Operation, pt point, jd, kd tir.Dim, steps sizeexpr.Interval, depth int, initial bool) error {
	fl, n := ev.fl, ev.nest
	dim := tir.DimAttr(run[0])
	loop, body, err := ev.loop(steps, nil)
	if err != nil {
		return ir.Errorf(run[0].Loc, "%v", err)
	}
	name := n.fresh(dim, loop.Regions[0].Entry().Args[0])
	k, prev := sizeexpr.Dim(name, 100+len(n.ivs)), sizeexpr.Sub(sizeexpr.Dim(name, 100+len(n.ivs)), sizeexpr.Const(1))
	if tir.ScanDirection(run[0]) == "backward" {
		// Visit k = lo + hi - 1 - t; the previous step is at k + 1.
		k = sizeexpr.Sub(sizeexpr.Add(kd.Lo, sizeexpr.Sub(kd.Hi, sizeexpr.Const(1))), k)
		prev = sizeexpr.Add(k, sizeexpr.Const(1))
	}
	ptj, cols, err := fl.loopNestFrom(n, body, []tir.Dim{jd}, pt, depth+1)
	if err != nil {
		return ir.Errorf(run[0].Loc, "%v", err)
	}
	c := ev.child(cols[1])
	for i, op := range run {
		rt, _ := tir.AsTensor(op.Results[0].Type)
		types := leaves(rt.Elem)
		st := rt
		if s, ok := fl.storage[op.Results[0]]; ok {
			st = s
		}
		state := make([]*ir.Value, len(types))
		if initial {
			init, err := c.at(op.Operands[0], ptj)
			if err != nil {
				return err
			}
			for j, p := range init.parts {
				if !ir.TypeEqual(p.Type, types[j]) {
					p = fl.constant(constantValue(op.Operands[0]), types[j])
				}
				state[j] = p
			}
		} else {
			for j, buf := range fl.buffers[op.Results[0]] {
				if state[j], err = c.load(buf, fl.leafStorageOf(op.Results[0], j, st).WithElem(types[j]), ptj.with(dim, prev)); err != nil {
					return ir.Errorf(op.Loc, "%v", err)
				}
			}
		}
		if i+1 < len(run) {
			c.seedState(op, ptj.with(dim, prev), state)
		}
		q := ptj.with(dim, k)
		next, err := c.scanStep(op, state, q)
		if err != nil {
			return err
		}
		out, err := subscripts(st, q)
		if err != nil {
			return ir.Errorf(op.Loc, "%v", err)
		}
		for j, buf := range fl.buffers[op.Results[0]] {
			if ls, ok := fl.leafStorage[op.Results[0]][j]; ok {
				sub, err := subscripts(ls, q)
				if err != nil {
					return ir.Errorf(op.Loc, "%v", err)
				}
				c.storeAt(next[j], buf, sub)
				continue
			}
			c.storeAt(next[j], buf, out)
		}
		if i+1 < len(run) {
			c.seedState(op, q, next)
		}
	}
	closeNest(cols)
	body.yield()
	return nil
}

// leafStorageOf is the storage of component j of v's state: its own
// (leafStorage) or st, the value's.
func (fl *funcLowering) leafStorageOf(v *ir.Value, j int, st tir.TensorType) tir.TensorType {
	if ls, ok := fl.leafStorage[v][j]; ok {
		return ls
	}
	return st
}
