package tollvm

import (
	"fmt"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/ir"
	memrefd "tir/dialects/memref"
	"tir/dialects/sizeexpr"
)

// memOps lowers memory accesses and buffer management.
var memOps = map[*ir.OpDef]func(*fnEmitter, *ir.Operation) error{
	affine.Load:        emitLoad,
	affine.VectorLoad:  emitLoad,
	memrefd.Load:       emitLoad,
	affine.Store:       emitStore,
	affine.VectorStore: emitStore,
	memrefd.Store:      emitStore,
	memrefd.AtomicRMW:  emitAtomicRMW,
	memrefd.Alloc:      emitAlloc,
	memrefd.Dealloc:    emitDealloc,
	memrefd.Dim:        emitDim,
}

// allocAlign is the alignment of memref.alloc buffers: a cache line, and
// enough for any vector the lowering emits.
const allocAlign = 64

// subscripts returns the memref and element address of a load or store
// whose memref is operand mi: affine ops apply their `map` attribute to the
// operands that follow; memref ops use them directly.
func (fe *fnEmitter) subscripts(op *ir.Operation, mi int) (*memref, value.Value, error) {
	if len(op.Operands) <= mi {
		return nil, nil, ir.Errorf(op.Loc, "tollvm: '%s' is missing its memref operand", op.Name)
	}
	mr, err := fe.mem(op.Operands[mi], op)
	if err != nil {
		return nil, nil, err
	}
	args, err := fe.vals2(op, op.Operands[mi+1:])
	if err != nil {
		return nil, nil, err
	}
	idx := args
	consts := make([]int64, len(args))
	if ir.Dialect(op.Name) == "affine" {
		m, err := mapAttr(op, "map")
		if err != nil {
			return nil, nil, err
		}
		env, err := envFor(m, args)
		if err != nil {
			return nil, nil, wrapErr(op, err)
		}
		idx = make([]value.Value, len(m.Results))
		consts = make([]int64, len(m.Results))
		for d, r := range m.Results {
			var rest sizeexpr.Expr
			rest, consts[d] = splitConst(r)
			if idx[d], err = fe.lowerExpr(rest, env); err != nil {
				return nil, nil, wrapErr(op, err)
			}
		}
	}
	if len(idx) != len(mr.sizes) {
		return nil, nil, ir.Errorf(op.Loc, "tollvm: '%s' has %d subscripts for a rank-%d memref", op.Name, len(idx), len(mr.sizes))
	}
	return mr, fe.elemPtr(mr, idx, consts), nil
}

// elemPtr is the address of element idx + consts: aligned + offset +
// Σ idx[d]*strides[d] + Σ consts[d]*strides[d], with an inbounds GEP (the
// element is inside the buffer). The variable part is built prefix by
// prefix through the block's cache, so the accesses of a stencil share it
// and differ only by constant (or loop-invariant) offsets.
func (fe *fnEmitter) elemPtr(mr *memref, idx []value.Value, consts []int64) value.Value {
	lin := mr.offset
	key := fmt.Sprintf("addr|%p", mr)
	for d, x := range idx {
		key += "|" + valueKey(x)
		prev, d, x := lin, d, x
		lin = fe.cached(key, func() value.Value { return fe.add(prev, fe.mul(x, mr.strides[d])) })
	}
	// The constant part of the subscripts, Σ consts[d]*strides[d], is
	// loop-invariant; for function arguments (whose strides are
	// parameters) it is computed once in the entry block.
	ckey := fmt.Sprintf("cst|%p", mr)
	nonzero := false
	for _, c := range consts {
		ckey += fmt.Sprintf("|%d", c)
		nonzero = nonzero || c != 0
	}
	if nonzero {
		off := func() value.Value {
			return fe.cached(ckey, func() value.Value {
				var sum value.Value = i64(0)
				for d, c := range consts {
					if c != 0 {
						sum = fe.add(sum, fe.mul(mr.strides[d], i64(c)))
					}
				}
				return sum
			})
		}
		if mr.alloc == nil && fe.prologue != nil {
			lin = fe.add(lin, fe.at(fe.prologue, off))
		} else {
			lin = fe.add(lin, off())
		}
	}
	if c, ok := constInt(lin); ok && c == 0 {
		return mr.ptr
	}
	gep := fe.cur.NewGetElementPtr(mr.elem, mr.ptr, lin)
	gep.InBounds = true
	return fe.setName(gep, mr.name+".p")
}

// vecPtr converts an element pointer to a pointer to vt (for vector loads
// and stores, which are only element-aligned).
func (fe *fnEmitter) vecPtr(p value.Value, vt types.Type) value.Value {
	pt := types.NewPointer(vt)
	pt.AddrSpace = types.AddrSpace(fe.me.tgt.GlobalAddrSpace)
	return fe.cur.NewBitCast(p, pt)
}

// halfPtr converts the element pointer of an f16 or bf16 memref (half*,
// i16*) to a pointer to bt, the i16 or i16-vector pattern accessed.
func (fe *fnEmitter) halfPtr(p value.Value, bt types.Type) value.Value {
	if pt, ok := p.Type().(*types.PointerType); ok && pt.ElemType.Equal(bt) {
		return p
	}
	return fe.vecPtr(p, bt)
}

// emitLoad lowers affine.load, affine.vector_load and memref.load.
func emitLoad(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Results) != 1 {
		return ir.Errorf(op.Loc, "tollvm: '%s' must have one result", op.Name)
	}
	mr, p, err := fe.subscripts(op, 0)
	if err != nil {
		return err
	}
	rt, err := resultType(op, 0)
	if err != nil {
		return err
	}
	if k := halfKind(op.Results[0].Type); k != "" {
		// f16 and bf16 elements are loaded as their 16-bit patterns and
		// widened to f32 values with integer operations (spec 2.7).
		bt := shaped(rt, types.I16)
		ld := fe.cur.NewLoad(bt, fe.halfPtr(p, bt))
		ld.Align = 2
		fe.bind(op.Results[0], fe.bitsToHalf(k, fe.setName(ld, mr.name+".bits")), mr.name)
		return nil
	}
	if _, isVec := rt.(*types.VectorType); isVec {
		p = fe.vecPtr(p, rt)
	} else if !rt.Equal(mr.elem) {
		return ir.Errorf(op.Loc, "tollvm: '%s' result type does not match the memref element type", op.Name)
	}
	ld := fe.cur.NewLoad(rt, p)
	ld.Align = ll.Align(elemBytes(mr.elem))
	fe.bind(op.Results[0], ld, mr.name)
	return nil
}

// emitStore lowers affine.store, affine.vector_store and memref.store
// (operands: value, memref, subscripts or map operands).
func emitStore(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Operands) < 2 {
		return ir.Errorf(op.Loc, "tollvm: malformed '%s'", op.Name)
	}
	v, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	mr, p, err := fe.subscripts(op, 1)
	if err != nil {
		return err
	}
	if k := halfKind(op.Operands[0].Type); k != "" {
		// An f16 or bf16 value is stored as its 16-bit pattern.
		bits := fe.halfToBits(k, v)
		st := fe.cur.NewStore(bits, fe.halfPtr(p, bits.Type()))
		st.Align = 2
		return nil
	}
	if _, isVec := v.Type().(*types.VectorType); isVec {
		p = fe.vecPtr(p, v.Type())
	} else if !v.Type().Equal(mr.elem) {
		return ir.Errorf(op.Loc, "tollvm: '%s' stores a %s into a memref of %s", op.Name, v.Type(), mr.elem)
	}
	st := fe.cur.NewStore(v, p)
	st.Align = ll.Align(elemBytes(mr.elem))
	return nil
}

// atomicOps are the LLVM operations of the memref.atomic_rmw kinds this
// lowering emits (MLIR 16's arith::AtomicRMWKind values, as the op's
// `kind` attribute holds them): addf and addi, the scatter-adds of GPU
// targets (tiraffine.Options.AtomicScatters).
var atomicOps = map[int64]enum.AtomicOp{memrefd.AtomicAddF: enum.AtomicOpFAdd, memrefd.AtomicAddI: enum.AtomicOpAdd}

// emitAtomicRMW lowers memref.atomic_rmw addf/addi to a monotonic
// atomicrmw fadd/add at the element's address; its result is the old
// value. The host build of emulated kernels lowers it the same way.
func emitAtomicRMW(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Operands) < 2 || len(op.Results) != 1 {
		return ir.Errorf(op.Loc, "tollvm: malformed '%s'", op.Name)
	}
	kind, _ := op.Attr(memrefd.AttrAtomicKind).(ir.IntegerAttr)
	aop, ok := atomicOps[kind.Value]
	if !ok {
		return ir.Errorf(op.Loc, "tollvm: '%s' of kind %d is not supported (only addf and addi)", op.Name, kind.Value)
	}
	v, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	mr, p, err := fe.subscripts(op, 1)
	if err != nil {
		return err
	}
	if halfKind(op.Operands[0].Type) != "" || !v.Type().Equal(mr.elem) {
		return ir.Errorf(op.Loc, "tollvm: '%s' adds a %s into a memref of %s", op.Name, op.Operands[0].Type, mr.elem)
	}
	if _, isFloat := mr.elem.(*types.FloatType); isFloat != (aop == enum.AtomicOpFAdd) {
		return ir.Errorf(op.Loc, "tollvm: '%s' kind does not match its element type %s", op.Name, mr.elem)
	}
	rmw := fe.cur.NewAtomicRMW(aop, p, v, enum.AtomicOrderingMonotonic)
	fe.bind(op.Results[0], rmw, mr.name)
	return nil
}

// emitAlloc lowers memref.alloc to aligned_alloc(64, bytes rounded up to a
// multiple of 64) with a row-major (identity layout) descriptor. Operands
// are the dynamic sizes in order; operand_segment_sizes is not needed since
// layouts with symbol operands are not supported. A byte count that
// overflows and an allocation that fails return abi.CodeAllocFailed
// (allocfail.go).
func emitAlloc(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Results) != 1 {
		return ir.Errorf(op.Loc, "tollvm: malformed memref.alloc")
	}
	if fe.me.tgt.Kernels || fe.emulatedIDs != nil {
		// gpu-kernel-outlining keeps allocations in the host code.
		return ir.Errorf(op.Loc, "tollvm: memref.alloc inside a GPU kernel is not supported (the host allocates temporaries)")
	}
	mt, ok := op.Results[0].Type.(ir.MemRefType)
	if !ok || mt.Layout != nil {
		return ir.Errorf(op.Loc, "tollvm: memref.alloc of %s: only identity-layout memrefs are supported", op.Results[0].Type)
	}
	elem, err := llType(mt.Elem)
	if err != nil {
		return wrapErr(op, err)
	}
	dyn, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	n := len(mt.Shape)
	sizes := make([]value.Value, n)
	k := 0
	for d, s := range mt.Shape {
		if s == ir.Dynamic {
			if k >= len(dyn) {
				return ir.Errorf(op.Loc, "tollvm: memref.alloc has fewer size operands than dynamic dimensions")
			}
			sizes[d] = dyn[k]
			k++
		} else {
			sizes[d] = i64(s)
		}
	}
	if k != len(dyn) {
		return ir.Errorf(op.Loc, "tollvm: memref.alloc has %d size operands for %d dynamic dimensions", len(dyn), k)
	}
	strides := make([]value.Value, n)
	count := value.Value(i64(1))
	for d := n - 1; d >= 0; d-- {
		strides[d] = count
		if d > 0 {
			count = fe.mul(count, sizes[d])
		}
	}
	bytes, err := fe.allocBytes(op, sizes, elemBytes(elem))
	if err != nil {
		return err
	}
	// A count of 2^63 bytes or more fails before any allocator sees it.
	var fail *ll.Block
	if c, ok := constInt(bytes); !ok || c < 0 {
		fail = fe.branchUnlessFailed(fe.cur.NewICmp(enum.IPredSLT, bytes, i64(0)), nil)
	}
	rounded := fe.roundAlloc(bytes)
	var raw, slot, owned value.Value
	if fe.cachesBuffers(op) {
		raw, slot, owned = fe.acquireBuffer(rounded)
	} else {
		aa := fe.me.declare("aligned_alloc", types.I8Ptr, false, types.I64, types.I64)
		raw = fe.cur.NewCall(aa, i64(allocAlign), rounded)
	}
	// NULL is a failure unless nothing was asked for (aligned_alloc may
	// answer a 0-byte request with NULL).
	if c, ok := constInt(bytes); !ok || c != 0 {
		failed := value.Value(fe.cur.NewICmp(enum.IPredEQ, raw, constant.NewNull(types.I8Ptr)))
		if !ok {
			failed = fe.cur.NewAnd(failed, fe.cur.NewICmp(enum.IPredNE, bytes, i64(0)))
		}
		fail = fe.branchUnlessFailed(failed, fail)
	}
	if fail != nil {
		fe.emitAllocFailure(fail, allocName(op), bytes)
	}
	name := valueHint(op.Results[0])
	if name == "" {
		name = "tmp"
	}
	fe.setName(raw, name+".raw")
	ptr := fe.setName(fe.cur.NewBitCast(raw, types.NewPointer(elem)), name)
	mr := &memref{name: name, typ: mt, elem: elem, ptr: ptr, alloc: raw, slot: slot, owned: owned, offset: i64(0), sizes: sizes, strides: strides}
	fe.mems[op.Results[0]] = mr
	fe.live = append(fe.live, mr)
	return nil
}

// emitDealloc frees a buffer of memref.alloc.
func emitDealloc(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Operands) != 1 {
		return ir.Errorf(op.Loc, "tollvm: malformed memref.dealloc")
	}
	mr, err := fe.mem(op.Operands[0], op)
	if err != nil {
		return err
	}
	if mr.alloc == nil {
		return ir.Errorf(op.Loc, "tollvm: memref.dealloc of a buffer not allocated by memref.alloc")
	}
	fe.freeBuffer(mr)
	fe.dropLive(mr)
	return nil
}

// emitDim lowers memref.dim (operands: memref, dimension index); a
// non-constant index selects among the sizes.
func emitDim(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 2, 1); err != nil {
		return err
	}
	mr, err := fe.mem(op.Operands[0], op)
	if err != nil {
		return err
	}
	d, err := fe.val(op.Operands[1], op)
	if err != nil {
		return err
	}
	if c, ok := constInt(d); ok {
		if c < 0 || int(c) >= len(mr.sizes) {
			return ir.Errorf(op.Loc, "tollvm: memref.dim index %d out of range for a rank-%d memref", c, len(mr.sizes))
		}
		fe.bind(op.Results[0], mr.sizes[c], "")
		return nil
	}
	var v value.Value = i64(0)
	for k := len(mr.sizes) - 1; k >= 0; k-- {
		is := fe.cur.NewICmp(enum.IPredEQ, d, i64(int64(k)))
		v = fe.cur.NewSelect(is, mr.sizes[k], v)
	}
	fe.bind(op.Results[0], v, "")
	return nil
}
