package affinepasses

import (
	"slices"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

// The cache-blocked form of affine-contraction-tile (contraction.go has
// the picture): blocks of the vector loop's columns and of the outer
// reduction, the operands shared by the rows packed into panels per
// block, the tiles reading them.

// choosePacking decides whether the nest takes the cache-blocked form and
// whether it packs panels: it needs a row loop and k blocks; panels need
// the pack option, no parallel op around the nest (the panel buffer is
// shared), and panel dimensions that can be computed before the nest.
func (c *contraction) choosePacking(n *cnest) {
	o := c.o
	n.blockedForm, n.panels, n.multi = false, false, false
	if n.row == nil || o.kBlock <= 0 {
		return
	}
	// A block of the outer reduction holds kBlock iterations of the whole
	// reduction when the inner ones have constant trip counts.
	inner := int64(1)
	for _, r := range n.reds[1:] {
		if t, ok := constTripCount(c.x, r); ok {
			inner *= max(t, 1)
		}
	}
	n.kc = max(o.kBlock/inner, 1)
	if n.kTrip >= 0 && n.kTrip < n.kc {
		n.kc = max(n.kTrip, 1)
	}
	n.multi = n.kTrip < 0 || n.kTrip > n.kc
	// Several blocks keep their partial sums in C.
	if n.multi && !ir.TypeEqual(n.elem, n.mem.Type.(ir.MemRefType).Elem) {
		return
	}
	n.blockedForm = true
	if !o.pack || inParallelOp(n.top, c.fn) || !n.sharesAcrossRows() {
		return
	}
	home := n.home(c.fn)
	for d := 1; d < len(n.reds); d++ {
		if len(n.kLbs[d]) != 1 {
			return
		}
		if _, ok := c.tripExprs(n, d); !ok && !c.atTop(append(append([]sizeexpr.Expr(nil), n.kLbs[d]...), n.kUbs[d]...), home) {
			return
		}
	}
	n.panels = true
}

// tripExprs returns the trip count of reduction d as the min of
// differences of its bounds, and whether it is a constant.
func (c *contraction) tripExprs(n *cnest, d int) ([]sizeexpr.Expr, bool) {
	var es []sizeexpr.Expr
	konst := true
	for _, ub := range n.kUbs[d] {
		for _, lb := range n.kLbs[d] {
			e := sizeexpr.Sub(ub, lb)
			_, isC := e.Const()
			konst = konst && isC
			es = append(es, e)
		}
	}
	return es, konst
}

// atTop reports whether the expressions can be evaluated at the
// function's top level before home: function arguments and values
// defined there before it.
func (c *contraction) atTop(es []sizeexpr.Expr, home *ir.Operation) bool {
	entry := c.fn.Regions[0].Blocks[0]
	for _, e := range es {
		for _, w := range e.Vars() {
			v := c.x.value(w)
			if v == nil {
				return false
			}
			if d := v.DefiningOp(); d != nil {
				if d.ParentBlock() != entry || entry.IndexOf(d) > entry.IndexOf(home) {
					return false
				}
			} else if v.OwnerBlock() != entry {
				return false
			}
		}
	}
	return true
}

// panelRef is where a tile reads its packed operands: panel idx of each
// packed load's buffer, the tile's first column at off in the panel, the
// outer reduction's block starting at kc, the inner reductions' lower
// bounds lbs[1:].
type panelRef struct {
	bufs         map[*ir.Operation]*ir.Value
	idx, off, kc sizeexpr.Expr
	lbs          []sizeexpr.Expr
}

// with is pk for another panel and column (pk may be nil).
func (pk *panelRef) with(idx, off sizeexpr.Expr) *panelRef {
	if pk == nil {
		return nil
	}
	q := *pk
	q.idx, q.off = idx, off
	return &q
}

// at returns the panel of a packed load and the subscripts of the lane in
// it at reduction position ks.
func (pk *panelRef) at(o *ir.Operation, ks []sizeexpr.Expr, lane int64) (*ir.Value, []sizeexpr.Expr, bool) {
	if pk == nil {
		return nil, nil, false
	}
	buf, ok := pk.bufs[o]
	if !ok {
		return nil, nil, false
	}
	subs := []sizeexpr.Expr{pk.idx, sizeexpr.Sub(ks[0], pk.kc)}
	for d := 1; d < len(ks); d++ {
		subs = append(subs, sizeexpr.Sub(ks[d], pk.lbs[d]))
	}
	return buf, append(subs, sizeexpr.Add(pk.off, sizeexpr.Const(lane))), true
}

// panel allocates the panel buffer of a packed load: [np][kc][T1]..[NR]
// (T the inner reductions' trip counts), at the function's top level,
// with the dimensions that are not constants computed there.
func (b *ctBuild) panel(ld *ir.Operation, np, nr int64) *ir.Value {
	n, c := b.n, b.c
	home := n.home(c.fn)
	_, mem, _, _ := affine.AccessParts(ld)
	elem := mem.Type.(ir.MemRefType).Elem
	shape := []int64{np}
	var dyn []*ir.Value
	for d := range n.reds {
		es, konst := c.tripExprs(n, d)
		if konst {
			t := int64(1 << 62)
			for _, e := range es {
				v, _ := e.Const()
				t = min(t, v)
			}
			if d == 0 {
				t = min(t, n.kc)
			}
			shape = append(shape, max(t, 1))
			continue
		}
		if !c.atTop(es, home) || d == 0 && len(n.reds) == 1 {
			if d == 0 {
				shape = append(shape, n.kc) // a whole block
				continue
			}
			b.ok = false
			return mem
		}
		if d == 0 {
			es = append(es, sizeexpr.Const(n.kc))
		}
		// max(min(es), 1): an empty reduction still has a panel row.
		var z *ir.Operation
		if len(es) == 1 {
			m, operands, ok := c.x.toMap([]sizeexpr.Expr{es[0], sizeexpr.Const(1)})
			if !ok {
				b.ok = false
				return mem
			}
			z = affine.NewMax(b.loc, m, operands)
		} else {
			m, operands, ok := c.x.toMap(es)
			if !ok {
				b.ok = false
				return mem
			}
			t := affine.NewMin(b.loc, m, operands)
			z = affine.NewMax(b.loc, affine.MapOf(1, 0, ir.MapDim(0), sizeexpr.Const(1)), []*ir.Value{t.Results[0]})
			b.top = append(b.top, t)
		}
		b.top = append(b.top, z)
		shape = append(shape, ir.Dynamic)
		dyn = append(dyn, z.Results[0])
	}
	shape = append(shape, nr)
	a := memref.NewAlloc(b.loc, ir.MemRefType{Shape: shape, Elem: elem}, dyn)
	a.Results[0].NameHint = "panel"
	b.top = append(b.top, a)
	b.deallocs = append(b.deallocs, memref.NewDealloc(b.loc, a.Results[0]))
	return a.Results[0]
}

// reductionLoops builds the reduced loops over the given bounds, one in
// the other, calls body with the innermost block and the induction
// variables, and returns the outermost loop.
func (b *ctBuild) reductionLoops(kLbs, kUbs [][]sizeexpr.Expr, body func(blk *ir.Block, ks []sizeexpr.Expr)) *ir.Operation {
	var ks []sizeexpr.Expr
	var blks []*ir.Block
	var outer *ir.Operation
	for d := range kLbs {
		l, lb, k := b.newLoop(kLbs[d], kUbs[d], 1, nil, b.n.kIVs[d].NameHint, false)
		if d == 0 {
			outer = l
		} else {
			blks[d-1].Append(l)
		}
		ks = append(ks, k)
		blks = append(blks, lb)
	}
	body(blks[len(blks)-1], ks)
	for d := len(blks) - 1; d >= 0; d-- {
		blks[d].Append(affine.NewYield(b.loc))
	}
	return outer
}

// transposeLoops builds the loops of a transposing copy: the reduced
// loops, the innermost cut into blocks of a cache line of elem, a loop
// over the columns [max(cLbs), min(cUbs)) in each block; body gets the
// innermost block, the column and the reduced loops' variables.
func (b *ctBuild) transposeLoops(kLbs, kUbs [][]sizeexpr.Expr, cLbs, cUbs []sizeexpr.Expr, elem ir.Type,
	body func(blk *ir.Block, c sizeexpr.Expr, ks []sizeexpr.Expr)) *ir.Operation {
	line := max(64*8/elemBits(elem), 1)
	d := len(kLbs) - 1
	var ks []sizeexpr.Expr
	var blks []*ir.Block
	var outer *ir.Operation
	nest := func(l *ir.Operation, blk *ir.Block) {
		if outer == nil {
			outer = l
		} else {
			blks[len(blks)-1].Append(l)
		}
		blks = append(blks, blk)
	}
	for i := 0; i < d; i++ {
		l, lb, k := b.newLoop(kLbs[i], kUbs[i], 1, nil, b.n.kIVs[i].NameHint, false)
		nest(l, lb)
		ks = append(ks, k)
	}
	hint := b.n.kIVs[d].NameHint
	kl, kb, kk := b.newLoop(kLbs[d], kUbs[d], line, nil, hint+"b", false)
	nest(kl, kb)
	cl, cb, c := b.newLoop(cLbs, cUbs, 1, nil, "c", false)
	nest(cl, cb)
	il, ib, k := b.newLoop([]sizeexpr.Expr{kk}, append([]sizeexpr.Expr{sizeexpr.Add(kk, sizeexpr.Const(line))}, kUbs[d]...), 1, nil, hint, false)
	nest(il, ib)
	body(ib, c, append(ks, k))
	for i := len(blks) - 1; i >= 0; i-- {
		blks[i].Append(affine.NewYield(b.loc))
	}
	return outer
}

// partialWidths are the tile widths (in vectors) that cover the fewer
// than nv vectors of the last panel: decreasing powers of two.
func partialWidths(nv int64) []int64 {
	var ws []int64
	w := int64(1)
	for w*2 < nv {
		w *= 2
	}
	for ; w >= 1 && w < nv; w /= 2 {
		ws = append(ws, w)
	}
	return ws
}

// blockedRegion appends the cache-blocked nest over rows [li, ui) and the
// columns [lj, jV) of full vectors:
//
//	C = init                                  (when the k blocks accumulate in C)
//	for jc (NC columns) { for kc (a block of the outer reduction) {
//	  pack the shared operands' block into panels
//	  for ic (MR rows) { MR x NV tiles on the full panels, MR x 2, MR x 1 on the last }
//	  for i (the last rows) { 1 x NV, 1 x 2, 1 x 1 } } }
//
// then the narrower vectors past jV, ending at ends. The last block
// stores the epilogue; the others their partial sums. colRem, rowRem and
// narrowRem say whether the vectors of the partial panel, the last rows
// and each narrower vector can be there.
func (b *ctBuild) blockedRegion(iF, jF, jV sizeexpr.Expr, ends []sizeexpr.Expr, colRem, rowRem bool, narrowRem []bool) {
	n, o := b.n, b.c.o
	vl, mr, nv := n.lanes, n.mr, n.nv
	nr := vl * nv
	add, sub, mul := sizeexpr.Add, sizeexpr.Sub, sizeexpr.Mul
	es := func(e ...sizeexpr.Expr) []sizeexpr.Expr { return e }
	nc := max(o.nBlock/nr, 1) * nr
	if t, ok := sub(n.uj, n.lj).Const(); ok && t < nc {
		nc = max((t+nr-1)/nr, 1) * nr
	}
	var packed []*ir.Operation
	if n.panels {
		for _, op := range n.ops {
			if k := n.kind[op]; (k == ctVecLoad || k == ctGather) && !n.rowDep[op.Results[0]] {
				packed = append(packed, op)
			}
		}
	}
	jE := jV // the end of the vectors
	if len(ends) > 0 {
		jE = ends[len(ends)-1]
	}
	// The blocks accumulate in C, the first starting from init; when the
	// outer reduction is empty and no block runs, C = the epilogue of init.
	if n.multi {
		il, ib, i := b.newLoop(es(n.li), es(n.ui), 1, nil, "i", b.rowParallel())
		initC := func(lbs, ubs []sizeexpr.Expr, lanes int64) {
			jl, jb, j := b.newLoop(lbs, ubs, lanes, nil, "j", false)
			x := &instCtx{blk: jb, i0: i, j0: j, nv: 1, lanes: lanes, memo: map[instKey]*ir.Value{}}
			v := b.inst(x, n.init, 0, 0)
			x.accOf, x.accs = n.sum, []*ir.Value{v}
			v = b.inst(x, n.value, 0, 0)
			jb.Append(b.access(b.at(n.storeSubs, i, j, nil), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorStore(b.loc, v, n.mem, m, ops)
			}))
			jb.Append(affine.NewYield(b.loc))
			ib.Append(jl)
		}
		initC(es(n.lj), es(jV), vl)
		start := jV
		for k, w := range n.narrow {
			if narrowRem[k] {
				initC(es(n.lj, start), es(ends[k]), w)
			}
			start = ends[k]
		}
		ib.Append(affine.NewYield(b.loc))
		// Empty: some lower bound at or above some upper bound; with one of
		// each, the then block of lb - ub >= 0, else the else block of
		// "every ub - lb - 1 >= 0".
		var nonEmpty []sizeexpr.Expr
		for _, ub := range n.kUbs[0] {
			for _, lb := range n.kLbs[0] {
				nonEmpty = append(nonEmpty, sub(sub(ub, lb), sizeexpr.Const(1)))
			}
		}
		single := len(nonEmpty) == 1
		if single {
			nonEmpty[0] = sub(n.kLbs[0][0], n.kUbs[0][0])
		}
		g, ok := newGuard(b.c.x, b.loc, nonEmpty, nil)
		if !ok {
			b.ok = false
			return
		}
		if single {
			affine.ThenBlock(g).Append(il)
		} else {
			g.Regions[1].AddBlock()
			affine.ElseBlock(g).Append(il)
			affine.ElseBlock(g).Append(affine.NewYield(b.loc))
		}
		affine.ThenBlock(g).Append(affine.NewYield(b.loc))
		b.out = append(b.out, g)
	}
	// The cache blocks: for %jc (left out when the columns fit in one
	// block) { for %kc (when the reduction is blocked, or starts at a max)
	// { ... } }. emit appends to the innermost of them.
	var nestOps []*ir.Operation
	emit := func(o *ir.Operation) { nestOps = append(nestOps, o) }
	var jcl, kcl *ir.Operation
	jc := n.lj
	if t, ok := sub(n.uj, n.lj).Const(); !ok || t > nc {
		var jcb *ir.Block
		jcl, jcb, jc = b.newLoop(es(n.lj), es(jE), nc, nil, "jc", false)
		emit = func(o *ir.Operation) { jcb.Append(o) }
	}
	kLbs := append([][]sizeexpr.Expr(nil), n.kLbs...)
	kUbs := append([][]sizeexpr.Expr(nil), n.kUbs...)
	var kcExpr sizeexpr.Expr
	var notFirst, notLast []sizeexpr.Expr
	if n.multi || len(n.kLbs[0]) != 1 {
		var kb *ir.Block
		kcl, kb, kcExpr = b.newLoop(n.kLbs[0], n.kUbs[0], n.kc, nil, "kc", false)
		emit = func(o *ir.Operation) { kb.Append(o) }
		kLbs[0] = es(kcExpr)
		kUbs[0] = append(es(add(kcExpr, sizeexpr.Const(n.kc))), n.kUbs[0]...)
		if n.multi {
			for _, ub := range n.kUbs[0] {
				notLast = append(notLast, sub(sub(ub, kcExpr), sizeexpr.Const(n.kc+1)))
			}
			for _, lb := range n.kLbs[0] {
				notFirst = append(notFirst, sub(sub(kcExpr, lb), sizeexpr.Const(n.kc)))
			}
		}
	} else {
		kcExpr = n.kLbs[0][0]
	}
	// The block's full panels: p < min(NC/NR, (jF - jc) / NR), at column
	// jc + p*NR (jF - jc is a multiple of NR); the vectors of the last
	// block past jF fill part of one more panel, pp = NC/NR (a constant:
	// its address costs the tiles nothing).
	pEnd := es(sizeexpr.Const(nc/nr), mustFloorDiv(sub(jF, jc), nr))
	pp := sizeexpr.Const(nc / nr)
	partEnd := es(add(jc, sizeexpr.Const(nc)), jE)
	pk := &panelRef{bufs: map[*ir.Operation]*ir.Value{}, kc: kcExpr, lbs: make([]sizeexpr.Expr, len(n.reds))}
	for d := 1; d < len(n.reds); d++ {
		pk.lbs[d] = n.kLbs[d][0]
	}
	for _, ld := range packed {
		np := nc / nr
		if colRem || slices.Contains(narrowRem, true) {
			np++ // the partial panel
		}
		buf := b.panel(ld, np, nr)
		pk.bufs[ld] = buf
		for _, op := range b.pack(ld, buf, pk, jc, jF, jV, pp, ends, pEnd, partEnd, kLbs, kUbs, colRem, narrowRem) {
			emit(op)
		}
	}
	if len(packed) == 0 {
		pk = nil
	}
	rows := []struct {
		lbs, ubs []sizeexpr.Expr
		mr       int64
	}{{es(n.li), es(iF), mr}}
	if rowRem {
		rows = append(rows, struct {
			lbs, ubs []sizeexpr.Expr
			mr       int64
		}{es(n.li, iF), es(n.ui), 1})
	}
	for _, rs := range rows {
		il, ib, i0 := b.newLoop(rs.lbs, rs.ubs, rs.mr, nil, "ic", b.rowParallel())
		pl, pb, p := b.newLoop(es(sizeexpr.Const(0)), pEnd, 1, nil, "p", false)
		b.kernel(pb, kernelArgs{i0: i0, j0: add(jc, mul(p, nr)), mr: rs.mr, nv: nv, lanes: vl, kLbs: kLbs, kUbs: kUbs,
			fromC: n.multi, pk: pk.with(p, sizeexpr.Const(0)), notFirst: notFirst, notLast: notLast})
		pb.Append(affine.NewYield(b.loc))
		ib.Append(pl)
		// The partial panel: MR x w tiles for w vectors, w decreasing powers
		// of two, then the narrower vectors.
		part := func(lb, ub sizeexpr.Expr, nv, lanes int64) {
			ql, qb, j := b.newLoop(es(lb), es(ub, partEnd[0]), nv*lanes, nil, "jr", false)
			b.kernel(qb, kernelArgs{i0: i0, j0: j, mr: rs.mr, nv: nv, lanes: lanes, kLbs: kLbs, kUbs: kUbs,
				fromC: n.multi, pk: pk.with(pp, sub(j, jF)), notFirst: notFirst, notLast: notLast})
			qb.Append(affine.NewYield(b.loc))
			ib.Append(ql)
		}
		if colRem {
			start := jF
			for _, w := range partialWidths(nv) {
				end := add(start, mul(b.floorDiv(sub(jV, start), w*vl), w*vl))
				part(start, end, w, vl)
				start = end
			}
		}
		start := jV
		for k, w := range n.narrow {
			if narrowRem[k] {
				part(start, ends[k], 1, w)
			}
			start = ends[k]
		}
		ib.Append(affine.NewYield(b.loc))
		emit(il)
	}
	// Close the block loops from the inside out.
	if kcl != nil {
		affine.ForBody(kcl).Append(affine.NewYield(b.loc))
		if jcl != nil {
			affine.ForBody(jcl).Append(kcl)
		} else {
			nestOps = append(nestOps, kcl)
		}
	}
	if jcl != nil {
		affine.ForBody(jcl).Append(affine.NewYield(b.loc))
		nestOps = append(nestOps, jcl)
	}
	b.out = append(b.out, nestOps...)
}

// pack builds the loops that copy a block of a packed operand into its
// panels. An operand contiguous along the columns is copied a vector at a
// time: the full panels, for each k, NV vectors; the last vectors into
// panel pp. A gathered one (B[%n, %k]) by transposed blocks
// (packTransposed) when it is contiguous along the innermost reduction,
// otherwise element by element, the reduced loops inside, each column c
// at panel (c - jc) / NR, lane (c - jc) mod NR.
func (b *ctBuild) pack(ld *ir.Operation, buf *ir.Value, pk *panelRef, jc, jF, jV, pp sizeexpr.Expr, ends, pEnd, partEnd []sizeexpr.Expr,
	kLbs, kUbs [][]sizeexpr.Expr, colRem bool, narrowRem []bool) []*ir.Operation {
	n := b.n
	vl, nv := n.lanes, n.nv
	nr := vl * nv
	add, sub, mul := sizeexpr.Add, sizeexpr.Sub, sizeexpr.Mul
	es := func(e ...sizeexpr.Expr) []sizeexpr.Expr { return e }
	_, mem, m, operands := affine.AccessParts(ld)
	subs, _ := b.c.x.apply(m, operands)
	elem := mem.Type.(ir.MemRefType).Elem
	slot := func(idx, lane sizeexpr.Expr, ks []sizeexpr.Expr) []sizeexpr.Expr {
		_, s, _ := pk.with(idx, lane).at(ld, ks, 0)
		return s
	}
	if n.kind[ld] == ctGather && b.c.transposable(n, subs) && len(kLbs[len(kLbs)-1]) == 1 {
		return b.packTransposed(ld, subs, buf, pk, jc, jF, jV, pp, pEnd, partEnd, kLbs, kUbs, colRem, narrowRem)
	}
	if n.kind[ld] == ctGather {
		// The innermost reduction in blocks of a cache line, the columns
		// inside them: for %p { for %kk step L { for %c < NR { for %k in
		// [%kk, %kk + L) { P[%p, %k - kc, %c] = B[jc + %p*NR + %c, %k] } } } },
		// then the same for the columns of the partial panel pp. A column's
		// line of B is read whole, and the L rows of panel written stay in
		// the cache across the columns (NR rows of B K elements apart would
		// share a few cache sets if read at one k).
		copyElem := func(blk *ir.Block, col, idx, lane sizeexpr.Expr, ks []sizeexpr.Expr) {
			s := blk.Append(b.access(b.at(subs, sizeexpr.Expr{}, col, ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewLoad(ld.Loc, mem, m, ops)
			})).Results[0]
			blk.Append(b.access(slot(idx, lane, ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewStore(b.loc, s, buf, m, ops)
			}))
		}
		pl, pb, p := b.newLoop(es(sizeexpr.Const(0)), pEnd, 1, nil, "p", false)
		pb.Append(b.transposeLoops(kLbs, kUbs, es(sizeexpr.Const(0)), es(sizeexpr.Const(nr)), elem, func(blk *ir.Block, c sizeexpr.Expr, ks []sizeexpr.Expr) {
			copyElem(blk, add(jc, add(mul(p, nr), c)), p, c, ks)
		}))
		pb.Append(affine.NewYield(b.loc))
		if !colRem && !slices.Contains(narrowRem, true) {
			return []*ir.Operation{pl}
		}
		ql := b.transposeLoops(kLbs, kUbs, es(jF), partEnd, elem, func(blk *ir.Block, c sizeexpr.Expr, ks []sizeexpr.Expr) {
			copyElem(blk, c, pp, sub(c, jF), ks)
		})
		return []*ir.Operation{pl, ql}
	}
	copyVec := func(blk *ir.Block, col, idx, lane sizeexpr.Expr, ks []sizeexpr.Expr, lanes int64) {
		v := blk.Append(b.access(b.at(subs, sizeexpr.Expr{}, col, ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			return affine.NewVectorLoad(ld.Loc, vt(elem, lanes), mem, m, ops)
		})).Results[0]
		blk.Append(b.access(slot(idx, lane, ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			return affine.NewVectorStore(b.loc, v, buf, m, ops)
		}))
	}
	// for %p in the block { for %k in the block { P[%p, %k - kc, l*VL] = B[%k, jc + %p*NR + l*VL] } }
	pl, pb, p := b.newLoop(es(sizeexpr.Const(0)), pEnd, 1, nil, "p", false)
	pb.Append(b.reductionLoops(kLbs, kUbs, func(blk *ir.Block, ks []sizeexpr.Expr) {
		for l := int64(0); l < nv; l++ {
			copyVec(blk, add(jc, add(mul(p, nr), sizeexpr.Const(l*vl))), p, sizeexpr.Const(l*vl), ks, vl)
		}
	}))
	pb.Append(affine.NewYield(b.loc))
	out := []*ir.Operation{pl}
	part := func(lb, ub sizeexpr.Expr, lanes int64) {
		ql, qb, j := b.newLoop(es(lb), es(ub, partEnd[0]), lanes, nil, "jr", false)
		qb.Append(b.reductionLoops(kLbs, kUbs, func(blk *ir.Block, ks []sizeexpr.Expr) {
			copyVec(blk, j, pp, sub(j, jF), ks, lanes)
		}))
		qb.Append(affine.NewYield(b.loc))
		out = append(out, ql)
	}
	if colRem && nv > 1 {
		part(jF, jV, vl)
	}
	start := jV
	for k, w := range n.narrow {
		if narrowRem[k] {
			part(start, ends[k], w)
		}
		start = ends[k]
	}
	return out
}

// transposable reports whether a gathered operand read at subs can be
// packed by transposing blocks of VL x VL elements in registers: it is
// contiguous along the innermost reduction (W[%n, %k]: a vector load
// reads VL values of k for one column), and VL is a power of two of at
// most 16 (log2(VL) rounds of VL shuffles; 16 rows and their shuffles
// fit AVX-512's 32 registers).
func (c *contraction) transposable(n *cnest, subs []sizeexpr.Expr) bool {
	vl := n.lanes
	return vl >= 2 && vl <= 16 && vl&(vl-1) == 0 && c.contiguousIn(subs, n.kIVs[len(n.kIVs)-1])
}

// packTransposed copies a block of a gathered operand contiguous along
// the innermost reduction (W[%n, %k]) into its panels VL columns at a
// time: VL vector loads along k, one per column, make a VL x VL block
// that transposeBlock turns into VL vectors along the columns, each
// stored whole into a panel row:
//
//	for %p { for %cb = 0 to NR step VL { for the outer reductions {
//	  for %kv step VL { rows[i] = B[jc + %p*NR + %cb + i, %kv : %kv + VL]
//	                    P[%p, %kv + t - kc, %cb : %cb + VL] = transposed[t] }
//	  the last k, fewer than VL: element by element } } }
//
// then the same for the full vectors of the partial panel pp, and the
// columns past them (fewer than VL) element by element. A column block
// reads its VL rows from one end of the k block to the other, each cache
// line whole in consecutive blocks (the NR rows of a panel read at one k
// would share a few cache sets); the panel rows it writes stay in the
// cache for the next column block. The innermost reduction has one lower
// bound (lb) in the blocked form: the block's start, or the loop's own.
func (b *ctBuild) packTransposed(ld *ir.Operation, subs []sizeexpr.Expr, buf *ir.Value, pk *panelRef, jc, jF, jV, pp sizeexpr.Expr,
	pEnd, partEnd []sizeexpr.Expr, kLbs, kUbs [][]sizeexpr.Expr, colRem bool, narrowRem []bool) []*ir.Operation {
	n := b.n
	vl, nr := n.lanes, n.lanes*n.nv
	add, sub, mul := sizeexpr.Add, sizeexpr.Sub, sizeexpr.Mul
	es := func(e ...sizeexpr.Expr) []sizeexpr.Expr { return e }
	_, mem, _, _ := affine.AccessParts(ld)
	elem := mem.Type.(ir.MemRefType).Elem
	d := len(kLbs) - 1
	lb := kLbs[d][0]
	hint := n.kIVs[d].NameHint
	slot := func(idx, lane sizeexpr.Expr, ks []sizeexpr.Expr) []sizeexpr.Expr {
		_, s, _ := pk.with(idx, lane).at(ld, ks, 0)
		return s
	}
	load := func(blk *ir.Block, col sizeexpr.Expr, ks []sizeexpr.Expr, t ir.Type) *ir.Value {
		return blk.Append(b.access(b.at(subs, sizeexpr.Expr{}, col, ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			if vt, ok := t.(ir.VectorType); ok {
				return affine.NewVectorLoad(ld.Loc, vt, mem, m, ops)
			}
			return affine.NewLoad(ld.Loc, mem, m, ops)
		})).Results[0]
	}
	store := func(blk *ir.Block, v *ir.Value, idx, lane sizeexpr.Expr, ks []sizeexpr.Expr) {
		blk.Append(b.access(slot(idx, lane, ks), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			if _, ok := v.Type.(ir.VectorType); ok {
				return affine.NewVectorStore(b.loc, v, buf, m, ops)
			}
			return affine.NewStore(b.loc, v, buf, m, ops)
		}))
	}
	// columns copies the VL columns from col0 into panel idx from lane
	// off, appending the loops to blk.
	columns := func(blk *ir.Block, col0, idx, off sizeexpr.Expr) {
		var ks []sizeexpr.Expr
		var blks []*ir.Block
		inner := blk
		for i := 0; i < d; i++ {
			l, body, k := b.newLoop(kLbs[i], kUbs[i], 1, nil, n.kIVs[i].NameHint, false)
			inner.Append(l)
			blks = append(blks, body)
			inner = body
			ks = append(ks, k)
		}
		// The full blocks: %kv + VL <= every upper bound.
		var vUbs []sizeexpr.Expr
		for _, u := range kUbs[d] {
			vUbs = append(vUbs, sub(u, sizeexpr.Const(vl-1)))
		}
		vlp, vb, kv := b.newLoop(es(lb), vUbs, vl, nil, hint+"v", false)
		inner.Append(vlp)
		kks := append(ks[:d:d], kv)
		rows := make([]*ir.Value, vl)
		for i := range rows {
			rows[i] = load(vb, add(col0, sizeexpr.Const(int64(i))), kks, vt(elem, vl))
		}
		for t, v := range transposeBlock(vb, ld.Loc, rows) {
			store(vb, v, idx, off, append(ks[:d:d], add(kv, sizeexpr.Const(int64(t)))))
		}
		vb.Append(affine.NewYield(b.loc))
		// The last values of k, from lb + VL*floor((u - lb) / VL) for
		// each upper bound u: the smallest of these starts is where the
		// blocks end, and a later start only copies some elements again
		// (a copy is idempotent). A start at u itself copies nothing.
		for _, u := range kUbs[d] {
			start := add(lb, mul(b.floorDiv(sub(u, lb), vl), vl))
			lbs := es(lb, start) // start < lb when u < lb
			if c, ok := sub(u, lb).Const(); ok {
				if c <= 0 || c%vl == 0 {
					continue
				}
				lbs = es(start)
			}
			tl, tb, k := b.newLoop(lbs, kUbs[d], 1, nil, hint, false)
			cl, cb, c := b.newLoop(es(sizeexpr.Const(0)), es(sizeexpr.Const(vl)), 1, nil, "c", false)
			kk := append(ks[:d:d], k)
			store(cb, load(cb, add(col0, c), kk, elem), idx, add(off, c), kk)
			cb.Append(affine.NewYield(b.loc))
			tb.Append(cl)
			tb.Append(affine.NewYield(b.loc))
			inner.Append(tl)
		}
		for i := len(blks) - 1; i >= 0; i-- {
			blks[i].Append(affine.NewYield(b.loc))
		}
	}
	pl, pb, p := b.newLoop(es(sizeexpr.Const(0)), pEnd, 1, nil, "p", false)
	cl, cb, c := b.newLoop(es(sizeexpr.Const(0)), es(sizeexpr.Const(nr)), vl, nil, "cb", false)
	columns(cb, add(jc, add(mul(p, nr), c)), p, c)
	cb.Append(affine.NewYield(b.loc))
	pb.Append(cl)
	pb.Append(affine.NewYield(b.loc))
	out := []*ir.Operation{pl}
	// The partial panel: its full vectors [jF, jV) by blocks, the
	// columns past them element by element.
	if colRem {
		ql, qb, q := b.newLoop(es(jF), es(jV, partEnd[0]), vl, nil, "cb", false)
		columns(qb, q, pp, sub(q, jF))
		qb.Append(affine.NewYield(b.loc))
		out = append(out, ql)
	}
	if slices.Contains(narrowRem, true) {
		out = append(out, b.transposeLoops(kLbs, kUbs, es(jV), partEnd, elem, func(blk *ir.Block, c sizeexpr.Expr, ks []sizeexpr.Expr) {
			store(blk, load(blk, c, ks, elem), pp, sub(c, jF), ks)
		}))
	}
	return out
}

func (b *ctBuild) mod(e sizeexpr.Expr, d int64) sizeexpr.Expr {
	q, err := sizeexpr.Mod(e, d)
	if err != nil {
		b.ok = false
	}
	return q
}

// inParallelOp reports whether op is nested in a parallel op other than a
// marked affine.for (affine.parallel, scf.parallel), whose parallelism
// cannot be given up for a shared panel buffer.
func inParallelOp(op, fn *ir.Operation) bool {
	for p := op.ParentOp(); p != nil && p != fn; p = p.ParentOp() {
		if p.Is(affine.Parallel, scf.Parallel) {
			return true
		}
	}
	return false
}
