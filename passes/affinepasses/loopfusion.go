package affinepasses

import (
	"fmt"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/passes"
)

// affine-loop-fusion: producer-consumer fusion of sibling loop nests. When
// a loop nest P writes a memref that a later nest C of the same block
// reads, and the outer loops of both run over the same domain (equal
// bounds and steps, level by level, no iter_args), the body of C at the
// deepest such level is moved to the end of P's body at that level: each
// point is consumed right after it is produced, while it is still in
// cache, and affine-scalar-replace can then forward it and drop the
// buffer.
//
// Legality, checked on the IR:
//
//   - C moves up past the ops between P and C: those must not conflict
//     with C's memory accesses (or have unknown effects); the ones that
//     define values C uses must be pure or allocations (the lowering
//     allocates a nest's output right before it), and move above P;
//   - in the fused nest, C's iteration y runs after P's iterations up to y
//     and before P's later ones. Every pair of accesses of P and C (one a
//     write, memrefs that may alias) must therefore have a dependence
//     distance (C's iteration - P's iteration) along the fused loops that
//     is lexicographically non-negative, known component by component up
//     to the first positive one. A consumer reading what the producer
//     writes at a later point (a shifted read, tmp[%i + 1]) is refused at
//     that depth; a shallower depth is tried before giving up.
//
// With max-shift=N > 0, outer loops that the rule above refuses can still
// be fused when the consumer lags at most N iterations behind (shiftFuse):
// a stencil reading a temporary at %i + 1, or domains that differ by
// constants; the bodies are then guarded by affine.if on their own
// domains, outside the innermost loops. It is off by default: on the
// kernels of test/bench it keeps the temporaries' rows in cache but does
// not make the code faster (the temporaries are still written in full).
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-loop-fusion",
		Title:   "AffineLoopFusion",
		Summary: "Fuse a loop nest reading a memref into the sibling nest that writes it, over the same domain, when no dependence is reversed",
		Anchor:  passes.AnchorFunc,
		Options: []passes.OptionSpec{
			{Name: "max-shift", Type: passes.OptInt, Default: 0,
				Help: "also fuse outer loops whose consumer must lag up to this many iterations behind the producer (guarded bodies); 0: same domain only"},
		},
		Check: func(o passes.Options) error {
			if o.Int("max-shift") < 0 {
				return fmt.Errorf("max-shift must not be negative")
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			maxShift := int64(o.Int("max-shift"))
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				x := newValueExprs()
				f := &fuser{x: x, rw: &ir.Rewriter{Root: fn}, maxShift: maxShift}
				blocks := nestedBlocks(fn)
				for _, b := range blocks {
					for f.once(b) {
					}
				}
				return nil
			})
		},
	})
}

// fuser is one run of the pass on a function.
type fuser struct {
	x        *valueExprs
	rw       *ir.Rewriter
	maxShift int64
}

// once performs the first legal fusion of a producer nest of b with a
// later consumer nest; it reports whether it found one.
func (f *fuser) once(b *ir.Block) bool {
	x := f.x
	ops := append([]*ir.Operation(nil), b.Ops...)
	for i, p := range ops {
		if !p.Is(affine.For) {
			continue
		}
		for j := i + 1; j < len(ops); j++ {
			c := ops[j]
			if c.Is(affine.For) && feeds(x, p, c) && f.fuse(ops[i+1:j], p, c) {
				return true
			}
		}
	}
	return false
}

// feeds reports whether p writes a memref that c reads.
func feeds(x *valueExprs, p, c *ir.Operation) bool {
	pa, _ := effects(x, p)
	ca, _ := effects(x, c)
	for _, w := range pa {
		for _, r := range ca {
			if w.write && !r.write && w.mem == r.mem {
				return true
			}
		}
	}
	return false
}

// fuse moves c's body into p at the deepest legal level; between are the
// ops of the block between p and c.
func (f *fuser) fuse(between []*ir.Operation, p, c *ir.Operation) bool {
	x, rw := f.x, f.rw
	hoist, ok := movableUp(x, between, c)
	if !ok {
		return false
	}
	pAcc, unkP := effects(x, p)
	cAcc, unkC := effects(x, c)
	if unkP || unkC {
		return false
	}
	pl, cl := matchingLoops(x, p, c)
	for depth := len(pl); depth >= 1; depth-- {
		if !fusionLegal(x, pAcc, cAcc, p, c, pl[:depth], cl[:depth]) {
			continue
		}
		hoistAbove(rw, hoist, p)
		pBody := affine.ForBody(pl[depth-1])
		yield := pBody.Terminator()
		for _, o := range bodyOps(cl[depth-1]) {
			o.Erase()
			rw.InsertBefore(yield, o)
		}
		for l := 0; l < depth; l++ {
			ir.ReplaceAllUsesWith(p, affine.InductionVar(cl[l]), affine.InductionVar(pl[l]))
		}
		rw.EraseOp(c)
		return true
	}
	return f.shiftFuse(pAcc, cAcc, p, c, hoist)
}

// hoistAbove moves ops (in order) before p.
func hoistAbove(rw *ir.Rewriter, ops []*ir.Operation, p *ir.Operation) {
	for _, o := range ops {
		o.Erase()
		rw.InsertBefore(p, o)
	}
}

// shiftFuse fuses the outer loops of p and c when their domains differ by
// constants, or the consumer reads what later producer iterations write
// (a stencil reading a temporary at %i + 1): the consumer's iteration y
// runs in iteration t = y + s of the fused loop, after the producer's t,
// with s the smallest shift that keeps every dependence distance d (c's
// iteration - p's) satisfied, d + s >= 0 (equality is fine: the producer's
// body comes first). Each body is guarded by its own domain where it
// differs from the fused one. Both loops need step 1 and single bounds,
// and must hold inner loops: the guards stay out of innermost loops.
func (f *fuser) shiftFuse(pAcc, cAcc []access, p, c *ir.Operation, hoist []*ir.Operation) bool {
	x, rw := f.x, f.rw
	if f.maxShift == 0 {
		return false
	}
	if len(p.Results) != 0 || len(c.Results) != 0 || loopStep(p) != 1 || loopStep(c) != 1 {
		return false
	}
	if isInnermost(p) || isInnermost(c) {
		return false // guards belong outside the innermost loops
	}
	plb, pub, ok1 := loopBounds(x, p)
	clb, cub, ok2 := loopBounds(x, c)
	if !ok1 || !ok2 || len(plb) != 1 || len(pub) != 1 || len(clb) != 1 || len(cub) != 1 {
		return false
	}
	dl, ok1 := sizeexpr.Sub(clb[0], plb[0]).Const()
	du, ok2 := sizeexpr.Sub(cub[0], pub[0]).Const()
	if !ok1 || !ok2 {
		return false
	}
	ivP, ivC := affine.InductionVar(p), affine.InductionVar(c)
	sa, sb := depSide{ivs: []*ir.Value{ivP}, scope: p}, depSide{ivs: []*ir.Value{ivC}, scope: c}
	shift := int64(0)
	for _, pr := range conflicts(pAcc, cAcc, false) {
		indep, d := distance(x, pr[0], pr[1], sa, sb)
		if indep {
			continue
		}
		if !d[0].known {
			return false
		}
		shift = max(shift, -d[0].d)
	}
	if shift > f.maxShift || (shift == 0 && dl == 0 && du == 0) {
		return false // too far apart, or plain fusion already refused it
	}
	lo, hi := min(0, dl+shift), max(0, du+shift)
	fl, ok := newFor(x, p.Loc, []sizeexpr.Expr{sizeexpr.Add(plb[0], sizeexpr.Const(lo))},
		[]sizeexpr.Expr{sizeexpr.Add(pub[0], sizeexpr.Const(hi))}, 1, nil)
	if !ok {
		return false
	}
	t := affine.InductionVar(fl)
	t.NameHint = ivP.NameHint
	tE := x.varOf(t).Expr()
	body := affine.ForBody(fl)
	// part moves the ops of from's body to the end of the fused body, in
	// an affine.if on lb <= iv < ub (iv the body's own iteration) when
	// [lb, ub) is not the fused domain; first come the ops of prefix.
	part := func(from *ir.Operation, iv, lb, ub sizeexpr.Expr, guard bool, prefix ...*ir.Operation) bool {
		to := body
		if guard {
			g, ok := newGuard(x, p.Loc, []sizeexpr.Expr{sizeexpr.Sub(iv, lb), sizeexpr.Sub(sizeexpr.Sub(ub, iv), sizeexpr.Const(1))}, nil)
			if !ok {
				return false
			}
			body.Append(g)
			to = affine.ThenBlock(g)
			defer to.Append(affine.NewYield(p.Loc))
		}
		for _, o := range prefix {
			to.Append(o)
		}
		for _, o := range bodyOps(from) {
			o.Erase()
			to.Append(o)
		}
		return true
	}
	// The guards only use values defined before p (once hoist is): nothing
	// is moved when one cannot be built.
	if _, ok := newGuard(x, p.Loc, []sizeexpr.Expr{tE, plb[0], pub[0], clb[0], cub[0]}, nil); !ok {
		return false
	}
	hoistAbove(rw, hoist, p)
	part(p, tE, plb[0], pub[0], lo != 0 || hi != 0)
	civ := t
	var prefix []*ir.Operation
	if shift != 0 {
		apply := affine.NewApply(c.Loc, affine.MapOf(1, 0, sizeexpr.Sub(ir.MapDim(0), sizeexpr.Const(shift))), []*ir.Value{t})
		apply.Results[0].NameHint = ivC.NameHint
		prefix = append(prefix, apply)
		civ = apply.Results[0]
	}
	part(c, sizeexpr.Sub(tE, sizeexpr.Const(shift)), clb[0], cub[0], dl+shift != lo || du+shift != hi, prefix...)
	body.Append(affine.NewYield(p.Loc))
	rw.InsertBefore(p, fl)
	ir.ReplaceAllUsesWith(fl, ivP, t)
	ir.ReplaceAllUsesWith(fl, ivC, civ)
	rw.EraseOp(p)
	rw.EraseOp(c)
	return true
}

// matchingLoops returns the loops of p and c, outermost first, that run
// over the same iterations (c's bounds read with c's induction variables
// replaced by p's), as long as both nests are perfect.
func matchingLoops(x *valueExprs, p, c *ir.Operation) (pl, cl []*ir.Operation) {
	ren := map[*ir.Value]*ir.Value{}
	for {
		if len(p.Results) != 0 || len(c.Results) != 0 || loopStep(p) != loopStep(c) {
			return
		}
		plb, pub, ok1 := loopBounds(x, p)
		clb, cub, ok2 := loopBounds(x, c)
		if !ok1 || !ok2 {
			return
		}
		rename := func(v *ir.Value) (e sizeexpr.Expr, ok bool) {
			if r, found := ren[v]; found {
				return x.varOf(r).Expr(), true
			}
			return e, false
		}
		for i := range clb {
			clb[i] = x.renameValues(clb[i], rename)
		}
		for i := range cub {
			cub[i] = x.renameValues(cub[i], rename)
		}
		if !exprsEqual(plb, clb) || !exprsEqual(pub, cub) {
			return
		}
		pl, cl = append(pl, p), append(cl, c)
		ren[affine.InductionVar(c)] = affine.InductionVar(p)
		po, co := bodyOps(p), bodyOps(c)
		if len(po) != 1 || len(co) != 1 || !po[0].Is(affine.For) || !co[0].Is(affine.For) {
			return
		}
		p, c = po[0], co[0]
	}
}

// movableUp reports whether c may run before the ops between. The ops
// between that define values c uses must be pure or allocations (the
// lowering allocates a nest's output right before the nest): they are
// returned, to be hoisted above p. The others must have no memory access
// that conflicts with c's (and no unknown effect).
func movableUp(x *valueExprs, between []*ir.Operation, c *ir.Operation) (hoist []*ir.Operation, ok bool) {
	needed := map[*ir.Value]bool{}
	c.Walk(func(n *ir.Operation) bool {
		for _, v := range n.Operands {
			needed[v] = true
		}
		return true
	})
	moved := map[*ir.Operation]bool{}
	for i := len(between) - 1; i >= 0; i-- {
		o := between[i]
		uses := false
		for _, r := range o.Results {
			uses = uses || needed[r]
		}
		if !uses {
			continue
		}
		if len(o.Regions) > 0 || !(o.HasTrait(ir.TraitPure) || noEffectOps[o.Def]) {
			return nil, false
		}
		moved[o] = true
		for _, v := range o.Operands {
			needed[v] = true
		}
	}
	cAcc, unknown := effects(x, c)
	if unknown {
		return nil, false
	}
	for _, o := range between {
		if moved[o] {
			hoist = append(hoist, o)
			continue
		}
		oAcc, unknown := effects(x, o)
		if unknown {
			return nil, false
		}
		for _, a := range oAcc {
			for _, b := range cAcc {
				if (a.write || b.write) && mayAlias(a.mem, b.mem) {
					return nil, false
				}
			}
		}
	}
	return hoist, true
}

// fusionLegal checks that every dependence between p's and c's accesses
// keeps its direction when c's body runs inside p's loops pl (c's loops cl
// paired with them).
func fusionLegal(x *valueExprs, pAcc, cAcc []access, p, c *ir.Operation, pl, cl []*ir.Operation) bool {
	sa := depSide{scope: p}
	sb := depSide{scope: c}
	for l := range pl {
		sa.ivs = append(sa.ivs, affine.InductionVar(pl[l]))
		sb.ivs = append(sb.ivs, affine.InductionVar(cl[l]))
	}
	for _, pr := range conflicts(pAcc, cAcc, false) {
		indep, d := distance(x, pr[0], pr[1], sa, sb)
		if indep {
			continue
		}
		for _, c := range d {
			if !c.known || c.d < 0 {
				return false
			}
			if c.d > 0 {
				break
			}
		}
	}
	return true
}
