package tollvm

import (
	"fmt"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/lower/abi"
)

// emitErrorFunc emits `const char *f_error(int32_t code)`: "success" for 0;
// for the code of the last failure, the message formatted then (with the
// actual extent); for another known code, that check's message without
// run-time values; otherwise "unknown error code". The buffer is a module
// global, so messages are not thread-safe across concurrent failing calls.
func (me *moduleEmitter) emitErrorFunc(sig *signature, errBuf, errCode *ll.Global, checks []check) {
	code := ll.NewParam("code", types.I32)
	fn := me.mod.NewFunc(sig.Name+"_error", types.I8Ptr, code)
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	entry := fe.place(fe.newBlock("entry"))
	success := fe.place(fe.newBlock("success"))
	success.NewRet(me.cstring("success"))
	unknown := fe.place(fe.newBlock("unknown"))
	unknown.NewRet(me.cstring("unknown error code"))
	bufPtr := constant.NewGetElementPtr(errBuf.ContentType, errBuf, i64(0), i64(0))
	bufPtr.InBounds = true
	cases := []*ll.Case{ll.NewCase(constant.NewInt(types.I32, 0), success)}
	for _, c := range checks {
		blk := fe.place(fe.newBlock(fmt.Sprintf("code%d", c.code)))
		last := blk.NewLoad(types.I32, errCode)
		isLast := blk.NewICmp(enum.IPredEQ, last, constant.NewInt(types.I32, int64(c.code)))
		blk.NewRet(blk.NewSelect(isLast, bufPtr, me.cstring(c.static)))
		cases = append(cases, ll.NewCase(constant.NewInt(types.I32, int64(c.code)), blk))
	}
	entry.NewSwitch(code, unknown, cases...)
}

// emitResultShape emits `int32_t f_result_shape(int64_t syms..., int64_t
// *sizes)`: the expected extents of the last tir.num_results memref
// arguments, all dimensions of each in order. It returns 0, or 1 when some
// extent is dynamic without tir.extents (written as -1).
func (me *moduleEmitter) emitResultShape(sig *signature) error {
	var params []*ll.Param
	for _, ai := range sig.SymArgs {
		params = append(params, ll.NewParam(sig.Args[ai].Name, types.I64))
	}
	sizes := ll.NewParam("sizes", types.I64Ptr)
	params = append(params, sizes)
	fn := me.mod.NewFunc(sig.Name+"_result_shape", types.I32, params...)
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.cur = fe.place(fe.newBlock("entry"))
	syms := make([]value.Value, len(sig.SymArgs))
	for i := range syms {
		syms[i] = fn.Params[i]
	}
	status := int64(0)
	pos := int64(0)
	for _, a := range sig.Results() {
		for d := range a.Mem.Shape {
			var v value.Value = i64(-1)
			if a.Known[d] {
				var err error
				if v, err = fe.lowerExpr(a.Extents[d], affineEnv{syms: syms}); err != nil {
					return fmt.Errorf("tollvm: %s extent of argument '%s': %v", abi.AttrExtents, a.Name, err)
				}
			} else {
				status = 1
			}
			p := fe.cur.NewGetElementPtr(types.I64, sizes, i64(pos))
			p.InBounds = true
			st := fe.cur.NewStore(v, p)
			st.Align = 8
			pos++
		}
	}
	fe.cur.NewRet(constant.NewInt(types.I32, status))
	return nil
}
