package tiraffine

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// materializeScan computes a tir.scan into temporaries (one memref per leaf
// of the state), or into `into` (a result buffer of the same type) when
// given: a parallel nest over the other dimensions, then a sequential loop
// along the scanned dimension carrying the state in iter_args and storing
// it at every step.
func (fl *funcLowering) materializeScan(op *ir.Operation, into *ir.Value) error {
	rt, _ := tir.AsTensor(op.Results[0].Type)
	dim := tir.DimAttr(op)
	kd, _ := rt.Dim(dim)
	b := fl.entry
	b.loc = op.Loc
	n := newNest(fl)
	var bufs []*ir.Value
	if into != nil && len(leaves(rt.Elem)) == 1 {
		bufs = []*ir.Value{into}
	} else {
		for _, lt := range leaves(rt.Elem) {
			a, err := fl.alloc(rt.WithElem(lt), op.Loc, "scan")
			if err != nil {
				return err
			}
			bufs = append(bufs, a)
		}
	}
	var outer []tir.Dim
	for _, d := range rt.Dims {
		if d.Name != dim {
			outer = append(outer, d)
		}
	}
	pt, bodies, err := fl.loopNest(n, b, outer)
	if err != nil {
		return err
	}
	inner := bodies[len(bodies)-1]
	ev := fl.newEvaluator(n, inner)
	init, err := ev.at(op.Operands[0], pt)
	if err != nil {
		return err
	}
	types := leaves(rt.Elem)
	for i, p := range init.parts {
		if !ir.TypeEqual(p.Type, types[i]) {
			init.parts[i] = fl.constant(op.Operands[0].DefiningOp().Attr("value"), types[i])
		}
	}
	loop, body, err := ev.loop(kd.Interval, init.parts)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	blk := loop.Regions[0].Entry()
	name := n.fresh(dim, blk.Args[0])
	k := sizeexpr.Dim(name, 100+len(n.ivs))
	if tir.ScanDirection(op) == "backward" {
		// Run t = lo..hi-1 and visit k = lo + hi - 1 - t.
		k = sizeexpr.Sub(sizeexpr.Add(kd.Lo, sizeexpr.Sub(kd.Hi, sizeexpr.Const(1))), k)
	}
	c := ev.child(body)
	q := pt.with(dim, k)
	region := op.Regions[0].Entry()
	state := blk.Args[1:]
	c.env[region.Args[0]] = scalar{parts: state}
	var masks []*ir.Value
	for i, in := range op.Operands[1:] {
		x, err := c.at(in, q)
		if err != nil {
			return err
		}
		c.env[region.Args[i+1]] = x
		masks = append(masks, x.mask)
	}
	y, err := c.at(region.Terminator().Operands[0], pt)
	if err != nil {
		return err
	}
	next := y.parts
	if m := c.orMask(append(masks, y.mask)...); m != nil {
		for i := range next {
			next[i] = c.b.value("arith.select", []*ir.Value{m, state[i], next[i]}, types[i], nil)
		}
	}
	subs, _ := subscripts(rt, q)
	m, ops := affineMap(subs, n.lookup)
	for i, buf := range bufs {
		c.b.store(next[i], buf, m, ops)
	}
	body.op("affine.yield", next, nil, nil)
	closeNest(bodies)
	fl.buffers[op.Results[0]] = bufs
	return nil
}
