package tollvm

import (
	"math"
	"math/bits"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/ir"
	"tir/lower/abi"
)

// Allocations that fail. Every buffer the compiled code allocates (a
// memref.alloc: temporaries, scan columns and slabs, packed panels) has a
// byte count computed at run time from sizes a caller controls: with
// broadcast arguments (outer strides 0) a 1-element array can stand for
// 2^36 rows, and the product of the extents exceeds memory or wraps to a
// small number. So the count is computed with overflow-checked multiplies
// (saturating at 2^64 - 1: a later factor 0 still gives 0) and the
// allocation is tested for NULL; either failure releases what the call
// holds (fe.live), writes f_error's message and returns
// abi.CodeAllocFailed. The test runs once per allocation, never per
// element: allocations are at a function's top level or hoisted out of
// their loops (hoistPrivateAllocs).
//
// In a loop outlined for OpenMP (threads.go) a failure cannot return from
// the body: the loop function records the code in the caller's status
// word (the first thread to fail writes the message), returns, and the
// caller tests the word after the team has joined.

// allocBytes is the byte count of a row-major buffer of elem-sized
// elements with the given sizes, as an i64 that is negative when the
// count is 2^63 or more (negative sizes count as 0, as the loops over
// them run no iteration). A count known at compile time to overflow is a
// located error at op.
func (fe *fnEmitter) allocBytes(op *ir.Operation, sizes []value.Value, elem int64) (value.Value, error) {
	// The constant factors first, in Go: an overflow among them alone is
	// an error when no run-time factor can make the product 0.
	static := uint64(elem)
	var dynamic []value.Value
	for _, s := range sizes {
		c, ok := constInt(s)
		if !ok {
			dynamic = append(dynamic, s)
			continue
		}
		hi, lo := bits.Mul64(static, uint64(max(c, 0)))
		if hi != 0 {
			lo = math.MaxUint64
		}
		static = lo
	}
	if static > math.MaxInt64 && len(dynamic) == 0 {
		return nil, ir.Errorf(op.Loc, "tollvm: %s of %s needs 2^63 bytes or more, more than any allocation can hold", op.Name, op.Results[0].Type)
	}
	acc := value.Value(constant.NewInt(types.I64, int64(static)))
	if len(dynamic) == 0 {
		return acc, nil
	}
	umul := fe.me.declare("llvm.umul.with.overflow.i64", types.NewStruct(types.I64, types.I1), false, types.I64, types.I64)
	for _, s := range dynamic {
		s = fe.smax(s, i64(0))
		if c, ok := constInt(acc); ok && c == 1 {
			acc = s
			continue
		}
		r := fe.cur.NewCall(umul, acc, s)
		prod := fe.cur.NewExtractValue(r, 0)
		ovf := fe.cur.NewExtractValue(r, 1)
		acc = fe.cur.NewSelect(ovf, i64(-1), prod)
	}
	return acc, nil
}

// roundAlloc rounds a byte count below 2^63 up to a multiple of
// allocAlign (C11's aligned_alloc wants one). The add has no nsw: the
// count may be the saturated one, on the path where it is not used.
func (fe *fnEmitter) roundAlloc(bytes value.Value) value.Value {
	if c, ok := constInt(bytes); ok {
		return i64(int64(uint64(c+allocAlign-1) &^ (allocAlign - 1)))
	}
	return fe.cur.NewAnd(fe.cur.NewAdd(bytes, i64(allocAlign-1)), i64(^int64(allocAlign-1)))
}

// branchUnlessFailed ends the current block with a branch to the
// failure block fail (a new one when nil) when failed holds, continues in
// a new block and returns the failure block; a constant false failed
// branches nowhere.
func (fe *fnEmitter) branchUnlessFailed(failed value.Value, fail *ll.Block) *ll.Block {
	if failed == constant.False {
		return fail
	}
	if fail == nil {
		fail = fe.newBlock("alloc.fail")
	}
	next := fe.place(fe.newBlock("alloc.ok"))
	br := fe.cur.NewCondBr(failed, fail, next)
	br.Metadata = append(br.Metadata, fe.me.rarelyTrue())
	fe.cur = next
	return fail
}

// emitAllocFailure fills fail, the failure block of a buffer of the given
// byte count: the message, the release of every buffer the function holds
// there, and the return (of the code, or to the caller's status word in
// an outlined loop).
func (fe *fnEmitter) emitAllocFailure(fail *ll.Block, name string, bytes value.Value) {
	me := fe.me
	me.allocFails = true
	saved := fe.cur
	defer func() { fe.cur = saved }()
	fe.cur = fe.place(fail)
	buf, errCode := me.errGlobals()
	bufPtr := constant.NewGetElementPtr(buf.ContentType, buf, i64(0), i64(0))
	bufPtr.InBounds = true
	code := constant.NewInt(types.I32, abi.CodeAllocFailed)
	message := func() {
		fe.cur.NewCall(me.allocMessageFunc(), bufPtr, me.cstring(name), bytes)
		fe.cur.NewStore(code, errCode)
	}
	if fe.allocStatus == nil {
		message()
	} else {
		// The first thread that fails writes the message; the others
		// would race on the buffer.
		xchg := fe.cur.NewCmpXchg(fe.allocStatus, constant.NewInt(types.I32, 0), code, enum.AtomicOrderingMonotonic, enum.AtomicOrderingMonotonic)
		first := fe.cur.NewExtractValue(xchg, 1)
		msg := fe.place(fe.newBlock("alloc.msg"))
		rest := fe.place(fe.newBlock("alloc.release"))
		fe.cur.NewCondBr(first, msg, rest)
		fe.cur = msg
		message()
		fe.cur.NewBr(rest)
		fe.cur = rest
	}
	fe.releaseLive()
	if fe.allocStatus == nil {
		fe.cur.NewRet(code)
	} else {
		fe.cur.NewRet(nil)
	}
}

// releaseLive gives back, in reverse order, every buffer the function
// holds at the current point, before a return that skips their
// deallocs.
func (fe *fnEmitter) releaseLive() {
	for i := len(fe.live) - 1; i >= 0; i-- {
		fe.freeBuffer(fe.live[i])
	}
}

// freeBuffer gives a buffer of memref.alloc back: to its slot, or to
// free.
func (fe *fnEmitter) freeBuffer(mr *memref) {
	if mr.slot != nil {
		fe.releaseBuffer(mr)
		return
	}
	free := fe.me.declare("free", types.Void, false, types.I8Ptr)
	fe.cur.NewCall(free, mr.alloc)
}

// dropLive forgets a buffer that has been deallocated.
func (fe *fnEmitter) dropLive(mr *memref) {
	for i := len(fe.live) - 1; i >= 0; i-- {
		if fe.live[i] == mr {
			fe.live = append(fe.live[:i], fe.live[i+1:]...)
			return
		}
	}
}

// errGlobals returns the message buffer and last-code global of the
// function being emitted, made at the first need: f's body needs them
// for an allocation failure before the wrapper is emitted.
func (me *moduleEmitter) errGlobals() (*ll.Global, *ll.Global) {
	if me.errBuf == nil {
		me.errBuf = me.mod.NewGlobalDef(me.globalName(me.funcName+".errbuf"), constant.NewZeroInitializer(types.NewArray(abi.ErrBufSize, types.I8)))
		me.errBuf.Linkage = enum.LinkageInternal
		me.errCode = me.mod.NewGlobalDef(me.globalName(me.funcName+".errcode"), constant.NewInt(types.I32, 0))
		me.errCode.Linkage = enum.LinkageInternal
	}
	return me.errBuf, me.errCode
}

// allocMessageFunc defines (once per module) `void
// @tir.alloc.message(i8* buf, i8* name, i64 bytes)`, which formats an
// allocation failure: abi.AllocFailFormat, or abi.AllocOverflowFormat for
// a negative (saturated) count. Out of line and cold: it runs at most
// once per failed call.
func (me *moduleEmitter) allocMessageFunc() *ll.Func {
	const name = "tir.alloc.message"
	if f, ok := me.decls[name]; ok {
		return f
	}
	snprintf := me.declare("snprintf", types.I32, true, types.I8Ptr, types.I64, types.I8Ptr)
	buf, what, bytes := ll.NewParam("buf", types.I8Ptr), ll.NewParam("name", types.I8Ptr), ll.NewParam("bytes", types.I64)
	f := me.mod.NewFunc(name, types.Void, buf, what, bytes)
	f.Linkage = enum.LinkageInternal
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoUnwind, enum.FuncAttrCold, enum.FuncAttrNoInline)
	entry, over, count := f.NewBlock("entry"), f.NewBlock("overflow"), f.NewBlock("count")
	entry.NewCondBr(entry.NewICmp(enum.IPredSLT, bytes, i64(0)), over, count)
	over.NewCall(snprintf, buf, i64(abi.ErrBufSize), me.cstring(abi.AllocOverflowFormat), what)
	over.NewRet(nil)
	count.NewCall(snprintf, buf, i64(abi.ErrBufSize), me.cstring(abi.AllocFailFormat), what, bytes)
	count.NewRet(nil)
	me.decls[name] = f
	return f
}

// allocName is the name of a buffer in its failure message.
func allocName(op *ir.Operation) string {
	return abi.AllocName(valueHint(op.Results[0]), op.Loc)
}

// checkAssertCodes reports a function whose run-time checks would number
// into the fixed codes (abi.CodeAllocFailed and the CUDA wrapper's).
func checkAssertCodes(op *ir.Operation, n int) error {
	if abi.AssertCodeBase+n >= 2000 {
		return ir.Errorf(op.Loc, "tollvm: more than %d run-time checks in one function: their codes would reach the fixed codes from 2000 on", 2000-abi.AssertCodeBase-1)
	}
	return nil
}
