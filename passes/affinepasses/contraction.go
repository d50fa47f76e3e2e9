package affinepasses

import (
	"fmt"
	"slices"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/passes"
)

// affine-contraction-tile: block the loop nests of contractions for
// registers and caches. convert-tir-to-affine computes a reduction whose
// result is stored along a contiguous dimension the way the tir program
// states it, the reduced loops innermost:
//
//	for %m { for %n {
//	  %i = init(%m, %n)                           (a constant, or a bias read per column)
//	  %c = for %k iter_args(%acc = %i) { ... %acc' = %acc + A[%m, %k] * B[%k, %n] }
//	  store epilogue(%c), C[%m, %n] } }           (epilogue: a bias, a ReLU, a scale; or none)
//
// which strides through B and keeps one scalar accumulator. The pass
// rewrites such a nest so that the reduced loops run inside a register
// tile of MR rows by NV vectors of VL lanes along %n:
//
//	for %jc = n0 to nE step NC {              cache block of n (NC = NR * panels)
//	  for %kc = k0 to k1 step KC {            cache block of the outer reduction
//	    pack B[%kc : %kc + KC, %jc : %jc + NC] into panels P[NC/NR][KC][NR]
//	    for %ic = m0 to mF step MR {          parallel
//	      for %p = 0 to min(NC, nF - %jc) / NR {    the tile's columns: %jc + %p*NR
//	        acc[r][v] = vector_load C[%ic + r, %jc + %p*NR + v*VL]      (r < MR, v < NV)
//	        acc = for %k = %kc to min(%kc + KC, k1) iter_args(acc) {
//	          b[v] = vector_load P[%p, %k - %kc, v*VL]
//	          a[r] = vector.broadcast A[%ic + r, %k]
//	          acc[r][v] = acc[r][v] + a[r] * b[v]                (the body, lane by lane)
//	        }
//	        if another block follows: vector_store acc[r][v], C[...]
//	        else: vector_store epilogue(acc[r][v]), C[...] }
//	      MR x 2 and MR x 1 tiles on the vectors of the last, partial panel,
//	      MR x 1 tiles of VL/2, VL/4, ... lanes on the columns past them }
//	    the same with 1 x NV, ... tiles for the last rows } }
//
// with C first set to init (when the outer reduction is cut into several
// blocks, their partial sums kept in C; a reduction that fits in one
// block starts its accumulators from init and stores the epilogue), and
// the last columns, fewer than the narrowest vector, in the original
// loops. Nothing is assumed about the sizes: bounds may be symbolic, and
// every piece is an affine loop whose bounds are computed with floordiv
// (a piece may be empty). Without a row loop, or without k blocks
// (k-block=0), the tiles read the operands where they are and reduce over
// the whole range.
//
// The shapes ML writes fit the same scheme:
//
//   - several reductions (a convolution's c, kh, kw; a tensordot's two
//     contracted dimensions) stay nested in the tile as they were, the
//     outer one cut into blocks; panels get a dimension per reduction;
//   - the row loop is the innermost loop of the perfect nest above %n
//     whose rows share an operand (in a NCHW convolution
//     O[n, m, h, w] += I[n, c, h + kh, w + kw] * Wt[m, c, kh, kw] it is %m,
//     not %h: every output channel reads the same window of I); the loops
//     between it and %n then hold the tiles (the window is packed per %h),
//     loops above it (a batch) hold the whole nest;
//   - an operand that uses %n in another subscript than the last (a weight
//     stored N x K read as W[%n, %k], attention's K[%b, %s, %d]) is
//     transposed by the copy into the panels, and the tiles read it from
//     them as any other (only in the blocked form with panels): by blocks
//     of VL x VL elements transposed in registers with shuffles when it is
//     contiguous along the innermost reduction, element by element
//     otherwise;
//   - the ops before the reduction that compute its initial value and the
//     ops after it that compute what is stored (loads, constants,
//     elementwise ops) are applied to the tile's vectors; reading C in
//     them is refused (the nest may store what they read).
//
// Exactness: every element of C is computed by the same operations as in
// the original loops, in the same order of the reductions (a lane of a
// vector accumulator is one element; a block stores its partial result in
// C and the next block continues from it, which rounds nothing since the
// accumulator has C's element type; the epilogue is applied once, to the
// whole sum). Results are bitwise those of the original nest, as long as
// convert-to-llvm does not contract multiplies and adds (its contract
// option).
//
// What qualifies (checked on the IR, whatever produced it):
//
//   - the vector loop's body is the reduction, ops before it that compute
//     its initial value, ops after it that compute the stored value, and
//     `affine.store %v, C[...]` last, whose last subscript is %n + c (the
//     contiguous dimension) and whose other subscripts do not use %n;
//     each reduction (affine.for with one iter_arg, step 1, whose bounds
//     do not use the nest's loops) holds only the next one, which starts
//     from its accumulator;
//   - the row loop and the loops between it and %n each have the next loop
//     as their only op, and each of their induction variables is in one
//     subscript of the store of its own, linearly (so that the nest's
//     iterations store to different elements and may run in any order);
//     the row and vector loops have step 1, one lower and one upper bound,
//     and nothing in the nest's bounds uses the nest's loops;
//   - the reduction body is made of affine.load ops (contiguous along %n,
//     free of %n, or using %n elsewhere and not the row), whose memrefs
//     cannot alias C (the ABI's distinct arguments, or fresh buffers),
//     elementwise arith and math ops on scalars that can be vector lanes,
//     and constants; values from outside the nest are broadcast.
//
// The register tile: VL = vector-bits / the widest element type of the
// body; MR x NV from the number of vector registers (MR*NV accumulators,
// NV operands along %n, one broadcast and one temporary must fit: 6 x 4
// with 32 registers, 6 x 2 with 16) unless rows and vectors are given.
// The panels (pack) hold the operands that vary along %n and do not use
// the row: they are read once per row tile, so a contiguous copy of the
// cache block costs one pass and saves the strides (B's rows are N
// elements apart) on every row tile. The panel buffer is a memref.alloc at
// the function's top level (kept between calls, buffers.go in
// convert-to-llvm), its dimensions that are not constants computed there.
// The %ic loops are marked parallel when the row loop was: the panels are
// written before them, and different rows write different elements of C.
// Loops around the nest (a batch loop) share the panels, so they lose
// their parallel mark when there are panels (inside an affine.parallel
// nothing is packed).
func init() {
	passes.Register(&passes.Def{
		Name:  "affine-contraction-tile",
		Title: "AffineContractionTile",
		Summary: "Block reductions stored along a contiguous dimension (matrix products, convolutions, tensordots) for registers and caches: " +
			"an MR x NV tile of vector accumulators with the reduced loops inside, cache blocks of k and n, packed panels, the epilogue applied to the accumulators",
		Anchor: passes.AnchorFunc,
		Options: []passes.OptionSpec{
			{Name: "vector-bits", Type: passes.OptInt, Default: 128,
				Help: "width of a vector register in bits (128: SSE2 or NEON, 256: AVX2, 512: AVX-512); lanes = vector-bits / element bits"},
			{Name: "registers", Type: passes.OptInt, Default: 16,
				Help: "vector registers of the target (16 on x86-64 without AVX-512, 32 with it and on AArch64): the register tile is sized to fit"},
			{Name: "rows", Type: passes.OptInt, Default: 0, Help: "rows MR of the register tile (0: chosen from registers)"},
			{Name: "vectors", Type: passes.OptInt, Default: 0, Help: "vectors NV per row of the register tile (0: chosen from registers)"},
			{Name: "k-block", Type: passes.OptInt, Default: 256, Help: "iterations of the reduced loop per cache block (0: no blocking and no packing)"},
			{Name: "n-block", Type: passes.OptInt, Default: 1024, Help: "elements of the contiguous dimension per cache block (rounded down to a multiple of the tile's width)"},
			{Name: "specialize", Type: passes.OptInt, Default: 3,
				Help: "when the innermost of several reductions has a trip count that is not a constant (a convolution window), also make a version of the nest for that trip count being this constant, chosen at run time (0: none)"},
			{Name: "pack", Type: passes.OptBool, Default: true, Help: "copy each cache block of the operands that vary along n and do not depend on the row into contiguous panels (an operand read with n elsewhere than in its last subscript is only tiled with panels)"},
		},
		Check: func(o passes.Options) error {
			switch b := o.Int("vector-bits"); {
			case b < 64 || b > 2048 || b&(b-1) != 0:
				return fmt.Errorf("vector-bits must be a power of two between 64 and 2048")
			}
			if r := o.Int("registers"); r < 4 || r > 256 {
				return fmt.Errorf("registers must be between 4 and 256")
			}
			if o.Int("rows") < 0 || o.Int("rows") > 32 || o.Int("vectors") < 0 || o.Int("vectors") > 16 {
				return fmt.Errorf("rows must be between 0 and 32, vectors between 0 and 16")
			}
			if o.Int("k-block") < 0 || o.Int("n-block") < 0 {
				return fmt.Errorf("k-block and n-block must not be negative")
			}
			if s := o.Int("specialize"); s < 0 || s > 16 {
				return fmt.Errorf("specialize must be between 0 and 16")
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			opts := ctOptions{
				bits: int64(o.Int("vector-bits")), regs: int64(o.Int("registers")),
				rows: int64(o.Int("rows")), vectors: int64(o.Int("vectors")),
				kBlock: int64(o.Int("k-block")), nBlock: int64(o.Int("n-block")), pack: o.Bool("pack"),
				specialize: int64(o.Int("specialize")),
			}
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				c := &contraction{x: newValueExprs(), rw: &ir.Rewriter{Root: fn}, fn: fn, o: opts}
				var nests []*cnest
				for _, loop := range forLoops(fn) {
					if n, ok := c.match(loop); ok {
						nests = append(nests, n)
					}
				}
				for _, n := range nests[:len(nests):len(nests)] {
					if v, ok := c.specialize(n); ok {
						nests = append(nests, v)
					}
				}
				for _, n := range nests {
					c.rewrite(n)
				}
				return nil
			})
		},
	})
}

type ctOptions struct {
	bits, regs, rows, vectors, kBlock, nBlock, specialize int64
	pack                                                  bool
}

type contraction struct {
	x  *valueExprs
	rw *ir.Rewriter
	fn *ir.Operation
	o  ctOptions
}

// ctKind is what an op of the reduction body, or of the vector loop's
// body around it, becomes in the tile.
type ctKind int

const (
	ctSkip        ctKind = iota // dead, or an affine.apply (subscripts are recomputed)
	ctVecLoad                   // contiguous along %n: one vector load per vector of the tile
	ctGather                    // uses %n otherwise (B[%n, %k]): read from the panels only
	ctBroadcast                 // does not use %n: a scalar load and a vector.broadcast
	ctConst                     // a splat constant, made before the nest
	ctElementwise               // the same op on vectors
)

// cnest is a matched contraction nest.
type cnest struct {
	// top is the outermost loop replaced: the row loop, or the vector loop
	// without one. mids are the loops between the row and the vector loop
	// (outer first), reds the reduction loops (outer first: a convolution
	// reduces over c, kh and kw).
	top, row, col, store *ir.Operation
	mids, reds           []*ir.Operation
	iIV, jIV             *ir.Value // iIV nil without a row loop
	midIVs, kIVs         []*ir.Value
	acc                  *ir.Value // the innermost reduction's accumulator
	init                 *ir.Value // the outer reduction's initial value
	result               *ir.Value // what the innermost reduction yields
	sum                  *ir.Value // the outer reduction's result
	value                *ir.Value // what is stored: sum, or an epilogue of it
	mem                  *ir.Value // C
	storeSubs            []sizeexpr.Expr
	li, ui, lj, uj       sizeexpr.Expr // row (when present) and vector loop bounds
	midLbs, midUbs       [][]sizeexpr.Expr
	kLbs, kUbs           [][]sizeexpr.Expr // per reduction loop
	ops                  []*ir.Operation   // the innermost reduction's body
	outer                []*ir.Operation   // the vector loop's body besides the reduction and the store
	kind                 map[*ir.Operation]ctKind
	rowDep, vecDep       map[*ir.Value]bool // the value differs from row to row / from vector to vector
	lanes, mr, nv        int64
	narrow               []int64 // the narrower vectors of the last columns: VL/2, VL/4, ... lanes, at least 2
	kTrip                int64   // the outer reduction's constant trip count, -1 when unknown
	// The cache-blocked form (contraction_pack.go): kc iterations of the
	// outer reduction per block, several blocks (their partial sums kept in
	// C) or one, panels for the operands shared by the rows.
	blockedForm, multi, panels bool
	kc                         int64
	elem                       ir.Type
}

// redLoop reports whether loop can be a reduction of a contraction: step
// 1, one accumulator of a type that can be a vector lane.
func redLoop(loop *ir.Operation) bool {
	return loop.Is(affine.For) && loopStep(loop) == 1 && len(loop.Results) == 1 &&
		vectorElem(loop.Results[0].Type, false) && !ir.TypeEqual(loop.Results[0].Type, ir.I1)
}

// match recognizes a contraction nest whose outer reduction loop is red.
func (c *contraction) match(red *ir.Operation) (*cnest, bool) {
	if !redLoop(red) {
		return nil, false
	}
	col := red.ParentOp()
	if !col.Is(affine.For) || loopStep(col) != 1 || len(col.Results) != 0 {
		return nil, false
	}
	colOps := bodyOps(col)
	if len(colOps) < 2 || !colOps[len(colOps)-1].Is(affine.Store) {
		return nil, false
	}
	base := &cnest{col: col, store: colOps[len(colOps)-1], jIV: affine.InductionVar(col),
		init: iterInits(red)[0], sum: red.Results[0], elem: red.Results[0].Type}
	for _, o := range colOps[:len(colOps)-1] {
		if o != red {
			base.outer = append(base.outer, o)
		}
	}
	// The reductions: each holds the next and yields its result, which
	// starts from the enclosing one's accumulator.
	base.reds = []*ir.Operation{red}
	for {
		cur := base.reds[len(base.reds)-1]
		ops := bodyOps(cur)
		if len(ops) != 1 || !redLoop(ops[0]) || iterInits(ops[0])[0] != affine.IterArgs(cur)[0] ||
			!ir.TypeEqual(ops[0].Results[0].Type, base.elem) {
			break
		}
		if y := affine.ForBody(cur).Terminator(); y == nil || len(y.Operands) != 1 || y.Operands[0] != ops[0].Results[0] {
			break
		}
		base.reds = append(base.reds, ops[0])
	}
	in := base.reds[len(base.reds)-1]
	base.acc = affine.IterArgs(in)[0]
	for _, r := range base.reds {
		base.kIVs = append(base.kIVs, affine.InductionVar(r))
	}
	val, mem, _, _ := affine.AccessParts(base.store)
	if !memElemOK(mem) {
		return nil, false
	}
	base.value, base.mem = val, mem
	// The row: the innermost loop of the perfect nest above the vector
	// loop whose rows share an operand (B is the same for every row of C:
	// it is packed once per row tiles); the loops in between then hold
	// the tiles. Without such a loop, the innermost one that qualifies.
	var chain []*ir.Operation
	for p, ch := col.ParentOp(), col; p.Is(affine.For) && loopStep(p) == 1 && len(p.Results) == 0 && len(chain) < 4; p, ch = p.ParentOp(), p {
		if ops := bodyOps(p); len(ops) != 1 || ops[0] != ch {
			break
		}
		chain = append(chain, p)
	}
	var first *cnest
	for i, row := range chain {
		mids := make([]*ir.Operation, 0, i)
		for j := i - 1; j >= 0; j-- {
			mids = append(mids, chain[j])
		}
		n, ok := c.try(base, row, mids)
		if !ok {
			continue
		}
		if n.sharesAcrossRows() {
			return n, true
		}
		if first == nil && i == 0 {
			first = n
		}
	}
	if first != nil {
		return first, true
	}
	return c.try(base, nil, nil)
}

// sharesAcrossRows reports whether an operand of the body varies along
// the vector loop but not along the rows.
func (n *cnest) sharesAcrossRows() bool {
	for _, o := range n.ops {
		if k := n.kind[o]; (k == ctVecLoad || k == ctGather) && !n.rowDep[o.Results[0]] {
			return true
		}
	}
	return false
}

// try completes base with a choice of row loop (nil: none) and the loops
// between it and the vector loop, and checks everything else.
func (c *contraction) try(base *cnest, row *ir.Operation, mids []*ir.Operation) (*cnest, bool) {
	n := *base
	n.kind, n.rowDep, n.vecDep = map[*ir.Operation]ctKind{}, map[*ir.Value]bool{}, map[*ir.Value]bool{}
	n.row, n.mids, n.top, n.iIV, n.midIVs = row, mids, n.col, nil, nil
	if row != nil {
		n.top, n.iIV = row, affine.InductionVar(row)
	}
	n.midLbs, n.midUbs = nil, nil
	for _, m := range mids {
		n.midIVs = append(n.midIVs, affine.InductionVar(m))
		lbs, ubs, ok := loopBounds(c.x, m)
		if !ok || !c.outside(append(append([]sizeexpr.Expr(nil), lbs...), ubs...), n.top) {
			return nil, false
		}
		n.midLbs, n.midUbs = append(n.midLbs, lbs), append(n.midUbs, ubs)
	}
	if ir.DefinedInside(n.init, n.top) && n.init.DefiningOp() == nil {
		return nil, false
	}
	if ir.DefinedInside(n.init, n.top) && n.init.DefiningOp().ParentOp() != n.col {
		return nil, false
	}
	// Bounds: one lower and one upper bound for the row and vector loops;
	// nothing in the nest's bounds depends on its own loops.
	var ok bool
	if n.lj, n.uj, ok = c.singleBounds(n.col, n.top); !ok {
		return nil, false
	}
	if row != nil {
		if n.li, n.ui, ok = c.singleBounds(row, n.top); !ok {
			return nil, false
		}
	}
	n.kLbs, n.kUbs = nil, nil
	for _, r := range n.reds {
		lbs, ubs, ok := loopBounds(c.x, r)
		if !ok || !c.outside(append(append([]sizeexpr.Expr(nil), lbs...), ubs...), n.top) {
			return nil, false
		}
		n.kLbs, n.kUbs = append(n.kLbs, lbs), append(n.kUbs, ubs)
	}
	n.kTrip = -1
	if t, known := constTripCount(c.x, n.reds[0]); known {
		n.kTrip = t
	}
	if n.storeSubs, ok = c.x.mapOf(n.store, "map", n.store.Operands[2:]); !ok || !c.storeOK(&n) {
		return nil, false
	}
	if !c.classify(&n) || !c.shape(&n) {
		return nil, false
	}
	c.choosePacking(&n)
	for _, o := range n.ops {
		if n.kind[o] == ctGather && !n.panels {
			return nil, false // a gathered operand is only read from panels
		}
	}
	return &n, true
}

// memElemOK reports whether vectors of a memref's elements can be loaded
// and stored: an element type that can be a vector lane, and consecutive
// elements along the last dimension.
func memElemOK(mem *ir.Value) bool {
	mt, ok := mem.Type.(ir.MemRefType)
	if !ok || !vectorElem(mt.Elem, true) {
		return false
	}
	return mt.Layout == nil || (len(mt.Layout.Strides) > 0 && mt.Layout.Strides[len(mt.Layout.Strides)-1] == 1)
}

// singleBounds returns the single lower and upper bounds of loop, which
// must not use values defined inside top (the vector loop's bounds do not
// use the row loop's induction variable: the nest is rectangular).
func (c *contraction) singleBounds(loop, top *ir.Operation) (lb, ub sizeexpr.Expr, ok bool) {
	lbs, ubs, ok := loopBounds(c.x, loop)
	if !ok || len(lbs) != 1 || len(ubs) != 1 || !c.outside([]sizeexpr.Expr{lbs[0], ubs[0]}, top) {
		return sizeexpr.Expr{}, sizeexpr.Expr{}, false
	}
	return lbs[0], ubs[0], true
}

// outside reports whether the expressions only use values defined outside
// top.
func (c *contraction) outside(es []sizeexpr.Expr, top *ir.Operation) bool {
	for _, e := range es {
		for _, w := range e.Vars() {
			if v := c.x.value(w); v == nil || ir.DefinedInside(v, top) {
				return false
			}
		}
	}
	return true
}

// uses reports whether e uses the value v.
func (c *contraction) uses(e sizeexpr.Expr, v *ir.Value) bool {
	if v == nil {
		return false
	}
	w := c.x.varOf(v)
	for _, u := range e.Vars() {
		if u == w {
			return true
		}
	}
	return false
}

// linearIn reports whether e is c*iv + (terms free of iv) with c != 0.
func (c *contraction) linearIn(e sizeexpr.Expr, iv *ir.Value) bool {
	w := c.x.varOf(iv)
	next := e.Subst(func(u sizeexpr.Var) (sizeexpr.Expr, bool) {
		if u == w {
			return sizeexpr.Add(w.Expr(), sizeexpr.Const(1)), true
		}
		return sizeexpr.Expr{}, false
	})
	d, ok := sizeexpr.Sub(next, e).Const()
	return ok && d != 0
}

// nestIVs are the induction variables the pass reorders: the row, the
// loops between it and the vector loop, the vector loop.
func (n *cnest) nestIVs() []*ir.Value {
	var ivs []*ir.Value
	if n.iIV != nil {
		ivs = append(ivs, n.iIV)
	}
	return append(append(ivs, n.midIVs...), n.jIV)
}

// storeOK checks the store's subscripts: the last is %n + c, the others do
// not use %n; each of the row's and the middle loops' induction variables
// is in one subscript of its own, linearly, so that the nest's iterations
// store to different elements and may run in any order; nothing else
// comes from inside the nest.
func (c *contraction) storeOK(n *cnest) bool {
	subs := n.storeSubs
	k := len(subs)
	if k == 0 {
		return false
	}
	ivs := n.nestIVs()
	for _, e := range subs {
		for _, w := range e.Vars() {
			v := c.x.value(w)
			if v == nil || (!slices.Contains(ivs, v) && ir.DefinedInside(v, n.top)) {
				return false
			}
		}
	}
	if !c.contiguousIn(subs, n.jIV) {
		return false
	}
	for _, e := range subs {
		count := 0
		for _, iv := range ivs {
			if c.uses(e, iv) {
				count++
			}
		}
		if count > 1 {
			return false
		}
	}
	for _, iv := range ivs[:len(ivs)-1] {
		with := 0
		for _, e := range subs[:k-1] {
			if c.uses(e, iv) {
				if !c.linearIn(e, iv) {
					return false
				}
				with++
			}
		}
		if with != 1 {
			return false
		}
	}
	return true
}

// contiguousIn reports whether subscripts address consecutive elements as
// iv steps by one: iv only in the last subscript, with coefficient 1.
func (c *contraction) contiguousIn(subs []sizeexpr.Expr, iv *ir.Value) bool {
	k := len(subs)
	for _, e := range subs[:k-1] {
		if c.uses(e, iv) {
			return false
		}
	}
	last := subs[k-1]
	return c.uses(last, iv) && !c.uses(sizeexpr.Sub(last, c.x.varOf(iv).Expr()), iv)
}

// classify decides what each op of the reduction body and of the vector
// loop's body becomes, and which values depend on the row and on the
// vector position.
func (c *contraction) classify(n *cnest) bool {
	in := n.reds[len(n.reds)-1]
	y := affine.ForBody(in).Terminator()
	if y == nil || len(y.Operands) != 1 {
		return false
	}
	n.result = y.Operands[0]
	if d := n.result.DefiningOp(); d == nil || d.ParentOp() != in {
		return false
	}
	n.ops = bodyOps(in)
	if len(n.ops) > 64 {
		return false // the tile would repeat a large body MR*NV times
	}
	if !c.classifyOps(n, n.ops, []*ir.Value{n.result}, true) {
		return false
	}
	// The prologue (the initial value) and the epilogue (what is stored).
	var roots []*ir.Value
	if n.value != n.sum {
		roots = append(roots, n.value)
	}
	if ir.DefinedInside(n.init, n.col) {
		roots = append(roots, n.init)
	}
	if len(n.outer) > 16 {
		return false
	}
	return c.classifyOps(n, n.outer, roots, false)
}

// classifyOps classifies ops, a body's ops in order: those that compute
// the roots must be loads, constants and elementwise ops.
func (c *contraction) classifyOps(n *cnest, ops []*ir.Operation, roots []*ir.Value, body bool) bool {
	live := map[*ir.Value]bool{}
	for _, r := range roots {
		live[r] = true
	}
	dead := map[*ir.Operation]bool{}
	for i := len(ops) - 1; i >= 0; i-- {
		o := ops[i]
		isLive := false
		for _, r := range o.Results {
			isLive = isLive || live[r]
		}
		if !isLive || o.Is(affine.Apply) {
			if !o.HasTrait(ir.TraitPure) && !o.Is(affine.Load) {
				return false
			}
			dead[o] = true
			n.kind[o] = ctSkip
			continue
		}
		if len(o.Regions) > 0 || len(o.Results) != 1 {
			return false
		}
		for _, x := range o.Operands {
			live[x] = true
		}
	}
	ivs := n.nestIVs()
	if body {
		ivs = append(ivs, n.kIVs...)
	}
	accOf := n.sum
	if body {
		accOf = n.acc
	}
	for _, o := range ops {
		if dead[o] {
			continue
		}
		r := o.Results[0]
		switch {
		case o.Is(affine.Load):
			_, mem, m, operands := affine.AccessParts(o)
			if !memElemOK(mem) || mayAlias(mem, n.mem) {
				return false
			}
			subs, ok := c.x.apply(m, operands)
			if !ok {
				return false
			}
			usesJ := false
			for _, e := range subs {
				for _, w := range e.Vars() {
					v := c.x.value(w)
					if v == nil || (!slices.Contains(ivs, v) && ir.DefinedInside(v, n.top)) {
						return false
					}
				}
				usesJ = usesJ || c.uses(e, n.jIV)
				if c.uses(e, n.iIV) {
					n.rowDep[r] = true
				}
			}
			switch {
			case !usesJ:
				n.kind[o] = ctBroadcast
			case c.contiguousIn(subs, n.jIV):
				n.kind[o] = ctVecLoad
				n.vecDep[r] = true
			case body && !n.rowDep[r]:
				n.kind[o] = ctGather
				n.vecDep[r] = true
			default:
				return false
			}
		case o.Is(arith.Constant):
			if !isSplatConstant(r) {
				return false
			}
			n.kind[o] = ctConst
		case elementwiseOps[o.Def] && vectorElem(r.Type, false):
			n.kind[o] = ctElementwise
			for i, x := range o.Operands {
				if !vectorElem(x.Type, false) {
					return false
				}
				if d := x.DefiningOp(); d != nil {
					if k, ok := n.kind[d]; ok && k != ctSkip && (ir.DefinedInside(x, n.col)) {
						n.rowDep[r] = n.rowDep[r] || n.rowDep[x]
						n.vecDep[r] = n.vecDep[r] || n.vecDep[x]
						continue
					}
				}
				switch {
				case x == accOf:
					n.rowDep[r], n.vecDep[r] = true, true
				case ir.DefinedInside(x, n.top):
					return false // an induction variable or a value of the nest
				case ir.TypeEqual(x.Type, ir.I1) && !(o.Is(arith.Select) && i == 0):
					return false // i1 vectors cannot be made from a scalar here
				}
			}
		default:
			return false
		}
	}
	return true
}

// shape chooses the vector width and the register tile.
func (c *contraction) shape(n *cnest) bool {
	widest := elemBits(n.elem)
	for _, o := range append(append([]*ir.Operation(nil), n.ops...), n.outer...) {
		if n.kind[o] == ctSkip {
			continue
		}
		for _, v := range append(append([]*ir.Value(nil), o.Results...), o.Operands...) {
			if b := elemBits(v.Type); b > widest {
				widest = b
			}
		}
	}
	if widest <= 0 || c.o.bits/widest < 2 {
		return false
	}
	n.lanes = c.o.bits / widest
	n.narrow = nil
	for w := n.lanes / 2; w >= 2; w /= 2 {
		n.narrow = append(n.narrow, w)
	}
	n.mr, n.nv = tileShape(c.o.regs)
	if c.o.rows > 0 {
		n.mr = c.o.rows
	}
	if c.o.vectors > 0 {
		n.nv = c.o.vectors
	}
	if n.row == nil {
		n.mr = 1
	}
	// Constant extents smaller than the tile: a smaller tile, or nothing
	// to vectorize.
	if t, known := constTripCount(c.x, n.col); known {
		if t < n.lanes {
			return false
		}
		if t < n.lanes*n.nv {
			n.nv = t / n.lanes
		}
	}
	if n.row != nil {
		if t, known := constTripCount(c.x, n.row); known && t < n.mr {
			n.mr = max(t, 1)
		}
	}
	return true
}

// minLanes is the width of the narrowest vector of the tiles.
func (n *cnest) minLanes() int64 {
	if len(n.narrow) > 0 {
		return n.narrow[len(n.narrow)-1]
	}
	return n.lanes
}

// tileShape is the default register tile for a number of vector
// registers: the largest MR*NV with MR*NV accumulators + NV operands + a
// broadcast and a temporary within the registers (NV <= 4, MR <= 8),
// more vectors first.
func tileShape(regs int64) (mr, nv int64) {
	mr, nv = 1, 1
	for v := int64(1); v <= 4; v++ {
		r := min((regs-v-2)/v, 8)
		if r >= 1 && r*v >= mr*nv {
			mr, nv = r, v
		}
	}
	return mr, nv
}

// elemBits is the width of a scalar or of a vector's elements (0 for
// i1, index and other types that do not set the vector width).
func elemBits(t ir.Type) int64 {
	if vt, ok := t.(ir.VectorType); ok {
		t = vt.Elem
	}
	switch t := t.(type) {
	case ir.FloatType:
		return int64(t.Bits())
	case ir.IntegerType:
		if t.Width > 1 {
			return int64(t.Width)
		}
	}
	return 0
}
