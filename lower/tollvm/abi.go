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
	"tir/dialects/sizeexpr"
	"tir/lower/abi"
)

// signature is the ABI description of a function (package abi) with the
// LLVM type of each argument: a memref's element type or a scalar's type.
type signature struct {
	*abi.Signature
	elems []types.Type
}

// readSignature reads the ABI description and converts argument types.
func readSignature(op *ir.Operation, name string, inputs []ir.Type) (*signature, error) {
	s, err := abi.Read(op, name, inputs)
	if err != nil {
		if d, ok := err.(*ir.Diagnostic); ok {
			d.Msg = "tollvm: " + d.Msg
		}
		return nil, err
	}
	sig := &signature{Signature: s}
	for _, a := range s.Args {
		t := a.Type
		if a.Mem != nil {
			t = a.Mem.Elem
		}
		lt, err := llType(t)
		if err != nil {
			return nil, ir.Errorf(op.Loc, "tollvm: argument '%s': %v", a.Name, err)
		}
		if _, isVec := lt.(*types.VectorType); isVec && a.Mem != nil {
			return nil, ir.Errorf(op.Loc, "tollvm: argument '%s': memrefs of vectors are not supported", a.Name)
		}
		sig.elems = append(sig.elems, lt)
	}
	return sig, nil
}

func (me *moduleEmitter) ptrTo(t types.Type) *types.PointerType {
	p := types.NewPointer(t)
	p.AddrSpace = types.AddrSpace(me.tgt.GlobalAddrSpace)
	return p
}

// descType is MLIR's strided memref descriptor struct for a rank-n memref
// of elem: {elem* allocated, elem* aligned, i64 offset, [n x i64] sizes,
// [n x i64] strides}.
func (me *moduleEmitter) descType(elem types.Type, n int) *types.StructType {
	arr := types.NewArray(uint64(n), types.I64)
	return types.NewStruct(me.ptrTo(elem), me.ptrTo(elem), types.I64, arr, arr)
}

// emitFunc lowers one func.func to @f.body, @f, @f_error and
// @f_result_shape.
func (me *moduleEmitter) emitFunc(op *ir.Operation) error {
	name := ir.SymbolName(op)
	if name == "" {
		return ir.Errorf(op.Loc, "tollvm: func.func without sym_name")
	}
	ft, ok := fn.FuncType(op)
	if !ok {
		return ir.Errorf(op.Loc, "tollvm: func.func @%s has no function_type", name)
	}
	if len(ft.Results) != 0 {
		return ir.Errorf(op.Loc, "tollvm: func.func @%s returns values; the ABI needs destination-passing style (results as trailing memref arguments)", name)
	}
	if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
		return ir.Errorf(op.Loc, "tollvm: func.func @%s is a declaration; only definitions are lowered", name)
	}
	blk, err := singleBlock(op, 0)
	if err != nil {
		return err
	}
	if len(blk.Args) != len(ft.Inputs) {
		return ir.Errorf(op.Loc, "tollvm: func.func @%s has %d block arguments for %d inputs", name, len(blk.Args), len(ft.Inputs))
	}
	sig, err := readSignature(op, name, ft.Inputs)
	if err != nil {
		return err
	}
	me.asserts = nil
	me.funcName, me.errBuf, me.errCode, me.allocFails = name, nil, nil, false
	body, err := me.emitBody(sig, blk)
	if err != nil {
		return err
	}
	errBuf, errCode, checks, err := me.emitWrapper(sig, body)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	// f_result_shape_data, when the tiraffine lowering made one, shares
	// f's codes and message buffer (shape_data.go).
	if shape := me.shapeFuncOf(op); shape != nil {
		if err := me.emitShapeFunc(shape, sig, errBuf, errCode); err != nil {
			return err
		}
	}
	checks = append(checks, me.asserts...)
	if me.allocFails {
		checks = append(checks, check{code: abi.CodeAllocFailed, static: abi.AllocFailStatic})
	}
	me.emitErrorFunc(sig, errBuf, errCode, checks)
	if err := me.emitResultShape(sig); err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	return nil
}

// emitBody emits `internal i32 @f.body(...)` with the function's ops.
func (me *moduleEmitter) emitBody(sig *signature, blk *ir.Block) (*ll.Func, error) {
	params := me.bodyParams(sig.Args, sig.elems)
	// The body returns 0, or the code of a failed cf.assert (a run-time
	// check the tir lowering placed before any write).
	fn := me.mod.NewFunc(sig.Name+".body", types.I32, params...)
	fn.Linkage = enum.LinkageInternal
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.prologue = fe.place(fe.newBlock("entry"))
	start := fe.place(fe.newBlock("start"))
	fe.cur = start
	fe.bindParams(sig.Args, sig.elems, blk, paramValues(fn.Params))
	fe.foldOffsets(blk)
	if _, err := fe.emitBlock(blk); err != nil {
		return nil, err
	}
	if fe.cur.Term == nil {
		fe.cur.NewRet(constant.NewInt(types.I32, 0))
	}
	fe.prologue.NewBr(start)
	return fn, nil
}

// descFields are the fields of a memref descriptor argument, loaded.
type descFields struct {
	aligned, offset value.Value
	sizes, strides  []value.Value
}

// loadDesc loads, in block b, the fields of the descriptor p points to
// (argument a, of element type elem), and returns them with the body's
// arguments they make, in abi.BodyParams order.
func (fe *fnEmitter) loadDesc(b *ll.Block, p value.Value, a *abi.Arg, elem types.Type) (*descFields, []value.Value) {
	n := len(a.Mem.Shape)
	dt := fe.me.descType(elem, n)
	field := func(idx ...int64) value.Value {
		ids := []value.Value{constant.NewInt(types.I32, 0), constant.NewInt(types.I32, idx[0])}
		if len(idx) > 1 {
			ids = append(ids, i64(idx[1]))
		}
		gep := b.NewGetElementPtr(dt, p, ids...)
		gep.InBounds = true
		return gep
	}
	f := &descFields{sizes: make([]value.Value, n), strides: make([]value.Value, n)}
	f.aligned = fe.setName(b.NewLoad(fe.me.ptrTo(elem), field(1)), a.Name+".aligned")
	f.offset = fe.setName(b.NewLoad(types.I64, field(2)), a.Name+".offset")
	for d := 0; d < n; d++ {
		f.sizes[d] = fe.setName(b.NewLoad(types.I64, field(3, int64(d))), fmt.Sprintf("%s.size%d", a.Name, d))
		f.strides[d] = fe.setName(b.NewLoad(types.I64, field(4, int64(d))), fmt.Sprintf("%s.stride%d", a.Name, d))
	}
	var args []value.Value
	for _, bp := range abi.BodyParams(a.Type) {
		switch bp.Kind {
		case abi.ParamPtr:
			args = append(args, f.aligned)
		case abi.ParamOffset:
			args = append(args, f.offset)
		case abi.ParamSize:
			args = append(args, f.sizes[bp.Dim])
		case abi.ParamStride:
			args = append(args, f.strides[bp.Dim])
		}
	}
	return f, args
}

// bodyParams makes the LLVM parameters of the code that computes with
// args (abi.BodyParams of each): buffer pointers are noalias (outputs never
// alias inputs, temporaries are fresh, and inputs are only read).
func (me *moduleEmitter) bodyParams(args []*abi.Arg, elems []types.Type) []*ll.Param {
	var params []*ll.Param
	for i, a := range args {
		for _, bp := range abi.BodyParams(a.Type) {
			var p *ll.Param
			switch bp.Kind {
			case abi.ParamScalar:
				p = ll.NewParam(a.Name, elems[i])
			case abi.ParamPtr:
				p = ll.NewParam(a.Name, me.ptrTo(elems[i]))
				p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias)
			case abi.ParamOffset:
				p = ll.NewParam(a.Name+".offset", types.I64)
			case abi.ParamSize:
				p = ll.NewParam(fmt.Sprintf("%s.size%d", a.Name, bp.Dim), types.I64)
			case abi.ParamStride:
				p = ll.NewParam(fmt.Sprintf("%s.stride%d", a.Name, bp.Dim), types.I64)
			}
			params = append(params, p)
		}
	}
	return params
}

// bindParams maps the block arguments of the IR body to the LLVM values
// of bodyParams (params, in that order): scalars directly, memrefs as
// descriptors whose static parts are constants.
func (fe *fnEmitter) bindParams(args []*abi.Arg, elems []types.Type, blk *ir.Block, params []value.Value) {
	k := 0
	for i, a := range args {
		bps := abi.BodyParams(a.Type)
		ps := params[k : k+len(bps)]
		k += len(bps)
		if a.Mem == nil {
			fe.vals[blk.Args[i]] = ps[0]
			continue
		}
		n := len(a.Mem.Shape)
		mr := &memref{name: a.Name, typ: *a.Mem, elem: elems[i], ptr: ps[0], offset: i64(0), sizes: make([]value.Value, n), strides: make([]value.Value, n)}
		for d, s := range a.Mem.Shape {
			mr.sizes[d] = i64(s)
		}
		if n > 0 {
			mr.strides[n-1] = i64(1)
		}
		for j, bp := range bps {
			switch bp.Kind {
			case abi.ParamOffset:
				mr.offset = ps[j]
			case abi.ParamSize:
				mr.sizes[bp.Dim] = ps[j]
			case abi.ParamStride:
				mr.strides[bp.Dim] = ps[j]
			}
		}
		fe.mems[blk.Args[i]] = mr
	}
}

// foldOffsets adds each argument's element offset to its pointer once, in
// the entry block, so that an access computes pointer + subscript instead of
// pointer + (offset + subscript). llc does not reassociate that sum, so a
// gather (whose subscript is loaded, not an induction variable that loop
// strength reduction rewrites) paid an add per access and kept every offset
// live in a register across the loop. The sum is not inbounds: an empty
// argument's offset may point anywhere, and it is then never read.
func (fe *fnEmitter) foldOffsets(blk *ir.Block) {
	for _, a := range blk.Args {
		mr, ok := fe.mems[a]
		if !ok {
			continue
		}
		if c, ok := constInt(mr.offset); ok && c == 0 {
			continue
		}
		base := fe.prologue.NewGetElementPtr(mr.elem, mr.ptr, mr.offset)
		mr.ptr, mr.offset = fe.setName(base, mr.name+".base"), i64(0)
	}
}

// check is one entry check of @f: a failure returns code and formats msg
// (a printf format taking the values of args) into the error buffer.
type check struct {
	code   int
	ok     value.Value
	format string
	args   []value.Value
	static string // the message f_error returns without run-time values
	// values are those of a cf.assert's format (abi.AttrAssertValues),
	// computed by the wrapper when the body fails with code.
	values []sizeexpr.Expr
}

// emitWrapper emits the public `i32 @f(...)`: it loads every descriptor
// field, runs the entry checks (before any write: the body has not started)
// and calls @f.body. It returns the error buffer, the last-error-code
// global and the checks, for @f_error.
func (me *moduleEmitter) emitWrapper(sig *signature, body *ll.Func) (*ll.Global, *ll.Global, []check, error) {
	var params []*ll.Param
	for i, a := range sig.Args {
		switch {
		case a.Mem == nil:
			params = append(params, ll.NewParam(a.Name, sig.elems[i]))
		case len(a.Mem.Shape) == 0:
			params = append(params, ll.NewParam(a.Name, me.ptrTo(sig.elems[i])))
		default:
			params = append(params, ll.NewParam(a.Name, types.NewPointer(me.descType(sig.elems[i], len(a.Mem.Shape)))))
		}
	}
	fn := me.mod.NewFunc(sig.Name, types.I32, params...)
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.cur = fe.place(fe.newBlock("entry"))
	b := fe.cur

	syms := make([]value.Value, len(sig.SymArgs))
	for i, ai := range sig.SymArgs {
		syms[i] = fn.Params[ai]
	}
	symEnv := affineEnv{syms: syms}
	i32 := func(v int64) constant.Constant { return constant.NewInt(types.I32, v) }
	// The descriptor fields of every memref argument.
	desc := make([]*descFields, len(sig.Args))
	var callArgs []value.Value
	for ai, a := range sig.Args {
		p := fn.Params[ai]
		if a.Mem == nil || len(a.Mem.Shape) == 0 {
			callArgs = append(callArgs, p)
			continue
		}
		f, args := fe.loadDesc(b, p, a, sig.elems[ai])
		desc[ai] = f
		callArgs = append(callArgs, args...)
	}
	var checks []check
	for _, ec := range sig.EntryChecks() {
		f := desc[ec.Arg.Index]
		c := check{code: ec.Code, format: ec.Format, static: ec.Static}
		switch ec.Kind {
		case abi.CheckExtent:
			expect, err := fe.lowerExpr(ec.Arg.Extents[ec.Dim], symEnv)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("tollvm: %s extent of argument '%s': %v", abi.AttrExtents, ec.Arg.Name, err)
			}
			c.ok = fe.setName(b.NewICmp(enum.IPredEQ, f.sizes[ec.Dim], expect), fmt.Sprintf("%s.ok%d", ec.Arg.Name, ec.Dim))
			c.args = []value.Value{f.sizes[ec.Dim]}
			if ec.Symbolic {
				c.args = []value.Value{expect, f.sizes[ec.Dim]}
			}
		case abi.CheckUnitStride:
			c.ok = fe.setName(b.NewICmp(enum.IPredEQ, f.strides[ec.Dim], i64(1)), ec.Arg.Name+".unitstride")
			c.args = []value.Value{f.strides[ec.Dim]}
		case abi.CheckNonNull:
			c.ok = fe.setName(fe.nonNullOK(b, ec.Arg, fn.Params[ec.Arg.Index], f), ec.Arg.Name+".nonnull")
		}
		checks = append(checks, c)
	}

	errBuf, errCode := me.errGlobals()

	// The checks run in sequence on the fast path; failures branch to
	// blocks placed after the call, which format the message and return.
	snprintf := me.declare("snprintf", types.I32, true, types.I8Ptr, types.I64, types.I8Ptr)
	bufPtr := constant.NewGetElementPtr(errBuf.ContentType, errBuf, i64(0), i64(0))
	bufPtr.InBounds = true
	var fails []*ll.Block
	for _, c := range checks {
		if c.ok == constant.True {
			continue // a pointer check of a tensor that is always empty
		}
		next := fe.place(fe.newBlock("check"))
		fail := fe.newBlock("fail")
		fe.cur.NewCondBr(c.ok, next, fail)
		fe.cur = next
		args := append([]value.Value{bufPtr, i64(abi.ErrBufSize), me.cstring(c.format)}, c.args...)
		fail.NewCall(snprintf, args...)
		fail.NewStore(i32(int64(c.code)), errCode)
		fail.NewRet(i32(int64(c.code)))
		fails = append(fails, fail)
	}
	rc := fe.cur.NewCall(body, callArgs...)
	var sizes []value.Value // the dimensions d0, d1, ... of abi.AttrAssertValues
	for _, f := range desc {
		if f != nil {
			sizes = append(sizes, f.sizes...)
		}
	}
	if err := fe.formatAsserts(rc, affineEnv{dims: sizes, syms: syms}, bufPtr, errCode); err != nil {
		return nil, nil, nil, err
	}
	fe.cur.NewRet(rc)
	for _, f := range fails {
		fe.place(f)
	}
	return errBuf, errCode, checks, nil
}

// nonNullOK is the condition of an abi.CheckNonNull of argument a, in
// block b: the pointer p of a 0-d argument is not NULL; the aligned
// pointer of a descriptor f is not NULL, or one of its sizes is at most 0
// (an empty tensor is never accessed, and NumPy or MLIR may give it any
// pointer). The extent checks run first, so a dimension of a static
// extent needs no test of its size.
func (fe *fnEmitter) nonNullOK(b *ll.Block, a *abi.Arg, p value.Value, f *descFields) value.Value {
	ptr := p
	if f != nil {
		ptr = f.aligned
	}
	var sizes []value.Value // those that may be 0 (or less) here
	if f != nil {
		for d, size := range f.sizes {
			c, static := a.Extents[d].Const()
			switch {
			case !a.Known[d] || !static:
				sizes = append(sizes, size)
			case c <= 0:
				return constant.True
			}
		}
	}
	pt, _ := ptr.Type().(*types.PointerType)
	ok := value.Value(b.NewICmp(enum.IPredNE, ptr, constant.NewNull(pt)))
	for _, size := range sizes {
		ok = b.NewOr(ok, b.NewICmp(enum.IPredSLE, size, i64(0)))
	}
	return ok
}

// paramValues converts a parameter list for bindParams.
func paramValues(ps []*ll.Param) []value.Value {
	vs := make([]value.Value, len(ps))
	for i, p := range ps {
		vs[i] = p
	}
	return vs
}
