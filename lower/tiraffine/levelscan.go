package tiraffine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// A scan whose step reads its state at other points of the dimensions it
// does not run along (a view of the state at J = 0, a sum of it over J,
// a shift along J) cannot be computed one column at a time: a step needs
// the whole cross-section of the step before. Such a scan runs level by
// level: one sequential loop along its dimension, outermost, and inside
// it a nest over the cross-section, each point of which evaluates the
// step with the state read from the scan's buffer at the level before
// (the init at the first level). Its result is stored whole (never in
// columns), over all of its cross-section, since a step reads any of it.

// levelStep reports whether op is a scan whose step reads its state at
// other points than its own.
func levelStep(op *ir.Operation) bool {
	if !op.Is(tir.Scan) || len(op.Regions) == 0 {
		return false
	}
	_, hit := otherPointReads(op, op.Regions[0].Entry().Args[:1])
	return hit
}

// levelScan computes the scan op level by level over the steps kd, the
// cross-section over outer (storage order), into the buffers materializeScans
// gave its result.
func (fl *funcLowering) levelScan(op *ir.Operation, kd tir.Dim, outer []tir.Dim) error {
	dim := tir.DimAttr(op)
	n := newNest(fl)
	b := fl.entry
	b.loc = op.Loc
	ev := fl.newEvaluator(n, b)
	loop, body, err := ev.loop(kd.Interval, nil)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	name := n.fresh(dim, loop.Regions[0].Entry().Args[0])
	k := sizeexpr.Dim(name, 100+len(n.ivs))
	first, prev := kd.Lo, sizeexpr.Sub(k, sizeexpr.Const(1))
	// The level before, clamped to the first level, where the init is
	// taken instead (a load must stay inside the buffer).
	before := sizeexpr.Max(prev, first)
	if tir.ScanDirection(op) == "backward" {
		// Run t = lo..hi-1 and visit k = lo + hi - 1 - t.
		last := sizeexpr.Sub(kd.Hi, sizeexpr.Const(1))
		k = sizeexpr.Sub(sizeexpr.Add(kd.Lo, last), k)
		first, prev = last, sizeexpr.Add(k, sizeexpr.Const(1))
		before = sizeexpr.Min(prev, first)
	}
	kb := ev.child(body)
	isFirst := cmpi(kb.b, cmpiEQ, kb.index(k), kb.index(first))
	pt, bodies, err := fl.loopNestFrom(n, body, outer, point{}, 0)
	if err != nil {
		return err
	}
	c := kb.child(bodies[len(bodies)-1])
	q := pt.with(dim, k)
	rt, _ := tir.AsTensor(op.Results[0].Type)
	types := leaves(rt.Elem)
	// The state at a point p of the cross-section: the result at the
	// level before, or the init at the first level.
	state := func(e *evaluator, p point) (scalar, error) {
		init, err := e.at(op.Operands[0], p)
		if err != nil {
			return scalar{}, err
		}
		for i, x := range init.parts {
			if !ir.TypeEqual(x.Type, types[i]) {
				init.parts[i] = fl.constant(constantValue(op.Operands[0]), types[i])
			}
		}
		was, err := e.at(op.Results[0], p.with(dim, before))
		if err != nil {
			return scalar{}, err
		}
		s := scalar{mask: init.mask}
		for i := range was.parts {
			s.parts = append(s.parts, e.b.value(arith.Select, []*ir.Value{isFirst, init.parts[i], was.parts[i]}, types[i], nil))
		}
		return s, nil
	}
	c.args[op.Regions[0].Entry().Args[0]] = state
	own, err := state(c, pt)
	if err != nil {
		return err
	}
	next, err := c.stepBody(op, own.parts, q)
	if err != nil {
		return err
	}
	st := rt
	if s, ok := fl.storage[op.Results[0]]; ok {
		st = s
	}
	subs, err := subscripts(st, q)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	for j, buf := range fl.buffers[op.Results[0]] {
		if buf != nil {
			c.storeAt(next[j], buf, subs)
		}
	}
	closeNest(bodies)
	body.yield()
	return nil
}
