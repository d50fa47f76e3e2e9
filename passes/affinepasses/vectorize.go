package affinepasses

import (
	"fmt"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/mathd"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/dialects/vector"
	"tir/passes"
)

// affine-vectorize: turn innermost loops into vector<N x T> code. llc does
// not run LLVM's loop vectorizer, so this pass is what makes `llc -O3` on
// tc-opt's output use the vector units (spec 4.4).
//
// A loop qualifies when its step is 1, each of its iter_args is a
// reduction (vectorize_reduce.go: integer, min/max and boolean reductions
// always, float sums and products with reassociate), its body has no
// regions, and every op that matters (stores, the values yielded and what
// they use) is
//
//   - an affine.load or affine.store whose subscripts do not involve the
//     induction variable except the last one, as %i + c: N consecutive
//     elements of a contiguous last dimension (affine.vector_load/store);
//   - an affine.load that does not involve %i at all (a broadcast);
//   - an elementwise arith or math op on scalars (float, or integers that
//     are not index), a constant (a dense splat), or an affine.apply
//     feeding subscripts.
//
// Values from outside the loop become vectors too: constants as dense
// splats (an infinity or a NaN as a vector.broadcast, which prints as text
// MLIR reads), other scalars through a small scratch buffer (N scalar
// stores and one vector load before the loop: the code this stage has
// always made and make bench measures; the outer-loop vectorizer and the
// contraction tiles broadcast with vector.broadcast). An i1 from
// outside can only be a select condition, which stays scalar: i1 vectors
// are bit-packed in memory, so they never go through a buffer.
//
// Legality: lane k of the vector body is iteration i + k, and the vector
// body runs each op for all lanes before the next op. That reverses the
// order of two accesses only when a later op of the body touches, at an
// earlier iteration less than N iterations back, what an earlier op
// touches: a dependence of distance -N < d < 0 from the earlier op to the
// later one. Every pair of accesses with a write is tested (dependence.go);
// an unknown distance refuses the loop.
//
// The loop is split like an unrolled loop (splitChunks): a vector loop over
// full chunks of N iterations, then the original scalar loop for the
// remainder. Vector arithmetic is the same IEEE arithmetic lane by lane,
// so results are bit-identical to the scalar code; so are reductions,
// whose lanes are folded by vector.reduction between the two loops, except
// the float sums and products that reassociate=true allows.
//
// A loop around an innermost reduction loop that does not qualify (a
// float sum without reassociate, a strided access) is vectorized across
// instead, with outer=true (the default): one lane per iteration of the
// outer loop, every reduction of its body summed lane by lane in the
// scalar order (vectorize_outer.go), bit for bit the scalar results.
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-vectorize",
		Title:   "AffineVectorize",
		Summary: "Vectorize innermost contiguous affine.for loops (vector<N x T> loads, stores and arith) with a scalar remainder loop",
		Anchor:  passes.AnchorFunc,
		Options: []passes.OptionSpec{
			{Name: "width", Type: passes.OptInt, Default: 8, Help: "vector lanes N"},
			{Name: "target", Type: passes.OptString, Default: "x86_64", Choices: passes.Targets,
				Help: "the target the code is for: nvptx64 leaves loops alone (GPU kernels map the innermost loop to threads)"},
			{Name: "reassociate", Type: passes.OptBool, Default: false,
				Help: "also vectorize float sums and products (addf, subf, mulf reductions): each lane sums its own iterations, so results differ from the scalar order in the last bits"},
			{Name: "outer", Type: passes.OptBool, Default: true,
				Help: "vectorize the loop around a reduction loop that stays scalar (a float sum without reassociate, a strided access): each lane computes one outer iteration's reduction in the scalar order, so results are bitwise the scalar code's"},
		},
		Check: func(o passes.Options) error {
			if w := o.Int("width"); w < 2 || w > 64 {
				return fmt.Errorf("width must be between 2 and 64")
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			width := int64(o.Int("width"))
			gpu := passes.IsGPUTarget(o.String("target"))
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				if gpu {
					return nil
				}
				v := &vectorizer{x: newValueExprs(), rw: &ir.Rewriter{Root: fn}, fn: fn, width: width,
					reassoc: o.Bool("reassociate"), scratch: map[scratchKey]*ir.Value{}}
				outer := o.Bool("outer")
				tried, across := map[*ir.Operation]bool{}, map[*ir.Operation]bool{}
				for _, loop := range forLoops(fn) {
					if !isInnermost(loop) {
						continue
					}
					// A loop around reductions that cannot be vectorized
					// along their own loop is vectorized across
					// (vectorize_outer.go), all its reductions with it.
					if p := loop.ParentOp(); outer && p.Is(affine.For) && !tried[p] {
						tried[p] = true
						if v.hasScalarReduction(p) && v.across(p) {
							across[p] = true
						}
					}
					if !across[loop.ParentOp()] {
						v.loop(loop)
					}
				}
				return nil
			})
		},
	})
}

type vectorizer struct {
	x       *valueExprs
	rw      *ir.Rewriter
	fn      *ir.Operation
	width   int64
	reassoc bool // float sums and products may be vectorized
	scratch map[scratchKey]*ir.Value
}

type scratchKey struct {
	nest *ir.Operation
	elem string
}

// vecKind is what becomes of one op of the body.
type vecKind int

const (
	vecSkip        vecKind = iota // dead, or an affine.apply (subscripts are recomputed)
	vecLoad                       // contiguous affine.load -> affine.vector_load
	vecBroadcast                  // affine.load not depending on %i -> scalar load + broadcast
	vecStore                      // contiguous affine.store -> affine.vector_store
	vecConst                      // scalar arith.constant -> dense splat
	vecElementwise                // elementwise op on vectors
)

// elementwiseOps may be applied lane by lane (operands and results
// scalars of one element type, except compares and casts).
var elementwiseOps = func() map[*ir.OpDef]bool {
	m := map[*ir.OpDef]bool{}
	for _, d := range []*ir.OpDef{
		arith.AddF, arith.SubF, arith.MulF, arith.DivF, arith.RemF, arith.MaxF, arith.MinF, arith.NegF, arith.CmpF, arith.CmpI, arith.Select,
		arith.AddI, arith.SubI, arith.MulI, arith.AndI, arith.OrI, arith.XOrI, arith.MaxSI, arith.MinSI, arith.MaxUI, arith.MinUI,
		arith.ExtF, arith.TruncF, arith.SIToFP, arith.UIToFP, arith.FPToSI, arith.FPToUI, arith.ExtSI, arith.ExtUI, arith.TruncI, arith.Bitcast,
	} {
		m[d] = true
	}
	for _, d := range append(append([]*ir.OpDef(nil), mathd.FloatUnaryOps...), mathd.FloatBinaryOps...) {
		m[d] = true
	}
	m[mathd.Fma] = true
	return m
}()

// vectorElem reports whether values of type t can be the lanes of a
// vector here: floats of 32 or 64 bits and integers, not index; i1 only
// for values (compare results), never in memory.
func vectorElem(t ir.Type, inMemory bool) bool {
	switch t := t.(type) {
	case ir.FloatType:
		return t.Name == "f32" || t.Name == "f64"
	case ir.IntegerType:
		return t.Width == 8 || t.Width == 16 || t.Width == 32 || t.Width == 64 || (t.Width == 1 && !inMemory)
	}
	return false
}

// hasScalarReduction reports whether p's body holds an innermost loop
// with iter_args that v.loop would leave scalar.
func (v *vectorizer) hasScalarReduction(p *ir.Operation) bool {
	for _, o := range bodyOps(p) {
		if !o.Is(affine.For) || len(o.Results) == 0 || !isInnermost(o) {
			continue
		}
		if loopStep(o) != 1 {
			return true
		}
		if _, ok := v.reductions(o); !ok {
			return true
		}
		kinds, ok := v.classify(o, bodyOps(o), affine.InductionVar(o))
		if !ok || !v.legal(o, bodyOps(o), kinds) {
			return true
		}
	}
	return false
}

// loop vectorizes one innermost loop if it qualifies.
func (v *vectorizer) loop(loop *ir.Operation) bool {
	if loopStep(loop) != 1 {
		return false
	}
	reds, ok := v.reductions(loop)
	if !ok {
		return false
	}
	ops := bodyOps(loop)
	iv := affine.InductionVar(loop)
	kinds, ok := v.classify(loop, ops, iv)
	if !ok || !v.legal(loop, ops, kinds) {
		return false
	}
	split, ok := splitChunks(v.x, loop, v.width)
	if !ok {
		return false
	}
	lbs, ubs, _ := loopBounds(v.x, loop)
	// The vector accumulators start at the kinds' neutral elements.
	var initOps []*ir.Operation
	var vinits []*ir.Value
	for _, r := range reds {
		t := ir.VectorType{Shape: []int64{v.width}, Elem: r.arg.Type}
		vinits = append(vinits, vectorConstant(loop.Loc, neutral(r.kind, r.arg.Type), t, func(o *ir.Operation) { initOps = append(initOps, o) }))
	}
	main, ok := newFor(v.x, loop.Loc, lbs, split.mainUB, v.width, vinits)
	if !ok {
		return false
	}
	for j, a := range affine.IterArgs(loop) {
		affine.IterArgs(main)[j].NameHint = a.NameHint
	}
	if affine.IsParallel(loop) {
		// Chunks of independent iterations are independent (threads=omp
		// runs the vector loop of a 1-D nest on all cores).
		main.SetAttr(affine.ParallelAttr, ir.UnitAttr{})
	}
	affine.InductionVar(main).NameHint = iv.NameHint
	vres, ok := v.build(loop, main, ops, kinds, initOps)
	if !ok {
		return false
	}
	// Fold the lanes and the initial value; the remainder loop continues
	// from there.
	var results []*ir.Value
	for j, r := range reds {
		red := v.rw.InsertBefore(loop, vector.NewReduction(loop.Loc, r.kind, vres[j], r.init))
		results = append(results, red.Results[0])
	}
	if split.remLB == nil {
		v.rw.ReplaceOp(loop, results)
		return true
	}
	setBounds(v.x, v.rw, loop, split.remLB, ubs, results)
	return true
}

// classify decides what each op of the body becomes; false when the loop
// cannot be vectorized.
func (v *vectorizer) classify(loop *ir.Operation, ops []*ir.Operation, iv *ir.Value) ([]vecKind, bool) {
	body := affine.ForBody(loop)
	kinds := make([]vecKind, len(ops))
	live := map[*ir.Value]bool{}
	if y := body.Terminator(); y != nil {
		for _, x := range y.Operands {
			live[x] = true
		}
	}
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		isLive := o.Is(affine.Store, affine.VectorStore) || !o.HasTrait(ir.TraitPure)
		for _, r := range o.Results {
			isLive = isLive || live[r]
		}
		if !isLive {
			kinds[i] = vecSkip
			continue
		}
		if len(o.Regions) > 0 {
			return nil, false
		}
		for _, x := range o.Operands {
			live[x] = true
		}
		k, ok := v.kindOf(o, iv, body)
		if !ok {
			return nil, false
		}
		kinds[i] = k
	}
	return kinds, true
}

func (v *vectorizer) kindOf(o *ir.Operation, iv *ir.Value, body *ir.Block) (vecKind, bool) {
	switch o.Def {
	case affine.Apply:
		return vecSkip, true
	case affine.Load, affine.Store:
		val, mem, _, _ := affine.AccessParts(o)
		mt := mem.Type.(ir.MemRefType)
		if !vectorElem(mt.Elem, true) || (mt.Layout != nil && (len(mt.Layout.Strides) == 0 || mt.Layout.Strides[len(mt.Layout.Strides)-1] != 1)) {
			return 0, false
		}
		c := v.contiguity(o, iv)
		switch {
		case c == contiguous && val == nil:
			return vecLoad, true
		case c == contiguous:
			return vecStore, v.vectorOperand(val, iv, body)
		case c == invariant && val == nil:
			return vecBroadcast, true
		}
		return 0, false
	case arith.Constant:
		t := o.Results[0].Type
		_, isInt := o.Attr(arith.AttrValue).(ir.IntegerAttr)
		_, isFloat := o.Attr(arith.AttrValue).(ir.FloatAttr)
		return vecConst, (isInt || isFloat) && vectorElem(t, false)
	}
	if !elementwiseOps[o.Def] || len(o.Results) != 1 || !vectorElem(o.Results[0].Type, false) {
		return 0, false
	}
	for i, x := range o.Operands {
		if !vectorElem(x.Type, false) {
			return 0, false
		}
		if o.Is(arith.Select) && i == 0 && !ir.DefinedInside(x, body.ParentOp()) {
			continue // an invariant condition stays scalar
		}
		if !v.vectorOperand(x, iv, body) {
			return 0, false
		}
	}
	return vecElementwise, true
}

// vectorOperand reports whether x can be had as a vector: a value of the
// body (checked by its own op), or a value from outside that is not an i1
// (those cannot go through memory).
func (v *vectorizer) vectorOperand(x, iv *ir.Value, body *ir.Block) bool {
	if x == iv {
		return false
	}
	if ir.DefinedInside(x, body.ParentOp()) {
		return true
	}
	if isSplatConstant(x) {
		return true
	}
	return vectorElem(x.Type, true)
}

func isSplatConstant(x *ir.Value) bool {
	d := x.DefiningOp()
	if !d.Is(arith.Constant) {
		return false
	}
	switch d.Attr(arith.AttrValue).(type) {
	case ir.IntegerAttr, ir.FloatAttr:
		return vectorElem(x.Type, false)
	}
	return false
}

type contiguity int

const (
	other      contiguity = iota
	contiguous            // last subscript %i + c, the others free of %i
	invariant             // no subscript involves %i
)

func (v *vectorizer) contiguity(o *ir.Operation, iv *ir.Value) contiguity {
	_, _, m, operands := affine.AccessParts(o)
	subs, ok := v.x.apply(m, operands)
	if !ok {
		return other
	}
	w := v.x.varOf(iv)
	uses := func(e sizeexpr.Expr) bool {
		for _, u := range e.Vars() {
			if u == w {
				return true
			}
		}
		return false
	}
	n := len(subs)
	for d := 0; d < n-1; d++ {
		if uses(subs[d]) {
			return other
		}
	}
	if n == 0 || !uses(subs[n-1]) {
		return invariant
	}
	if uses(sizeexpr.Sub(subs[n-1], w.Expr())) {
		return other
	}
	return contiguous
}

// legal checks that no dependence of distance -N < d < 0 runs from an op of
// the body to a later one (see the pass comment).
func (v *vectorizer) legal(loop *ir.Operation, ops []*ir.Operation, kinds []vecKind) bool {
	var accs []access
	for i, o := range ops {
		if kinds[i] == vecSkip {
			continue
		}
		a, ok, unknown := ownAccess(v.x, o)
		if unknown || !ok {
			return false
		}
		accs = append(accs, a...)
	}
	side := depSide{ivs: []*ir.Value{affine.InductionVar(loop)}, scope: loop}
	for _, p := range conflicts(accs, accs, true) {
		indep, d := distance(v.x, p[0], p[1], side, side)
		if indep {
			continue
		}
		if !d[0].known || (d[0].d < 0 && -d[0].d < v.width) {
			return false
		}
	}
	return true
}

// build fills the vector loop and inserts it (with what it needs from
// outside, initOps making its iter_args' initial vectors) before the
// scalar loop. It returns the vector loop's results, or the results of
// the affine.if that guards it (the initial vectors when it does not run).
func (v *vectorizer) build(loop, main *ir.Operation, ops []*ir.Operation, kinds []vecKind, initOps []*ir.Operation) ([]*ir.Value, bool) {
	iv, niv := affine.InductionVar(loop), affine.InductionVar(main)
	body := affine.ForBody(main)
	vec := map[*ir.Value]*ir.Value{}
	for j, a := range affine.IterArgs(loop) {
		vec[a] = affine.IterArgs(main)[j]
	}
	pre := initOps              // ops to place before the vector loop
	var guarded []*ir.Operation // ... but only when it runs
	vt := func(elem ir.Type) ir.VectorType { return ir.VectorType{Shape: []int64{v.width}, Elem: elem} }
	// The subscripts of the new accesses, over the new induction
	// variable, computed first: nothing is built unless all exist.
	type mapUse struct {
		m        ir.AffineMap
		operands []*ir.Value
	}
	maps := map[*ir.Operation]mapUse{}
	for i, o := range ops {
		if k := kinds[i]; k != vecLoad && k != vecBroadcast && k != vecStore {
			continue
		}
		_, _, m, operands := affine.AccessParts(o)
		subs, ok := v.x.apply(m, operands)
		if !ok {
			return nil, false
		}
		for i, e := range subs {
			subs[i] = v.x.renameValues(e, func(x *ir.Value) (sizeexpr.Expr, bool) {
				if x == iv {
					return v.x.varOf(niv).Expr(), true
				}
				return sizeexpr.Expr{}, false
			})
		}
		nm, nops, ok := v.x.toMap(subs)
		if !ok {
			return nil, false
		}
		maps[o] = mapUse{nm, nops}
	}
	// A splat of an infinity or a NaN is a vector.broadcast of the scalar
	// (vectorConstant): a dense attribute of one has no text MLIR reads.
	splat := func(c *ir.Operation) *ir.Value {
		return vectorConstant(c.Loc, c.Attr(arith.AttrValue), vt(c.Results[0].Type), func(o *ir.Operation) { pre = append(pre, o) })
	}
	// operand returns the vector standing for x in the vector body.
	operand := func(x *ir.Value) *ir.Value {
		if r, ok := vec[x]; ok {
			return r
		}
		var r *ir.Value
		if isSplatConstant(x) {
			r = splat(x.DefiningOp())
		} else {
			r = v.broadcast(loop, x, vt(x.Type), func(o *ir.Operation) { pre = append(pre, o) })
		}
		vec[x] = r
		return r
	}
	for i, o := range ops {
		switch kinds[i] {
		case vecSkip:
		case vecConst:
			vec[o.Results[0]] = splat(o)
		case vecLoad:
			m, operands := maps[o].m, maps[o].operands
			_, mem, _, _ := affine.AccessParts(o)
			ld := body.Append(affine.NewVectorLoad(o.Loc, vt(o.Results[0].Type), mem, m, operands))
			ld.Results[0].NameHint = o.Results[0].NameHint
			vec[o.Results[0]] = ld.Results[0]
		case vecBroadcast:
			m, operands := maps[o].m, maps[o].operands
			_, mem, _, _ := affine.AccessParts(o)
			// Loaded once, before the vector loop; the subscripts do
			// not involve %i and no iteration writes the element (the
			// dependence test saw the load).
			ld := affine.NewLoad(o.Loc, mem, m, operands)
			guarded = append(guarded, ld)
			vec[o.Results[0]] = v.broadcast(loop, ld.Results[0], vt(o.Results[0].Type), func(b *ir.Operation) { guarded = append(guarded, b) })
		case vecStore:
			m, operands := maps[o].m, maps[o].operands
			val, mem, _, _ := affine.AccessParts(o)
			body.Append(affine.NewVectorStore(o.Loc, operand(val), mem, m, operands))
		case vecElementwise:
			args := make([]*ir.Value, len(o.Operands))
			for j, x := range o.Operands {
				if o.Is(arith.Select) && j == 0 && !ir.DefinedInside(x, loop) {
					args[j] = x
					continue
				}
				args[j] = operand(x)
			}
			n := ir.NewOp(o.Name, o.Loc, args, []ir.Type{vt(o.Results[0].Type)}, append(ir.DictAttr(nil), o.Attrs...))
			n.Results[0].NameHint = o.Results[0].NameHint
			vec[o.Results[0]] = body.Append(n).Results[0]
		}
	}
	var yielded []*ir.Value
	for _, y := range affine.ForBody(loop).Terminator().Operands {
		yielded = append(yielded, operand(y))
	}
	body.Append(affine.NewYield(loop.Loc, yielded...))
	if len(guarded) == 0 || provablyNonEmpty(v.x, main) {
		for _, o := range pre {
			v.rw.InsertBefore(loop, o)
		}
		for _, o := range guarded {
			v.rw.InsertBefore(loop, o)
		}
		v.rw.InsertBefore(loop, main)
		return main.Results, true
	}
	// A hoisted load must not run when the vector loop does not (the
	// element may not exist): guard both with "the vector loop runs"; the
	// accumulators keep their initial vectors otherwise.
	cond, ok := v.nonEmptySet(main, main.Results)
	if !ok {
		return nil, false
	}
	for _, o := range pre {
		v.rw.InsertBefore(loop, o)
	}
	then := affine.ThenBlock(cond)
	for _, o := range guarded {
		then.Append(o)
	}
	then.Append(main)
	then.Append(affine.NewYield(loop.Loc, main.Results...))
	if len(main.Results) > 0 {
		affine.ElseBlock(cond).Append(affine.NewYield(loop.Loc, iterInits(main)...))
	}
	v.rw.InsertBefore(loop, cond)
	return cond.Results, true
}

// nonEmptySet builds `affine.if` on "the loop runs at least once": every
// upper bound exceeds the (single) lower bound. With results (the types of
// the values it yields), it has an else block.
func (v *vectorizer) nonEmptySet(loop *ir.Operation, results []*ir.Value) (*ir.Operation, bool) {
	lbs, ubs, ok := loopBounds(v.x, loop)
	if !ok || len(lbs) != 1 {
		return nil, false
	}
	var cs []sizeexpr.Expr
	for _, u := range ubs {
		cs = append(cs, sizeexpr.Sub(sizeexpr.Sub(u, lbs[0]), sizeexpr.Const(1)))
	}
	return newGuard(v.x, loop.Loc, cs, arith.TypesOf(results))
}

// broadcast makes a vector of N copies of the scalar x: N stores into a
// scratch buffer and one vector load (emit places each op). The buffer is
// a memref.alloca before the outermost loop nest holding loop: a stack
// slot, so a vectorized function calls no allocator (an alloc here would
// cost an aligned_alloc and a free on every call).
func (v *vectorizer) broadcast(loop *ir.Operation, x *ir.Value, t ir.VectorType, emit func(*ir.Operation)) *ir.Value {
	nest := loop
	for nest.ParentOp() != nil && nest.ParentOp() != v.fn {
		nest = nest.ParentOp()
	}
	key := scratchKey{nest, t.Elem.String()}
	buf, ok := v.scratch[key]
	if !ok {
		alloc := memref.NewAlloca(loop.Loc, ir.MemRefType{Shape: []int64{v.width}, Elem: t.Elem}, nil)
		alloc.Results[0].NameHint = "splat"
		v.rw.InsertBefore(nest, alloc)
		buf = alloc.Results[0]
		v.scratch[key] = buf
	}
	for k := int64(0); k < v.width; k++ {
		emit(affine.NewStore(loop.Loc, x, buf, affine.ConstantMap(k), nil))
	}
	ld := affine.NewVectorLoad(loop.Loc, t, buf, affine.ConstantMap(0), nil)
	emit(ld)
	return ld.Results[0]
}
