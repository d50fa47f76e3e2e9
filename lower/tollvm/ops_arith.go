package tollvm

import (
	"fmt"
	"math"
	"strings"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// arithOps lowers the arith dialect. Every op works on scalars and on 1-D
// vectors alike, since the LLVM instructions do.
var arithOps map[*ir.OpDef]func(*fnEmitter, *ir.Operation) error

func init() {
	arithOps = map[*ir.OpDef]func(*fnEmitter, *ir.Operation) error{
		arith.Constant:    emitConstant,
		arith.Select:      emitSelect,
		arith.CmpF:        emitCmpF,
		arith.CmpI:        emitCmpI,
		arith.NegF:        emitNegF,
		arith.MaxF:        emitMinMaxF,
		arith.MinF:        emitMinMaxF,
		arith.FloorDivSI:  emitFloorCeilDivSI,
		arith.CeilDivSI:   emitFloorCeilDivSI,
		arith.MaxSI:       emitIntMinMax,
		arith.MinSI:       emitIntMinMax,
		arith.MaxUI:       emitIntMinMax,
		arith.MinUI:       emitIntMinMax,
		arith.IndexCast:   emitIndexCast,
		arith.IndexCastUI: emitIndexCast,
	}
	for k := range floatBinOps {
		arithOps[k] = emitFloatBin
	}
	for k := range intBinOps {
		arithOps[k] = emitIntBin
	}
	for k := range castOps {
		arithOps[k] = emitCast
	}
}

// floatBinOps map to LLVM's float binary instructions, which take
// fast-math flags.
var floatBinOps = map[*ir.OpDef]func(b *blockBuilder, x, y value.Value) value.Value{
	arith.AddF: func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFAdd(x, y) },
	arith.SubF: func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFSub(x, y) },
	arith.MulF: func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFMul(x, y) },
	arith.DivF: func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFDiv(x, y) },
	arith.RemF: func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFRem(x, y) },
}

// intBinOps map to LLVM's integer binary instructions. nsw is added on
// index-typed addi, subi and muli only: index values of lowered programs
// never wrap, but arith on iN is wrapping by definition.
var intBinOps = map[*ir.OpDef]func(b *blockBuilder, x, y value.Value, nsw bool) value.Value{
	arith.AddI: func(b *blockBuilder, x, y value.Value, nsw bool) value.Value {
		i := b.NewAdd(x, y)
		if nsw {
			i.OverflowFlags = nswFlags
		}
		return i
	},
	arith.SubI: func(b *blockBuilder, x, y value.Value, nsw bool) value.Value {
		i := b.NewSub(x, y)
		if nsw {
			i.OverflowFlags = nswFlags
		}
		return i
	},
	arith.MulI: func(b *blockBuilder, x, y value.Value, nsw bool) value.Value {
		i := b.NewMul(x, y)
		if nsw {
			i.OverflowFlags = nswFlags
		}
		return i
	},
	arith.DivSI: func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewSDiv(x, y) },
	arith.DivUI: func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewUDiv(x, y) },
	arith.RemSI: func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewSRem(x, y) },
	arith.RemUI: func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewURem(x, y) },
	arith.AndI:  func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewAnd(x, y) },
	arith.OrI:   func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewOr(x, y) },
	arith.XOrI:  func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewXor(x, y) },
	arith.ShLI:  func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewShl(x, y) },
	arith.ShRSI: func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewAShr(x, y) },
	arith.ShRUI: func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewLShr(x, y) },
}

// castOps map to LLVM conversion instructions with the result type.
var castOps = map[*ir.OpDef]func(b *blockBuilder, x value.Value, t types.Type) value.Value{
	arith.SIToFP:  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewSIToFP(x, t) },
	arith.UIToFP:  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewUIToFP(x, t) },
	arith.FPToSI:  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPToSI(x, t) },
	arith.FPToUI:  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPToUI(x, t) },
	arith.ExtF:    func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPExt(x, t) },
	arith.TruncF:  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPTrunc(x, t) },
	arith.ExtSI:   func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewSExt(x, t) },
	arith.ExtUI:   func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewZExt(x, t) },
	arith.TruncI:  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewTrunc(x, t) },
	arith.Bitcast: func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewBitCast(x, t) },
}

// blockBuilder is the llir block instructions are appended to.
type blockBuilder = ll.Block

// bb is the current block, for the op tables.
func (fe *fnEmitter) bb() *blockBuilder { return fe.cur }

// setFMF attaches fast-math flags to a float instruction.
func setFMF(v value.Value, f []enum.FastMathFlag) {
	switch i := v.(type) {
	case *ll.InstFAdd:
		i.FastMathFlags = f
	case *ll.InstFSub:
		i.FastMathFlags = f
	case *ll.InstFMul:
		i.FastMathFlags = f
	case *ll.InstFDiv:
		i.FastMathFlags = f
	case *ll.InstFRem:
		i.FastMathFlags = f
	case *ll.InstFNeg:
		i.FastMathFlags = f
	case *ll.InstFCmp:
		i.FastMathFlags = f
	case *ll.InstCall:
		i.FastMathFlags = f
	}
}

// operands2 fetches the two operands of a binary op.
func (fe *fnEmitter) operands2(op *ir.Operation) (value.Value, value.Value, error) {
	if err := checkCounts(op, 2, 1); err != nil {
		return nil, nil, err
	}
	xs, err := fe.vals2(op, op.Operands)
	if err != nil {
		return nil, nil, err
	}
	return xs[0], xs[1], nil
}

func emitFloatBin(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	inst := floatBinOps[op.Def](fe.bb(), x, y)
	fmf := fastMath(op)
	if fe.me.contract && op.Is(arith.AddF, arith.SubF, arith.MulF) && !hasFlag(fmf, enum.FastMathFlagContract) {
		fmf = append(fmf, enum.FastMathFlagContract)
	}
	setFMF(inst, fmf)
	if k := halfKind(op.Results[0].Type); k != "" {
		inst = fe.roundHalf(k, inst)
	}
	fe.bind(op.Results[0], inst, "")
	return nil
}

func emitIntBin(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	if same, ok := intIdentity(op.Def, x, y); ok {
		fe.bind(op.Results[0], same, "")
		return nil
	}
	_, isIndex := op.Results[0].Type.(ir.IndexType)
	fe.bind(op.Results[0], intBinOps[op.Def](fe.bb(), x, y, isIndex), "")
	return nil
}

// intIdentity returns the operand an integer op leaves unchanged when the
// other is its identity: x | 0, x ^ 0, x + 0, x - 0, x * 1, x & -1 (true
// for i1), shifts by 0. Unswitching leaves such ops behind: a masked
// gather's "no element" flag, a branch result, becomes the constant false
// in the copy where the branch is resolved, and the mask stays
// `or false, m`. llc splits a branch on an `or` into two branches before
// it folds constants, so each such mask cost a compare and a branch of a
// register holding 0 in nabla's recomputing loop.
func intIdentity(k *ir.OpDef, x, y value.Value) (value.Value, bool) {
	var e int64 // the identity element; -1: all ones
	commutes := true
	switch k {
	case arith.OrI, arith.XOrI, arith.AddI:
	case arith.SubI, arith.ShLI, arith.ShRSI, arith.ShRUI:
		commutes = false
	case arith.MulI:
		e = 1
	case arith.AndI:
		e = -1
	default:
		return nil, false
	}
	unit := func(v value.Value) bool {
		c, ok := constInt(v)
		return ok && (c == e || e == -1 && c == 1 && types.Equal(v.Type(), types.I1))
	}
	switch {
	case unit(y):
		return x, true
	case commutes && unit(x):
		return y, true
	}
	return nil, false
}

func emitCast(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 1, 1); err != nil {
		return err
	}
	x, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	t, err := resultType(op, 0)
	if err != nil {
		return err
	}
	fe.bind(op.Results[0], fe.cast(op.Def, x, t, halfKind(op.Operands[0].Type), halfKind(op.Results[0].Type)), "")
	return nil
}

// cast emits a conversion to the value type t; from and to are the half
// kinds (f16, bf16 or "") of the operand and the result (spec 2.7).
func (fe *fnEmitter) cast(k *ir.OpDef, x value.Value, t types.Type, from, to string) value.Value {
	b := fe.cur
	switch k {
	case arith.FPToSI, arith.FPToUI:
		return fe.saturatingFPToI(x, t, k == arith.FPToSI)
	case arith.ExtF:
		if from != "" && x.Type().Equal(t) {
			return x // f16 and bf16 values are f32 already
		}
	case arith.TruncF:
		if to == "" {
			break
		}
		if ft, ok := scalarOf(x.Type()).(*types.FloatType); ok && ft.Kind == types.FloatKindDouble {
			return fe.doubleToHalf(to, x)
		}
		return fe.roundHalf(to, x)
	case arith.SIToFP, arith.UIToFP:
		if to != "" {
			return fe.intToHalf(to, x, k == arith.SIToFP)
		}
	case arith.Bitcast:
		switch {
		case from != "" && to == "":
			return fe.halfToBits(from, x)
		case to != "" && from == "":
			return fe.bitsToHalf(to, x)
		case from != "" && to != "":
			return fe.bitsToHalf(to, fe.halfToBits(from, x))
		}
	}
	return castOps[k](b, x, t)
}

// emitIndexCast converts between index (i64) and iN: sign extension for
// index_cast, zero extension for index_castui, truncation when narrowing.
func emitIndexCast(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 1, 1); err != nil {
		return err
	}
	x, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	t, err := resultType(op, 0)
	if err != nil {
		return err
	}
	from := scalarOf(x.Type()).(*types.IntType).BitSize
	to := scalarOf(t).(*types.IntType).BitSize
	var r value.Value
	switch {
	case from == to:
		r = x
	case from > to:
		r = fe.cur.NewTrunc(x, t)
	case op.Is(arith.IndexCastUI):
		r = fe.cur.NewZExt(x, t)
	default:
		r = fe.cur.NewSExt(x, t)
	}
	fe.bind(op.Results[0], r, "")
	return nil
}

func emitNegF(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 1, 1); err != nil {
		return err
	}
	x, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	inst := fe.cur.NewFNeg(x)
	inst.FastMathFlags = fastMath(op)
	fe.bind(op.Results[0], inst, "")
	return nil
}

func emitSelect(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 3, 1); err != nil {
		return err
	}
	xs, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	sel := fe.cur.NewSelect(xs[0], xs[1], xs[2])
	if arith.IsMaskSelect(op) && !types.IsVector(xs[1].Type()) {
		sel.Metadata = append(sel.Metadata, fe.me.rarelyTrue())
	}
	fe.bind(op.Results[0], sel, "")
	return nil
}

// rarelyTrue is the !prof attachment of a masked reduction's select: the
// mask is rarely true. On x86 with AVX-512, llc otherwise turns a float
// select into a masked move, which puts the mask on the accumulator's
// dependence chain at every neighbour; told that the condition is
// predictable it branches around the update, as it already does without
// AVX-512. nabla (--mcpu=native) took 0.82 of the time at the L3 size
// (median of paired runs; docs/decisions.md). Vector selects (vectorized
// reductions) are not affected.
func (me *moduleEmitter) rarelyTrue() *metadata.Attachment {
	if me.rareProf == nil {
		me.rareProf = &metadata.Tuple{
			MetadataID: metadata.MetadataID(len(me.mod.MetadataDefs)),
			Fields:     []metadata.Field{&metadata.String{Value: "branch_weights"}, constant.NewInt(types.I32, 1), constant.NewInt(types.I32, 1000)},
		}
		me.mod.MetadataDefs = append(me.mod.MetadataDefs, me.rareProf)
	}
	return &metadata.Attachment{Name: "prof", Node: me.rareProf}
}

// emitMinMaxF lowers arith.maxf / arith.minf, which MLIR 16 defines as
// NaN-propagating. Where the backend selects llvm.maximum / llvm.minimum
// they are used (exact, including -0 < +0); on x86 LLVM 14 cannot select
// them, so a compare/select pair is emitted that propagates NaN but does not
// order signed zeros.
func emitMinMaxF(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	fe.bind(op.Results[0], fe.floatMinMax(x, y, op.Is(arith.MaxF)), "")
	return nil
}

// isF64 tells whether t is double or a vector of doubles.
func isF64(t types.Type) bool {
	if v, ok := t.(*types.VectorType); ok {
		t = v.ElemType
	}
	return t.Equal(types.Double)
}

func (fe *fnEmitter) floatMinMax(x, y value.Value, max bool) value.Value {
	if fe.me.tgt.HasFMaximum && !(fe.me.tgt.FMaximumF32Only && isF64(x.Type())) {
		name := "llvm.minimum"
		if max {
			name = "llvm.maximum"
		}
		return fe.callIntrinsic(name, x.Type(), x, y)
	}
	pred := enum.FPredOLT
	if max {
		pred = enum.FPredOGT
	}
	b := fe.cur
	if _, isVec := x.Type().(*types.VectorType); isVec && max {
		// max(x, y) = -min(-x, -y): the negations are xorps, and the
		// shorter min takes the place of the subtraction below (a
		// scalar negation would go through a general register).
		return b.NewFNeg(fe.floatMinMax(b.NewFNeg(x), b.NewFNeg(y), false))
	}
	// select(x < y, x, y) is x86's minps(x, y) (maxps with >): the second
	// operand when they are equal or either is NaN. Computed both ways,
	// a and c agree except on NaNs and on zeros of opposite signs:
	//   min: a | c keeps -0 over +0, and a NaN (its exponent is all ones
	//        and its mantissa not zero, so the OR with it is a NaN);
	//   max: (a | c) - (a ^ c): equal bits give a - (+0) = a, zeros of
	//        both signs (-0) - (-0) = +0, and a NaN stays a NaN.
	// So max(+0, -0) is +0 and a NaN propagates (IEEE maximum and
	// minimum), in a few instructions that stay in vector registers.
	a := b.NewSelect(b.NewFCmp(pred, x, y), x, y)
	c := b.NewSelect(b.NewFCmp(pred, y, x), y, x)
	it := sameWidthInt(x.Type())
	ai, ci := b.NewBitCast(a, it), b.NewBitCast(c, it)
	or := b.NewBitCast(b.NewOr(ai, ci), x.Type())
	if !max {
		return or
	}
	return b.NewFSub(or, b.NewBitCast(b.NewXor(ai, ci), x.Type()))
}

// sameWidthInt is the integer type (or integer vector type) with the bit
// width of the float type (or float vector type) t.
func sameWidthInt(t types.Type) types.Type {
	if vt, ok := t.(*types.VectorType); ok {
		return types.NewVector(vt.Len, sameWidthInt(vt.ElemType))
	}
	switch t.(*types.FloatType).Kind {
	case types.FloatKindHalf:
		return types.I16
	case types.FloatKindFloat:
		return types.I32
	}
	return types.I64
}

// emitIntMinMax lowers maxsi, minsi, maxui, minui to icmp + select.
func emitIntMinMax(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	pred := map[*ir.OpDef]enum.IPred{arith.MaxSI: enum.IPredSGT, arith.MinSI: enum.IPredSLT, arith.MaxUI: enum.IPredUGT, arith.MinUI: enum.IPredULT}[op.Def]
	fe.bind(op.Results[0], fe.cur.NewSelect(fe.cur.NewICmp(pred, x, y), x, y), "")
	return nil
}

// emitFloorCeilDivSI lowers floordivsi (rounds toward negative infinity)
// and ceildivsi (toward positive infinity) for any signed divisor: the
// truncated quotient, adjusted by one when the remainder is non-zero and
// its sign differs from (floor) or equals (ceil) the divisor's. A positive
// power-of-two constant divisor of floordivsi becomes a shift.
func emitFloorCeilDivSI(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	t := x.Type()
	b := fe.cur
	if c, ok := constInt(y); ok && op.Is(arith.FloorDivSI) {
		if k, pow2 := log2Exact(c); pow2 {
			fe.bind(op.Results[0], b.NewAShr(x, intConst(t, k)), "")
			return nil
		}
	}
	zero := intConst(t, 0)
	q := b.NewSDiv(x, y)
	r := b.NewSRem(x, y)
	nonzero := b.NewICmp(enum.IPredNE, r, zero)
	signsDiffer := b.NewICmp(enum.IPredSLT, b.NewXor(r, y), zero)
	var res value.Value
	if op.Is(arith.FloorDivSI) {
		adj := b.NewAnd(nonzero, signsDiffer)
		res = b.NewSub(q, b.NewZExt(adj, t))
	} else {
		adj := b.NewAnd(nonzero, b.NewXor(signsDiffer, splat(signsDiffer.Type(), constant.True)))
		res = b.NewAdd(q, b.NewZExt(adj, t))
	}
	fe.bind(op.Results[0], res, "")
	return nil
}

// MLIR 16 stores comparison predicates as i64 enum values
// (arith::CmpFPredicate, arith::CmpIPredicate); the names are accepted too.
var cmpFPreds = []enum.FPred{
	enum.FPredFalse, enum.FPredOEQ, enum.FPredOGT, enum.FPredOGE, enum.FPredOLT, enum.FPredOLE,
	enum.FPredONE, enum.FPredORD, enum.FPredUEQ, enum.FPredUGT, enum.FPredUGE, enum.FPredULT,
	enum.FPredULE, enum.FPredUNE, enum.FPredUNO, enum.FPredTrue,
}

var cmpIPreds = []enum.IPred{
	enum.IPredEQ, enum.IPredNE, enum.IPredSLT, enum.IPredSLE, enum.IPredSGT, enum.IPredSGE,
	enum.IPredULT, enum.IPredULE, enum.IPredUGT, enum.IPredUGE,
}

// predicateIndex reads the predicate attribute as an enum value.
func predicateIndex(op *ir.Operation, names []string) (int, error) {
	switch a := op.Attr(arith.AttrPredicate).(type) {
	case ir.IntegerAttr:
		if a.Value >= 0 && int(a.Value) < len(names) {
			return int(a.Value), nil
		}
	case nil:
		return 0, ir.Errorf(op.Loc, "tollvm: '%s' needs a predicate attribute", op.Name)
	default:
		s := strings.Trim(a.String(), "\"")
		if i := strings.LastIndexAny(s, "<"); i >= 0 {
			s = strings.TrimSuffix(s[i+1:], ">")
		}
		for i, n := range names {
			if n == s {
				return i, nil
			}
		}
	}
	return 0, ir.Errorf(op.Loc, "tollvm: '%s' has an unknown predicate %s", op.Name, op.Attr(arith.AttrPredicate))
}

var cmpFNames = []string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}
var cmpINames = []string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}

func emitCmpF(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	p, err := predicateIndex(op, cmpFNames)
	if err != nil {
		return err
	}
	inst := fe.cur.NewFCmp(cmpFPreds[p], x, y)
	inst.FastMathFlags = fastMath(op)
	fe.bind(op.Results[0], inst, "")
	return nil
}

func emitCmpI(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	p, err := predicateIndex(op, cmpINames)
	if err != nil {
		return err
	}
	fe.bind(op.Results[0], fe.cur.NewICmp(cmpIPreds[p], x, y), "")
	return nil
}

// hasFlag reports whether flags holds f (or fast, which implies it).
func hasFlag(flags []enum.FastMathFlag, f enum.FastMathFlag) bool {
	for _, g := range flags {
		if g == f || g == enum.FastMathFlagFast {
			return true
		}
	}
	return false
}

// fastMath translates the `fastmath = #arith.fastmath<...>` attribute
// (none, or a comma-separated list of reassoc nnan ninf nsz arcp contract
// afn, or fast) to LLVM flags.
func fastMath(op *ir.Operation) []enum.FastMathFlag {
	a := op.Attr(arith.AttrFastmath)
	if a == nil {
		return nil
	}
	s := a.String()
	if i := strings.IndexByte(s, '<'); i >= 0 {
		s = strings.TrimSuffix(s[i+1:], ">")
	}
	flags := map[string]enum.FastMathFlag{
		"reassoc": enum.FastMathFlagReassoc, "nnan": enum.FastMathFlagNNaN, "ninf": enum.FastMathFlagNInf,
		"nsz": enum.FastMathFlagNSZ, "arcp": enum.FastMathFlagARcp, "contract": enum.FastMathFlagContract,
		"afn": enum.FastMathFlagAFn, "fast": enum.FastMathFlagFast,
	}
	var out []enum.FastMathFlag
	for _, w := range strings.Split(s, ",") {
		if f, ok := flags[strings.TrimSpace(w)]; ok {
			out = append(out, f)
		}
	}
	return out
}

// emitConstant lowers arith.constant: an integer, float or boolean scalar,
// or a dense vector (`dense<2.0> : vector<8xf32>`, a splat or one value per
// element).
func emitConstant(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 0, 1); err != nil {
		return err
	}
	t, err := resultType(op, 0)
	if err != nil {
		return err
	}
	st := scalarOf(t)
	var elems []ir.Attribute
	switch a := op.Attr(arith.AttrValue).(type) {
	case ir.IntegerAttr, ir.FloatAttr, ir.BoolAttr:
		elems = []ir.Attribute{a}
	case ir.DenseElementsAttr:
		elems = a.Values
	case nil:
		return ir.Errorf(op.Loc, "tollvm: arith.constant needs a value attribute")
	default:
		return ir.Errorf(op.Loc, "tollvm: unsupported arith.constant value %s", a)
	}
	cs := make([]constant.Constant, len(elems))
	kind := halfKind(op.Results[0].Type)
	for i, e := range elems {
		if kind != "" {
			// An f16 or bf16 constant is an f32 value of the narrow type.
			switch a := e.(type) {
			case ir.FloatAttr:
				e = ir.FloatAttr{Value: roundHalfConst(kind, a.Value), Type: a.Type}
			case ir.IntegerAttr:
				e = ir.FloatAttr{Value: roundHalfConst(kind, float64(a.Value)), Type: a.Type}
			}
		}
		c, err := scalarConst(st, e)
		if err != nil {
			return ir.Errorf(op.Loc, "tollvm: arith.constant: %v", err)
		}
		cs[i] = c
	}
	var c constant.Constant
	switch vt := t.(type) {
	case *types.VectorType:
		switch {
		case len(cs) == 1:
			c = splat(t, cs[0])
		case uint64(len(cs)) == vt.Len:
			c = printOnce(constant.NewVector(vt, cs...))
		default:
			return ir.Errorf(op.Loc, "tollvm: arith.constant has %d elements for %s", len(cs), t)
		}
	default:
		if len(cs) != 1 {
			return ir.Errorf(op.Loc, "tollvm: scalar arith.constant with %d elements", len(cs))
		}
		c = cs[0]
	}
	fe.vals[op.Results[0]] = c
	return nil
}

// scalarConst converts an integer, float or boolean attribute to a constant
// of scalar type t.
func scalarConst(t types.Type, a ir.Attribute) (constant.Constant, error) {
	switch t := t.(type) {
	case *types.IntType:
		var v int64
		switch a := a.(type) {
		case ir.IntegerAttr:
			v = a.Value
		case ir.BoolAttr:
			if a {
				v = 1
			}
		default:
			return nil, fmt.Errorf("%s is not an integer", a)
		}
		if t.BitSize == 1 {
			v &= 1
		}
		return constant.NewInt(t, v), nil
	case *types.FloatType:
		switch a := a.(type) {
		case ir.FloatAttr:
			return floatConst(t, a.Value), nil
		case ir.IntegerAttr:
			return floatConst(t, float64(a.Value)), nil
		}
		return nil, fmt.Errorf("%s is not a float", a)
	}
	return nil, fmt.Errorf("constant of type %s", t)
}

// floatConst makes a float constant of type t, rounding v to t's precision
// first: LLVM rejects a float literal that is not exactly representable.
func floatConst(t *types.FloatType, v float64) constant.Constant {
	switch t.Kind {
	case types.FloatKindFloat:
		v = float64(float32(v))
	case types.FloatKindHalf:
		// Half constants are rare here; llir prints them exactly when the
		// value is representable, so round through float32 at least.
		v = float64(float32(v))
	}
	return printOnce(constant.NewFloat(t, v))
}

// printedConst is a constant whose text is computed once. llir prints an
// operand's text at every use, and a float's goes through math/big: a
// constant shared by thousands of instructions made printing the module
// half of convert-to-llvm's time (a 10,000-op stencil chain).
type printedConst struct {
	constant.Constant
	ident string
}

func printOnce(c constant.Constant) constant.Constant {
	return &printedConst{Constant: c, ident: c.Ident()}
}

func (c *printedConst) Ident() string  { return c.ident }
func (c *printedConst) String() string { return c.Type().String() + " " + c.ident }

// ---- f16 and bf16 (spec 2.7) ----
//
// f16 and bf16 values are f32 values exactly representable in the narrow
// type (valueType). Every op that can produce a value outside it rounds
// once, to nearest-even, with the integer operations below: they select on
// every target, where fpext/fptrunc of half call __gnu_h2f_ieee and
// __gnu_f2h_ieee on x86 (a compiler-rt helper gcc does not ship) and bfloat
// is not supported at all by LLVM 14's backends. The same code runs on
// scalars and on vectors.

// shaped is the type with t's shape (scalar or vector) and element e.
func shaped(t, e types.Type) types.Type {
	if vt, ok := t.(*types.VectorType); ok {
		return types.NewVector(vt.Len, e)
	}
	return e
}

// halfBuilder emits the bit manipulations on one shape.
type halfBuilder struct {
	b      *blockBuilder
	ft, it types.Type // float and i32 of the shape
}

func (fe *fnEmitter) halfOn(t types.Type) halfBuilder {
	return halfBuilder{b: fe.cur, ft: shaped(t, types.Float), it: shaped(t, types.I32)}
}

// Constants of the shape, bit casts, and the integer operations with a
// constant operand that the conversions are made of.
func (h halfBuilder) i(v int64) constant.Constant { return intConst(h.it, v) }
func (h halfBuilder) f(v float64) constant.Constant {
	return splat(h.ft, constant.NewFloat(types.Float, v))
}
func (h halfBuilder) bits(x value.Value) value.Value         { return h.b.NewBitCast(x, h.it) }
func (h halfBuilder) float(x value.Value) value.Value        { return h.b.NewBitCast(x, h.ft) }
func (h halfBuilder) and(x value.Value, c int64) value.Value { return h.b.NewAnd(x, h.i(c)) }
func (h halfBuilder) or(x, y value.Value) value.Value        { return h.b.NewOr(x, y) }
func (h halfBuilder) add(x value.Value, c int64) value.Value { return h.b.NewAdd(x, h.i(c)) }
func (h halfBuilder) shr(x value.Value, n int64) value.Value { return h.b.NewLShr(x, h.i(n)) }
func (h halfBuilder) shl(x value.Value, n int64) value.Value { return h.b.NewShl(x, h.i(n)) }
func (h halfBuilder) ult(x value.Value, c int64) value.Value {
	return h.b.NewICmp(enum.IPredULT, x, h.i(c))
}
func (h halfBuilder) uge(x value.Value, c int64) value.Value {
	return h.b.NewICmp(enum.IPredUGE, x, h.i(c))
}
func (h halfBuilder) sel(c, x, y value.Value) value.Value { return h.b.NewSelect(c, x, y) }
func (h halfBuilder) isNaN(x value.Value) value.Value     { return h.b.NewFCmp(enum.FPredUNO, x, x) }
func (h halfBuilder) plusHalf(a value.Value) value.Value  { return h.b.NewFAdd(h.float(a), h.f(0.5)) }

// rne adds the rounding increment of nearest-even for dropping the low
// `drop` bits of the f32 bit pattern b: half the dropped unit, less one,
// plus the lowest kept bit. Masking the low bits afterwards rounds; a carry
// moves into the exponent, up to the infinity pattern.
func (h halfBuilder) rne(b value.Value, drop int64) value.Value {
	lsb := h.and(h.shr(b, drop), 1)
	return h.b.NewAdd(h.add(b, 1<<(drop-1)-1), lsb)
}

// f16 subnormals: for |x| < 2^-14 (the f32 bits a), plusHalf(a) = 0.5 + |x|
// has the f16 subnormal quantum 2^-24 as its unit, so the f32 addition
// rounds |x| to nearest-even on that grid; subtracting 0.5 again is exact,
// and the bit pattern minus that of 0.5 is the f16 significand.

// roundHalf rounds the f32 value x (scalar or vector) to the nearest kind
// value, ties to even, keeping it in f32: overflow gives infinity, tiny
// values the narrow type's subnormals, NaN stays NaN.
func (fe *fnEmitter) roundHalf(kind string, x value.Value) value.Value {
	h := fe.halfOn(x.Type())
	b := h.bits(x)
	var r value.Value
	if kind == "bf16" {
		// bf16 is the high half of f32: the same exponent range, so f32
		// subnormals round like normals and overflow carries into the
		// infinity pattern.
		r = h.and(h.rne(b, 16), -0x10000)
	} else {
		a := h.and(b, 0x7fffffff)
		s := h.and(b, -0x80000000)
		normal := h.and(h.rne(b, 13), -0x2000)
		// |x| >= 65520 (halfway past the largest f16, 65504) overflows.
		big := h.sel(h.uge(a, 0x477ff000), h.or(s, h.i(0x7f800000)), normal)
		sub := h.or(h.bits(h.b.NewFSub(h.plusHalf(a), h.f(0.5))), s)
		r = h.sel(h.ult(a, 0x38800000), sub, big)
	}
	return h.sel(h.isNaN(x), x, h.float(r))
}

// halfToBits converts the f32 value x to kind's 16-bit pattern, rounding to
// nearest-even; every NaN becomes the quiet NaN 0x7e00 (f16) or 0x7fc0
// (bf16), as the interpreter writes them.
func (fe *fnEmitter) halfToBits(kind string, x value.Value) value.Value {
	h := fe.halfOn(x.Type())
	b := h.bits(x)
	var r value.Value
	nan := int64(0x7fc0)
	if kind == "bf16" {
		r = h.shr(h.rne(b, 16), 16)
	} else {
		nan = 0x7e00
		a := h.and(b, 0x7fffffff)
		s := h.and(h.shr(b, 16), 0x8000)
		// Rebias the exponent (127 - 15) and drop 13 significand bits.
		normal := h.shr(h.b.NewSub(h.rne(a, 13), h.i(0x38000000)), 13)
		big := h.sel(h.uge(a, 0x477ff000), h.i(0x7c00), normal)
		sub := h.b.NewSub(h.bits(h.plusHalf(a)), h.i(0x3f000000))
		r = h.or(h.sel(h.ult(a, 0x38800000), sub, big), s)
	}
	r = h.sel(h.isNaN(x), h.i(nan), r)
	return h.b.NewTrunc(r, shaped(x.Type(), types.I16))
}

// bitsToHalf converts kind's 16-bit patterns (i16, scalar or vector) to
// f32 values, exactly.
func (fe *fnEmitter) bitsToHalf(kind string, x value.Value) value.Value {
	h := fe.halfOn(x.Type())
	w := h.b.NewZExt(x, h.it)
	if kind == "bf16" {
		return h.float(h.shl(w, 16))
	}
	s := h.shl(h.and(w, 0x8000), 16)
	em := h.and(w, 0x7fff)
	// Normal: rebias the exponent by 127 - 15; infinity and NaN: exponent
	// 0x1f becomes 0xff; subnormal: m * 2^-24 = (0.5 + m * 2^-24) - 0.5.
	normal := h.add(h.shl(em, 13), 0x38000000)
	special := h.add(h.shl(em, 13), 0x70000000)
	sub := h.bits(h.b.NewFSub(h.float(h.or(em, h.i(0x3f000000))), h.f(0.5)))
	r := h.sel(h.ult(em, 0x400), sub, h.sel(h.uge(em, 0x7c00), special, normal))
	return h.float(h.or(r, s))
}

// doubleToHalf rounds f64 values to kind, once: the f64 is first rounded
// to f32 to odd (the nearest-even f32 moved one unit toward x where it is
// inexact and even), which keeps enough bits for the second rounding to be
// the correct one (f32 has at least two more bits than f16 and bf16).
func (fe *fnEmitter) doubleToHalf(kind string, x value.Value) value.Value {
	h := fe.halfOn(x.Type())
	r := h.b.NewFPTrunc(x, h.ft)
	back := h.b.NewFPExt(r, x.Type())
	inexact := h.b.NewFCmp(enum.FPredONE, back, x)
	rb := h.bits(r)
	even := h.b.NewICmp(enum.IPredEQ, h.and(rb, 1), h.i(0))
	up := h.b.NewFCmp(enum.FPredOGT, fe.callIntrinsic("llvm.fabs", x.Type(), x), fe.callIntrinsic("llvm.fabs", x.Type(), back))
	adj := h.sel(up, h.add(rb, 1), h.add(rb, -1))
	odd := h.sel(h.b.NewAnd(inexact, even), adj, rb)
	return fe.roundHalf(kind, h.float(odd))
}

// intToHalf converts integers (scalar or vector) to kind with one
// rounding. Up to 24 bits the f32 conversion is exact. Wider values are
// first rounded to 24 bits to odd (truncated, with the lowest bit set when
// anything nonzero was dropped), which is exact in f32 and rounds to the
// narrow type correctly.
func (fe *fnEmitter) intToHalf(kind string, x value.Value, signed bool) value.Value {
	h := fe.halfOn(x.Type())
	width := scalarOf(x.Type()).(*types.IntType).BitSize
	if width <= 24 {
		var f value.Value
		if signed && width > 1 {
			f = h.b.NewSIToFP(x, h.ft)
		} else {
			f = h.b.NewUIToFP(x, h.ft)
		}
		return fe.roundHalf(kind, f)
	}
	t64 := shaped(x.Type(), types.I64)
	c := func(v int64) constant.Constant { return intConst(t64, v) }
	var v value.Value = x
	var neg value.Value
	switch {
	case width < 64 && signed:
		v = h.b.NewSExt(x, t64)
	case width < 64:
		v = h.b.NewZExt(x, t64)
	}
	a := v
	if signed {
		neg = h.b.NewICmp(enum.IPredSLT, v, c(0))
		a = h.b.NewSelect(neg, h.b.NewSub(c(0), v), v) // |INT64_MIN| = 2^63 unsigned
	}
	lz := fe.callIntrinsic("llvm.ctlz", t64, a, constant.False)
	// Keep the 24 leading bits: shift right by 40 - lz when positive.
	sh := h.b.NewSelect(h.b.NewICmp(enum.IPredULT, lz, c(40)), h.b.NewSub(c(40), lz), c(0))
	low := h.b.NewAnd(a, h.b.NewSub(h.b.NewShl(c(1), sh), c(1)))
	sticky := h.b.NewZExt(h.b.NewICmp(enum.IPredNE, low, c(0)), t64)
	m := h.b.NewOr(h.b.NewLShr(a, sh), sticky)
	// m * 2^sh, both exact in f32 (sh <= 40).
	scale := h.float(h.shl(h.add(h.b.NewTrunc(sh, h.it), 127), 23))
	var f value.Value = h.b.NewFMul(h.b.NewUIToFP(m, h.ft), scale)
	if signed {
		f = h.b.NewSelect(neg, h.b.NewFNeg(f), f)
	}
	return fe.roundHalf(kind, f)
}

// roundHalfConst rounds a constant to kind in Go, like roundHalf (the
// quantum of x's binade, or of the subnormal range, divides x exactly in
// float64).
func roundHalfConst(kind string, x float64) float64 {
	p, emin, largest := 11, -14, 65504.0
	if kind == "bf16" {
		p, emin, largest = 8, -126, math.Ldexp(255, 120)
	}
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	a := math.Abs(x)
	_, e := math.Frexp(a)
	exp := max(e-1, emin)
	q := math.Ldexp(1, exp-(p-1))
	r := math.RoundToEven(a/q) * q
	if r > largest {
		r = math.Inf(1)
	}
	return math.Copysign(r, x)
}

// saturatingFPToI converts floats to integers of type t (scalar or vector)
// as spec 2.7 says: toward zero, saturating at t's limits, NaN to 0. (LLVM's
// fptosi is poison out of range; llvm.fptosi.sat has this meaning, but
// compares and selects need no intrinsic, and llc emits the same code for
// both.) The operand is clamped to [lo, below(hi)], hi = 2^(w-1) (signed)
// or 2^w (unsigned), whose conversion is defined, NaN is replaced by 0, and
// operands >= hi give the largest value.
func (fe *fnEmitter) saturatingFPToI(x value.Value, t types.Type, signed bool) value.Value {
	b := fe.cur
	ft := scalarOf(x.Type()).(*types.FloatType)
	w := int(scalarOf(t).(*types.IntType).BitSize)
	fc := func(v float64) constant.Constant { return splat(x.Type(), floatConst(ft, v)) }
	lo, hi, top := 0.0, math.Ldexp(1, w), int64(-1)
	if signed {
		lo, hi, top = -math.Ldexp(1, w-1), math.Ldexp(1, w-1), int64(uint64(1)<<(w-1)-1)
	}
	below := math.Nextafter(hi, 0)
	if ft.Kind == types.FloatKindFloat {
		below = float64(math.Nextafter32(float32(hi), 0))
	}
	c := b.NewSelect(b.NewFCmp(enum.FPredOLT, x, fc(lo)), fc(lo), x)
	c = b.NewSelect(b.NewFCmp(enum.FPredOGT, c, fc(below)), fc(below), c)
	c = b.NewSelect(b.NewFCmp(enum.FPredUNO, x, x), fc(0), c)
	var r value.Value
	if signed {
		r = b.NewFPToSI(c, t)
	} else {
		r = b.NewFPToUI(c, t)
	}
	return b.NewSelect(b.NewFCmp(enum.FPredOGE, x, fc(hi)), intConst(t, top), r)
}
