package tiraffine

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Scans are computed before everything else, in program order. Scans along
// the same dimension over the same other dimensions form a column group
// when one of them is read only by later scans of the group, directly as an
// input (the tridiagonal pattern: a forward sweep read by a backward
// substitution). A group is computed in one parallel nest over the other
// dimensions, with one sequential loop per scan inside it; a scan read only
// inside its group keeps its result in a buffer the size of one column,
// allocated once per call, so the sweep runs in cache instead of writing
// and re-reading a temporary the size of the whole domain.

// scanGroup is a set of scans computed in one nest, in program order.
type scanGroup struct {
	scans []*ir.Operation
	// column marks the scans whose result lives in a column buffer.
	column map[*ir.Operation]bool
}

// outerKey identifies a scan's dimension and the domain of its other
// dimensions: scans with equal keys can share a nest.
func outerKey(op *ir.Operation) string {
	rt, _ := tir.AsTensor(op.Results[0].Type)
	dim := tir.DimAttr(op)
	// By name: the order of a scan's dimensions follows its operands
	// (order.go) and does not keep scans apart.
	var outer []string
	for _, d := range rt.Dims {
		if d.Name != dim {
			outer = append(outer, d.String())
		}
	}
	sort.Strings(outer)
	return dim + "|" + strings.Join(outer, " ")
}

// columnOnly reports whether every reader of the scan's result is a later
// scan with the same key that takes it directly as an input (not as init):
// each reader then needs, at each of its points, only the column of its
// own outer point.
func columnOnly(uses ir.UseLists, op *ir.Operation) bool {
	users := uses.Users(op.Results[0])
	if len(users) == 0 {
		return false
	}
	key := outerKey(op)
	for _, u := range users {
		if u.Name != "tir.scan" || outerKey(u) != key || u.Operands[0] == op.Results[0] {
			return false
		}
	}
	return true
}

// scanGroups partitions the scans of a block into groups, in program order
// of their last member; without columns, each scan is a group of its own.
func scanGroups(uses ir.UseLists, body *ir.Block, columns bool) []*scanGroup {
	groupOf := map[*ir.Operation]*scanGroup{}
	var order []*scanGroup
	for _, op := range body.Ops {
		if op.Name != "tir.scan" {
			continue
		}
		g := groupOf[op]
		if g == nil {
			g = &scanGroup{column: map[*ir.Operation]bool{}}
			groupOf[op] = g
		}
		g.scans = append(g.scans, op)
		if columns && columnOnly(uses, op) {
			g.column[op] = true
			for _, u := range uses.Users(op.Results[0]) {
				if other := groupOf[u]; other != nil && other != g {
					// Already joined another group through a different
					// input: merge it into this one (it has no members
					// yet other than those that precede u).
					for _, s := range other.scans {
						groupOf[s] = g
					}
					g.scans = append(other.scans, g.scans...)
					for s := range other.column {
						g.column[s] = true
					}
				}
				groupOf[u] = g
			}
		}
	}
	// Emit each group when its last member is reached.
	seen := map[*scanGroup]bool{}
	for i := len(body.Ops) - 1; i >= 0; i-- {
		op := body.Ops[i]
		if g := groupOf[op]; g != nil && !seen[g] {
			seen[g] = true
			order = append(order, g)
		}
	}
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	for _, g := range order {
		sortByProgramOrder(g.scans, body)
	}
	if !dependenciesFirst(order) {
		// Grouping would compute a scan before one it reads: fall back
		// to one group per scan, in program order.
		order = nil
		for _, op := range body.Ops {
			if op.Name == "tir.scan" {
				order = append(order, &scanGroup{scans: []*ir.Operation{op}, column: map[*ir.Operation]bool{}})
			}
		}
	}
	return order
}

// dependenciesFirst reports whether every scan that a group's members read
// (through any chain of fused ops) belongs to the group or to an earlier
// one.
func dependenciesFirst(order []*scanGroup) bool {
	done := map[*ir.Operation]bool{}
	for _, g := range order {
		member := map[*ir.Operation]bool{}
		for _, s := range g.scans {
			member[s] = true
		}
		for _, s := range g.scans {
			for _, dep := range scansRead(s) {
				if !member[dep] && !done[dep] {
					return false
				}
			}
		}
		for _, s := range g.scans {
			done[s] = true
		}
	}
	return true
}

// scansRead lists the scans whose results op's operands are computed
// from, looking through every other op.
func scansRead(op *ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value)
	walk = func(v *ir.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		d := v.DefiningOp()
		if d == nil {
			return
		}
		if d.Name == "tir.scan" {
			out = append(out, d)
			return
		}
		d.Walk(func(inner *ir.Operation) bool {
			for _, o := range inner.Operands {
				walk(o)
			}
			return true
		})
	}
	for _, o := range op.Operands {
		walk(o)
	}
	return out
}

func sortByProgramOrder(ops []*ir.Operation, body *ir.Block) {
	pos := map[*ir.Operation]int{}
	for i, op := range body.Ops {
		pos[op] = i
	}
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && pos[ops[j]] < pos[ops[j-1]]; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// materializeScans computes a group of scans: each into `into[op]` (a
// result buffer of the same type) when given, into a column buffer when the
// group marks it, into whole-domain temporaries otherwise (one memref per
// leaf of the state). Column buffers are allocated in the body of the
// outermost loop, so that its iterations stay independent (each has its
// own columns) and only the loops inside it lose their parallel mark.
func (fl *funcLowering) materializeScans(g *scanGroup, into map[*ir.Operation]*ir.Value) error {
	first := g.scans[0]
	rt, _ := tir.AsTensor(first.Results[0].Type)
	// The nest, and the temporaries, follow the function's order of
	// dimensions, not the one the scan's operands gave its type.
	rt = fl.storageOrder(rt)
	dim := tir.DimAttr(first)
	b := fl.entry
	b.loc = first.Loc
	// The group runs over the points its members' readers need in the
	// other dimensions, and each scan along its dimension from its first
	// step (a scan's start is never narrowed) to the last step needed.
	needed := map[*ir.Operation]tir.TensorType{}
	for _, op := range g.scans {
		if _, ok := fl.needs.Of(op.Results[0]); ok {
			needed[op] = fl.neededScan(op)
		}
	}
	if len(needed) == 0 {
		// Nothing reads these scans at run time, but code the lowering
		// cannot drop may still refer to them (the branch of a concat
		// piece outside the points read): a buffer of one element that
		// is never read stands in for each.
		for _, op := range g.scans {
			t, _ := tir.AsTensor(op.Results[0].Type)
			st := tir.TensorType{Elem: t.Elem}
			for _, d := range t.Dims {
				d.Interval = sizeexpr.Span(d.Lo, d.Lo)
				st.Dims = append(st.Dims, d)
			}
			fl.storage[op.Results[0]] = st
			var bufs []*ir.Value
			for _, lt := range leaves(t.Elem) {
				a := fl.allocIn(fl.entry, st.WithElem(lt), op.Loc, "unread", true)
				fl.allocs = append(fl.allocs, a)
				bufs = append(bufs, a)
			}
			fl.buffers[op.Results[0]] = bufs
		}
		return nil
	}
	var outer []tir.Dim
	for _, d := range rt.Dims {
		if d.Name == dim {
			continue
		}
		var hull sizeexpr.Interval
		for i, op := range g.scans {
			nt, ok := needed[op]
			if !ok {
				nt, _ = tir.AsTensor(op.Results[0].Type)
			}
			nd, _ := nt.Dim(d.Name)
			if i == 0 {
				hull = nd.Interval
			} else {
				hull = sizeexpr.Span(sizeexpr.Min(hull.Lo, nd.Lo), sizeexpr.Max(hull.Hi, nd.Hi))
			}
		}
		d.Interval = sizeexpr.Span(sizeexpr.Simplify(hull.Lo), sizeexpr.Simplify(hull.Hi))
		outer = append(outer, d)
	}
	steps := map[*ir.Operation]tir.Dim{}
	for _, op := range g.scans {
		t, _ := tir.AsTensor(op.Results[0].Type)
		if nt, ok := needed[op]; ok {
			t = nt
		}
		steps[op], _ = t.Dim(dim)
	}
	// Whole-domain temporaries are allocated at entry, before the nest,
	// on the points computed.
	for _, op := range g.scans {
		t, _ := tir.AsTensor(op.Results[0].Type)
		switch {
		case g.column[op]:
		case into[op] != nil && len(leaves(t.Elem)) == 1:
			fl.buffers[op.Results[0]] = []*ir.Value{into[op]}
		default:
			st := tir.TensorType{Elem: t.Elem}
			for _, d := range fl.storageOrder(t).Dims {
				if d.Name == dim {
					st.Dims = append(st.Dims, steps[op])
				} else {
					od, _ := tir.TensorType{Dims: outer}.Dim(d.Name)
					st.Dims = append(st.Dims, od)
				}
			}
			fl.storage[op.Results[0]] = st
			var bufs []*ir.Value
			for _, lt := range leaves(t.Elem) {
				a, err := fl.alloc(st.WithElem(lt), op.Loc, "scan")
				if err != nil {
					return err
				}
				bufs = append(bufs, a)
			}
			fl.buffers[op.Results[0]] = bufs
		}
	}
	// A dimension stored before the innermost outer one is swept in rows
	// (slab.go).
	if fl.scanRows && len(outer) > 0 && fl.rowsFit(g, outer[len(outer)-1].Name) {
		return fl.slabScans(g, b, outer, steps)
	}
	// Otherwise one column at a time, or a few in lanes. Columns live in
	// the outermost loop's body (the entry block of a one-dimensional
	// scan), allocated before the loops inside it are opened, so that they
	// dominate them. Interleaved lanes (below) each have their own
	// columns; with one outer dimension, the loop over groups of lanes is
	// the outermost loop and holds them.
	if len(outer) == 1 && fl.scanLanes > 1 {
		rest, err := fl.interleavedScans(g, newNest(fl), b, outer[0], point{}, 0, steps, fl.scanLanes, nil)
		if err != nil {
			return err
		}
		outer = []tir.Dim{rest}
	}
	n := newNest(fl)
	pt, bodies, err := fl.loopNest(n, b, outer[:min(len(outer), 1)])
	if err != nil {
		return err
	}
	home := bodies[len(bodies)-1]
	lanes := 1
	if len(outer) > 1 && fl.scanLanes > 1 {
		lanes = fl.scanLanes
	}
	selectLane, columns := fl.laneColumns(g, steps, home, lanes)
	selectLane(0)
	if len(outer) > 1 {
		last := outer[len(outer)-1]
		pt2, inner, err := fl.loopNestFrom(n, home, outer[1:len(outer)-1], pt, 1)
		if err != nil {
			return err
		}
		if lanes > 1 {
			if last, err = fl.interleavedScans(g, n, inner[len(inner)-1], last, pt2, len(outer)-1, steps, lanes, selectLane); err != nil {
				return err
			}
		}
		pt3, rest, err := fl.loopNestFrom(n, inner[len(inner)-1], []tir.Dim{last}, pt2, len(outer)-1)
		if err != nil {
			return err
		}
		pt = pt3
		bodies = append(append(bodies, inner[1:]...), rest[1:]...)
		if len(columns) > 0 {
			// The loops inside the outermost one share its columns.
			for _, body := range bodies[2:] {
				loop := body.block.ParentOp()
				loop.Attrs = loop.Attrs.Without(affine.ParallelAttr)
			}
		}
	}
	ev := fl.newEvaluator(n, bodies[len(bodies)-1])
	for _, op := range g.scans {
		if err := ev.scanAlong(op, []point{pt}, steps[op], nil); err != nil {
			return err
		}
	}
	fl.closeWithBuffers(bodies, home, columns)
	return nil
}

// closeWithBuffers closes a nest in which home, the entry block
// (bodies[0]) or one of the loop bodies, allocated bufs: they are freed at
// the end of that body, or at return when they live at entry.
func (fl *funcLowering) closeWithBuffers(bodies []builder, home builder, bufs []*ir.Value) {
	if home.block != bodies[0].block {
		for _, a := range bufs {
			home.op("memref.dealloc", []*ir.Value{a}, nil, nil)
		}
	} else {
		fl.allocs = append(fl.allocs, bufs...)
	}
	closeNest(bodies)
}

// interleavedScans computes a group's scans for `lanes` neighbouring
// points of the innermost outer dimension d at a time, in one sequential
// loop per scan: a scan step is a chain of dependent operations (two
// divisions in a tridiagonal sweep) whose latency bounds a single column,
// and independent columns in one loop body give the CPU chains to overlap.
// The loop over groups of lanes opens in b; the points left over (fewer
// than lanes) are returned as the dimension the caller's ordinary nest
// covers. selectLane points the column buffers at a lane's own; when nil,
// each iteration of the loop allocates the lanes' columns in its body.
func (fl *funcLowering) interleavedScans(g *scanGroup, n *nest, b builder, d tir.Dim, pt point, depth int, steps map[*ir.Operation]tir.Dim, lanes int, selectLane func(int)) (tir.Dim, error) {
	tiles := sizeexpr.Simplify(sizeexpr.Sub(d.Hi, d.Lo))
	tiles, err := sizeexpr.FloorDiv(tiles, int64(lanes))
	if err != nil {
		return d, err
	}
	lb, lbOps, err := boundMap(sizeexpr.Const(0), true, n)
	if err != nil {
		return d, ir.Errorf(b.loc, "%v", err)
	}
	ub, ubOps, err := boundMap(tiles, false, n)
	if err != nil {
		return d, ir.Errorf(b.loc, "%v", err)
	}
	loop, body := b.affineFor(lb, lbOps, ub, ubOps)
	var own []*ir.Value
	if selectLane == nil {
		selectLane, own = fl.laneColumns(g, steps, body, lanes)
	}
	if len(g.column) == 0 || own != nil {
		// Without shared columns the groups of lanes are independent.
		loop.SetAttr(affine.ParallelAttr, ir.UnitAttr{})
	}
	ivName := fmt.Sprintf("iv%d_%s_lanes", depth, d.Name)
	iv := loop.Regions[0].Entry().Args[0]
	iv.NameHint = ivHint(d.Name) + strconv.Itoa(lanes)
	n.ivs[ivName] = iv
	first := sizeexpr.Add(d.Lo, sizeexpr.Mul(sizeexpr.Dim(ivName, depth), int64(lanes)))
	var pts []point
	for lane := 0; lane < lanes; lane++ {
		pts = append(pts, pt.with(d.Name, sizeexpr.Add(first, sizeexpr.Const(int64(lane)))))
	}
	ev := fl.newEvaluator(n, body)
	for _, op := range g.scans {
		if err := ev.scanAlong(op, pts, steps[op], selectLane); err != nil {
			return d, err
		}
	}
	for _, a := range own {
		body.op("memref.dealloc", []*ir.Value{a}, nil, nil)
	}
	selectLane(0)
	body.yield()
	// The rest starts after the last full group, or at the start when
	// there is none (hi < lo makes the count of groups negative).
	rest := d
	rest.Lo = sizeexpr.Simplify(sizeexpr.Add(d.Lo, sizeexpr.Mul(tiles, int64(lanes))))
	if !sizeexpr.ProveGE(d.Hi, d.Lo) {
		rest.Lo = sizeexpr.Max(d.Lo, rest.Lo)
	}
	return rest, nil
}

// laneColumns allocates in home one set of column buffers per lane for
// the group's scans kept in columns, and returns a function that points
// the scans' buffers at a lane's set, and the buffers to free.
func (fl *funcLowering) laneColumns(g *scanGroup, steps map[*ir.Operation]tir.Dim, home builder, lanes int) (func(int), []*ir.Value) {
	sets := make([]map[*ir.Value][]*ir.Value, lanes)
	var columns []*ir.Value
	for lane := range sets {
		sets[lane] = map[*ir.Value][]*ir.Value{}
		for _, op := range g.scans {
			if !g.column[op] {
				continue
			}
			t, _ := tir.AsTensor(op.Results[0].Type)
			col := tir.TensorType{Elem: t.Elem, Dims: []tir.Dim{steps[op]}}
			var bufs []*ir.Value
			for _, lt := range leaves(t.Elem) {
				a := fl.allocIn(home, col.WithElem(lt), op.Loc, "column", false)
				bufs = append(bufs, a)
				columns = append(columns, a)
			}
			fl.storage[op.Results[0]] = col
			sets[lane][op.Results[0]] = bufs
		}
	}
	return func(lane int) {
		for v, bufs := range sets[lane] {
			fl.buffers[v] = bufs
		}
	}, columns
}

// scanAlong emits the sequential loop of one scan over the steps kd, at
// one outer point per lane: the states of all lanes are carried in
// iter_args and every lane stores its state at every step into the scan's
// buffers. Lanes are independent columns computed in one loop (interleaved
// scans, materializeScans); selectLane, when not nil, points the column
// buffers at a lane's own before its body is emitted.
func (ev *evaluator) scanAlong(op *ir.Operation, lanes []point, kd tir.Dim, selectLane func(int)) error {
	fl, n := ev.fl, ev.nest
	rt, _ := tir.AsTensor(op.Results[0].Type)
	dim := tir.DimAttr(op)
	saved := ev.b.loc
	ev.b.loc = op.Loc
	defer func() { ev.b.loc = saved }()
	types := leaves(rt.Elem)
	var inits []*ir.Value
	for _, pt := range lanes {
		init, err := ev.at(op.Operands[0], pt)
		if err != nil {
			return err
		}
		for i, p := range init.parts {
			if !ir.TypeEqual(p.Type, types[i]) {
				init.parts[i] = fl.constant(op.Operands[0].DefiningOp().Attr("value"), types[i])
			}
		}
		inits = append(inits, init.parts...)
	}
	loop, body, err := ev.loop(kd.Interval, inits)
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
	var yields []*ir.Value
	for lane, pt := range lanes {
		if selectLane != nil {
			selectLane(lane)
		}
		c := ev.child(body)
		q := pt.with(dim, k)
		next, err := c.scanStep(op, blk.Args[1+lane*len(types):1+(lane+1)*len(types)], q)
		if err != nil {
			return err
		}
		st := rt
		if col, ok := fl.storage[op.Results[0]]; ok {
			st = col
		}
		subs, err := subscripts(st, q)
		if err != nil {
			return ir.Errorf(op.Loc, "%v", err)
		}
		for i, buf := range fl.buffers[op.Results[0]] {
			c.storeAt(next[i], buf, subs)
		}
		yields = append(yields, next...)
	}
	body.op("affine.yield", yields, nil, nil)
	return nil
}

// scanStep evaluates one step of a scan at the point q (its scanned
// dimension at the step) from the state: the body with its block
// arguments bound to the state and the inputs at q; where an input or the
// result is masked, the state passes through unchanged.
func (c *evaluator) scanStep(op *ir.Operation, state []*ir.Value, q point) ([]*ir.Value, error) {
	region := op.Regions[0].Entry()
	c.env[region.Args[0]] = scalar{parts: state}
	var masks []*ir.Value
	for i, in := range op.Operands[1:] {
		x, err := c.at(in, q)
		if err != nil {
			return nil, err
		}
		c.env[region.Args[i+1]] = x
		masks = append(masks, x.mask)
	}
	y, err := c.at(region.Terminator().Operands[0], q)
	if err != nil {
		return nil, err
	}
	next := y.parts
	if m := c.orMask(append(masks, y.mask)...); m != nil {
		for i := range next {
			next[i] = c.b.value("arith.select", []*ir.Value{m, state[i], next[i]}, state[i].Type, nil)
		}
	}
	return next, nil
}

// neededScan is the type of a scan narrowed to what its readers need: the
// other dimensions as for any value (needed), the scanned one from the
// scan's first step to the last step needed — the end of the interval for
// a forward scan, its start for a backward one, never narrowed, since
// every step depends on all the steps before it.
func (fl *funcLowering) neededScan(op *ir.Operation) tir.TensorType {
	t, _ := tir.AsTensor(op.Results[0].Type)
	nt := fl.needed(op.Results[0], t)
	dim := tir.DimAttr(op)
	full, _ := t.Dim(dim)
	for i, d := range nt.Dims {
		if d.Name != dim {
			continue
		}
		if tir.ScanDirection(op) == "backward" {
			nt.Dims[i].Hi = full.Hi
		} else {
			nt.Dims[i].Lo = full.Lo
		}
	}
	return nt
}
