package tollvm

import (
	"fmt"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/lower/abi"
)

// The shape function of a function whose result extents depend on data
// (abi.AttrShapeOf): the tiraffine lowering makes it a func.func
// f_result_shape_data(inputs..., sizes: memref<K x i64>, syms...), and it
// is emitted here, with f, as
//
//	int32_t f_result_shape_data(const desc *in..., int64_t syms..., int64_t *sizes);
//
// It checks the input descriptors as f does (the same codes: inputs come
// first in both), runs its body, whose cf.asserts number after f's, and
// reports failures through f's message buffer, so f_error explains both.

// lookupFunc finds the func.func named by a string attribute (for the
// few shape functions of a module).
func lookupFunc(m *ir.Module, name ir.Attribute) *ir.Operation {
	s, _ := name.(ir.StringAttr)
	for _, op := range m.Body().Ops {
		if op.Is(fn.Func) && ir.SymbolName(op) == string(s) {
			return op
		}
	}
	return nil
}

// shapeFuncOf finds the shape function of f in f's block, or nil.
func (me *moduleEmitter) shapeFuncOf(f *ir.Operation) *ir.Operation {
	if f.ParentBlock() == nil {
		return nil
	}
	if me.shapeFuncs == nil {
		me.shapeFuncs = map[string]*ir.Operation{}
		for _, op := range f.ParentBlock().Ops {
			if s, ok := op.Attr(abi.AttrShapeOf).(ir.StringAttr); ok && op.Is(fn.Func) {
				me.shapeFuncs[string(s)] = op
			}
		}
	}
	return me.shapeFuncs[ir.SymbolName(f)]
}

// emitShapeFunc emits @f_result_shape_data.body and its public wrapper;
// fsig is f's signature.
func (me *moduleEmitter) emitShapeFunc(op *ir.Operation, fsig *signature, errBuf, errCode *ll.Global) error {
	name := ir.SymbolName(op)
	ft, ok := fn.FuncType(op)
	if !ok || len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
		return ir.Errorf(op.Loc, "tollvm: shape function @%s has no type or body", name)
	}
	blk, err := singleBlock(op, 0)
	if err != nil {
		return err
	}
	sig, err := readSignature(op, name, ft.Inputs)
	if err != nil {
		return err
	}
	res := sig.Results()
	if len(res) != 1 || len(res[0].Mem.Shape) != 1 || res[0].Mem.Shape[0] == ir.Dynamic {
		return ir.Errorf(op.Loc, "tollvm: shape function @%s must have one result, a memref<K x i64>", name)
	}
	sizesArg := res[0]
	first := len(me.asserts)
	body, err := me.emitBody(sig, blk)
	if err != nil {
		return err
	}
	var params []*ll.Param
	for i, a := range sig.Args {
		switch {
		case a == sizesArg:
		case a.Mem == nil:
			params = append(params, ll.NewParam(a.Name, sig.elems[i]))
		case len(a.Mem.Shape) == 0:
			params = append(params, ll.NewParam(a.Name, me.ptrTo(sig.elems[i])))
		default:
			params = append(params, ll.NewParam(a.Name, types.NewPointer(me.descType(sig.elems[i], len(a.Mem.Shape)))))
		}
	}
	sizes := ll.NewParam("sizes", types.I64Ptr)
	params = append(params, sizes)
	fn := me.mod.NewFunc(name, types.I32, params...)
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.cur = fe.place(fe.newBlock("entry"))
	b := fe.cur
	param := map[*abi.Arg]*ll.Param{}
	k := 0
	for _, a := range sig.Args {
		if a != sizesArg {
			param[a] = fn.Params[k]
			k++
		}
	}
	syms := make([]value.Value, len(sig.SymArgs))
	for i, ai := range sig.SymArgs {
		syms[i] = param[sig.Args[ai]]
	}
	i32 := func(v int64) constant.Constant { return constant.NewInt(types.I32, v) }
	desc := map[*abi.Arg]*descFields{}
	var callArgs []value.Value
	var dims []value.Value // d0, d1, ... of abi.AttrAssertValues
	for ai, a := range sig.Args {
		if a == sizesArg {
			for _, bp := range abi.BodyParams(a.Type) {
				switch bp.Kind {
				case abi.ParamPtr:
					callArgs = append(callArgs, sizes)
				case abi.ParamOffset:
					callArgs = append(callArgs, i64(0))
				default:
					return ir.Errorf(op.Loc, "tollvm: unexpected parameter of the sizes of @%s", name)
				}
			}
			dims = append(dims, i64(a.Mem.Shape[0]))
			continue
		}
		p := param[a]
		if a.Mem == nil || len(a.Mem.Shape) == 0 {
			callArgs = append(callArgs, p)
			continue
		}
		f, args := fe.loadDesc(b, p, a, sig.elems[ai])
		desc[a] = f
		dims = append(dims, f.sizes...)
		callArgs = append(callArgs, args...)
	}
	// f's checks of its inputs, with f's codes and messages.
	snprintf := me.declare("snprintf", types.I32, true, types.I8Ptr, types.I64, types.I8Ptr)
	bufPtr := constant.NewGetElementPtr(errBuf.ContentType, errBuf, i64(0), i64(0))
	bufPtr.InBounds = true
	var fails []*ll.Block
	// The pointer checks are numbered after all of f's other checks, its
	// results' included: they take f's codes, for the arguments that are
	// f's inputs (the first ones of both).
	var checks []abi.EntryCheck
	for _, ec := range sig.EntryChecks() {
		if ec.Kind != abi.CheckNonNull {
			checks = append(checks, ec)
		}
	}
	for _, ec := range fsig.EntryChecks() {
		if ec.Kind == abi.CheckNonNull && ec.Arg.Index < sizesArg.Index {
			ec.Arg = sig.Args[ec.Arg.Index]
			checks = append(checks, ec)
		}
	}
	for _, ec := range checks {
		f := desc[ec.Arg]
		if f == nil && ec.Kind != abi.CheckNonNull {
			continue // the sizes array is the caller's plain pointer
		}
		var ok value.Value
		args := []value.Value{bufPtr, i64(abi.ErrBufSize), me.cstring(ec.Format)}
		switch ec.Kind {
		case abi.CheckExtent:
			expect, err := fe.lowerExpr(ec.Arg.Extents[ec.Dim], affineEnv{syms: syms})
			if err != nil {
				return fmt.Errorf("tollvm: %s extent of argument '%s': %v", abi.AttrExtents, ec.Arg.Name, err)
			}
			ok = fe.cur.NewICmp(enum.IPredEQ, f.sizes[ec.Dim], expect)
			if ec.Symbolic {
				args = append(args, expect)
			}
			args = append(args, f.sizes[ec.Dim])
		case abi.CheckUnitStride:
			ok = fe.cur.NewICmp(enum.IPredEQ, f.strides[ec.Dim], i64(1))
			args = append(args, f.strides[ec.Dim])
		case abi.CheckNonNull:
			ok = fe.nonNullOK(fe.cur, ec.Arg, param[ec.Arg], f)
		}
		if ok == constant.True {
			continue
		}
		next := fe.place(fe.newBlock("check"))
		fail := fe.newBlock("fail")
		fe.cur.NewCondBr(ok, next, fail)
		fe.cur = next
		fail.NewCall(snprintf, args...)
		fail.NewStore(i32(int64(ec.Code)), errCode)
		fail.NewRet(i32(int64(ec.Code)))
		fails = append(fails, fail)
	}
	rc := fe.cur.NewCall(body, callArgs...)
	if err := fe.formatAssertList(me.asserts[first:], rc, affineEnv{dims: dims, syms: syms}, bufPtr, errCode); err != nil {
		return err
	}
	fe.cur.NewRet(rc)
	for _, f := range fails {
		fe.place(f)
	}
	return nil
}
