package affinepasses

import (
	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/vector"
)

// Exact vectorization of reductions across the loop around them
// (affine-vectorize{outer=true}, the default).
//
// A float sum along its own loop cannot be vectorized without changing
// its order, which changes its rounding. But when the reduction loop sits
// in a loop P whose iterations are independent (a row sum s(n) += x(n, d)
// inside the loop over n), N iterations of P can run at once, one per
// lane: every op of P's body becomes the same op on vectors whose lane k
// belongs to iteration n + k, including the reduction loops, whose vector
// accumulators then hold N sums each added in the scalar order. Lane k
// performs exactly the scalar operations of its iteration, in the same
// order, so results are those of the scalar code bit for bit, whatever
// the accumulators compute (sums, products, masked updates, recurrences).
//
// P qualifies (step 1, no iter_args) when every op of its body is
//
//   - uniform: it reads no memory P writes, writes none and uses only
//     values that are the same for every iteration (defined outside P, or
//     by other uniform ops): it runs once per group of N iterations, on
//     scalars, and is broadcast where a vector needs it. Constants, size
//     computations, even a loop (a size reduction) that does not involve
//     P's induction variable %n;
//   - a load whose last subscript is %n + c, the others free of %n
//     (contiguous: one vector load; a column sum x(d, n)), or whose
//     subscripts before the last involve %n (rows: N scalar loads gathered
//     into a vector);
//   - a store of the contiguous form (one vector store);
//   - an elementwise op (arith, math), on vectors;
//   - a reduction loop R (innermost, step 1, iter_args, bounds that are
//     the same for every iteration of P) whose body holds uniform ops (in
//     R's induction variable %d too: w(d)), loads and elementwise ops.
//
// In R, a load of rows whose last subscript is %d + c (lane k reads row
// n + k along %d) is the common case, x(n, d) in row-major storage: R runs
// in chunks of N iterations, each loading N consecutive elements of N
// rows, an N x N block that log2(N) rounds of N vector.shuffle ops
// transpose (llc selects 24 shuffles for an 8 x 8 block of f32 with AVX);
// column j of the block feeds copy j of R's body. The last iterations
// (fewer than N) gather their N elements one by one. The iterations of P
// left over after the full groups of N run the original loop.
//
// Legality: every op now runs for N iterations of P before the next op
// runs, so a write of P's body must touch nothing that another iteration
// touches (dependence.go: independent, or a known distance 0 along %n;
// the order within one iteration is kept).

// laneAccess is how a load or store of P's body gives its lanes.
type laneAccess int

const (
	laneUniform    laneAccess = iota // no subscript involves %n
	laneContiguous                   // last subscript %n + c, the others free of %n
	laneRows                         // %n in a subscript before the last
)

// outerPlan is what planOuter found legal, before anything is built.
type outerPlan struct {
	p       *ir.Operation
	n       *ir.Value
	uniform map[*ir.Value]bool           // values the same for every lane
	scalar  map[*ir.Operation]bool       // the ops that compute them, run once
	access  map[*ir.Operation]laneAccess // loads and stores that are not uniform
	along   map[*ir.Operation]bool       // loads of rows along a reduction's induction variable
	dead    map[*ir.Operation]bool       // ops whose results nothing needs, left out
	// unroll is, per reduction loop, the copies of its body per chunk: N
	// when it loads rows along its induction variable, 1 otherwise.
	unroll map[*ir.Operation]int64
}

// across vectorizes the loop p as described above; false when it does
// not apply (nothing changed).
func (v *vectorizer) across(p *ir.Operation) bool {
	pl, ok := v.planOuter(p)
	if !ok {
		return false
	}
	return v.buildOuter(pl)
}

// planOuter checks p and classifies its body.
func (v *vectorizer) planOuter(p *ir.Operation) (*outerPlan, bool) {
	if !p.Is(affine.For) || loopStep(p) != 1 || len(p.Results) != 0 {
		return nil, false
	}
	pl := &outerPlan{p: p, n: affine.InductionVar(p), uniform: map[*ir.Value]bool{}, scalar: map[*ir.Operation]bool{},
		access: map[*ir.Operation]laneAccess{}, along: map[*ir.Operation]bool{}, unroll: map[*ir.Operation]int64{},
		dead: deadOps(p)}
	reductions := 0
	for _, o := range bodyOps(p) {
		switch {
		case pl.dead[o]:
		case pl.markUniform(o):
		case o.Is(affine.For):
			if !v.planReduction(pl, o) {
				return nil, false
			}
			reductions++
		case !v.planLaneOp(pl, o, nil):
			return nil, false
		}
	}
	if reductions == 0 || !v.outerLegal(pl) {
		return nil, false
	}
	return pl, true
}

// isUniform tells a value that is the same for every lane: defined
// outside P, or by a uniform op.
func (pl *outerPlan) isUniform(x *ir.Value) bool {
	return pl.uniform[x] || (x != pl.n && !ir.DefinedInside(x, pl.p))
}

// uniformOp reports whether o (with its regions) can run once for all
// lanes: it only reads memory and computes, from uniform values.
func (pl *outerPlan) uniformOp(o *ir.Operation) bool {
	ok := true
	o.Walk(func(w *ir.Operation) bool {
		switch {
		case w.HasTrait(ir.TraitPure), w.Is(affine.Load, affine.Yield):
		case w.Is(affine.For, affine.If):
		default:
			ok = false
		}
		for _, x := range w.Operands {
			if !ir.DefinedInside(x, o) && !pl.isUniform(x) {
				ok = false
			}
		}
		return ok
	})
	return ok
}

// deadOps are the ops of loop's body that nothing needs: no effect on
// memory, no result used by the terminator or by an op that is needed.
func deadOps(loop *ir.Operation) map[*ir.Operation]bool {
	dead := map[*ir.Operation]bool{}
	live := map[*ir.Value]bool{}
	mark := func(o *ir.Operation) {
		o.Walk(func(w *ir.Operation) bool {
			for _, x := range w.Operands {
				live[x] = true
			}
			return true
		})
	}
	mark(affine.ForBody(loop).Terminator())
	ops := bodyOps(loop)
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		needed := false
		o.Walk(func(w *ir.Operation) bool {
			switch {
			case w.HasTrait(ir.TraitPure), w.Is(affine.Load, affine.Yield, affine.For, affine.If):
			default:
				needed = true
			}
			return !needed
		})
		for _, r := range o.Results {
			needed = needed || live[r]
		}
		if needed {
			mark(o)
		} else {
			dead[o] = true
		}
	}
	return dead
}

// markUniform records o and its results as uniform when it is.
func (pl *outerPlan) markUniform(o *ir.Operation) bool {
	if !pl.uniformOp(o) {
		return false
	}
	pl.scalar[o] = true
	for _, r := range o.Results {
		pl.uniform[r] = true
	}
	return true
}

// planReduction checks a reduction loop r of P's body and its body.
func (v *vectorizer) planReduction(pl *outerPlan, r *ir.Operation) bool {
	if !isInnermost(r) || loopStep(r) != 1 || len(r.Results) == 0 {
		return false
	}
	_, lbOps, _, ubOps, _ := affine.ForBounds(r)
	for _, x := range append(append([]*ir.Value(nil), lbOps...), ubOps...) {
		if !pl.isUniform(x) {
			return false
		}
	}
	for _, init := range iterInits(r) {
		if !vectorElem(init.Type, false) || !v.laneOperand(pl, init) {
			return false
		}
	}
	d := affine.InductionVar(r)
	pl.uniform[d] = true
	pl.unroll[r] = 1
	for o := range deadOps(r) {
		pl.dead[o] = true
	}
	for _, o := range bodyOps(r) {
		if pl.dead[o] || pl.markUniform(o) {
			continue
		}
		if !v.planLaneOp(pl, o, r) {
			return false
		}
		if pl.access[o] == laneRows && v.rowsAlong(pl, o, d) {
			pl.along[o] = true
			pl.unroll[r] = v.width
		}
	}
	for _, y := range affine.ForBody(r).Terminator().Operands {
		if !v.laneOperand(pl, y) {
			return false
		}
	}
	if pl.unroll[r] > 1 && v.width&(v.width-1) != 0 {
		pl.unroll[r] = 1 // the transposition pairs rows by powers of two
	}
	return true
}

// laneOperand reports whether x can be had as a vector.
func (v *vectorizer) laneOperand(pl *outerPlan, x *ir.Value) bool {
	return x != pl.n && vectorElem(x.Type, false)
}

// planLaneOp classifies an op that runs per lane (r: the reduction loop
// whose body holds it, or nil).
func (v *vectorizer) planLaneOp(pl *outerPlan, o *ir.Operation, r *ir.Operation) bool {
	switch o.Def {
	case affine.Apply:
		return true // feeds subscripts, which are recomputed
	case affine.Load, affine.Store:
		k, ok := v.laneKind(pl, o)
		if !ok || (o.Is(affine.Store) && (r != nil || k != laneContiguous)) {
			return false
		}
		if val, _, _, _ := affine.AccessParts(o); val != nil && !v.laneOperand(pl, val) {
			return false
		}
		pl.access[o] = k
		return true
	}
	if !elementwiseOps[o.Def] || len(o.Results) != 1 || !vectorElem(o.Results[0].Type, false) {
		return false
	}
	for j, x := range o.Operands {
		if o.Is(arith.Select) && j == 0 && pl.isUniform(x) {
			continue // stays scalar
		}
		if !v.laneOperand(pl, x) {
			return false
		}
	}
	return true
}

// laneKind classifies the subscripts of a load or store that involve %n.
func (v *vectorizer) laneKind(pl *outerPlan, o *ir.Operation) (laneAccess, bool) {
	_, mem, m, operands := affine.AccessParts(o)
	mt, ok := mem.Type.(ir.MemRefType)
	if !ok || !vectorElem(mt.Elem, true) || ir.DefinedInside(mem, pl.p) ||
		(mt.Layout != nil && (len(mt.Layout.Strides) == 0 || mt.Layout.Strides[len(mt.Layout.Strides)-1] != 1)) {
		return 0, false
	}
	subs, ok := v.x.apply(m, operands)
	if !ok || len(subs) == 0 {
		return 0, false
	}
	nv := v.x.varOf(pl.n)
	for _, e := range subs {
		for _, w := range e.Vars() {
			if val := v.x.value(w); val == nil || (val != pl.n && !pl.isUniform(val)) {
				return 0, false
			}
		}
	}
	last := len(subs) - 1
	for _, e := range subs[:last] {
		if usesVar(e, nv) {
			return laneRows, !usesVar(subs[last], nv)
		}
	}
	switch {
	case !usesVar(subs[last], nv):
		return laneUniform, true
	case !usesVar(sizeexpr.Sub(subs[last], nv.Expr()), nv):
		return laneContiguous, true
	}
	return 0, false
}

// rowsAlong reports whether a load of rows reads consecutive elements
// along d: last subscript d + c, no other involving d, and nothing else
// from the reduction's body (the blocks are loaded before its copies).
func (v *vectorizer) rowsAlong(pl *outerPlan, o *ir.Operation, d *ir.Value) bool {
	_, _, m, operands := affine.AccessParts(o)
	subs, _ := v.x.apply(m, operands)
	dv := v.x.varOf(d)
	last := len(subs) - 1
	for _, e := range subs {
		for _, w := range e.Vars() {
			if val := v.x.value(w); val != d && ir.DefinedInside(val, d.OwnerBlock().ParentOp()) {
				return false
			}
		}
	}
	for _, e := range subs[:last] {
		if usesVar(e, dv) {
			return false
		}
	}
	return usesVar(subs[last], dv) && !usesVar(sizeexpr.Sub(subs[last], dv.Expr()), dv)
}

func usesVar(e sizeexpr.Expr, w sizeexpr.Var) bool {
	for _, u := range e.Vars() {
		if u == w {
			return true
		}
	}
	return false
}

// outerLegal checks that no write of P's body touches what another
// iteration of P touches.
func (v *vectorizer) outerLegal(pl *outerPlan) bool {
	all, unknown := effects(v.x, pl.p)
	if unknown {
		return false
	}
	side := depSide{ivs: []*ir.Value{pl.n}, scope: pl.p}
	for _, pr := range conflicts(all, all, true) {
		indep, d := distance(v.x, pr[0], pr[1], side, side)
		if !indep && (!d[0].known || d[0].d != 0) {
			return false
		}
	}
	return true
}

// outerBuilder holds the values of one group of lanes while it is built.
type outerBuilder struct {
	v      *vectorizer
	pl     *outerPlan
	n0     *ir.Value // the group's first iteration
	before []*ir.Operation
	// scalar maps uniform values to their copies; lanes maps values to
	// their vectors; bcast caches broadcasts of uniform values.
	scalar, lanes, bcast map[*ir.Value]*ir.Value
}

func (b *outerBuilder) vt(elem ir.Type) ir.VectorType {
	return ir.VectorType{Shape: []int64{b.v.width}, Elem: elem}
}

// scalarOf is the copy of a uniform value.
func (b *outerBuilder) scalarOf(x *ir.Value) *ir.Value {
	if s, ok := b.scalar[x]; ok {
		return s
	}
	return x
}

// vec is the vector of x in block blk (where a broadcast of a uniform
// value defined inside P goes; those from outside go before the loop).
func (b *outerBuilder) vec(x *ir.Value, blk *ir.Block) *ir.Value {
	if r, ok := b.lanes[x]; ok {
		return r
	}
	s := b.scalarOf(x)
	if r, ok := b.bcast[s]; ok {
		return r
	}
	var r *ir.Value
	switch {
	case !ir.DefinedInside(x, b.pl.p) && isSplatConstant(x):
		r = vectorConstant(x.DefiningOp().Loc, x.DefiningOp().Attr(arith.AttrValue), b.vt(x.Type), func(o *ir.Operation) { b.before = append(b.before, o) })
	case !ir.DefinedInside(x, b.pl.p):
		o := vector.NewBroadcast(b.pl.p.Loc, x, b.v.width)
		b.before = append(b.before, o)
		r = o.Results[0]
	default:
		r = blk.Append(vector.NewBroadcast(b.pl.p.Loc, s, b.v.width)).Results[0]
	}
	b.bcast[s] = r
	return r
}

// subs remaps the subscripts of a load or store: %n to n, uniform values
// to their copies (smap), and returns the map and operands.
func (b *outerBuilder) subs(o *ir.Operation, n sizeexpr.Expr, smap map[*ir.Value]*ir.Value) (ir.AffineMap, []*ir.Value, bool) {
	x := b.v.x
	_, _, m, operands := affine.AccessParts(o)
	es, _ := x.apply(m, operands)
	for i, e := range es {
		es[i] = x.renameValues(e, func(val *ir.Value) (sizeexpr.Expr, bool) {
			if val == b.pl.n {
				return n, true
			}
			if s, ok := smap[val]; ok {
				return x.of(s), true
			}
			return sizeexpr.Expr{}, false
		})
	}
	return x.toMap(es)
}

// laneOp builds the vector form of a lane op in blk, with smap the
// uniform copies in scope and get the vectors of operands.
func (b *outerBuilder) laneOp(blk *ir.Block, o *ir.Operation, smap map[*ir.Value]*ir.Value, get func(*ir.Value) *ir.Value) (*ir.Value, bool) {
	w := b.v.width
	n0 := b.v.x.varOf(b.n0).Expr()
	switch o.Def {
	case affine.Apply:
		return nil, true
	case affine.Load:
		_, mem, _, _ := affine.AccessParts(o)
		if b.pl.access[o] == laneUniform {
			m, ops, ok := b.subs(o, n0, smap)
			if !ok {
				return nil, false
			}
			s := blk.Append(affine.NewLoad(o.Loc, mem, m, ops)).Results[0]
			return blk.Append(vector.NewBroadcast(o.Loc, s, w)).Results[0], true
		}
		if b.pl.access[o] == laneRows {
			// Gathered: one scalar load per lane, each lane inserted.
			var acc *ir.Value
			for k := int64(0); k < w; k++ {
				m, ops, ok := b.subs(o, sizeexpr.Add(n0, sizeexpr.Const(k)), smap)
				if !ok {
					return nil, false
				}
				s := blk.Append(affine.NewLoad(o.Loc, mem, m, ops)).Results[0]
				one := blk.Append(vector.NewBroadcast(o.Loc, s, w)).Results[0]
				if acc == nil {
					acc = one
					continue
				}
				mask := make([]int64, w)
				for j := range mask {
					mask[j] = int64(j)
				}
				mask[k] = w + k
				acc = blk.Append(vector.NewShuffle(o.Loc, acc, one, mask)).Results[0]
			}
			acc.NameHint = o.Results[0].NameHint
			return acc, true
		}
		m, ops, ok := b.subs(o, n0, smap)
		if !ok {
			return nil, false
		}
		r := blk.Append(affine.NewVectorLoad(o.Loc, b.vt(o.Results[0].Type), mem, m, ops)).Results[0]
		r.NameHint = o.Results[0].NameHint
		return r, true
	case affine.Store:
		val, mem, _, _ := affine.AccessParts(o)
		m, ops, ok := b.subs(o, n0, smap)
		if !ok {
			return nil, false
		}
		blk.Append(affine.NewVectorStore(o.Loc, get(val), mem, m, ops))
		return nil, true
	}
	args := make([]*ir.Value, len(o.Operands))
	for j, a := range o.Operands {
		if o.Is(arith.Select) && j == 0 && b.pl.isUniform(a) {
			if s, ok := smap[a]; ok {
				a = s
			}
			args[j] = a
			continue
		}
		args[j] = get(a)
	}
	n := ir.NewOp(o.Name, o.Loc, args, []ir.Type{b.vt(o.Results[0].Type)}, append(ir.DictAttr(nil), o.Attrs...))
	n.Results[0].NameHint = o.Results[0].NameHint
	return blk.Append(n).Results[0], true
}

// buildOuter rewrites the nest of a plan.
func (v *vectorizer) buildOuter(pl *outerPlan) bool {
	x, w, loc := v.x, v.width, pl.p.Loc
	plbs, pubs, _ := loopBounds(x, pl.p)
	psplit, ok := splitChunks(x, pl.p, w)
	if !ok {
		return false
	}
	splits := map[*ir.Operation]chunkSplit{}
	for r, u := range pl.unroll {
		_, rubs, _ := loopBounds(x, r)
		s := chunkSplit{mainUB: rubs}
		if u > 1 {
			if s, ok = splitChunks(x, r, u); !ok {
				return false
			}
		}
		splits[r] = s
	}
	outer, ok := newFor(x, loc, plbs, psplit.mainUB, w, nil)
	if !ok {
		return false
	}
	if affine.IsParallel(pl.p) {
		outer.SetAttr(affine.ParallelAttr, ir.UnitAttr{})
	}
	b := &outerBuilder{v: v, pl: pl, n0: affine.InductionVar(outer), scalar: map[*ir.Value]*ir.Value{},
		lanes: map[*ir.Value]*ir.Value{}, bcast: map[*ir.Value]*ir.Value{}}
	b.n0.NameHint = pl.n.NameHint
	ob := affine.ForBody(outer)
	get := func(x *ir.Value) *ir.Value { return b.vec(x, ob) }
	for _, o := range bodyOps(pl.p) {
		switch {
		case pl.dead[o]:
		case pl.scalar[o]:
			ob.Append(o.Clone(b.scalar))
		case pl.unroll[o] > 0:
			res, ok := b.reduction(ob, o, splits[o])
			if !ok {
				return false
			}
			for i, r := range o.Results {
				b.lanes[r] = res[i]
			}
		default:
			r, ok := b.laneOp(ob, o, b.scalar, get)
			if !ok {
				return false
			}
			if r != nil {
				b.lanes[o.Results[0]] = r
			}
		}
	}
	ob.Append(affine.NewYield(loc))
	for _, o := range b.before {
		v.rw.InsertBefore(pl.p, o)
	}
	v.rw.InsertBefore(pl.p, outer)
	if psplit.remLB == nil {
		v.rw.EraseOp(pl.p)
		return true
	}
	setBounds(x, v.rw, pl.p, psplit.remLB, pubs, nil)
	return true
}

// reduction builds the vector loops of a reduction loop r in blk: the
// chunks (unrolled, rows transposed), then the remainder (rows gathered).
// It returns the final accumulators.
func (b *outerBuilder) reduction(blk *ir.Block, r *ir.Operation, split chunkSplit) ([]*ir.Value, bool) {
	x, w := b.v.x, b.v.width
	u := b.pl.unroll[r]
	d := affine.InductionVar(r)
	lbs, ubs, _ := loopBounds(x, r)
	rename := func(es []sizeexpr.Expr) []sizeexpr.Expr {
		out := make([]sizeexpr.Expr, len(es))
		for i, e := range es {
			out[i] = x.renameValues(e, func(val *ir.Value) (sizeexpr.Expr, bool) {
				if s, ok := b.scalar[val]; ok {
					return x.of(s), true
				}
				return sizeexpr.Expr{}, false
			})
		}
		return out
	}
	var inits []*ir.Value
	for _, init := range iterInits(r) {
		inits = append(inits, b.vec(init, blk))
	}
	// The vectors of the values from outside r that its body uses, made
	// before the loops.
	for _, o := range append(bodyOps(r), affine.ForBody(r).Terminator()) {
		if b.pl.scalar[o] || b.pl.dead[o] {
			continue
		}
		for j, y := range o.Operands {
			if (o.Is(arith.Select) && j == 0) || !b.pl.isUniform(y) || ir.DefinedInside(y, r) || !vectorElem(y.Type, false) {
				continue
			}
			b.vec(y, blk)
		}
	}
	// body emits one copy of r's body for iteration dv (an index value),
	// reading the transposed columns cols, and returns the next
	// accumulators.
	body := func(to *ir.Block, dv *ir.Value, accs []*ir.Value, cols map[*ir.Operation]*ir.Value) ([]*ir.Value, bool) {
		smap := map[*ir.Value]*ir.Value{}
		for k, s := range b.scalar {
			smap[k] = s
		}
		smap[d] = dv
		vals := map[*ir.Value]*ir.Value{}
		for i, a := range affine.IterArgs(r) {
			vals[a] = accs[i]
		}
		bc := map[*ir.Value]*ir.Value{}
		get := func(y *ir.Value) *ir.Value {
			if z, ok := vals[y]; ok {
				return z
			}
			if s, ok := smap[y]; ok && ir.DefinedInside(y, r) {
				if z, ok := bc[s]; ok {
					return z
				}
				z := to.Append(vector.NewBroadcast(r.Loc, s, w)).Results[0]
				bc[s] = z
				return z
			}
			return b.vec(y, blk)
		}
		for _, o := range bodyOps(r) {
			if b.pl.dead[o] {
				continue
			}
			if c, ok := cols[o]; ok {
				vals[o.Results[0]] = c
				continue
			}
			if b.pl.scalar[o] {
				to.Append(o.Clone(smap))
				continue
			}
			z, ok := b.laneOp(to, o, smap, get)
			if !ok {
				return nil, false
			}
			if z != nil {
				vals[o.Results[0]] = z
			}
		}
		var next []*ir.Value
		for _, y := range affine.ForBody(r).Terminator().Operands {
			next = append(next, get(y))
		}
		return next, true
	}
	main, ok := newFor(x, r.Loc, rename(lbs), rename(split.mainUB), u, inits)
	if !ok {
		return nil, false
	}
	blk.Append(main)
	d0 := affine.InductionVar(main)
	d0.NameHint = d.NameHint
	mb := affine.ForBody(main)
	for j, a := range affine.IterArgs(r) {
		affine.IterArgs(main)[j].NameHint = a.NameHint
	}
	// The blocks of rows, transposed: copy j reads column j.
	cols := make([]map[*ir.Operation]*ir.Value, u)
	for j := range cols {
		cols[j] = map[*ir.Operation]*ir.Value{}
	}
	if u > 1 {
		n0 := x.varOf(b.n0).Expr()
		smap := map[*ir.Value]*ir.Value{}
		for k, s := range b.scalar {
			smap[k] = s
		}
		smap[d] = d0
		for _, o := range bodyOps(r) {
			if !b.pl.along[o] || b.pl.dead[o] {
				continue
			}
			_, mem, _, _ := affine.AccessParts(o)
			rows := make([]*ir.Value, w)
			for k := int64(0); k < w; k++ {
				m, ops, ok := b.subs(o, sizeexpr.Add(n0, sizeexpr.Const(k)), smap)
				if !ok {
					return nil, false
				}
				rows[k] = mb.Append(affine.NewVectorLoad(o.Loc, b.vt(o.Results[0].Type), mem, m, ops)).Results[0]
			}
			for j, c := range transposeBlock(mb, o.Loc, rows) {
				cols[j][o] = c
			}
		}
	}
	accs := affine.IterArgs(main)
	for j := int64(0); j < u; j++ {
		dj := d0
		if j > 0 {
			dj = mb.Append(affine.NewApply(r.Loc, affine.MapOf(1, 0, sizeexpr.Add(ir.MapDim(0), sizeexpr.Const(j))), []*ir.Value{d0})).Results[0]
		}
		if accs, ok = body(mb, dj, accs, cols[j]); !ok {
			return nil, false
		}
	}
	mb.Append(affine.NewYield(r.Loc, accs...))
	for i := len(mb.Ops) - 1; i >= 0; i-- {
		if o := mb.Ops[i]; o.Is(affine.Apply) && !usedIn(mb, o.Results[0]) {
			o.Erase()
		}
	}
	if u == 1 || split.remLB == nil {
		return main.Results, true
	}
	rem, ok := newFor(x, r.Loc, rename(split.remLB), rename(ubs), 1, main.Results)
	if !ok {
		return nil, false
	}
	blk.Append(rem)
	affine.InductionVar(rem).NameHint = d.NameHint
	rb := affine.ForBody(rem)
	for j, a := range affine.IterArgs(r) {
		affine.IterArgs(rem)[j].NameHint = a.NameHint
	}
	next, ok := body(rb, affine.InductionVar(rem), affine.IterArgs(rem), nil)
	if !ok {
		return nil, false
	}
	rb.Append(affine.NewYield(r.Loc, next...))
	return rem.Results, true
}

// transposeBlock returns the columns of the square block whose rows are
// rows (N vectors of N lanes, N a power of two): lane k of column j is
// lane j of row k. affine-contraction-tile packs transposed operands with
// it too (packTransposed). Round g (1, 2, 4, ...) swaps the off-diagonal g x g
// blocks of every 2g x 2g block: rows i and i + g become the even
// g-lane groups of both, interleaved, and the odd ones.
func transposeBlock(b *ir.Block, loc ir.Location, rows []*ir.Value) []*ir.Value {
	n := int64(len(rows))
	cur := append([]*ir.Value(nil), rows...)
	for g := int64(1); g < n; g *= 2 {
		lo, hi := make([]int64, n), make([]int64, n)
		for m := int64(0); m < n; m++ {
			if (m/g)%2 == 0 {
				lo[m], hi[m] = m, m+g
			} else {
				lo[m], hi[m] = n+m-g, n+m
			}
		}
		next := make([]*ir.Value, n)
		for i := int64(0); i < n; i++ {
			if (i/g)%2 != 0 {
				continue
			}
			next[i] = b.Append(vector.NewShuffle(loc, cur[i], cur[i+g], lo)).Results[0]
			next[i+g] = b.Append(vector.NewShuffle(loc, cur[i], cur[i+g], hi)).Results[0]
		}
		cur = next
	}
	return cur
}
