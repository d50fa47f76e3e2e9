package affinepasses

import (
	"math"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/vector"
)

// The construction of affine-contraction-tile's loops (contraction.go
// describes the result). Everything is built detached and inserted at the
// end, so that a nest whose pieces cannot all be written (an expression
// that is not affine) is left as it was.

// ctBuild is the state of one rewrite.
type ctBuild struct {
	c   *contraction
	n   *cnest
	loc ir.Location
	pre []*ir.Operation // made before the nest: splats, broadcasts of outside values
	// splatted are the values that vectors of copies stand for (constants,
	// values from outside the nest); splats the vectors made, by width.
	splatted map[*ir.Value]bool
	splats   map[splatKey]*ir.Value
	out      []*ir.Operation // the new nests, in order, inserted before the original (inside the new middle loops)
	mid      map[*ir.Value]sizeexpr.Expr
	// top holds what goes at the function's top level before the nest (the
	// panels and their sizes); deallocs the panels to free after it.
	top, deallocs []*ir.Operation
	ok            bool
}

func (c *contraction) rewrite(n *cnest) bool {
	b := &ctBuild{c: c, n: n, loc: n.top.Loc, splatted: map[*ir.Value]bool{}, splats: map[splatKey]*ir.Value{},
		mid: map[*ir.Value]sizeexpr.Expr{}, ok: true}
	vl, mr, nv := n.lanes, n.mr, n.nv
	nr := vl * nv
	add, sub, mul := sizeexpr.Add, sizeexpr.Sub, sizeexpr.Mul
	one := func(e sizeexpr.Expr) []sizeexpr.Expr { return []sizeexpr.Expr{e} }
	two := func(a, e sizeexpr.Expr) []sizeexpr.Expr { return []sizeexpr.Expr{a, e} }
	// jF ends the full NR-wide tiles, jV the full vectors; iF the full
	// MR-row tiles. Pieces starting at max(lo, xF) are empty when the
	// loop itself is.
	jF := add(n.lj, mul(b.floorDiv(sub(n.uj, n.lj), nr), nr))
	jV := add(n.lj, mul(b.floorDiv(sub(n.uj, n.lj), vl), vl)) // NR is a multiple of VL
	// The columns past jV that do not fill a vector: narrower vectors
	// (VL/2, VL/4, ... lanes), one each at most, ending at ends[i].
	ends := make([]sizeexpr.Expr, len(n.narrow))
	jS := jV // where the scalar columns start
	for i, w := range n.narrow {
		ends[i] = add(n.lj, mul(b.floorDiv(sub(n.uj, n.lj), w), w))
		jS = ends[i]
	}
	var iF sizeexpr.Expr
	if n.row != nil {
		iF = add(n.li, mul(b.floorDiv(sub(n.ui, n.li), mr), mr))
	}
	if !b.ok {
		return false
	}
	b.prepare()
	// The loops between the row and the vector loop hold the tiles.
	var midTop *ir.Operation
	var midBlks []*ir.Block
	for d, m := range n.mids {
		l, blk, iv := b.newLoop(n.midLbs[d], n.midUbs[d], 1, nil, n.midIVs[d].NameHint, affine.IsParallel(m) && !n.panels)
		b.mid[n.midIVs[d]] = iv
		if d == 0 {
			midTop = l
		} else {
			midBlks[d-1].Append(l)
		}
		midBlks = append(midBlks, blk)
	}
	// What the constant extents make empty.
	colRem, scalarRem, rowRem := nv > 1, true, n.row != nil
	narrowRem := make([]bool, len(n.narrow))
	for i := range narrowRem {
		narrowRem[i] = true
	}
	if t, ok := sub(n.uj, n.lj).Const(); ok {
		colRem, scalarRem = colRem && t%nr >= vl, t%n.minLanes() != 0
		for i, w := range n.narrow {
			narrowRem[i] = t%(2*w) >= w
		}
	}
	if n.row != nil {
		if t, ok := sub(n.ui, n.li).Const(); ok {
			rowRem = t%mr != 0
		}
	}
	if n.blockedForm {
		b.blockedRegion(iF, jF, jV, ends, colRem, rowRem, narrowRem)
	} else {
		var mainLbs, mainUbs, remLbs, remUbs []sizeexpr.Expr // rows
		if n.row != nil {
			mainLbs, mainUbs = one(n.li), one(iF)
			remLbs, remUbs = two(n.li, iF), one(n.ui)
		}
		tailLbs, tailUbs := two(n.lj, jF), one(jV) // columns
		b.tiles(mainLbs, mainUbs, mr, one(n.lj), one(jF), nv, vl)
		if colRem {
			b.tiles(mainLbs, mainUbs, mr, tailLbs, tailUbs, 1, vl)
		}
		start := jV
		for i, w := range n.narrow {
			if narrowRem[i] {
				b.tiles(mainLbs, mainUbs, mr, two(n.lj, start), one(ends[i]), 1, w)
			}
			start = ends[i]
		}
		if rowRem {
			b.tiles(remLbs, remUbs, 1, one(n.lj), one(jF), nv, vl)
			if colRem {
				b.tiles(remLbs, remUbs, 1, tailLbs, tailUbs, 1, vl)
			}
			start := jV
			for i, w := range n.narrow {
				if narrowRem[i] {
					b.tiles(remLbs, remUbs, 1, two(n.lj, start), one(ends[i]), 1, w)
				}
				start = ends[i]
			}
		}
	}
	if !b.ok {
		return false
	}
	// The last columns that do not fill the narrowest vector stay in the
	// original loops, which now start at jS.
	var colLB ir.AffineMap
	var colLBOps []*ir.Value
	if scalarRem {
		var ok bool
		colLB, colLBOps, ok = c.x.toMap(two(n.lj, jS))
		if !ok {
			return false
		}
	}
	if len(b.deallocs) > 0 {
		// The panels are shared by whatever loops hold the nest: those
		// marked parallel lose the mark (threads would write the panels
		// at the same time; the row tiles inside stay parallel).
		for p := n.top.ParentOp(); p != nil && p != c.fn; p = p.ParentOp() {
			if p.Is(affine.For) && affine.IsParallel(p) {
				p.Attrs = p.Attrs.Without(affine.ParallelAttr)
				c.rw.Modified(p)
			}
		}
		home := n.home(c.fn)
		blk := home.ParentBlock()
		next := blk.Ops[blk.IndexOf(home)+1]
		for _, a := range b.top {
			c.rw.InsertBefore(home, a)
		}
		for _, d := range b.deallocs {
			c.rw.InsertBefore(next, d)
		}
	}
	for _, o := range b.pre {
		c.rw.InsertBefore(n.top, o)
	}
	if midTop != nil {
		inner := midBlks[len(midBlks)-1]
		for _, o := range b.out {
			inner.Append(o)
		}
		for _, blk := range midBlks {
			blk.Append(affine.NewYield(b.loc))
		}
		c.rw.InsertBefore(n.top, midTop)
	} else {
		for _, o := range b.out {
			c.rw.InsertBefore(n.top, o)
		}
	}
	if !scalarRem {
		c.rw.EraseOp(n.top)
		return true
	}
	_, _, ub, ubOps, _ := affine.ForBounds(n.col)
	n.col.Operands = append(append(colLBOps, ubOps...), iterInits(n.col)...)
	n.col.SetAttr(affine.AttrLowerBound, ir.AffineMapAttr{Map: colLB})
	n.col.SetAttr(affine.AttrUpperBound, ir.AffineMapAttr{Map: ub})
	c.rw.Modified(n.col)
	return true
}

// home is the op at the function's top level that holds the nest.
func (n *cnest) home(fn *ir.Operation) *ir.Operation {
	home := n.top
	for home.ParentOp() != nil && home.ParentOp() != fn {
		home = home.ParentOp()
	}
	return home
}

func (b *ctBuild) floorDiv(e sizeexpr.Expr, d int64) sizeexpr.Expr {
	q, err := sizeexpr.FloorDiv(e, d)
	if err != nil {
		b.ok = false
	}
	return q
}

type splatKey struct {
	v     *ir.Value
	lanes int64
}

// prepare lists the values that vectors of copies stand for: the body's
// constants, the values it uses from outside the nest, the initial value
// when it comes from outside.
func (b *ctBuild) prepare() {
	n := b.n
	if !ir.DefinedInside(n.init, n.col) {
		b.splatted[n.init] = true
	}
	for _, o := range append(append([]*ir.Operation(nil), n.ops...), n.outer...) {
		switch n.kind[o] {
		case ctConst:
			b.splatted[o.Results[0]] = true
		case ctElementwise:
			for _, x := range o.Operands {
				if !ir.DefinedInside(x, n.top) && !ir.TypeEqual(x.Type, ir.I1) {
					b.splatted[x] = true
				}
			}
		}
	}
}

// splat returns the vector of lanes copies of x, made before the nest.
func (b *ctBuild) splat(x *ir.Value, lanes int64) *ir.Value {
	if v, ok := b.splats[splatKey{x, lanes}]; ok {
		return v
	}
	var op *ir.Operation
	if isSplatConstant(x) && finiteConstant(x) {
		c := x.DefiningOp()
		t := ir.VectorType{Shape: []int64{lanes}, Elem: x.Type}
		op = arith.NewConstant(c.Loc, ir.DenseElementsAttr{Type: t, Values: []ir.Attribute{c.Attr(arith.AttrValue)}}, t)
	} else {
		op = vector.NewBroadcast(b.loc, x, lanes)
	}
	b.pre = append(b.pre, op)
	b.splats[splatKey{x, lanes}] = op.Results[0]
	return op.Results[0]
}

// finiteConstant reports whether a constant is an integer or a finite
// float: a dense splat of an infinity or a NaN prints as a hex literal
// (dense<0xFF800000>) that the IR parser does not read back, so those are
// broadcast instead.
func finiteConstant(x *ir.Value) bool {
	f, ok := x.DefiningOp().Attr(arith.AttrValue).(ir.FloatAttr)
	return !ok || !(math.IsInf(f.Value, 0) || math.IsNaN(f.Value))
}

// newLoop builds a detached affine.for over [max(lbs), min(ubs)) and
// returns it with its body and its induction variable as an expression.
func (b *ctBuild) newLoop(lbs, ubs []sizeexpr.Expr, step int64, inits []*ir.Value, hint string, parallel bool) (*ir.Operation, *ir.Block, sizeexpr.Expr) {
	loop, ok := newFor(b.c.x, b.loc, foldBounds(lbs, true), foldBounds(ubs, false), step, inits)
	if !ok {
		b.ok = false
		zero := ir.AffineMap{Results: []sizeexpr.Expr{sizeexpr.Const(0)}}
		loop = affine.NewFor(b.loc, zero, nil, zero, nil, 1, inits) // a placeholder, discarded
	}
	if parallel {
		loop.SetAttr(affine.ParallelAttr, ir.UnitAttr{})
	}
	iv := affine.InductionVar(loop)
	iv.NameHint = hint
	return loop, affine.ForBody(loop), b.c.x.varOf(iv).Expr()
}

// foldBounds drops repeated bounds and keeps one constant: the largest of
// the constant lower bounds (a loop starts at their max), the smallest of
// the upper ones.
func foldBounds(es []sizeexpr.Expr, lower bool) []sizeexpr.Expr {
	var out []sizeexpr.Expr
	var c int64
	hasC := false
	for _, e := range es {
		if v, ok := e.Const(); ok {
			if !hasC || (lower && v > c) || (!lower && v < c) {
				c, hasC = v, true
			}
			continue
		}
		dup := false
		for _, f := range out {
			dup = dup || f.Equal(e)
		}
		if !dup {
			out = append(out, e)
		}
	}
	if hasC {
		out = append(out, sizeexpr.Const(c))
	}
	return out
}

// access builds an access of mem at subscripts written over values.
func (b *ctBuild) access(subs []sizeexpr.Expr, build func(m ir.AffineMap, operands []*ir.Value) *ir.Operation) *ir.Operation {
	m, operands, ok := b.c.x.toMap(subs)
	if !ok {
		b.ok = false
		m, operands = ir.AffineMap{}, nil
	}
	return build(m, operands)
}

// at substitutes the row, column and reduction positions, and the new
// middle loops' induction variables, into subscripts.
func (b *ctBuild) at(subs []sizeexpr.Expr, i, j sizeexpr.Expr, ks []sizeexpr.Expr) []sizeexpr.Expr {
	n := b.n
	out := make([]sizeexpr.Expr, len(subs))
	for d, e := range subs {
		out[d] = b.c.x.renameValues(e, func(v *ir.Value) (sizeexpr.Expr, bool) {
			switch {
			case v == n.iIV && n.iIV != nil:
				return i, true
			case v == n.jIV:
				return j, true
			}
			for l, k := range n.kIVs {
				if v == k && l < len(ks) {
					return ks[l], true
				}
			}
			if m, ok := b.mid[v]; ok {
				return m, true
			}
			return sizeexpr.Expr{}, false
		})
	}
	return out
}

func vt(t ir.Type, lanes int64) ir.VectorType {
	return ir.VectorType{Shape: []int64{lanes}, Elem: t}
}

func (b *ctBuild) rowParallel() bool { return b.n.row != nil && affine.IsParallel(b.n.row) }

// tiles appends the nest of mr x nv tiles over rows [max(rowLbs),
// min(rowUbs)) (no row loop when rowLbs is nil) and columns [max(colLbs),
// min(colUbs)), each tile reducing over the whole reduced loops from the
// initial value, with vectors of the given lanes.
func (b *ctBuild) tiles(rowLbs, rowUbs []sizeexpr.Expr, mr int64, colLbs, colUbs []sizeexpr.Expr, nv, lanes int64) {
	n := b.n
	var outer *ir.Operation
	var blk *ir.Block
	var i0 sizeexpr.Expr
	if rowLbs != nil {
		outer, blk, i0 = b.newLoop(rowLbs, rowUbs, mr, nil, "ic", b.rowParallel())
	}
	jl, jb, j0 := b.newLoop(colLbs, colUbs, lanes*nv, nil, "jr", outer == nil && affine.IsParallel(n.col))
	b.kernel(jb, kernelArgs{i0: i0, j0: j0, mr: mr, nv: nv, lanes: lanes, kLbs: n.kLbs, kUbs: n.kUbs})
	jb.Append(affine.NewYield(b.loc))
	if outer == nil {
		b.out = append(b.out, jl)
		return
	}
	blk.Append(jl)
	blk.Append(affine.NewYield(b.loc))
	b.out = append(b.out, outer)
}

// kernelArgs describe one register tile: mr rows from i0, nv vectors of
// lanes elements from column j0, the reduced loops' bounds (the outer one cut to a cache
// block), the accumulators loaded from C (fromC; when notFirst is set,
// only where all of notFirst >= 0) or made from the initial value, the panels the packed operands are read from (nil: none), and
// what is stored: the sums, or when notLast is set, the sums while
// another block follows (all of notLast >= 0) and the epilogue after the
// last.
type kernelArgs struct {
	i0, j0        sizeexpr.Expr
	mr, nv, lanes int64
	kLbs, kUbs    [][]sizeexpr.Expr
	fromC         bool
	notFirst      []sizeexpr.Expr
	pk            *panelRef
	notLast       []sizeexpr.Expr
}

type instKey struct {
	v    *ir.Value
	r, l int64
}

// instCtx is where values of the nest are instantiated for the lanes of a
// tile: the block to append to, the tile's position (ks: the reduced
// loops' induction variables, inside them), the accumulators standing for
// accOf, and the values made so far.
type instCtx struct {
	blk       *ir.Block
	i0, j0    sizeexpr.Expr
	ks        []sizeexpr.Expr
	nv, lanes int64
	accOf     *ir.Value
	accs      []*ir.Value
	pk        *panelRef
	memo      map[instKey]*ir.Value
}

// inst returns the vector of v for row r and vector l of the tile.
func (b *ctBuild) inst(x *instCtx, v *ir.Value, r, l int64) *ir.Value {
	n := b.n
	if x.accOf != nil && v == x.accOf {
		return x.accs[r*x.nv+l]
	}
	if b.splatted[v] {
		return b.splat(v, x.lanes)
	}
	o := v.DefiningOp()
	if o == nil {
		b.ok = false
		return v
	}
	kind, ok := n.kind[o]
	if !ok {
		return v // a scalar i1 select condition from outside
	}
	if !n.rowDep[v] {
		r = 0
	}
	if !n.vecDep[v] {
		l = 0
	}
	if w, ok := x.memo[instKey{v, r, l}]; ok {
		return w
	}
	vl := x.lanes
	row := sizeexpr.Expr{}
	if n.row != nil {
		row = sizeexpr.Add(x.i0, sizeexpr.Const(r))
	}
	col := sizeexpr.Add(x.j0, sizeexpr.Const(l*vl))
	var res *ir.Value
	switch kind {
	case ctVecLoad, ctGather:
		_, mem, m, operands := affine.AccessParts(o)
		if buf, subs, ok := x.pk.at(o, x.ks, l*vl); ok {
			res = x.blk.Append(b.access(subs, func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorLoad(o.Loc, vt(v.Type, vl), buf, m, ops)
			})).Results[0]
			break
		}
		if kind == ctGather {
			b.ok = false
			return v
		}
		subs, _ := b.c.x.apply(m, operands)
		res = x.blk.Append(b.access(b.at(subs, row, col, x.ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			return affine.NewVectorLoad(o.Loc, vt(v.Type, vl), mem, m, ops)
		})).Results[0]
	case ctBroadcast:
		_, mem, m, operands := affine.AccessParts(o)
		subs, _ := b.c.x.apply(m, operands)
		s := x.blk.Append(b.access(b.at(subs, row, x.j0, x.ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			return affine.NewLoad(o.Loc, mem, m, ops)
		})).Results[0]
		s.NameHint = v.NameHint
		res = x.blk.Append(vector.NewBroadcast(o.Loc, s, vl)).Results[0]
	case ctElementwise:
		args := make([]*ir.Value, len(o.Operands))
		for i, a := range o.Operands {
			args[i] = b.inst(x, a, r, l)
		}
		e := ir.NewOp(o.Name, o.Loc, args, []ir.Type{vt(v.Type, vl)}, append(ir.DictAttr(nil), o.Attrs...))
		res = x.blk.Append(e).Results[0]
	default:
		b.ok = false
		return v
	}
	res.NameHint = v.NameHint
	x.memo[instKey{v, r, l}] = res
	return res
}

// kernel appends to blk one register tile: the accumulators, the reduced
// loops with the body instantiated for every row and vector, and the
// stores to C.
func (b *ctBuild) kernel(blk *ir.Block, a kernelArgs) {
	n := b.n
	vl := a.lanes
	row := func(r int64) sizeexpr.Expr {
		if n.row == nil {
			return sizeexpr.Expr{}
		}
		return sizeexpr.Add(a.i0, sizeexpr.Const(r))
	}
	cAt := func(r, l int64) []sizeexpr.Expr {
		return b.at(n.storeSubs, row(r), sizeexpr.Add(a.j0, sizeexpr.Const(l*vl)), nil)
	}
	outer := &instCtx{blk: blk, i0: a.i0, j0: a.j0, nv: a.nv, lanes: vl, memo: map[instKey]*ir.Value{}}
	// The accumulators: the initial value, or the partial sums in C; with
	// notFirst, the partial sums when an earlier block stored them (all of
	// notFirst >= 0), the initial value in the first block.
	fromInit := func(x *instCtx) []*ir.Value {
		var vs []*ir.Value
		for r := int64(0); r < a.mr; r++ {
			for l := int64(0); l < a.nv; l++ {
				vs = append(vs, b.inst(x, n.init, r, l))
			}
		}
		return vs
	}
	fromC := func(blk *ir.Block) []*ir.Value {
		var vs []*ir.Value
		for r := int64(0); r < a.mr; r++ {
			for l := int64(0); l < a.nv; l++ {
				ld := blk.Append(b.access(cAt(r, l), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
					return affine.NewVectorLoad(b.loc, vt(n.elem, vl), n.mem, m, ops)
				}))
				vs = append(vs, ld.Results[0])
			}
		}
		return vs
	}
	var inits []*ir.Value
	switch {
	case !a.fromC:
		inits = fromInit(outer)
	case a.notFirst == nil:
		inits = fromC(blk)
	default:
		types := make([]ir.Type, a.mr*a.nv)
		for i := range types {
			types[i] = vt(n.elem, vl)
		}
		g, ok := newGuard(b.c.x, b.loc, a.notFirst, types)
		if !ok {
			b.ok = false
			return
		}
		blk.Append(g)
		affine.ThenBlock(g).Append(affine.NewYield(b.loc, fromC(affine.ThenBlock(g))...))
		eb := affine.ElseBlock(g)
		eb.Append(affine.NewYield(b.loc, fromInit(&instCtx{blk: eb, i0: a.i0, j0: a.j0, nv: a.nv, lanes: vl, memo: map[instKey]*ir.Value{}})...))
		inits = g.Results
	}
	// The reduced loops, each holding the next, the accumulators threaded
	// through them.
	var ks []sizeexpr.Expr
	var first *ir.Operation
	parent := blk
	iters := inits
	for d := range n.reds {
		l, lb, k := b.newLoop(a.kLbs[d], a.kUbs[d], 1, iters, n.kIVs[d].NameHint, false)
		ks = append(ks, k)
		parent.Append(l)
		if d == 0 {
			first = l
		} else {
			parent.Append(affine.NewYield(b.loc, l.Results...))
		}
		parent = lb
		iters = affine.IterArgs(l)
		if d == len(n.reds)-1 {
			for _, it := range iters {
				it.NameHint = "acc"
			}
		}
	}
	body := &instCtx{blk: parent, i0: a.i0, j0: a.j0, ks: ks, nv: a.nv, lanes: vl, accOf: n.acc, accs: iters, pk: a.pk, memo: map[instKey]*ir.Value{}}
	var next []*ir.Value
	for r := int64(0); r < a.mr; r++ {
		for l := int64(0); l < a.nv; l++ {
			next = append(next, b.inst(body, n.result, r, l))
		}
	}
	parent.Append(affine.NewYield(b.loc, next...))
	// The stores: the epilogue applied to the sums.
	store := func(blk *ir.Block, epilogue bool) {
		x := &instCtx{blk: blk, i0: a.i0, j0: a.j0, nv: a.nv, lanes: vl, accOf: n.sum, accs: first.Results, memo: outer.memo}
		for r := int64(0); r < a.mr; r++ {
			for l := int64(0); l < a.nv; l++ {
				v := first.Results[r*a.nv+l]
				if epilogue {
					v = b.inst(x, n.value, r, l)
				}
				blk.Append(b.access(cAt(r, l), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
					return affine.NewVectorStore(b.loc, v, n.mem, m, ops)
				}))
			}
		}
	}
	if a.notLast == nil || n.value == n.sum {
		store(blk, true)
		return
	}
	g, ok := newGuard(b.c.x, b.loc, a.notLast, nil)
	if !ok {
		b.ok = false
		return
	}
	blk.Append(g)
	store(affine.ThenBlock(g), false)
	affine.ThenBlock(g).Append(affine.NewYield(b.loc))
	g.Regions[1].AddBlock()
	store(affine.ElseBlock(g), true)
	affine.ElseBlock(g).Append(affine.NewYield(b.loc))
}

func mustFloorDiv(e sizeexpr.Expr, d int64) sizeexpr.Expr {
	q, err := sizeexpr.FloorDiv(e, d)
	if err != nil {
		panic(err) // d > 0: FloorDiv fails only on a non-positive divisor
	}
	return q
}
