package affinepasses

import (
	"tir/dialects/affine"
	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

// access is one memory access: which memref, read or written, where.
type access struct {
	op    *ir.Operation
	mem   *ir.Value
	write bool
	// subs are the subscripts, one per memref dimension, as expressions
	// over values; nil when the accessed elements are not known (a
	// dealloc or a copy touches the whole buffer).
	subs []sizeexpr.Expr
	// lanes is the number of consecutive elements along the last
	// dimension (1 for scalar accesses, N for vector<N x T> ones).
	lanes int64
}

// structuredOps have no memory effect of their own: only the ops in their
// regions count.
var structuredOps = map[*ir.OpDef]bool{
	affine.For: true, affine.Parallel: true, affine.If: true,
	scf.For: true, scf.If: true,
}

// noEffectOps are not pure but touch no existing memory.
var noEffectOps = map[*ir.OpDef]bool{memref.Alloc: true, memref.Alloca: true}

// effects lists the memory accesses of op and of every op nested in it.
// unknown is true when some op may touch memory in a way that cannot be
// listed (a call, an unregistered op) or must not be reordered with memory
// accesses at all (cf.assert: every check happens before anything is
// written, docs/abi.md).
func effects(x *valueExprs, op *ir.Operation) (accs []access, unknown bool) {
	op.Walk(func(o *ir.Operation) bool {
		a, ok, unk := ownAccess(x, o)
		switch {
		case unk:
			unknown = true
		case ok:
			accs = append(accs, a...)
		}
		return true
	})
	return accs, unknown
}

// ownAccess classifies one op, without its regions: its accesses (ok), or
// unknown effects.
func ownAccess(x *valueExprs, o *ir.Operation) (accs []access, ok, unknown bool) {
	switch o.Def {
	case affine.Load, affine.VectorLoad, affine.Store, affine.VectorStore:
		val, mem, m, operands := affine.AccessParts(o)
		subs, good := x.apply(m, operands)
		if !good {
			return nil, false, true
		}
		a := access{op: o, mem: mem, write: val != nil, subs: subs, lanes: 1}
		t := val
		if t == nil {
			t = o.Results[0]
		}
		if vt, isVec := t.Type.(ir.VectorType); isVec {
			if len(vt.Shape) != 1 {
				return nil, false, true
			}
			a.lanes = vt.Shape[0]
		}
		return []access{a}, true, false
	case memref.Load, memref.Store:
		mi := 0
		if o.Is(memref.Store) {
			mi = 1
		}
		if len(o.Operands) <= mi {
			return nil, false, true
		}
		a := access{op: o, mem: o.Operands[mi], write: mi == 1, lanes: 1, subs: []sizeexpr.Expr{}}
		for _, idx := range o.Operands[mi+1:] {
			a.subs = append(a.subs, x.of(idx))
		}
		return []access{a}, true, false
	case memref.Dealloc:
		return []access{{op: o, mem: o.Operands[0], write: true, lanes: 1}}, true, false
	case memref.Copy:
		return []access{{op: o, mem: o.Operands[0], lanes: 1}, {op: o, mem: o.Operands[1], write: true, lanes: 1}}, true, false
	}
	if structuredOps[o.Def] || noEffectOps[o.Def] || (o.HasTrait(ir.TraitPure) && len(o.Regions) == 0) {
		return nil, true, false
	}
	return nil, false, true
}

// memRoot follows memref.cast to the buffer a memref value views; known is
// true when that buffer is a fresh allocation or a function argument.
func memRoot(v *ir.Value) (root *ir.Value, known bool) {
	for {
		op := v.DefiningOp()
		if !op.Is(memref.Cast) || len(op.Operands) != 1 {
			break
		}
		v = op.Operands[0]
	}
	if op := v.DefiningOp(); op != nil {
		return v, op.Is(memref.Alloc, memref.Alloca)
	}
	if b := v.OwnerBlock(); b != nil {
		if f := b.ParentOp(); f.Is(fn.Func) {
			return v, true
		}
	}
	return v, false
}

// mayAlias reports whether two memrefs may share memory. Fresh allocations
// share nothing with any other buffer; distinct function arguments share
// nothing either, by the ABI's contract, which convert-to-llvm states to
// LLVM with noalias on every buffer argument.
func mayAlias(a, b *ir.Value) bool {
	if a == b {
		return true
	}
	ra, ka := memRoot(a)
	rb, kb := memRoot(b)
	if !ka || !kb {
		return true
	}
	return ra == rb
}

// addrRelation is how the elements of two accesses executed at the same
// point relate.
type addrRelation int

const (
	mayOverlap addrRelation = iota
	disjoint
	sameElems // exactly the same elements
)

// relate compares the elements two accesses touch when their subscripts
// are evaluated with the same values (two accesses of one block).
func relate(a, b access) addrRelation {
	if !mayAlias(a.mem, b.mem) {
		return disjoint
	}
	if a.mem != b.mem || a.subs == nil || b.subs == nil || len(a.subs) != len(b.subs) {
		return mayOverlap
	}
	n := len(a.subs)
	if n == 0 {
		return sameElems
	}
	same := true
	for d := 0; d < n; d++ {
		c, ok := sizeexpr.Sub(b.subs[d], a.subs[d]).Const()
		switch {
		case !ok:
			same = false
		case d < n-1 && c != 0:
			return disjoint
		case d < n-1:
		case c >= a.lanes || c+b.lanes <= 0:
			return disjoint
		case c != 0 || a.lanes != b.lanes:
			same = false
		}
	}
	if same {
		return sameElems
	}
	return mayOverlap
}

// nestedBlocks lists the blocks of op's regions and of every op nested in
// them, outer blocks before the blocks nested in their ops.
func nestedBlocks(op *ir.Operation) []*ir.Block {
	var blocks []*ir.Block
	op.Walk(func(o *ir.Operation) bool {
		for _, r := range o.Regions {
			blocks = append(blocks, r.Blocks...)
		}
		return true
	})
	return blocks
}
