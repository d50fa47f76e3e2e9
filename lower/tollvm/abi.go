package tollvm

import (
	"fmt"
	"strings"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Function attributes read by the ABI (spec 5.1), all optional:
//
//	tir.arg_names   = ["inp", "out", "N"]          one StringAttr per argument
//	tir.dim_names   = [["I", "J"], ["I"], []]      one ArrayAttr of StringAttr per argument
//	tir.extents     = [affine_map<()[s0] -> (s0 + 2)>, ..., unit]
//	                  one AffineMapAttr per argument (unit or an empty map for
//	                  non-memrefs) giving the expected extent of each
//	                  dimension; symbol s_i is the i-th of the function's
//	                  trailing index arguments
//	tir.num_results = 1 : i64                      the last k memref arguments are results
const (
	attrArgNames   = "tir.arg_names"
	attrDimNames   = "tir.dim_names"
	attrExtents    = "tir.extents"
	attrNumResults = "tir.num_results"
)

// errBufSize is the size of the buffer f_error's messages are formatted in.
const errBufSize = 256

// argInfo describes one function argument as the ABI sees it.
type argInfo struct {
	index int
	name  string
	dims  []string
	typ   ir.Type
	mem   *ir.MemRefType // nil for scalars
	elem  types.Type     // LLVM element type (memrefs) or value type (scalars)
	// extents are the expected sizes of a memref's dimensions: the static
	// size, or tir.extents' expression over the symbols ir.MapSym(i); known
	// is false for a dynamic size without tir.extents (unchecked).
	extents []sizeexpr.Expr
	known   []bool
}

// signature is what the wrapper, the body and the helpers share.
type signature struct {
	name       string
	args       []*argInfo
	symArgs    []int // the trailing index arguments: symbol i is args[symArgs[i]]
	numResults int
}

// symName is the printed name of symbol i (for messages).
func (s *signature) symName(i int) string { return s.args[s.symArgs[i]].name }

// readSignature collects argument types and the tir.* attributes.
func readSignature(op *ir.Operation, name string, inputs []ir.Type) (*signature, error) {
	sig := &signature{name: name}
	argNames, _ := op.Attr(attrArgNames).(ir.ArrayAttr)
	dimNames, _ := op.Attr(attrDimNames).(ir.ArrayAttr)
	var extents ir.ArrayAttr
	if a := op.Attr(attrExtents); a != nil {
		var ok bool
		if extents, ok = a.(ir.ArrayAttr); !ok || len(extents) != len(inputs) {
			return nil, ir.Errorf(op.Loc, "tollvm: %s must be an array with one entry per argument", attrExtents)
		}
	}
	for i := len(inputs) - 1; i >= 0; i-- {
		if _, ok := inputs[i].(ir.IndexType); !ok {
			break
		}
		sig.symArgs = append([]int{i}, sig.symArgs...)
	}
	for i, t := range inputs {
		a := &argInfo{index: i, name: fmt.Sprintf("arg%d", i), typ: t}
		if i < len(argNames) {
			if s, ok := argNames[i].(ir.StringAttr); ok && s != "" {
				a.name = string(s)
			}
		}
		mt, isMem := t.(ir.MemRefType)
		if !isMem {
			lt, err := llType(t)
			if err != nil {
				return nil, ir.Errorf(op.Loc, "tollvm: argument '%s': %v", a.name, err)
			}
			a.elem = lt
			sig.args = append(sig.args, a)
			continue
		}
		a.mem = &mt
		lt, err := llType(mt.Elem)
		if err != nil {
			return nil, ir.Errorf(op.Loc, "tollvm: argument '%s': %v", a.name, err)
		}
		if _, isVec := lt.(*types.VectorType); isVec {
			return nil, ir.Errorf(op.Loc, "tollvm: argument '%s': memrefs of vectors are not supported", a.name)
		}
		a.elem = lt
		var dn ir.ArrayAttr
		if i < len(dimNames) {
			dn, _ = dimNames[i].(ir.ArrayAttr)
		}
		var em *ir.AffineMap
		if extents != nil {
			if m, ok := extents[i].(ir.AffineMapAttr); ok {
				em = &m.Map
				if em.NumDims != 0 || len(em.Results) != len(mt.Shape) || em.NumSyms > len(sig.symArgs) {
					return nil, ir.Errorf(op.Loc, "tollvm: %s entry %s of argument '%s' must have no dims, at most %d symbols and %d results", attrExtents, m, a.name, len(sig.symArgs), len(mt.Shape))
				}
			}
		}
		for d, s := range mt.Shape {
			dname := fmt.Sprintf("d%d", d)
			if d < len(dn) {
				if s, ok := dn[d].(ir.StringAttr); ok && s != "" {
					dname = string(s)
				}
			}
			a.dims = append(a.dims, dname)
			switch {
			case s != ir.Dynamic:
				a.extents = append(a.extents, sizeexpr.Const(s))
				a.known = append(a.known, true)
			case em != nil:
				a.extents = append(a.extents, em.Results[d])
				a.known = append(a.known, true)
			default:
				a.extents = append(a.extents, sizeexpr.Expr{})
				a.known = append(a.known, false)
			}
		}
		sig.args = append(sig.args, a)
	}
	if a, ok := op.Attr(attrNumResults).(ir.IntegerAttr); ok {
		sig.numResults = int(a.Value)
	}
	nmem := 0
	for _, a := range sig.args {
		if a.mem != nil {
			nmem++
		}
	}
	if sig.numResults < 0 || sig.numResults > nmem {
		return nil, ir.Errorf(op.Loc, "tollvm: %s = %d but the function has %d memref arguments", attrNumResults, sig.numResults, nmem)
	}
	return sig, nil
}

// bodyParam is one parameter of @f.body derived from an argument.
type bodyParam struct {
	kind string // "ptr", "offset", "size", "stride", "scalar"
	dim  int
}

// bodyParams lists the @f.body parameters of an argument: a scalar as is;
// a memref as its aligned pointer (noalias), its offset, the sizes of its
// dynamic dimensions and the strides of all but the innermost dimension
// (which the entry checks fix to 1). Static sizes and the unit stride are
// constants in the body, which lets llc fold address arithmetic.
func bodyParams(a *argInfo) []bodyParam {
	if a.mem == nil {
		return []bodyParam{{kind: "scalar"}}
	}
	n := len(a.mem.Shape)
	if n == 0 {
		return []bodyParam{{kind: "ptr"}}
	}
	ps := []bodyParam{{kind: "ptr"}, {kind: "offset"}}
	for d, s := range a.mem.Shape {
		if s == ir.Dynamic {
			ps = append(ps, bodyParam{kind: "size", dim: d})
		}
	}
	for d := 0; d < n-1; d++ {
		ps = append(ps, bodyParam{kind: "stride", dim: d})
	}
	return ps
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
	ta, ok := op.Attr("function_type").(ir.TypeAttr)
	ft, ok2 := ta.Type.(ir.FunctionType)
	if !ok || !ok2 {
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
	body, err := me.emitBody(sig, blk)
	if err != nil {
		return err
	}
	errBuf, errCode, checks, err := me.emitWrapper(sig, body)
	if err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	me.emitErrorFunc(sig, errBuf, errCode, append(checks, me.asserts...))
	if err := me.emitResultShape(sig); err != nil {
		return ir.Errorf(op.Loc, "%v", err)
	}
	return nil
}

// emitBody emits `internal void @f.body(...)` with the function's ops.
func (me *moduleEmitter) emitBody(sig *signature, blk *ir.Block) (*ll.Func, error) {
	var params []*ll.Param
	for _, a := range sig.args {
		for _, bp := range bodyParams(a) {
			var p *ll.Param
			switch bp.kind {
			case "scalar":
				p = ll.NewParam(a.name, a.elem)
			case "ptr":
				p = ll.NewParam(a.name, me.ptrTo(a.elem))
				p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias)
			case "offset":
				p = ll.NewParam(a.name+".offset", types.I64)
			case "size":
				p = ll.NewParam(fmt.Sprintf("%s.size%d", a.name, bp.dim), types.I64)
			case "stride":
				p = ll.NewParam(fmt.Sprintf("%s.stride%d", a.name, bp.dim), types.I64)
			}
			params = append(params, p)
		}
	}
	// The body returns 0, or the code of a failed cf.assert (a run-time
	// check the tir lowering placed before any write).
	fn := me.mod.NewFunc(sig.name+".body", types.I32, params...)
	fn.Linkage = enum.LinkageInternal
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.prologue = fe.place(fe.newBlock("entry"))
	start := fe.place(fe.newBlock("start"))
	fe.cur = start
	k := 0
	for i, a := range sig.args {
		bps := bodyParams(a)
		ps := fn.Params[k : k+len(bps)]
		k += len(bps)
		if a.mem == nil {
			fe.vals[blk.Args[i]] = ps[0]
			continue
		}
		n := len(a.mem.Shape)
		mr := &memref{name: a.name, typ: *a.mem, elem: a.elem, ptr: ps[0], offset: i64(0), sizes: make([]value.Value, n), strides: make([]value.Value, n)}
		for d, s := range a.mem.Shape {
			mr.sizes[d] = i64(s)
		}
		if n > 0 {
			mr.strides[n-1] = i64(1)
		}
		for j, bp := range bps {
			switch bp.kind {
			case "offset":
				mr.offset = ps[j]
			case "size":
				mr.sizes[bp.dim] = ps[j]
			case "stride":
				mr.strides[bp.dim] = ps[j]
			}
		}
		fe.mems[blk.Args[i]] = mr
	}
	if _, err := fe.emitBlock(blk); err != nil {
		return nil, err
	}
	if fe.cur.Term == nil {
		fe.cur.NewRet(constant.NewInt(types.I32, 0))
	}
	fe.prologue.NewBr(start)
	return fn, nil
}

// check is one entry check of @f: a failure returns code and formats msg
// (a printf format taking the values of args) into the error buffer.
type check struct {
	code   int
	ok     value.Value
	format string
	args   []value.Value
	static string // the message f_error returns without run-time values
}

// emitWrapper emits the public `i32 @f(...)`: it loads every descriptor
// field, runs the entry checks (before any write: the body has not started)
// and calls @f.body. It returns the error buffer, the last-error-code
// global and the checks, for @f_error.
func (me *moduleEmitter) emitWrapper(sig *signature, body *ll.Func) (*ll.Global, *ll.Global, []check, error) {
	var params []*ll.Param
	for _, a := range sig.args {
		switch {
		case a.mem == nil:
			params = append(params, ll.NewParam(a.name, a.elem))
		case len(a.mem.Shape) == 0:
			params = append(params, ll.NewParam(a.name, me.ptrTo(a.elem)))
		default:
			params = append(params, ll.NewParam(a.name, types.NewPointer(me.descType(a.elem, len(a.mem.Shape)))))
		}
	}
	fn := me.mod.NewFunc(sig.name, types.I32, params...)
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.cur = fe.place(fe.newBlock("entry"))
	b := fe.cur

	syms := make([]value.Value, len(sig.symArgs))
	for i, ai := range sig.symArgs {
		syms[i] = fn.Params[ai]
	}
	symEnv := affineEnv{syms: syms}
	var callArgs []value.Value
	var checks []check
	i32 := func(v int64) constant.Constant { return constant.NewInt(types.I32, v) }
	for ai, a := range sig.args {
		p := fn.Params[ai]
		if a.mem == nil || len(a.mem.Shape) == 0 {
			callArgs = append(callArgs, p)
			continue
		}
		n := len(a.mem.Shape)
		dt := me.descType(a.elem, n)
		field := func(idx ...int64) value.Value {
			ids := []value.Value{i32(0), i32(idx[0])}
			if len(idx) > 1 {
				ids = append(ids, i64(idx[1]))
			}
			gep := b.NewGetElementPtr(dt, p, ids...)
			gep.InBounds = true
			return gep
		}
		aligned := fe.setName(b.NewLoad(me.ptrTo(a.elem), field(1)), a.name+".aligned")
		offset := fe.setName(b.NewLoad(types.I64, field(2)), a.name+".offset")
		sizes := make([]value.Value, n)
		strides := make([]value.Value, n)
		for d := 0; d < n; d++ {
			sizes[d] = fe.setName(b.NewLoad(types.I64, field(3, int64(d))), fmt.Sprintf("%s.size%d", a.name, d))
			strides[d] = fe.setName(b.NewLoad(types.I64, field(4, int64(d))), fmt.Sprintf("%s.stride%d", a.name, d))
		}
		for d := 0; d < n; d++ {
			if !a.known[d] {
				continue
			}
			expect, err := fe.lowerExpr(a.extents[d], symEnv)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("tollvm: %s extent of argument '%s': %v", attrExtents, a.name, err)
			}
			ok := fe.setName(b.NewICmp(enum.IPredEQ, sizes[d], expect), fmt.Sprintf("%s.ok%d", a.name, d))
			what := fmt.Sprintf("argument '%s' dimension %s: expected extent ", a.name, a.dims[d])
			c := check{code: len(checks) + 1, ok: ok}
			if _, static := a.extents[d].Const(); static {
				c.static = what + a.extents[d].String()
				c.format = escapePercent(c.static) + ", got %lld"
				c.args = []value.Value{sizes[d]}
			} else {
				text := sig.exprText(a.extents[d])
				c.static = what + text
				c.format = escapePercent(c.static) + " = %lld, got %lld"
				c.args = []value.Value{expect, sizes[d]}
			}
			checks = append(checks, c)
		}
		last := n - 1
		checks = append(checks, check{
			code:   len(checks) + 1,
			ok:     fe.setName(b.NewICmp(enum.IPredEQ, strides[last], i64(1)), a.name+".unitstride"),
			static: fmt.Sprintf("argument '%s' dimension %s: innermost stride must be 1", a.name, a.dims[last]),
			args:   []value.Value{strides[last]},
		})
		checks[len(checks)-1].format = escapePercent(checks[len(checks)-1].static) + ", got %lld"
		for _, bp := range bodyParams(a) {
			switch bp.kind {
			case "ptr":
				callArgs = append(callArgs, aligned)
			case "offset":
				callArgs = append(callArgs, offset)
			case "size":
				callArgs = append(callArgs, sizes[bp.dim])
			case "stride":
				callArgs = append(callArgs, strides[bp.dim])
			}
		}
	}

	errBuf := me.mod.NewGlobalDef(me.globalName(sig.name+".errbuf"), constant.NewZeroInitializer(types.NewArray(errBufSize, types.I8)))
	errBuf.Linkage = enum.LinkageInternal
	errCode := me.mod.NewGlobalDef(me.globalName(sig.name+".errcode"), constant.NewInt(types.I32, 0))
	errCode.Linkage = enum.LinkageInternal

	// The checks run in sequence on the fast path; failures branch to
	// blocks placed after the call, which format the message and return.
	snprintf := me.declare("snprintf", types.I32, true, types.I8Ptr, types.I64, types.I8Ptr)
	bufPtr := constant.NewGetElementPtr(errBuf.ContentType, errBuf, i64(0), i64(0))
	bufPtr.InBounds = true
	var fails []*ll.Block
	for _, c := range checks {
		next := fe.place(fe.newBlock("check"))
		fail := fe.newBlock("fail")
		fe.cur.NewCondBr(c.ok, next, fail)
		fe.cur = next
		args := append([]value.Value{bufPtr, i64(errBufSize), me.cstring(c.format)}, c.args...)
		fail.NewCall(snprintf, args...)
		fail.NewStore(i32(int64(c.code)), errCode)
		fail.NewRet(i32(int64(c.code)))
		fails = append(fails, fail)
	}
	rc := fe.cur.NewCall(body, callArgs...)
	fe.cur.NewRet(rc)
	for _, f := range fails {
		fe.place(f)
	}
	return errBuf, errCode, checks, nil
}

// exprText prints an extent expression with the symbols named after their
// arguments (N + 2).
func (s *signature) exprText(e sizeexpr.Expr) string {
	named := e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
		if i := v.Order - 1000; v.Kind == sizeexpr.SymbolVar && i >= 0 && i < len(s.symArgs) {
			return sizeexpr.Sym(s.symName(i), v.Order), true
		}
		return sizeexpr.Expr{}, false
	})
	return named.String()
}

func escapePercent(s string) string { return strings.ReplaceAll(s, "%", "%%") }
