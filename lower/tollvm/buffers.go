package tollvm

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	ll "github.com/llir/llvm/ir"

	"tir/dialects/affine"
	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/scf"
)

// Temporaries a CPU function allocates at its top level (a memref.alloc in
// the entry block of a func.func, or in an if there: tir-temporaries'
// buffers, whole-domain scan results) are kept from one call to the next. Above glibc's mmap
// threshold every fresh allocation is a fresh mapping, and a call that
// touches it pays a page fault per page: on a mesh kernel that was half of
// the time. Each such alloc site has a slot, a module global holding the
// buffer of the last call and its capacity; a call takes the slot's buffer
// when it is free and large enough, replaces it by a larger one otherwise,
// and gives it back at the memref.dealloc. A call that finds the slot taken
// (another thread in the same function) allocates and frees a buffer of
// its own, as before, so functions stay reentrant and thread-safe. The cost
// is memory kept between calls: one buffer per temporary, of the largest
// size asked for (docs/abi.md).

// slotType is { i8* buffer, i64 capacity in bytes, i32 busy }.
var slotType = types.NewStruct(types.I8Ptr, types.I64, types.I32)

// acquiredType is what the acquire helper returns: the buffer and whether
// it belongs to the slot.
var acquiredType = types.NewStruct(types.I8Ptr, types.I1)

// cachesBuffers reports whether a memref.alloc keeps its buffer in a slot:
// one at the top level of a func.func, or in the arms of ifs there (the
// versions of convert-tir-to-affine, tiraffine/version.go), which runs at
// most once per call. Allocations inside loops are not cached here
// (hoistPrivateAllocs).
func (fe *fnEmitter) cachesBuffers(op *ir.Operation) bool {
	if fe.me.tgt.Kernels || fe.emulatedIDs != nil {
		return false
	}
	for parent := op.ParentOp(); parent != nil; parent = parent.ParentOp() {
		switch parent.Def {
		case fn.Func:
			return true
		case scf.If, affine.If:
		default:
			return false
		}
	}
	return false
}

// acquireBuffer returns a buffer of at least `bytes` bytes for the alloc
// site of a new slot, the slot and whether the buffer is the slot's. A
// NULL buffer (out of memory) is never the slot's: the slot is free again.
func (fe *fnEmitter) acquireBuffer(bytes value.Value) (buf, slot, owned value.Value) {
	g := fe.me.mod.NewGlobalDef(fe.me.globalName("tir.buffer.slot"), constant.NewZeroInitializer(slotType))
	g.Linkage = enum.LinkageInternal
	g.Align = 8
	r := fe.cur.NewCall(fe.me.bufferHelper("tir.buffer.acquire"), g, bytes)
	return fe.cur.NewExtractValue(r, 0), g, fe.cur.NewExtractValue(r, 1)
}

// releaseBuffer gives a buffer from acquireBuffer back.
func (fe *fnEmitter) releaseBuffer(mr *memref) {
	fe.cur.NewCall(fe.me.bufferHelper("tir.buffer.release"), mr.slot, mr.owned, mr.alloc)
}

// bufferHelper defines (once per module, with internal linkage) the two
// helpers the slots use.
func (me *moduleEmitter) bufferHelper(name string) *ll.Func {
	if f, ok := me.decls[name]; ok {
		return f
	}
	me.decls[name] = nil // being defined
	alignedAlloc := me.declare("aligned_alloc", types.I8Ptr, false, types.I64, types.I64)
	free := me.declare("free", types.Void, false, types.I8Ptr)
	slotPtr := types.NewPointer(slotType)
	field := func(b *ll.Block, slot value.Value, i int64) value.Value {
		return b.NewGetElementPtr(slotType, slot, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, i))
	}
	var f *ll.Func
	switch name {
	case "tir.buffer.acquire":
		slot, bytes := ll.NewParam("slot", slotPtr), ll.NewParam("bytes", types.I64)
		f = me.mod.NewFunc(name, acquiredType, slot, bytes)
		entry, fresh, owned, reuse, grow := f.NewBlock("entry"), f.NewBlock("fresh"), f.NewBlock("owned"), f.NewBlock("reuse"), f.NewBlock("grow")
		was := entry.NewAtomicRMW(enum.AtomicOpXChg, field(entry, slot, 2), constant.NewInt(types.I32, 1), enum.AtomicOrderingAcquire)
		entry.NewCondBr(entry.NewICmp(enum.IPredEQ, was, constant.NewInt(types.I32, 0)), owned, fresh)
		ret := func(b *ll.Block, p value.Value, mine bool) {
			s := b.NewInsertValue(constant.NewUndef(acquiredType), p, 0)
			b.NewRet(b.NewInsertValue(s, constant.NewBool(mine), 1))
		}
		ret(fresh, fresh.NewCall(alignedAlloc, constant.NewInt(types.I64, allocAlign), bytes), false)
		capacity := owned.NewLoad(types.I64, field(owned, slot, 1))
		buf := owned.NewLoad(types.I8Ptr, field(owned, slot, 0))
		owned.NewCondBr(owned.NewICmp(enum.IPredUGE, capacity, bytes), reuse, grow)
		ret(reuse, buf, true)
		grow.NewCall(free, buf)
		p := grow.NewCall(alignedAlloc, constant.NewInt(types.I64, allocAlign), bytes)
		grow.NewStore(p, field(grow, slot, 0))
		// A failed allocation leaves capacity 0, so the next call retries,
		// and gives the slot back at once: the caller returns an error
		// code without reaching the release (allocfail.go).
		failed := grow.NewICmp(enum.IPredEQ, p, constant.NewNull(types.I8Ptr))
		grow.NewStore(grow.NewSelect(failed, constant.NewInt(types.I64, 0), bytes), field(grow, slot, 1))
		grown, giveUp := f.NewBlock("grown"), f.NewBlock("give_up")
		grow.NewCondBr(failed, giveUp, grown)
		ret(grown, p, true)
		st := giveUp.NewStore(constant.NewInt(types.I32, 0), field(giveUp, slot, 2))
		st.Atomic, st.Ordering, st.Align = true, enum.AtomicOrderingRelease, 4
		ret(giveUp, p, false)
	case "tir.buffer.release":
		slot, owned, buf := ll.NewParam("slot", slotPtr), ll.NewParam("owned", types.I1), ll.NewParam("buf", types.I8Ptr)
		f = me.mod.NewFunc(name, types.Void, slot, owned, buf)
		entry, keep, drop := f.NewBlock("entry"), f.NewBlock("keep"), f.NewBlock("drop")
		entry.NewCondBr(owned, keep, drop)
		st := keep.NewStore(constant.NewInt(types.I32, 0), field(keep, slot, 2))
		st.Atomic, st.Ordering, st.Align = true, enum.AtomicOrderingRelease, 4
		keep.NewRet(nil)
		drop.NewCall(free, buf)
		drop.NewRet(nil)
	default:
		panic("tollvm: unknown buffer helper " + name)
	}
	f.Linkage = enum.LinkageInternal
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoUnwind)
	me.decls[name] = f
	return f
}
