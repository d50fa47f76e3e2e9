package affinepasses

import (
	"fmt"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/passes"
)

// affine-contraction-tile: block the loop nests of contractions for
// registers and caches. convert-tir-to-affine computes a reduction whose
// result is stored along a contiguous dimension the way the tir program
// states it, the reduced loop innermost:
//
//	for %m { for %n {
//	  %c = for %k iter_args(%acc = %init) { ... %acc' = %acc + A[%m, %k] * B[%k, %n] }
//	  store %c, C[%m, %n] } }
//
// which strides through B and keeps one scalar accumulator. The pass
// rewrites such a nest (the row loop %m is optional: a 1-D nest such as a
// convolution O(i) = sum_k I(i + k) * W(k) has only the vector loop) so
// that the reduced loop runs inside a register tile of MR rows by NV
// vectors of VL lanes along %n:
//
//	for %jc = n0 to nF step NC {              cache block of n (NC = NR * panels)
//	  for %kc = k0 to k1 step KC {            cache block of k
//	    pack B[%kc : %kc + KC, %jc : %jc + NC] into panels P[NC/NR][KC][NR]
//	    for %ic = m0 to mF step MR {          parallel
//	      for %p = 0 to min(NC, nF - %jc) / NR {    the tile's columns: %jc + %p*NR
//	        acc[r][v] = vector_load C[%ic + r, %jc + %p*NR + v*VL]      (r < MR, v < NV)
//	        acc = for %k = %kc to min(%kc + KC, k1) iter_args(acc) {
//	          b[v] = vector_load P[%p, %k - %kc, v*VL]
//	          a[r] = vector.broadcast A[%ic + r, %k]
//	          acc[r][v] = acc[r][v] + a[r] * b[v]                (the body, lane by lane)
//	        }
//	        vector_store acc[r][v], C[%ic + r, %jc + %p*NR + v*VL] } } } }
//
// with C first set to %init on the blocked part (when the reduced loop is
// cut into several blocks; a reduction that fits in one block starts its
// accumulators from %init instead). What does not fill a whole tile runs
// as smaller tiles: the rows below the last full MR rows with 1 x NV
// tiles, the columns past the last full NR with MR x 1 and 1 x 1 tiles
// (one vector), and the last columns that do not fill a vector in the
// original loops. Nothing is assumed about the sizes: bounds may be
// symbolic, and every piece is an affine loop whose bounds are computed
// with floordiv (a piece may be empty).
//
// Exactness: every element of C is computed by the same operations as in
// the original loop, in the same order of %k (a lane of a vector
// accumulator is one element; a block stores its partial result in C and
// the next block continues from it, which rounds nothing since the
// accumulator has C's element type). Results are bitwise those of the
// original nest, as long as convert-to-llvm does not contract multiplies
// and adds (its contract option).
//
// What qualifies (checked on the IR, whatever produced it):
//
//   - a reduction loop (affine.for with one iter_arg, step 1, whose
//     bounds do not use the vector or row loop) is the only op of the
//     vector loop's body besides the store of its result, `affine.store
//     %c, C[...]` whose last subscript is %n + c (the contiguous
//     dimension) and whose other subscripts do not use %n;
//   - the row loop, when there is one, has the vector loop as its only op,
//     and exactly one subscript of the store uses %m (so that different
//     (%m, %n) store to different elements); the vector and row loops
//     have step 1, one lower and one upper bound, and the vector loop's
//     bounds do not use %m;
//   - the reduction body is made of affine.load ops that are contiguous
//     along %n (the last subscript %n + c) or do not use %n, whose
//     memrefs cannot alias C (the ABI's distinct arguments, or fresh
//     buffers), elementwise arith and math ops on scalars that can be
//     vector lanes, and constants; values from outside the nest are
//     broadcast.
//
// The register tile: VL = vector-bits / the widest element type of the
// body; MR x NV from the number of vector registers (MR*NV accumulators,
// NV operands along %n, one broadcast and one temporary must fit: 6 x 4
// with 32 registers, 6 x 2 with 16) unless rows and vectors are given.
// The panels (pack) hold the operands that are contiguous along %n and
// do not use %m: they are read once per row tile, so a contiguous copy of
// the cache block costs one pass and saves the strides (B's rows are N
// elements apart) on every row tile. The panel buffer is a memref.alloc at
// the function's top level (kept between calls, buffers.go in
// convert-to-llvm). The %ic loops are marked parallel when the row loop
// was: the panels are written before them, and different rows write
// different elements of C. Loops around the nest (a batch loop) share the
// panels, so they lose their parallel mark when there are panels (inside
// an affine.parallel nothing is packed).
//
// Not handled (left as they are): several reduced loops (a 2-D
// convolution), ops between the reduction and the store (a bias or a
// ReLU applied to the sum), operands contiguous along %k but not along %n
// (B stored transposed, fcrelu.tc's weights), which would need a
// transposing pack.
func init() {
	passes.Register(&passes.Def{
		Name:  "affine-contraction-tile",
		Title: "AffineContractionTile",
		Summary: "Block reductions stored along a contiguous dimension (matrix products, convolutions) for registers and caches: " +
			"an MR x NV tile of vector accumulators with the reduced loop inside, cache blocks of k and n, packed panels",
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
			{Name: "pack", Type: passes.OptBool, Default: true, Help: "copy each cache block of the operands that are contiguous along n and do not depend on the row into contiguous panels"},
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
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			opts := ctOptions{
				bits: int64(o.Int("vector-bits")), regs: int64(o.Int("registers")),
				rows: int64(o.Int("rows")), vectors: int64(o.Int("vectors")),
				kBlock: int64(o.Int("k-block")), nBlock: int64(o.Int("n-block")), pack: o.Bool("pack"),
			}
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				c := &contraction{x: newValueExprs(), rw: &ir.Rewriter{Root: fn}, fn: fn, o: opts}
				var nests []*cnest
				for _, loop := range forLoops(fn) {
					if n, ok := c.match(loop); ok {
						nests = append(nests, n)
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
	bits, regs, rows, vectors, kBlock, nBlock int64
	pack                                      bool
}

type contraction struct {
	x  *valueExprs
	rw *ir.Rewriter
	fn *ir.Operation
	o  ctOptions
}

// ctKind is what an op of the reduction body becomes in the tile.
type ctKind int

const (
	ctSkip        ctKind = iota // dead, or an affine.apply (subscripts are recomputed)
	ctVecLoad                   // contiguous along %n: one vector load per vector of the tile
	ctBroadcast                 // does not use %n: a scalar load and a vector.broadcast
	ctConst                     // a splat constant, made before the nest
	ctElementwise               // the same op on vectors
)

// cnest is a matched contraction nest.
type cnest struct {
	row, col, red, store *ir.Operation // row is nil for a 1-D nest
	top                  *ir.Operation // row, or col
	iIV, jIV, kIV, acc   *ir.Value     // iIV nil without a row loop
	init, result         *ir.Value     // the accumulator's initial value; the yielded value
	mem                  *ir.Value     // C
	storeSubs            []sizeexpr.Expr
	li, ui, lj, uj       sizeexpr.Expr // row (when present) and vector loop bounds
	kLbs, kUbs           []sizeexpr.Expr
	ops                  []*ir.Operation
	kind                 map[*ir.Operation]ctKind
	rowDep, vecDep       map[*ir.Value]bool // the value differs from row to row / from vector to vector
	lanes, mr, nv        int64
	kTrip                int64 // the reduced loop's constant trip count, -1 when unknown
	elem                 ir.Type
}

// match recognizes a contraction nest whose reduction loop is red.
func (c *contraction) match(red *ir.Operation) (*cnest, bool) {
	if loopStep(red) != 1 || len(red.Results) != 1 || !vectorElem(red.Results[0].Type, false) || ir.TypeEqual(red.Results[0].Type, ir.I1) {
		return nil, false
	}
	col := red.ParentOp()
	if col == nil || col.Name != "affine.for" || loopStep(col) != 1 || len(col.Results) != 0 {
		return nil, false
	}
	colOps := bodyOps(col)
	if len(colOps) != 2 || colOps[0] != red || colOps[1].Name != "affine.store" {
		return nil, false
	}
	n := &cnest{col: col, red: red, store: colOps[1], jIV: affine.InductionVar(col), kIV: affine.InductionVar(red),
		acc: affine.IterArgs(red)[0], init: iterInits(red)[0], elem: red.Results[0].Type,
		kind: map[*ir.Operation]ctKind{}, rowDep: map[*ir.Value]bool{}, vecDep: map[*ir.Value]bool{}}
	val, mem, _, _ := affine.AccessParts(n.store)
	if val != red.Results[0] || !memElemOK(mem) {
		return nil, false
	}
	n.mem = mem
	n.top = col
	if p := col.ParentOp(); p != nil && p.Name == "affine.for" && loopStep(p) == 1 && len(p.Results) == 0 {
		if ops := bodyOps(p); len(ops) == 1 && ops[0] == col {
			n.row, n.top, n.iIV = p, p, affine.InductionVar(p)
		}
	}
	if definedInside(n.init, n.top) {
		return nil, false
	}
	// Bounds: one lower and one upper bound for the row and vector loops,
	// the vector loop's free of %m, the reduction's free of both.
	var ok bool
	if n.lj, n.uj, ok = c.singleBounds(col, n.top); !ok {
		return nil, false
	}
	if n.row != nil {
		if n.li, n.ui, ok = c.singleBounds(n.row, n.top); !ok {
			return nil, false
		}
	}
	if n.kLbs, n.kUbs, ok = loopBounds(c.x, red); !ok || !c.outside(append(append([]sizeexpr.Expr(nil), n.kLbs...), n.kUbs...), n.top) {
		return nil, false
	}
	n.kTrip = -1
	if t, known := constTripCount(c.x, red); known {
		n.kTrip = t
	}
	// The store: contiguous along %n, one subscript for %m.
	if n.storeSubs, ok = c.x.mapOf(n.store, "map", n.store.Operands[2:]); !ok || !c.storeOK(n) {
		return nil, false
	}
	if !c.classify(n) {
		return nil, false
	}
	return n, c.shape(n)
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
			if v := c.x.value(w); v == nil || definedInside(v, top) {
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

// storeOK checks the store's subscripts: the last is %n + c, the others do
// not use %n; exactly one uses %m (linearly, with a non-zero coefficient);
// nothing else comes from inside the nest.
func (c *contraction) storeOK(n *cnest) bool {
	subs := n.storeSubs
	k := len(subs)
	if k == 0 {
		return false
	}
	for _, e := range subs {
		for _, w := range e.Vars() {
			v := c.x.value(w)
			if v == nil || (v != n.iIV && v != n.jIV && definedInside(v, n.top)) {
				return false
			}
		}
	}
	if !c.contiguousIn(subs, n.jIV) {
		return false
	}
	if n.row == nil {
		return true
	}
	withRow := 0
	for _, e := range subs[:k-1] {
		if c.uses(e, n.iIV) {
			withRow++
		}
	}
	return withRow == 1 && !c.uses(subs[k-1], n.iIV)
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

// classify decides what each op of the reduction body becomes and which
// values depend on the row and on the vector position.
func (c *contraction) classify(n *cnest) bool {
	body := affine.ForBody(n.red)
	y := body.Terminator()
	if y == nil || len(y.Operands) != 1 {
		return false
	}
	n.result = y.Operands[0]
	if d := n.result.DefiningOp(); d == nil || d.ParentOp() != n.red {
		return false
	}
	n.ops = bodyOps(n.red)
	live := map[*ir.Value]bool{n.result: true}
	dead := map[*ir.Operation]bool{}
	for i := len(n.ops) - 1; i >= 0; i-- {
		o := n.ops[i]
		isLive := false
		for _, r := range o.Results {
			isLive = isLive || live[r]
		}
		if !isLive || o.Name == "affine.apply" {
			if !o.HasTrait(ir.TraitPure) && o.Name != "affine.load" {
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
	if len(n.ops) > 64 {
		return false // the tile would repeat a large body MR*NV times
	}
	// Forward: kinds and dependences.
	for _, o := range n.ops {
		if dead[o] {
			continue
		}
		r := o.Results[0]
		switch {
		case o.Name == "affine.load":
			_, mem, m, operands := affine.AccessParts(o)
			if !memElemOK(mem) || mayAlias(mem, n.mem) {
				return false
			}
			subs, ok := c.x.apply(m, operands)
			if !ok {
				return false
			}
			for _, e := range subs {
				for _, w := range e.Vars() {
					v := c.x.value(w)
					if v == nil || (v != n.iIV && v != n.jIV && v != n.kIV && definedInside(v, n.top)) {
						return false
					}
				}
			}
			usesJ := false
			for _, e := range subs {
				usesJ = usesJ || c.uses(e, n.jIV)
			}
			switch {
			case !usesJ:
				n.kind[o] = ctBroadcast
			case c.contiguousIn(subs, n.jIV):
				n.kind[o] = ctVecLoad
				n.vecDep[r] = true
			default:
				return false
			}
			for _, e := range subs {
				if c.uses(e, n.iIV) {
					n.rowDep[r] = true
				}
			}
		case o.Name == "arith.constant":
			if !isSplatConstant(r) {
				return false
			}
			n.kind[o] = ctConst
		case elementwiseOps[o.Name] && vectorElem(r.Type, false):
			n.kind[o] = ctElementwise
			for i, x := range o.Operands {
				if !vectorElem(x.Type, false) {
					return false
				}
				switch {
				case x == n.acc:
					n.rowDep[r], n.vecDep[r] = true, true
				case definedInside(x, n.red):
					n.rowDep[r] = n.rowDep[r] || n.rowDep[x]
					n.vecDep[r] = n.vecDep[r] || n.vecDep[x]
				case definedInside(x, n.top):
					return false // an induction variable or a value of the nest
				case ir.TypeEqual(x.Type, ir.I1) && !(o.Name == "arith.select" && i == 0):
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
	for _, o := range n.ops {
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
