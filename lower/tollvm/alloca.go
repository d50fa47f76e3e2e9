package tollvm

import (
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/ir"
	memrefd "tir/dialects/memref"
)

func init() { memOps[memrefd.Alloca] = emitAlloca }

// emitAlloca lowers memref.alloca of a static shape to an LLVM alloca in
// the entry block of the function (a static alloca: one stack slot per
// call, whatever loop the op sits in), with a row-major descriptor. The
// vectorizer's broadcast scratch buffers are such buffers: small, and
// without a call to the allocator on every call of the function.
func emitAlloca(fe *fnEmitter, op *ir.Operation) error {
	if len(op.Results) != 1 || len(op.Operands) != 0 {
		return ir.Errorf(op.Loc, "tollvm: memref.alloca with dynamic sizes is not supported (only static shapes)")
	}
	mt, ok := op.Results[0].Type.(ir.MemRefType)
	if !ok || mt.Layout != nil {
		return ir.Errorf(op.Loc, "tollvm: memref.alloca of %s: only identity-layout memrefs are supported", op.Results[0].Type)
	}
	elem, err := llType(mt.Elem)
	if err != nil {
		return wrapErr(op, err)
	}
	n := len(mt.Shape)
	sizes := make([]value.Value, n)
	strides := make([]value.Value, n)
	count := int64(1)
	for d := n - 1; d >= 0; d-- {
		if mt.Shape[d] == ir.Dynamic {
			return ir.Errorf(op.Loc, "tollvm: memref.alloca with dynamic sizes is not supported (only static shapes)")
		}
		sizes[d], strides[d] = i64(mt.Shape[d]), i64(count)
		count *= mt.Shape[d]
	}
	// A wrapped element count would make a stack slot smaller than the
	// buffer (allocBytes makes the same test for memref.alloc).
	if _, err := fe.allocBytes(op, sizes, elemBytes(elem)); err != nil {
		return err
	}
	name := valueHint(op.Results[0])
	if name == "" {
		name = "stack"
	}
	block := fe.cur
	if fe.prologue != nil {
		block = fe.prologue
	}
	slot := block.NewAlloca(types.NewArray(uint64(max(count, 1)), elem))
	slot.Align = allocAlign
	fe.setName(slot, name+".slot")
	ptr := fe.setName(block.NewBitCast(slot, types.NewPointer(elem)), name)
	fe.mems[op.Results[0]] = &memref{name: name, typ: mt, elem: elem, ptr: ptr, offset: i64(0), sizes: sizes, strides: strides}
	return nil
}
