package affinepasses

import (
	"math"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/dialects/vector"
)

// The construction of affine-contraction-tile's loops (contraction.go
// describes the result). Everything is built detached and inserted at the
// end, so that a nest whose pieces cannot all be written (an expression
// that is not affine) is left as it was.

// ctBuild is the state of one rewrite.
type ctBuild struct {
	c    *contraction
	n    *cnest
	loc  ir.Location
	pre  []*ir.Operation         // made before the nest: splats, broadcasts of outside values
	vecs map[*ir.Value]*ir.Value // vectors standing for constants and values from outside
	out  []*ir.Operation         // the new nests, in order, inserted before the original
	ok   bool
}

// packing is where a main-region tile reads its packed operands:
// P[p][k - kc][0 : NR] for the tile's panel p of the cache block starting
// at k = kc.
type packing struct {
	bufs  map[*ir.Operation]*ir.Value // the panel buffer of each packed load
	p, kc sizeexpr.Expr
}

func (c *contraction) rewrite(n *cnest) bool {
	b := &ctBuild{c: c, n: n, loc: n.top.Loc, vecs: map[*ir.Value]*ir.Value{}, ok: true}
	vl, mr, nv := n.lanes, n.mr, n.nv
	nr := vl * nv
	fd := func(e sizeexpr.Expr, d int64) sizeexpr.Expr {
		q, err := sizeexpr.FloorDiv(e, d)
		if err != nil {
			b.ok = false
		}
		return q
	}
	add, sub, mul := sizeexpr.Add, sizeexpr.Sub, sizeexpr.Mul
	one := func(e sizeexpr.Expr) []sizeexpr.Expr { return []sizeexpr.Expr{e} }
	two := func(a, e sizeexpr.Expr) []sizeexpr.Expr { return []sizeexpr.Expr{a, e} }
	// jF ends the full NR-wide tiles, jV the full vectors; iF the full
	// MR-row tiles. Pieces starting at max(lo, xF) are empty when the
	// loop itself is.
	jF := add(n.lj, mul(fd(sub(n.uj, n.lj), nr), nr))
	jV := add(n.lj, mul(fd(sub(n.uj, n.lj), vl), vl)) // NR is a multiple of VL
	var iF sizeexpr.Expr
	if n.row != nil {
		iF = add(n.li, mul(fd(sub(n.ui, n.li), mr), mr))
	}
	if !b.ok {
		return false
	}
	b.prepare()
	// What the constant extents make empty.
	colRem, scalarRem, rowRem := true, true, n.row != nil
	if t, ok := sub(n.uj, n.lj).Const(); ok {
		colRem, scalarRem = t%nr >= vl, t%vl != 0
	}
	if n.row != nil {
		if t, ok := sub(n.ui, n.li).Const(); ok {
			rowRem = t%mr != 0
		}
	}

	var mainLbs, mainUbs, remLbs, remUbs []sizeexpr.Expr // rows
	if n.row != nil {
		mainLbs, mainUbs = one(n.li), one(iF)
		remLbs, remUbs = two(n.li, iF), one(n.ui)
	}
	tailLbs, tailUbs := two(n.lj, jF), one(jV) // columns
	var allocs []*ir.Operation
	if n.row != nil && b.c.o.kBlock > 0 {
		allocs = b.mainRegion(iF, jF)
	} else {
		b.tiles(mainLbs, mainUbs, mr, one(n.lj), one(jF), nv)
	}
	if colRem {
		b.tiles(mainLbs, mainUbs, mr, tailLbs, tailUbs, 1)
	}
	if rowRem {
		b.tiles(remLbs, remUbs, 1, one(n.lj), one(jF), nv)
		if colRem {
			b.tiles(remLbs, remUbs, 1, tailLbs, tailUbs, 1)
		}
	}
	if !b.ok {
		return false
	}
	// The last columns that do not fill a vector stay in the original
	// loops, which now start at jV.
	var colLB ir.AffineMap
	var colLBOps []*ir.Value
	if scalarRem {
		var ok bool
		colLB, colLBOps, ok = c.x.toMap(two(n.lj, jV))
		if !ok {
			return false
		}
	}
	if len(allocs) > 0 {
		// The panels are shared by whatever loops hold the nest: those
		// marked parallel lose the mark (threads would write the panels
		// at the same time; the row tiles inside stay parallel).
		for p := n.top.ParentOp(); p != nil && p != c.fn; p = p.ParentOp() {
			if p.Name == "affine.for" && affine.IsParallel(p) {
				p.Attrs = p.Attrs.Without(affine.ParallelAttr)
				c.rw.Modified(p)
			}
		}
		// At the function's top level, around the nest holding this one.
		home := n.top
		for home.ParentOp() != nil && home.ParentOp() != c.fn {
			home = home.ParentOp()
		}
		blk := home.ParentBlock()
		next := blk.Ops[blk.IndexOf(home)+1]
		for _, a := range allocs {
			c.rw.InsertBefore(home, a)
			c.rw.InsertBefore(next, memref.NewDealloc(b.loc, a.Results[0]))
		}
	}
	for _, o := range b.pre {
		c.rw.InsertBefore(n.top, o)
	}
	for _, o := range b.out {
		c.rw.InsertBefore(n.top, o)
	}
	if !scalarRem {
		c.rw.EraseOp(n.top)
		return true
	}
	_, _, ub, ubOps, _ := affine.ForBounds(n.col)
	n.col.Operands = append(append(colLBOps, ubOps...), iterInits(n.col)...)
	n.col.SetAttr("lower_bound", ir.AffineMapAttr{Map: colLB})
	n.col.SetAttr("upper_bound", ir.AffineMapAttr{Map: ub})
	c.rw.Modified(n.col)
	return true
}

// prepare makes the vectors of the body's constants, of the values it
// uses from outside the nest, and of the initial value.
func (b *ctBuild) prepare() {
	n := b.n
	splat := func(x *ir.Value) *ir.Value {
		if v, ok := b.vecs[x]; ok {
			return v
		}
		var op *ir.Operation
		if isSplatConstant(x) && finiteConstant(x) {
			c := x.DefiningOp()
			t := ir.VectorType{Shape: []int64{n.lanes}, Elem: x.Type}
			op = arith.NewConstant(c.Loc, ir.DenseElementsAttr{Type: t, Values: []ir.Attribute{c.Attr("value")}}, t)
		} else {
			op = vector.NewBroadcast(b.loc, x, n.lanes)
		}
		b.pre = append(b.pre, op)
		b.vecs[x] = op.Results[0]
		return op.Results[0]
	}
	splat(n.init)
	for _, o := range n.ops {
		switch n.kind[o] {
		case ctConst:
			splat(o.Results[0])
		case ctElementwise:
			for _, x := range o.Operands {
				if x != n.acc && !definedInside(x, n.red) && !ir.TypeEqual(x.Type, ir.I1) {
					splat(x)
				}
			}
		}
	}
}

// finiteConstant reports whether a constant is an integer or a finite
// float: a dense splat of an infinity or a NaN prints as a hex literal
// (dense<0xFF800000>) that the IR parser does not read back, so those are
// broadcast instead.
func finiteConstant(x *ir.Value) bool {
	f, ok := x.DefiningOp().Attr("value").(ir.FloatAttr)
	return !ok || !(math.IsInf(f.Value, 0) || math.IsNaN(f.Value))
}

// newLoop builds a detached affine.for over [max(lbs), min(ubs)) and
// returns it with its body and its induction variable as an expression.
func (b *ctBuild) newLoop(lbs, ubs []sizeexpr.Expr, step int64, inits []*ir.Value, hint string, parallel bool) (*ir.Operation, *ir.Block, sizeexpr.Expr) {
	loop, ok := newFor(b.c.x, b.loc, foldBounds(lbs, true), foldBounds(ubs, false), step, inits)
	if !ok {
		b.ok = false
		loop = affine.NewConstantFor(b.loc, 0, 0, 1) // a placeholder, discarded
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

// at substitutes the row, column and k positions into subscripts.
func (b *ctBuild) at(subs []sizeexpr.Expr, i, j, k sizeexpr.Expr) []sizeexpr.Expr {
	n := b.n
	out := make([]sizeexpr.Expr, len(subs))
	for d, e := range subs {
		out[d] = b.c.x.renameValues(e, func(v *ir.Value) (sizeexpr.Expr, bool) {
			switch {
			case v == n.iIV && n.iIV != nil:
				return i, true
			case v == n.jIV:
				return j, true
			case v == n.kIV:
				return k, true
			}
			return sizeexpr.Expr{}, false
		})
	}
	return out
}

func (b *ctBuild) vt(t ir.Type) ir.VectorType {
	return ir.VectorType{Shape: []int64{b.n.lanes}, Elem: t}
}

func (b *ctBuild) rowParallel() bool { return b.n.row != nil && affine.IsParallel(b.n.row) }

// tiles appends the nest of mr x nv tiles over rows [max(rowLbs),
// min(rowUbs)) (no row loop when rowLbs is nil) and columns [max(colLbs),
// min(colUbs)), each tile reducing over the whole reduced loop from the
// initial value.
func (b *ctBuild) tiles(rowLbs, rowUbs []sizeexpr.Expr, mr int64, colLbs, colUbs []sizeexpr.Expr, nv int64) {
	n := b.n
	var outer *ir.Operation
	var blk *ir.Block
	var i0 sizeexpr.Expr
	if rowLbs != nil {
		outer, blk, i0 = b.newLoop(rowLbs, rowUbs, mr, nil, "ic", b.rowParallel())
	}
	jl, jb, j0 := b.newLoop(colLbs, colUbs, n.lanes*nv, nil, "jr", outer == nil && affine.IsParallel(n.col))
	b.kernel(jb, i0, j0, mr, nv, n.kLbs, n.kUbs, false, nil)
	jb.Append(affine.NewYield(b.loc))
	if outer == nil {
		b.out = append(b.out, jl)
		return
	}
	blk.Append(jl)
	blk.Append(affine.NewYield(b.loc))
	b.out = append(b.out, outer)
}

// mainRegion appends the cache-blocked nest of MR x NV tiles over rows
// [li, iF) and columns [lj, jF) (the full tiles), with the initialization of C when the
// reduced loop is cut into several blocks and the packing of the operands
// that do not depend on the row. It returns the panel buffers to allocate.
func (b *ctBuild) mainRegion(iF, jF sizeexpr.Expr) []*ir.Operation {
	n, o := b.n, b.c.o
	vl, mr, nv := n.lanes, n.mr, n.nv
	nr := vl * nv
	kc := o.kBlock
	if n.kTrip >= 0 && n.kTrip < kc {
		kc = max(n.kTrip, 1)
	}
	blocked := n.kTrip < 0 || n.kTrip > kc
	nc := max(o.nBlock/nr, 1) * nr
	if t, ok := sizeexpr.Sub(n.uj, n.lj).Const(); ok && t < nc {
		nc = max((t+nr-1)/nr, 1) * nr
	}
	// Operands to pack: contiguous along n, the same for every row. One
	// block at a time needs its first k as a single expression.
	var packed []*ir.Operation
	if o.pack && (blocked || len(n.kLbs) == 1) && !inParallelOp(n.top, b.c.fn) {
		for _, op := range n.ops {
			if n.kind[op] == ctVecLoad && !n.rowDep[op.Results[0]] {
				packed = append(packed, op)
			}
		}
	}
	// C = init on the tiles when the blocks accumulate in it.
	if blocked {
		il, ib, i := b.newLoop([]sizeexpr.Expr{n.li}, []sizeexpr.Expr{iF}, 1, nil, "i", b.rowParallel())
		jl, jb, j := b.newLoop([]sizeexpr.Expr{n.lj}, []sizeexpr.Expr{jF}, vl, nil, "j", false)
		jb.Append(b.access(b.at(n.storeSubs, i, j, sizeexpr.Expr{}), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
			return affine.NewVectorStore(b.loc, b.vecs[n.init], n.mem, m, ops)
		}))
		jb.Append(affine.NewYield(b.loc))
		ib.Append(jl)
		ib.Append(affine.NewYield(b.loc))
		b.out = append(b.out, il)
	}
	// The cache blocks: for %jc (left out when the columns fit in one
	// block) { for %kc (when the reduction is blocked) { ... } }. emit
	// appends to the innermost of them.
	var nestOps []*ir.Operation
	emit := func(o *ir.Operation) { nestOps = append(nestOps, o) }
	var jcl, kcl *ir.Operation
	jc := n.lj
	if t, ok := sizeexpr.Sub(n.uj, n.lj).Const(); !ok || t > nc {
		var jcb *ir.Block
		jcl, jcb, jc = b.newLoop([]sizeexpr.Expr{n.lj}, []sizeexpr.Expr{jF}, nc, nil, "jc", false)
		emit = func(o *ir.Operation) { jcb.Append(o) }
	}
	kcExpr := sizeexpr.Expr{}
	kLbs, kUbs := n.kLbs, n.kUbs
	if blocked {
		var kb *ir.Block
		kcl, kb, kcExpr = b.newLoop(n.kLbs, n.kUbs, kc, nil, "kc", false)
		emit = func(o *ir.Operation) { kb.Append(o) }
		kLbs = []sizeexpr.Expr{kcExpr}
		kUbs = append([]sizeexpr.Expr{sizeexpr.Add(kcExpr, sizeexpr.Const(kc))}, n.kUbs...)
	} else if len(packed) > 0 {
		kcExpr = n.kLbs[0]
	}
	// The block's panels: p < min(NC/NR, (jF - jc) / NR), at column
	// jc + p*NR (jF - jc is a multiple of NR).
	pEnd := []sizeexpr.Expr{sizeexpr.Const(nc / nr), mustFloorDiv(sizeexpr.Sub(jF, jc), nr)}
	var allocs []*ir.Operation
	pk := &packing{bufs: map[*ir.Operation]*ir.Value{}, kc: kcExpr}
	for _, ld := range packed {
		_, mem, m, operands := affine.AccessParts(ld)
		subs, _ := b.c.x.apply(m, operands)
		elem := mem.Type.(ir.MemRefType).Elem
		a := memref.NewAlloc(b.loc, ir.MemRefType{Shape: []int64{nc / nr, kc, nr}, Elem: elem}, nil)
		a.Results[0].NameHint = "panel"
		allocs = append(allocs, a)
		buf := a.Results[0]
		pk.bufs[ld] = buf
		// for %p in the block { for %k in the block { P[%p, %k - kc] = B[%k, jc + %p*NR] } }
		pl, pb, p := b.newLoop([]sizeexpr.Expr{sizeexpr.Const(0)}, pEnd, 1, nil, "p", false)
		jr := sizeexpr.Add(jc, sizeexpr.Mul(p, nr))
		kl, kb, k := b.newLoop(kLbs, kUbs, 1, nil, "k", false)
		for l := int64(0); l < nv; l++ {
			col := sizeexpr.Add(jr, sizeexpr.Const(l*vl))
			v := kb.Append(b.access(b.at(subs, sizeexpr.Expr{}, col, k), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorLoad(b.loc, b.vt(elem), mem, m, ops)
			})).Results[0]
			dst := []sizeexpr.Expr{p, sizeexpr.Sub(k, kcExpr), sizeexpr.Const(l * vl)}
			kb.Append(b.access(dst, func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorStore(b.loc, v, buf, m, ops)
			}))
		}
		kb.Append(affine.NewYield(b.loc))
		pb.Append(kl)
		pb.Append(affine.NewYield(b.loc))
		emit(pl)
	}
	il, ib, i0 := b.newLoop([]sizeexpr.Expr{n.li}, []sizeexpr.Expr{iF}, mr, nil, "ic", b.rowParallel())
	jl, jb, p := b.newLoop([]sizeexpr.Expr{sizeexpr.Const(0)}, pEnd, 1, nil, "p", false)
	j0 := sizeexpr.Add(jc, sizeexpr.Mul(p, nr))
	pk.p = p
	if len(packed) == 0 {
		pk = nil
	}
	b.kernel(jb, i0, j0, mr, nv, kLbs, kUbs, blocked, pk)
	jb.Append(affine.NewYield(b.loc))
	ib.Append(jl)
	ib.Append(affine.NewYield(b.loc))
	emit(il)
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
	return allocs
}

// inParallelOp reports whether op is nested in a parallel op other than a
// marked affine.for (affine.parallel, scf.parallel), whose parallelism
// cannot be given up for a shared panel buffer.
func inParallelOp(op, fn *ir.Operation) bool {
	for p := op.ParentOp(); p != nil && p != fn; p = p.ParentOp() {
		if p.Name == "affine.parallel" || p.Name == "scf.parallel" {
			return true
		}
	}
	return false
}

func mustFloorDiv(e sizeexpr.Expr, d int64) sizeexpr.Expr {
	q, err := sizeexpr.FloorDiv(e, d)
	if err != nil {
		panic(err) // d > 0: FloorDiv fails only on a non-positive divisor
	}
	return q
}

// kernel appends to blk one mr x nv tile at row i0 and column j0: the
// accumulators (loaded from C when fromC, else the initial value), the
// reduced loop over [max(kLbs), min(kUbs)) with the body instantiated for
// every row and vector, and the stores to C.
func (b *ctBuild) kernel(blk *ir.Block, i0, j0 sizeexpr.Expr, mr, nv int64, kLbs, kUbs []sizeexpr.Expr, fromC bool, pk *packing) {
	n := b.n
	vl := n.lanes
	row := func(r int64) sizeexpr.Expr { return sizeexpr.Add(i0, sizeexpr.Const(r)) }
	colOf := func(l int64) sizeexpr.Expr { return sizeexpr.Add(j0, sizeexpr.Const(l*vl)) }
	cAt := func(r, l int64) []sizeexpr.Expr { return b.at(n.storeSubs, row(r), colOf(l), sizeexpr.Expr{}) }
	var inits []*ir.Value
	for r := int64(0); r < mr; r++ {
		for l := int64(0); l < nv; l++ {
			if !fromC {
				inits = append(inits, b.vecs[n.init])
				continue
			}
			ld := blk.Append(b.access(cAt(r, l), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorLoad(b.loc, b.vt(n.elem), n.mem, m, ops)
			}))
			inits = append(inits, ld.Results[0])
		}
	}
	kl, kb, k := b.newLoop(kLbs, kUbs, 1, inits, "k", false)
	iters := affine.IterArgs(kl)
	for _, a := range iters {
		a.NameHint = "acc"
	}
	type key struct {
		v    *ir.Value
		r, l int64
	}
	memo := map[key]*ir.Value{}
	var inst func(v *ir.Value, r, l int64) *ir.Value
	inst = func(v *ir.Value, r, l int64) *ir.Value {
		if v == n.acc {
			return iters[r*nv+l]
		}
		if x, ok := b.vecs[v]; ok {
			return x
		}
		if !definedInside(v, n.red) {
			return v // a scalar i1 select condition from outside
		}
		if !n.rowDep[v] {
			r = 0
		}
		if !n.vecDep[v] {
			l = 0
		}
		if x, ok := memo[key{v, r, l}]; ok {
			return x
		}
		o := v.DefiningOp()
		var res *ir.Value
		switch n.kind[o] {
		case ctVecLoad:
			_, mem, m, operands := affine.AccessParts(o)
			if buf, ok := pk.buf(o); ok {
				dst := []sizeexpr.Expr{pk.p, sizeexpr.Sub(k, pk.kc), sizeexpr.Const(l * vl)}
				res = kb.Append(b.access(dst, func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
					return affine.NewVectorLoad(o.Loc, b.vt(v.Type), buf, m, ops)
				})).Results[0]
				break
			}
			subs, _ := b.c.x.apply(m, operands)
			res = kb.Append(b.access(b.at(subs, row(r), colOf(l), k), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorLoad(o.Loc, b.vt(v.Type), mem, m, ops)
			})).Results[0]
		case ctBroadcast:
			_, mem, m, operands := affine.AccessParts(o)
			subs, _ := b.c.x.apply(m, operands)
			s := kb.Append(b.access(b.at(subs, row(r), j0, k), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewLoad(o.Loc, mem, m, ops)
			})).Results[0]
			s.NameHint = v.NameHint
			res = kb.Append(vector.NewBroadcast(o.Loc, s, vl)).Results[0]
		default: // ctElementwise
			args := make([]*ir.Value, len(o.Operands))
			for i, x := range o.Operands {
				args[i] = inst(x, r, l)
			}
			e := ir.NewOp(o.Name, o.Loc, args, []ir.Type{b.vt(v.Type)}, append(ir.DictAttr(nil), o.Attrs...))
			res = kb.Append(e).Results[0]
		}
		res.NameHint = v.NameHint
		memo[key{v, r, l}] = res
		return res
	}
	var next []*ir.Value
	for r := int64(0); r < mr; r++ {
		for l := int64(0); l < nv; l++ {
			next = append(next, inst(n.result, r, l))
		}
	}
	kb.Append(affine.NewYield(b.loc, next...))
	blk.Append(kl)
	for r := int64(0); r < mr; r++ {
		for l := int64(0); l < nv; l++ {
			acc := kl.Results[r*nv+l]
			blk.Append(b.access(cAt(r, l), func(m ir.AffineMap, ops []*ir.Value) *ir.Operation {
				return affine.NewVectorStore(b.loc, acc, n.mem, m, ops)
			}))
		}
	}
}

// buf returns the panel of a packed load (pk may be nil).
func (pk *packing) buf(o *ir.Operation) (*ir.Value, bool) {
	if pk == nil {
		return nil, false
	}
	v, ok := pk.bufs[o]
	return v, ok
}
