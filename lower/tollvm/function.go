package tollvm

import (
	"fmt"
	"strconv"
	"strings"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/cf"
	"tir/dialects/fn"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/lower/abi"
)

// memref is how a memref value lives in LLVM IR: the pieces of MLIR's
// strided descriptor, each either an SSA value or, where the type or the
// ABI fixes it, a constant (so that llc sees constant extents and the unit
// innermost stride, which its addressing modes and the vector code need).
type memref struct {
	name    string
	typ     ir.MemRefType
	elem    types.Type    // LLVM element type
	ptr     value.Value   // aligned pointer, elem*
	alloc   value.Value   // i8* returned by the allocator; nil for arguments
	offset  value.Value   // i64, in elements
	sizes   []value.Value // i64 per dimension
	strides []value.Value // i64 per dimension, in elements
	// slot and owned are set for a buffer kept between calls
	// (buffers.go): its slot, and whether the buffer is the slot's.
	slot, owned value.Value
}

// fnEmitter builds one LLVM function: it tracks the current block, gives
// values readable unique names and maps IR values to LLVM values.
type fnEmitter struct {
	me   *moduleEmitter
	fn   *ll.Func
	cur  *ll.Block
	vals map[*ir.Value]value.Value
	mems map[*ir.Value]*memref
	// hoisted marks the allocs and deallocs of loop bodies emitted around
	// their loop instead (hoistPrivateAllocs).
	hoisted map[*ir.Operation]bool
	used    map[string]bool
	// nextSuffix is, per name hint, the next numeric suffix to try.
	nextSuffix map[string]int
	// prologue is the entry block of @f.body, where loop-invariant values
	// derived from parameters (constant offsets times strides) are
	// computed once; it branches to the first block of the body last.
	prologue *ll.Block
	// depth is the loop nesting depth, for induction variable names.
	depth int
	// emulatedIDs is the ids parameter of a kernel emitted for the host
	// (see kernel.go); nil elsewhere.
	emulatedIDs *ll.Param
	// inParallel is set in the function a parallel loop was outlined into:
	// the loops inside it run on the thread that executes it.
	inParallel bool
	// exprCache memoises lowered affine expressions per block: the same
	// subscript (i + 1, the row offset) is often needed by several loads
	// of one loop body, and llc does not run a CSE pass over IR.
	exprCache map[*ll.Block]map[string]value.Value
	// live are the buffers of memref.alloc the function holds at the
	// point being emitted (allocated, not yet deallocated, in this region
	// or an enclosing one): what an allocation failure gives back.
	live []*memref
	// allocStatus is, in a loop function outlined for OpenMP that
	// allocates, the caller's status word an allocation failure writes
	// (allocfail.go); nil elsewhere.
	allocStatus value.Value
}

func newFnEmitter(me *moduleEmitter, fn *ll.Func) *fnEmitter {
	uniqueParams(fn.Params)
	fe := &fnEmitter{me: me, fn: fn, vals: map[*ir.Value]value.Value{}, mems: map[*ir.Value]*memref{}, used: map[string]bool{}, nextSuffix: map[string]int{}, exprCache: map[*ll.Block]map[string]value.Value{}}
	for _, p := range fn.Params {
		fe.used[p.Name()] = true
	}
	return fe
}

// uniqueParams makes parameter names distinct and never numeric (LLVM
// reads %0 as a value number): argument names come from the input.
func uniqueParams(ps []*ll.Param) {
	seen := map[string]bool{}
	for _, p := range ps {
		base := p.LocalName
		if base == "" || base[0] >= '0' && base[0] <= '9' {
			base = "v" + base
		}
		name := base
		for i := 1; seen[name]; i++ {
			name = base + "." + strconv.Itoa(i)
		}
		seen[name] = true
		p.SetName(name)
	}
}

// unique returns a function-unique local name derived from hint. Names
// that LLVM would read as numbers are prefixed, since llir numbers unnamed
// values itself.
func (fe *fnEmitter) unique(hint string) string {
	if hint == "" {
		hint = "v"
	}
	if hint[0] >= '0' && hint[0] <= '9' {
		hint = "v" + hint
	}
	// Suffixes continue from the last one given to this hint: probing
	// from 1 every time made naming quadratic in the uses of a hint.
	name := hint
	i := fe.nextSuffix[hint]
	if i == 0 {
		i = 1
	}
	for ; fe.used[name]; i++ {
		name = hint + "." + strconv.Itoa(i)
	}
	fe.nextSuffix[hint] = i
	fe.used[name] = true
	return name
}

// setName names v (an instruction result) if hint is non-empty.
func (fe *fnEmitter) setName(v value.Value, hint string) value.Value {
	if hint == "" {
		return v
	}
	type unnamed interface{ IsUnnamed() bool }
	if n, ok := v.(value.Named); ok {
		if u, ok := v.(unnamed); ok && u.IsUnnamed() {
			n.SetName(fe.unique(hint))
		}
	}
	return v
}

// newBlock creates a detached block; place appends it to the function.
// Creating blocks before placing them lets loops and ifs branch forward
// while keeping the printed block order close to the source order.
func (fe *fnEmitter) newBlock(hint string) *ll.Block {
	b := ll.NewBlock(fe.unique(hint))
	return b
}

func (fe *fnEmitter) place(b *ll.Block) *ll.Block {
	b.Parent = fe.fn
	fe.fn.Blocks = append(fe.fn.Blocks, b)
	return b
}

// valueHint is the IR name of v when it is informative: the generic form
// names everything %0, %arg3, which says nothing.
func valueHint(v *ir.Value) string {
	h := v.NameHint
	if h == "" || h[0] >= '0' && h[0] <= '9' {
		return ""
	}
	if strings.HasPrefix(h, "arg") {
		if _, err := strconv.Atoi(h[3:]); err == nil {
			return ""
		}
	}
	if i := strings.IndexByte(h, '#'); i >= 0 {
		h = h[:i]
	}
	return h
}

// ivName names the induction variable of a loop at the current depth.
func (fe *fnEmitter) ivName(v *ir.Value) string {
	if h := valueHint(v); h != "" {
		return h
	}
	letters := "ijklmn"
	if fe.depth < len(letters) {
		return letters[fe.depth : fe.depth+1]
	}
	return "i" + strconv.Itoa(fe.depth)
}

// at runs f with the insertion point moved to block b (which must not have
// its terminator yet) and restores it.
func (fe *fnEmitter) at(b *ll.Block, f func() value.Value) value.Value {
	saved := fe.cur
	fe.cur = b
	defer func() { fe.cur = saved }()
	return f()
}

// ---- types ----

// llType converts a scalar or vector IR type to its LLVM storage type: the
// element type of memref buffers and descriptors, and of ABI scalars
// (memrefs are not first-class values here; see memref). f16 is stored as
// half and bf16 as i16 (llir has no bfloat type); loads and stores access
// both as i16 patterns, and their values are held in f32 (valueType).
func llType(t ir.Type) (types.Type, error) {
	switch t := t.(type) {
	case ir.IndexType:
		return types.I64, nil
	case ir.IntegerType:
		return types.NewInt(uint64(t.Width)), nil
	case ir.FloatType:
		switch t.Name {
		case "f16":
			return types.Half, nil
		case "bf16":
			return types.I16, nil
		case "f32":
			return types.Float, nil
		case "f64":
			return types.Double, nil
		}
	case ir.VectorType:
		if len(t.Shape) != 1 || t.Shape[0] <= 0 {
			return nil, fmt.Errorf("only 1-D vectors of static length are supported, not %s", t)
		}
		e, err := llType(t.Elem)
		if err != nil {
			return nil, err
		}
		return types.NewVector(uint64(t.Shape[0]), e), nil
	}
	return nil, fmt.Errorf("type %s has no LLVM lowering", t)
}

// valueType converts a scalar or vector IR type to the LLVM type of its
// SSA values: the storage type, except that f16 and bf16 values are f32
// values that are exactly representable in the narrow type. Spec 2.7: each
// op computes in f32 and rounds to the narrow type once (roundHalf); loads
// and stores convert the 16-bit patterns with integer operations, so no
// helper library (__gnu_h2f_ieee, __truncsfbf2) is ever called.
func valueType(t ir.Type) (types.Type, error) {
	if halfKind(t) == "" {
		return llType(t)
	}
	if vt, ok := t.(ir.VectorType); ok {
		if len(vt.Shape) != 1 || vt.Shape[0] <= 0 {
			return nil, fmt.Errorf("only 1-D vectors of static length are supported, not %s", t)
		}
		return types.NewVector(uint64(vt.Shape[0]), types.Float), nil
	}
	return types.Float, nil
}

// halfKind is "f16" or "bf16" when t is that float type or a vector of
// it, and "" otherwise.
func halfKind(t ir.Type) string {
	if vt, ok := t.(ir.VectorType); ok {
		t = vt.Elem
	}
	if ft, ok := t.(ir.FloatType); ok && (ft.Name == "f16" || ft.Name == "bf16") {
		return ft.Name
	}
	return ""
}

// elemBytes is the storage size of a scalar LLVM type.
func elemBytes(t types.Type) int64 {
	switch t := t.(type) {
	case *types.IntType:
		return int64((t.BitSize + 7) / 8)
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return 2
		case types.FloatKindFloat:
			return 4
		}
		return 8
	case *types.VectorType:
		return int64(t.Len) * elemBytes(t.ElemType)
	}
	return 8
}

// scalarOf is the element type of a vector type, or t itself.
func scalarOf(t types.Type) types.Type {
	if v, ok := t.(*types.VectorType); ok {
		return v.ElemType
	}
	return t
}

// ---- constants and folding index arithmetic ----

func i64(v int64) *constant.Int { return constant.NewInt(types.I64, v) }

func constInt(v value.Value) (int64, bool) {
	if c, ok := v.(*constant.Int); ok && c.X.IsInt64() {
		return c.X.Int64(), true
	}
	return 0, false
}

// splat returns the constant c of scalar type, or a vector of it.
func splat(t types.Type, c constant.Constant) constant.Constant {
	if vt, ok := t.(*types.VectorType); ok {
		elems := make([]constant.Constant, vt.Len)
		for i := range elems {
			elems[i] = c
		}
		return printOnce(constant.NewVector(vt, elems...))
	}
	return c
}

// intConst is the integer constant v of integer or integer-vector type t.
func intConst(t types.Type, v int64) constant.Constant {
	return splat(t, constant.NewInt(scalarOf(t).(*types.IntType), v))
}

// add, sub and mul build i64 index arithmetic with nsw (index values of
// the lowered programs never wrap), folding constants and identities so
// that static shapes give constant strides and offsets.
func (fe *fnEmitter) add(a, b value.Value) value.Value {
	ca, oka := constInt(a)
	cb, okb := constInt(b)
	switch {
	case oka && okb:
		return i64(ca + cb)
	case oka && ca == 0:
		return b
	case okb && cb == 0:
		return a
	}
	if oka {
		a, b = b, a
	}
	inst := fe.cur.NewAdd(a, b)
	inst.OverflowFlags = []enum.OverflowFlag{enum.OverflowFlagNSW}
	return inst
}

func (fe *fnEmitter) sub(a, b value.Value) value.Value {
	ca, oka := constInt(a)
	cb, okb := constInt(b)
	switch {
	case oka && okb:
		return i64(ca - cb)
	case okb && cb == 0:
		return a
	}
	inst := fe.cur.NewSub(a, b)
	inst.OverflowFlags = []enum.OverflowFlag{enum.OverflowFlagNSW}
	return inst
}

func (fe *fnEmitter) mul(a, b value.Value) value.Value {
	ca, oka := constInt(a)
	cb, okb := constInt(b)
	switch {
	case oka && okb:
		return i64(ca * cb)
	case oka && ca == 1:
		return b
	case okb && cb == 1:
		return a
	case oka && ca == 0, okb && cb == 0:
		return i64(0)
	}
	if oka {
		a, b = b, a
	}
	inst := fe.cur.NewMul(a, b)
	inst.OverflowFlags = []enum.OverflowFlag{enum.OverflowFlagNSW}
	return inst
}

// smin and smax fold constants and otherwise emit icmp + select.
func (fe *fnEmitter) smin(a, b value.Value) value.Value { return fe.minmax(a, b, enum.IPredSLT) }
func (fe *fnEmitter) smax(a, b value.Value) value.Value { return fe.minmax(a, b, enum.IPredSGT) }

func (fe *fnEmitter) minmax(a, b value.Value, pred enum.IPred) value.Value {
	ca, oka := constInt(a)
	cb, okb := constInt(b)
	if oka && okb {
		if (pred == enum.IPredSLT) == (ca < cb) {
			return a
		}
		return b
	}
	c := fe.cur.NewICmp(pred, a, b)
	return fe.cur.NewSelect(c, a, b)
}

// ---- IR values ----

// val returns the LLVM value of a scalar or vector IR value.
func (fe *fnEmitter) val(v *ir.Value, op *ir.Operation) (value.Value, error) {
	if x, ok := fe.vals[v]; ok {
		return x, nil
	}
	if _, ok := fe.mems[v]; ok {
		return nil, ir.Errorf(op.Loc, "tollvm: '%s' uses a memref where a scalar or vector is expected", op.Name)
	}
	return nil, ir.Errorf(op.Loc, "tollvm: '%s' uses a value that was not lowered (defined in an unsupported position?)", op.Name)
}

func (fe *fnEmitter) vals2(op *ir.Operation, vs []*ir.Value) ([]value.Value, error) {
	out := make([]value.Value, len(vs))
	for i, v := range vs {
		x, err := fe.val(v, op)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// mem returns the memref an operand refers to.
func (fe *fnEmitter) mem(v *ir.Value, op *ir.Operation) (*memref, error) {
	if m, ok := fe.mems[v]; ok {
		return m, nil
	}
	return nil, ir.Errorf(op.Loc, "tollvm: '%s' expects a memref operand produced by a function argument or memref.alloc", op.Name)
}

// bind records the LLVM value of an op result, naming it after the IR
// value when that name is informative.
func (fe *fnEmitter) bind(r *ir.Value, v value.Value, fallback string) {
	hint := valueHint(r)
	if hint == "" {
		hint = fallback
	}
	fe.vals[r] = fe.setName(v, hint)
}

// ---- blocks and ops ----

// emitBlock lowers the ops of a single-block region body in order and
// returns the operands of its terminator (affine.yield, scf.yield); after a
// func.return it returns nil with the LLVM block terminated.
func (fe *fnEmitter) emitBlock(b *ir.Block) ([]value.Value, error) {
	// A buffer allocated in this region is not held after it: its value
	// does not dominate what follows the region.
	defer func(n int) { fe.live = fe.live[:min(n, len(fe.live))] }(len(fe.live))
	for _, op := range b.Ops {
		if fe.hoisted[op] {
			continue
		}
		switch op.Def {
		case affine.Yield, scf.Yield:
			return fe.vals2(op, op.Operands)
		case gpu.Return:
			if len(op.Operands) != 0 {
				return nil, ir.Errorf(op.Loc, "tollvm: gpu.return with operands is not supported (kernels return nothing)")
			}
			fe.cur.NewRet(nil)
			return nil, nil
		case fn.Return:
			if len(op.Operands) != 0 {
				return nil, ir.Errorf(op.Loc, "tollvm: func.return with operands is not supported (functions use destination-passing style)")
			}
			fe.cur.NewRet(constant.NewInt(types.I32, 0))
			return nil, nil
		case cf.Assert:
			if err := fe.emitAssert(op); err != nil {
				return nil, err
			}
			continue
		}
		if err := fe.emitOp(op); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// singleBlock returns the only block of a structured op's region.
func singleBlock(op *ir.Operation, i int) (*ir.Block, error) {
	if i >= len(op.Regions) {
		return nil, ir.Errorf(op.Loc, "tollvm: '%s' is missing region #%d", op.Name, i)
	}
	r := op.Regions[i]
	switch len(r.Blocks) {
	case 0:
		return nil, nil
	case 1:
		return r.Blocks[0], nil
	}
	return nil, ir.Errorf(op.Loc, "tollvm: '%s' region #%d has %d blocks; only single-block regions are supported", op.Name, i, len(r.Blocks))
}

// emitOp lowers one non-terminator op.
func (fe *fnEmitter) emitOp(op *ir.Operation) error {
	if h, ok := arithOps[op.Def]; ok {
		return h(fe, op)
	}
	if h, ok := mathOps[op.Def]; ok {
		return fe.emitMath(op, h)
	}
	if h, ok := controlOps[op.Def]; ok {
		return h(fe, op)
	}
	if h, ok := memOps[op.Def]; ok {
		return h(fe, op)
	}
	if _, ok := sregNames[op.Def]; ok {
		return emitGPUIndex(fe, op)
	}
	return ir.Errorf(op.Loc, "tollvm: unsupported operation '%s'", op.Name)
}

// resultType converts the type of result i of op to its value type.
func resultType(op *ir.Operation, i int) (types.Type, error) {
	if i >= len(op.Results) {
		return nil, ir.Errorf(op.Loc, "tollvm: '%s' has no result #%d", op.Name, i)
	}
	t, err := valueType(op.Results[i].Type)
	if err != nil {
		return nil, ir.Errorf(op.Loc, "tollvm: '%s': %v", op.Name, err)
	}
	return t, nil
}

// checkCounts validates operand and result counts of simple ops, so that
// malformed generic input gives an error instead of an index panic.
func checkCounts(op *ir.Operation, operands, results int) error {
	if len(op.Operands) != operands || len(op.Results) != results {
		return ir.Errorf(op.Loc, "tollvm: '%s' expects %d operands and %d results, has %d and %d", op.Name, operands, results, len(op.Operands), len(op.Results))
	}
	return nil
}

// emitAssert lowers `cf.assert %ok, "msg"`: when %ok is false the body
// returns a code whose f_error message is msg. The tir lowering places
// these checks before any write, so a failure leaves the outputs untouched.
func (fe *fnEmitter) emitAssert(op *ir.Operation) error {
	if len(op.Operands) != 1 {
		return ir.Errorf(op.Loc, "tollvm: 'cf.assert' expects one operand")
	}
	ok, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	msg, _ := op.Attr(cf.AttrMsg).(ir.StringAttr)
	code := abi.AssertCodeBase + len(fe.me.asserts) + 1
	if err := checkAssertCodes(op, len(fe.me.asserts)+1); err != nil {
		return err
	}
	// A message with run-time values is formatted by the wrapper when
	// the body returns the code (formatAsserts).
	format, values, _, err := abi.AssertFormat(op)
	if err != nil {
		return err
	}
	fe.me.asserts = append(fe.me.asserts, check{code: code, static: string(msg), format: format, values: values})
	next := fe.place(fe.newBlock("assert.ok"))
	fail := fe.place(fe.newBlock("assert.fail"))
	fe.cur.NewCondBr(ok, next, fail)
	// A check after an allocation (one that reads a compressed
	// temporary) gives the buffers back before returning, or their slots
	// would stay taken.
	fe.cur = fail
	fe.releaseLive()
	fe.cur.NewRet(constant.NewInt(types.I32, int64(code)))
	fe.cur = next
	return nil
}
