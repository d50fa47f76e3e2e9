package tiraffine

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Scans are computed before everything else, in program order. Scans along
// the same dimension over the same other dimensions form a column group
// when one of them is read only by later scans of the group at their own
// outer point: directly as an input (the tridiagonal pattern: a forward
// sweep read by a backward substitution), through tir.tuple_get or
// arithmetic at the reader's point, or shifted along the scanned dimension
// (a second forward scan reading the first one step below). A group is
// computed in one parallel nest over the other dimensions, with one
// sequential loop per scan inside it, or one loop for consecutive scans
// that can run in step (fuseRuns); a scan read only inside its group keeps
// its result in a buffer the size of one column, allocated once per call,
// so the sweep runs in cache instead of writing and re-reading a temporary
// the size of the whole domain. How a program spells the state (a tuple
// read inside the next scan or split before it, one scan or two) does not
// change the nest.

// scanGroup is a set of scans computed in one nest, in program order.
type scanGroup struct {
	scans []*ir.Operation
	// column marks the scans whose result lives in a column buffer.
	column map[*ir.Operation]bool
	// runs are the scans in order, split into those that share one
	// sequential loop (fuseRuns; set by materializeScans).
	runs [][]*ir.Operation
	// outputs are the function's results computed in the group's nest,
	// once a column's scans have run, from the columns (epilogueOutputs);
	// out is set by the caller.
	outputs []scanOutput
}

// scanOutput is a result computed in a scan group's nest: the value
// returned at position pos, stored into out.
type scanOutput struct {
	v   *ir.Value
	pos int
	out *ir.Value
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

// columnReaders returns the scans that read op's result when every reader
// is a later scan with the same key that needs, at each of its points,
// only the column of its own outer point: it takes the result as an input
// (not as init), directly or through ops of the function's body that read
// their operands at their own point in every other dimension (ownColumn).
// Such a reader runs after op in the same nest, when op's whole column is
// in its buffer, so it may read any step of it. ok is false otherwise.
//
// With returns, values computed from op may also be returned (the sum of
// two adjoint scans' components, a component): the group computes them in
// its nest (epilogueOutputs). A scan returned as it is, or read by no scan
// and returned through tir.tuple_get only, is computed straight into its
// results instead (materializeScans' into).
func columnReaders(uses ir.UseLists, body *ir.Block, op *ir.Operation, returns bool) (readers []*ir.Operation, ok bool) {
	key, dim := outerKey(op), tir.DimAttr(op)
	seen := map[*ir.Operation]bool{}
	viaOps := false
	var visit func(v *ir.Value, computed bool) bool
	visit = func(v *ir.Value, computed bool) bool {
		users := uses.Users(v)
		if len(users) == 0 {
			return false
		}
		for _, u := range users {
			if returns && u.Is(tir.Return) && u.ParentBlock() == body && v != op.Results[0] {
				viaOps = viaOps || computed
				continue
			}
			if u.ParentBlock() != body {
				// Read inside a region (a reduction's or a scan's body).
				return false
			}
			if u.Is(tir.Scan) {
				if outerKey(u) != key || u.Operands[0] == v {
					return false
				}
				if !seen[u] {
					seen[u] = true
					readers = append(readers, u)
				}
				continue
			}
			// A value the lowering materializes is computed after the
			// scans, outside their nest, where no column is left to read.
			if u.Attr(tir.MaterializeAttr) != nil || !ownColumn(u, v, dim) {
				return false
			}
			if !seen[u] {
				seen[u] = true
				if !visit(u.Results[0], computed || !u.Is(tir.TupleGet)) {
					return false
				}
			}
		}
		return true
	}
	if !visit(op.Results[0], false) || len(readers) == 0 && !viaOps {
		// Read by no scan, and returned through tir.tuple_get alone (or
		// not at all): into its results (leafResults), not columns.
		return nil, false
	}
	return readers, true
}

// ownColumn reports whether u, evaluated at a point, reads v at that
// point in every dimension but dim (where a constant or symbolic offset
// will do): an elementwise op, tir.tuple_get, a shift or a concat along
// dim, a subset. Gathers, views, reductions and ops with regions do not.
func ownColumn(u *ir.Operation, v *ir.Value, dim string) bool {
	if len(u.Results) != 1 || len(u.Regions) > 0 {
		return false
	}
	acc, ok := tir.AccessOf(u)
	if !ok {
		return false
	}
	reads := 0
	for _, r := range acc {
		if u.Operands[r.Operand] != v {
			continue
		}
		reads++
		if r.Gathered != "" || len(r.Over) > 0 {
			return false
		}
		for d := range r.At {
			off, ok := r.Offset(d)
			if !ok {
				return false
			}
			if c, isC := off.Const(); d != dim && (!isC || c != 0) {
				return false
			}
		}
	}
	return reads > 0
}

// scanGroups partitions the scans of a block into groups, in program order
// of their last member; without columns, each scan is a group of its own.
// A scan read only by later scans at their own outer point joins them in
// a group and keeps its result in columns.
//
// A column scan may also be read by returned values (columnReaders), which
// the group then computes in its nest (outputs); direct tells which
// returned values may be stored as they are (not masked, of the result's
// type; the others go through the output nests). When
// one of them cannot be computed there, the groups are formed again
// without such readers.
func scanGroups(uses ir.UseLists, body *ir.Block, columns bool, direct func(pos int, v *ir.Value) bool) []*scanGroup {
	if columns {
		if gs, ok := scanGroupsWith(uses, body, true, true, direct); ok {
			return gs
		}
	}
	gs, _ := scanGroupsWith(uses, body, columns, false, direct)
	return gs
}

// scanGroupsWith is scanGroups, letting column scans be read by returned
// values when returns is set; ok is false when one of those cannot be
// computed in its group's nest.
func scanGroupsWith(uses ir.UseLists, body *ir.Block, columns, returns bool, direct func(pos int, v *ir.Value) bool) ([]*scanGroup, bool) {
	var scans []*ir.Operation
	for _, op := range body.Ops {
		if op.Is(tir.Scan) {
			scans = append(scans, op)
		}
	}
	singletons := func() []*scanGroup {
		var order []*scanGroup
		for _, op := range scans {
			order = append(order, &scanGroup{scans: []*ir.Operation{op}, column: map[*ir.Operation]bool{}})
		}
		return order
	}
	if !columns {
		return singletons(), true
	}

	// Union-find over the scans: a column scan and its readers.
	root := map[*ir.Operation]*ir.Operation{}
	var find func(op *ir.Operation) *ir.Operation
	find = func(op *ir.Operation) *ir.Operation {
		r, ok := root[op]
		if !ok || r == op {
			return op
		}
		r = find(r)
		root[op] = r
		return r
	}
	level := map[*ir.Operation]bool{}
	for _, op := range scans {
		level[op] = levelStep(op)
	}
	anyLevel := func(ops []*ir.Operation) bool {
		return slices.ContainsFunc(ops, func(op *ir.Operation) bool { return level[op] })
	}
	column := map[*ir.Operation]bool{}
	for _, op := range scans {
		if level[op] {
			// Computed level by level, alone (levelscan.go).
			continue
		}
		if readers, ok := columnReaders(uses, body, op, returns); ok && !anyLevel(readers) {
			column[op] = true
			for _, u := range readers {
				if a, b := find(op), find(u); a != b {
					root[b] = a
				}
			}
		}
	}
	groupOf := map[*ir.Operation]*scanGroup{}
	var order []*scanGroup
	for _, op := range scans {
		r := find(op)
		g := groupOf[r]
		if g == nil {
			g = &scanGroup{column: map[*ir.Operation]bool{}}
			groupOf[r] = g
			order = append(order, g)
		}
		g.scans = append(g.scans, op)
		if column[op] {
			g.column[op] = true
		}
	}
	// A member may also read another member that is not in columns (a
	// scan read by its group and by others): it reads it in the group's
	// nest, where only the columns of its own outer point are computed
	// yet. A group where a member reads another elsewhere runs one scan
	// at a time, whole.
	var checked []*scanGroup
	for _, g := range order {
		if readsOwnColumns(g, body) {
			checked = append(checked, g)
			continue
		}
		for _, op := range g.scans {
			checked = append(checked, &scanGroup{scans: []*ir.Operation{op}, column: map[*ir.Operation]bool{}})
		}
	}
	// Emit each group when its last member is reached.
	pos := map[*ir.Operation]int{}
	for i, op := range body.Ops {
		pos[op] = i
	}
	last := func(g *scanGroup) int { return pos[g.scans[len(g.scans)-1]] }
	sort.SliceStable(checked, func(i, j int) bool { return last(checked[i]) < last(checked[j]) })
	if !dependenciesFirst(checked) {
		// Grouping would compute a scan before one it reads: fall back
		// to one group per scan, in program order.
		return singletons(), !returns
	}
	if returns {
		for _, g := range checked {
			if len(g.scans) == 1 {
				// Alone, a scan is computed into its results or a
				// temporary as before.
				g.column = map[*ir.Operation]bool{}
			}
		}
		return checked, epilogueOutputs(checked, body, direct)
	}
	return checked, true
}

// epilogueOutputs gives each group the returned values that read its
// column scans (through ops that read at their own column, ownColumn):
// they are computed in its nest, once a column's scans have run. It
// reports false when a returned value reads column scans of several
// groups, or reads them otherwise, or reads a scan computed later, or
// cannot be stored as it is (direct).
func epilogueOutputs(groups []*scanGroup, body *ir.Block, direct func(pos int, v *ir.Value) bool) bool {
	groupOf := map[*ir.Operation]int{}
	column := map[*ir.Operation]bool{}
	for i, g := range groups {
		for _, s := range g.scans {
			groupOf[s] = i
			column[s] = g.column[s]
		}
	}
	ret := body.Terminator()
	if ret == nil || !ret.Is(tir.Return) {
		return false
	}
	// scansOf lists the scans v is computed from, the walk ending at each.
	scansOf := func(v *ir.Value) map[*ir.Operation]bool {
		out := map[*ir.Operation]bool{}
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
			if d.Is(tir.Scan) {
				out[d] = true
				return
			}
			for _, x := range inputsOfOp(d) {
				walk(x)
			}
		}
		walk(v)
		return out
	}
	for pos, v := range ret.Operands {
		d := v.DefiningOp()
		if d == nil || d.Is(tir.Scan) {
			continue
		}
		read := scansOf(v)
		g := -1
		anyColumn := false
		for s := range read {
			g = max(g, groupOf[s])
			anyColumn = anyColumn || column[s]
		}
		if !anyColumn {
			continue
		}
		dim := tir.DimAttr(groups[g].scans[0])
		for s := range read {
			if column[s] && groupOf[s] != g {
				return false
			}
		}
		if !direct(pos, v) || !readsOwnColumnOf(v, body, dim, func(s *ir.Operation) bool { gi, ok := groupOf[s]; return ok && gi == g }) {
			return false
		}
		vt, _ := tir.AsTensor(v.Type)
		st, _ := tir.AsTensor(groups[g].scans[0].Results[0].Type)
		if len(vt.Dims) != len(st.Dims) {
			return false
		}
		for _, dd := range st.Dims {
			if vt.Find(dd.Name) < 0 {
				return false
			}
		}
		groups[g].outputs = append(groups[g].outputs, scanOutput{v: v, pos: pos})
	}
	return true
}

// readsOwnColumnOf reports whether v, computed at a point, reads the scans
// of a set (member) only at its own point in every dimension but dim,
// through ops of body without regions (ownColumn for every operand that
// is computed from such a scan).
func readsOwnColumnOf(v *ir.Value, body *ir.Block, dim string, member func(*ir.Operation) bool) bool {
	reach := map[*ir.Value]bool{}
	var reaches func(v *ir.Value) bool
	reaches = func(v *ir.Value) bool {
		if r, ok := reach[v]; ok {
			return r
		}
		reach[v] = false
		d := v.DefiningOp()
		r := false
		switch {
		case d == nil:
		case d.Is(tir.Scan):
			r = member(d)
		default:
			for _, x := range inputsOfOp(d) {
				r = r || reaches(x)
			}
		}
		reach[v] = r
		return r
	}
	ok := map[*ir.Value]bool{}
	var check func(v *ir.Value) bool
	check = func(v *ir.Value) bool {
		if r, done := ok[v]; done {
			return r
		}
		ok[v] = true
		d := v.DefiningOp()
		if d == nil || d.Is(tir.Scan) || !reaches(v) {
			return true
		}
		if d.ParentBlock() != body || len(d.Regions) > 0 || d.Attr(tir.MaterializeAttr) != nil {
			ok[v] = false
			return false
		}
		for _, x := range d.Operands {
			if reaches(x) && (!ownColumn(d, x, dim) || !check(x)) {
				ok[v] = false
				return false
			}
		}
		return true
	}
	return check(v)
}

// inputsOfOp are the values op reads: its operands and the values its
// regions read from outside.
func inputsOfOp(op *ir.Operation) []*ir.Value {
	var out []*ir.Value
	inside := map[*ir.Value]bool{}
	op.Walk(func(o *ir.Operation) bool {
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				inside = addAll(inside, b.Args)
			}
		}
		inside = addAll(inside, o.Results)
		return true
	})
	op.Walk(func(o *ir.Operation) bool {
		for _, x := range o.Operands {
			if !inside[x] {
				out = append(out, x)
			}
		}
		return true
	})
	return out
}

func addAll(set map[*ir.Value]bool, vs []*ir.Value) map[*ir.Value]bool {
	for _, v := range vs {
		set[v] = true
	}
	return set
}

// readsOwnColumns reports whether every member of g reads the other
// members only at its own outer point (through ops that ownColumn
// accepts), whatever the step.
func readsOwnColumns(g *scanGroup, body *ir.Block) bool {
	if len(g.scans) < 2 {
		return true
	}
	member := map[*ir.Operation]bool{}
	for _, s := range g.scans {
		member[s] = true
	}
	dim := tir.DimAttr(g.scans[0])
	for _, s := range g.scans {
		offs := newStepOffsets(body, dim, member)
		for i, in := range s.Operands {
			o, ok := offs.of(in)
			if !ok || (i == 0 && len(o) > 0) {
				return false
			}
		}
		if offs.captured(s) {
			return false
		}
	}
	return true
}

// stepOffsets finds, for a value read at some point, the scans of a set
// it is computed from and the offsets along dim at which it reads them
// relative to that point, through ops that read their operands at their
// own point in the other dimensions (ownColumn). The scans of the set are
// not looked through; other scans are computed earlier and end the walk.
type stepOffsets struct {
	body  *ir.Block
	dim   string
	from  map[*ir.Operation]bool
	memo  map[*ir.Value]map[*ir.Operation]map[string]bool
	bad   map[*ir.Value]bool
	reach map[*ir.Value]bool
}

func newStepOffsets(body *ir.Block, dim string, from map[*ir.Operation]bool) *stepOffsets {
	return &stepOffsets{body: body, dim: dim, from: from,
		memo: map[*ir.Value]map[*ir.Operation]map[string]bool{}, bad: map[*ir.Value]bool{}, reach: map[*ir.Value]bool{}}
}

// reaches reports whether v is computed from a scan of the set.
func (s *stepOffsets) reaches(v *ir.Value) bool {
	if r, ok := s.reach[v]; ok {
		return r
	}
	s.reach[v] = false
	d := v.DefiningOp()
	r := false
	switch {
	case d == nil:
	case s.from[d]:
		r = true
	default:
		r = s.anyReaches(d)
	}
	s.reach[v] = r
	return r
}

// anyReaches reports whether an operand of op or of an op in its regions
// is computed from a scan of the set.
func (s *stepOffsets) anyReaches(op *ir.Operation) bool {
	found := false
	op.Walk(func(inner *ir.Operation) bool {
		for _, o := range inner.Operands {
			if !found && s.reaches(o) {
				found = true
			}
		}
		return !found
	})
	return found
}

// captured reports whether the body of scan op reads a value defined
// outside it that is computed from a scan of the set.
func (s *stepOffsets) captured(op *ir.Operation) bool {
	found := false
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, inner := range b.Ops {
				if s.anyReaches(inner) {
					found = true
				}
			}
		}
	}
	return found
}

// of returns the scans of the set that v reads, each with the offsets
// (printed) along dim; ok is false when v reads one of them other than at
// its own outer point.
func (s *stepOffsets) of(v *ir.Value) (map[*ir.Operation]map[string]bool, bool) {
	if s.bad[v] {
		return nil, false
	}
	if o, ok := s.memo[v]; ok {
		return o, true
	}
	out := map[*ir.Operation]map[string]bool{}
	d := v.DefiningOp()
	switch {
	case d == nil || !s.reaches(v):
	case s.from[d]:
		out[d] = map[string]bool{"0": true}
	case d.Is(tir.Scan) || d.ParentBlock() != s.body || len(d.Regions) > 0:
		s.bad[v] = true
		return nil, false
	default:
		acc, ok := tir.AccessOf(d)
		if !ok {
			s.bad[v] = true
			return nil, false
		}
		for _, r := range acc {
			o := d.Operands[r.Operand]
			if !s.reaches(o) {
				continue
			}
			if !ownColumn(d, o, s.dim) {
				s.bad[v] = true
				return nil, false
			}
			sub, ok := s.of(o)
			if !ok {
				s.bad[v] = true
				return nil, false
			}
			off, hasDim := r.Offset(s.dim)
			if !hasDim {
				s.bad[v] = true
				return nil, false
			}
			for scan, offs := range sub {
				if out[scan] == nil {
					out[scan] = map[string]bool{}
				}
				for e := range offs {
					c, err := strconv.ParseInt(e, 10, 64)
					k, isC := off.Const()
					if err != nil || !isC {
						// A symbolic offset: somewhere in the column.
						out[scan]["?"] = true
						continue
					}
					out[scan][strconv.FormatInt(c+k, 10)] = true
				}
			}
		}
	}
	s.memo[v] = out
	return out, true
}

// fuseRuns splits a group's scans, in order, into runs that share one
// sequential loop: consecutive scans in the same direction over the same
// steps, each reading the earlier scans of its run (through ops at its
// own point) only at steps the loop has computed when it takes its own:
// the step before (a second forward scan reading the first one step
// below) or its own step. One loop gives the CPU the scans' independent
// chains of operations to overlap, as a scan with a tuple state does,
// where a loop per scan would run each chain alone and read the column's
// inputs once per scan.
func fuseRuns(g *scanGroup, body *ir.Block, steps map[*ir.Operation]tir.Dim) [][]*ir.Operation {
	var runs [][]*ir.Operation
	for _, op := range g.scans {
		if n := len(runs); n > 0 && fusable(runs[n-1], op, body, steps) {
			runs[n-1] = append(runs[n-1], op)
			continue
		}
		runs = append(runs, []*ir.Operation{op})
	}
	return runs
}

// fusable reports whether op can take its steps in the loop of run.
func fusable(run []*ir.Operation, op *ir.Operation, body *ir.Block, steps map[*ir.Operation]tir.Dim) bool {
	first := run[0]
	dir := tir.ScanDirection(op)
	a, b := steps[first].Interval, steps[op].Interval
	if dir != tir.ScanDirection(first) || a.Lo.String() != b.Lo.String() || a.Hi.String() != b.Hi.String() {
		return false
	}
	member := map[*ir.Operation]bool{}
	for _, s := range run {
		member[s] = true
	}
	offs := newStepOffsets(body, tir.DimAttr(op), member)
	for i, in := range op.Operands {
		o, ok := offs.of(in)
		if !ok || (i == 0 && len(o) > 0) {
			// The initial state is computed before the loop.
			return false
		}
		for _, set := range o {
			for e := range set {
				c, err := strconv.ParseInt(e, 10, 64)
				if err != nil || (dir == "backward" && c < 0) || (dir != "backward" && c > 0) {
					return false
				}
			}
		}
	}
	return !offs.captured(op)
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
		if d.Is(tir.Scan) {
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

// materializeScans computes a group of scans: each into `into[op]` (one
// result buffer of the same shape per leaf of the state, nil for a leaf
// not stored) when given, into a column buffer when the
// group marks it, into whole-domain temporaries otherwise (one memref per
// leaf of the state). Column buffers are allocated in the body of the
// outermost loop, so that its iterations stay independent (each has its
// own columns) and only the loops inside it lose their parallel mark.
func (fl *funcLowering) materializeScans(g *scanGroup, into map[*ir.Operation][]*ir.Value) error {
	first := g.scans[0]
	rt, _ := tir.AsTensor(first.Results[0].Type)
	// The nest, and the temporaries, follow the function's order of
	// dimensions, not the one the scan's operands gave its type.
	rt = fl.storageOrder(rt)
	dim := tir.DimAttr(first)
	// A scan whose step reads its state at other points is a group of
	// its own (scanGroupsWith), computed level by level over its whole
	// cross-section (levelscan.go).
	level := len(g.scans) == 1 && levelStep(first)
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
			if !ok || level {
				// A step that reads the state at other points reads
				// all of the cross-section.
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
	g.runs = fuseRuns(g, fl.src.Regions[0].Entry(), steps)
	// Whole-domain temporaries are allocated at entry, before the nest,
	// on the points computed.
	for _, op := range g.scans {
		t, _ := tir.AsTensor(op.Results[0].Type)
		switch {
		case g.column[op]:
		case into[op] != nil:
			fl.buffers[op.Results[0]] = append([]*ir.Value(nil), into[op]...)
			// Stored at the subscripts of the results it is returned in,
			// whose dimension order the scan's type need not have.
			if rt, ok := fl.intoOrder[op]; ok {
				fl.storage[op.Results[0]] = rt.WithElem(t.Elem)
			}
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
			read := fl.leavesRead(op)
			for j, lt := range leaves(t.Elem) {
				if !read[j] && !level {
					bufs = append(bufs, nil)
					continue
				}
				a, err := fl.alloc(st.WithElem(lt), op.Loc, "scan")
				if err != nil {
					return err
				}
				bufs = append(bufs, a)
			}
			fl.buffers[op.Results[0]] = bufs
		}
	}
	if level {
		return fl.levelScan(first, steps[first], outer)
	}
	// A dimension stored before the innermost outer one is swept in rows
	// (slab.go).
	if fl.scanRows && len(outer) > 0 && len(g.outputs) == 0 && fl.rowsFit(g, outer[len(outer)-1].Name) {
		return fl.slabScans(g, b, outer, steps)
	}
	// Otherwise one column at a time, or a few in lanes. Columns live in
	// the outermost loop's body (the entry block of a one-dimensional
	// scan), allocated before the loops inside it are opened, so that they
	// dominate them. Interleaved lanes (below) each have their own
	// columns; with one outer dimension, the loop over groups of lanes is
	// the outermost loop and holds them.
	groupLanes := fl.groupLanes(g)
	if len(outer) == 1 && groupLanes > 1 {
		rest, err := fl.interleavedScans(g, newNest(fl), b, outer[0], point{}, 0, steps, groupLanes, nil)
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
	if len(outer) > 1 && groupLanes > 1 {
		lanes = groupLanes
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
	for _, run := range g.runs {
		if err := ev.scanAlong(run, []point{pt}, steps[run[0]], nil); err != nil {
			return err
		}
	}
	if err := ev.scanOutputs(g, []point{pt}, dim, nil); err != nil {
		return err
	}
	fl.closeWithBuffers(bodies, home, columns)
	return nil
}

// leavesRead tells which leaves of a scan's state its readers read: all of
// them, unless every reader is a tir.tuple_get of the function's body (an
// adjoint scan's state, whose cotangent of the state itself is read at
// most at the first step). A leaf nobody reads is not stored.
func (fl *funcLowering) leavesRead(op *ir.Operation) map[int]bool {
	rt, _ := tir.AsTensor(op.Results[0].Type)
	n := len(leaves(rt.Elem))
	all := map[int]bool{}
	for j := 0; j < n; j++ {
		all[j] = true
	}
	tt, ok := rt.Elem.(ir.TupleType)
	if !ok {
		return all
	}
	read := map[int]bool{}
	for _, u := range fl.uses.Users(op.Results[0]) {
		if !u.Is(tir.TupleGet) || u.ParentBlock() != op.ParentBlock() {
			return all
		}
		idx := tir.TupleIndex(u)
		if idx < 0 || idx >= len(tt.Elems) {
			return all
		}
		first := 0
		for _, e := range tt.Elems[:idx] {
			first += len(leaves(e))
		}
		for j := 0; j < len(leaves(tt.Elems[idx])); j++ {
			read[first+j] = true
		}
	}
	return read
}

// scanOutputs computes the group's outputs at the outer point of each
// lane, once its columns are complete: one loop along dim per interval of
// steps, storing each output of that interval into its result.
func (ev *evaluator) scanOutputs(g *scanGroup, lanes []point, dim string, selectLane func(int)) error {
	n := ev.nest
	var order []string
	byInterval := map[string][]scanOutput{}
	steps := map[string]sizeexpr.Interval{}
	for _, o := range g.outputs {
		t, _ := tir.AsTensor(o.v.Type)
		kd, _ := t.Dim(dim)
		key := kd.Interval.String()
		if _, ok := byInterval[key]; !ok {
			order = append(order, key)
			steps[key] = kd.Interval
		}
		byInterval[key] = append(byInterval[key], o)
	}
	for lane, pt := range lanes {
		if selectLane != nil {
			selectLane(lane)
		}
		for _, key := range order {
			outs := byInterval[key]
			loop, body, err := ev.loop(steps[key], nil)
			if err != nil {
				return ir.Errorf(tir.DefLoc(outs[0].v), "%v", err)
			}
			name := n.fresh(dim, loop.Regions[0].Entry().Args[0])
			q := pt.with(dim, sizeexpr.Dim(name, 100+len(n.ivs)))
			c := ev.child(body)
			for _, o := range outs {
				val, err := c.at(o.v, q)
				if err != nil {
					return err
				}
				if len(val.parts) != 1 {
					return ir.Errorf(tir.DefLoc(o.v), "cannot store a tuple result")
				}
				t, _ := tir.AsTensor(o.v.Type)
				subs, err := subscripts(t, q)
				if err != nil {
					return ir.Errorf(tir.DefLoc(o.v), "%v", err)
				}
				c.storeAt(val.parts[0], o.out, subs)
			}
			body.yield()
		}
	}
	return nil
}

// laneColumnBudget bounds lanes times the column buffers of one lane
// (groupLanes). Each column is a pointer the loops of the group keep live:
// past about a dozen, x86-64's sixteen general registers spill, and every
// step reloads column addresses from the stack. The tridiagonal solver's
// two columns a lane take four lanes; its adjoint's six (the forward
// sweep's c' and d', x, the transposed substitution's three) take two,
// 10-20% faster than four at the DRAM size and as fast at the L3 size.
const laneColumnBudget = 12

// groupLanes is the number of interleaved lanes (Options.ScanLanes at
// most) a scan group is computed with: halved until the lanes' column
// buffers fit laneColumnBudget, but not below two, since one column leaves
// the latency of its chain of dependent steps exposed, which costs more
// than reloading addresses (tridiag_2scans.tir's adjoint, fifteen columns
// a lane, at the DRAM size: 0.92x the hand-written C adjoint in two lanes,
// 1.17x in one and 1.17x in four).
func (fl *funcLowering) groupLanes(g *scanGroup) int {
	perLane := 0
	for _, op := range g.scans {
		if g.column[op] {
			t, _ := tir.AsTensor(op.Results[0].Type)
			perLane += len(leaves(t.Elem))
		}
	}
	lanes := fl.scanLanes
	for lanes > 2 && lanes*perLane > laneColumnBudget {
		lanes /= 2
	}
	return lanes
}

// closeWithBuffers closes a nest in which home, the entry block
// (bodies[0]) or one of the loop bodies, allocated bufs: they are freed at
// the end of that body, or at return when they live at entry.
func (fl *funcLowering) closeWithBuffers(bodies []builder, home builder, bufs []*ir.Value) {
	if home.block != bodies[0].block {
		for _, a := range bufs {
			home.op(memref.Dealloc, []*ir.Value{a}, nil, nil)
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
	for _, run := range g.runs {
		if err := ev.scanAlong(run, pts, steps[run[0]], selectLane); err != nil {
			return d, err
		}
	}
	if err := ev.scanOutputs(g, pts, tir.DimAttr(g.scans[0]), selectLane); err != nil {
		return d, err
	}
	for _, a := range own {
		body.op(memref.Dealloc, []*ir.Value{a}, nil, nil)
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

// scanAlong emits the sequential loop of a run of scans (fuseRuns) over
// the steps kd, at one outer point per lane: the states of all scans and
// lanes are carried in iter_args and every lane stores each scan's state
// at every step into the scan's buffers. Lanes are independent columns
// computed in one loop (interleaved scans, materializeScans); selectLane,
// when not nil, points the column buffers at a lane's own before its body
// is emitted. A scan of the run that reads an earlier one at the step
// before or at its own step gets that state from the loop's registers
// (seedState) rather than from the buffer it was stored to.
func (ev *evaluator) scanAlong(run []*ir.Operation, lanes []point, kd tir.Dim, selectLane func(int)) error {
	fl, n := ev.fl, ev.nest
	first := run[0]
	dim := tir.DimAttr(first)
	saved := ev.b.loc
	ev.b.loc = first.Loc
	defer func() { ev.b.loc = saved }()
	// The state of scan i at lane l is args[at[i]+l*len(types[i]):].
	var types [][]ir.Type
	var at []int
	var inits []*ir.Value
	for _, op := range run {
		rt, _ := tir.AsTensor(op.Results[0].Type)
		ts := leaves(rt.Elem)
		types = append(types, ts)
		at = append(at, len(inits))
		for _, pt := range lanes {
			init, err := ev.at(op.Operands[0], pt)
			if err != nil {
				return err
			}
			for i, p := range init.parts {
				if !ir.TypeEqual(p.Type, ts[i]) {
					init.parts[i] = fl.constant(constantValue(op.Operands[0]), ts[i])
				}
			}
			inits = append(inits, init.parts...)
		}
	}
	loop, body, err := ev.loop(kd.Interval, inits)
	if err != nil {
		return ir.Errorf(first.Loc, "%v", err)
	}
	blk := loop.Regions[0].Entry()
	name := n.fresh(dim, blk.Args[0])
	k := sizeexpr.Dim(name, 100+len(n.ivs))
	prev := sizeexpr.Sub(k, sizeexpr.Const(1))
	if tir.ScanDirection(first) == "backward" {
		// Run t = lo..hi-1 and visit k = lo + hi - 1 - t.
		k = sizeexpr.Sub(sizeexpr.Add(kd.Lo, sizeexpr.Sub(kd.Hi, sizeexpr.Const(1))), k)
		prev = sizeexpr.Add(k, sizeexpr.Const(1))
	}
	// One evaluator per lane for the whole run: the later scans reuse
	// the inputs the earlier ones loaded at the step, and their states.
	cs := make([]*evaluator, len(lanes))
	for lane := range lanes {
		cs[lane] = ev.child(body)
	}
	yields := make([]*ir.Value, len(inits))
	for i, op := range run {
		rt, _ := tir.AsTensor(op.Results[0].Type)
		st := rt
		if col, ok := fl.storage[op.Results[0]]; ok {
			st = col
		}
		w := len(types[i])
		for lane, pt := range lanes {
			if selectLane != nil {
				selectLane(lane)
			}
			c := cs[lane]
			state := blk.Args[1+at[i]+lane*w : 1+at[i]+(lane+1)*w]
			q := pt.with(dim, k)
			if i+1 < len(run) {
				c.seedState(op, pt.with(dim, prev), state)
			}
			next, err := c.scanStep(op, state, q)
			if err != nil {
				return err
			}
			subs, err := subscripts(st, q)
			if err != nil {
				return ir.Errorf(op.Loc, "%v", err)
			}
			for j, buf := range fl.buffers[op.Results[0]] {
				if buf != nil { // nil: a leaf nothing reads (leafResults)
					c.storeAt(next[j], buf, subs)
				}
			}
			if i+1 < len(run) {
				c.seedState(op, q, next)
			}
			copy(yields[at[i]+lane*w:], next)
		}
	}
	body.op(affine.Yield, yields, nil, nil)
	return nil
}

// seedState tells the evaluator that scan op's result at pt is the state
// given, so that a later scan of its run reads it without a load; not for
// a scan that may be masked, whose reads carry its init's mask. At the
// first step the state before it is the initial one, which no read takes:
// the program can only read the step before the first under a guard (a
// concat below it), never taken there.
func (ev *evaluator) seedState(op *ir.Operation, pt point, state []*ir.Value) {
	if tir.MayBeMaskedMemo(op.Operands[0], ev.fl.maskMemo) {
		return
	}
	v := op.Results[0]
	t, _ := tir.AsTensor(v.Type)
	ev.cache[cacheKey{v, pt.restrict(t).key()}] = scalar{parts: append([]*ir.Value(nil), state...)}
}

// scanStep evaluates one step of a scan at the point q (its scanned
// dimension at the step) from the state: the body with its block
// arguments bound to the state and the inputs at q; where an input or the
// result is masked, the state passes through unchanged.
func (c *evaluator) scanStep(op *ir.Operation, state []*ir.Value, q point) ([]*ir.Value, error) {
	c.env[op.Regions[0].Entry().Args[0]] = scalar{parts: state}
	return c.stepBody(op, state, q)
}

// stepBody evaluates a scan's step at q once its state is bound (the
// state at q given): the inputs are bound at q, and at the other points
// of their dimensions an op of the step may read.
func (c *evaluator) stepBody(op *ir.Operation, state []*ir.Value, q point) ([]*ir.Value, error) {
	region := op.Regions[0].Entry()
	var masks []*ir.Value
	for i, in := range op.Operands[1:] {
		x, err := c.at(in, q)
		if err != nil {
			return nil, err
		}
		c.bindAt(region.Args[i+1], in, q)
		masks = append(masks, x.mask)
	}
	y, err := c.at(region.Terminator().Operands[0], q)
	if err != nil {
		return nil, err
	}
	next := y.parts
	if m := c.orMask(append(masks, y.mask)...); m != nil {
		for i := range next {
			next[i] = c.b.value(arith.Select, []*ir.Value{m, state[i], next[i]}, state[i].Type, nil)
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
