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
)

// arithOps lowers the arith dialect. Every op works on scalars and on 1-D
// vectors alike, since the LLVM instructions do.
var arithOps map[string]func(*fnEmitter, *ir.Operation) error

func init() {
	arithOps = map[string]func(*fnEmitter, *ir.Operation) error{
		"arith.constant":     emitConstant,
		"arith.select":       emitSelect,
		"arith.cmpf":         emitCmpF,
		"arith.cmpi":         emitCmpI,
		"arith.negf":         emitNegF,
		"arith.maxf":         emitMinMaxF,
		"arith.minf":         emitMinMaxF,
		"arith.floordivsi":   emitFloorCeilDivSI,
		"arith.ceildivsi":    emitFloorCeilDivSI,
		"arith.maxsi":        emitIntMinMax,
		"arith.minsi":        emitIntMinMax,
		"arith.maxui":        emitIntMinMax,
		"arith.minui":        emitIntMinMax,
		"arith.index_cast":   emitIndexCast,
		"arith.index_castui": emitIndexCast,
	}
	for name := range floatBinOps {
		arithOps[name] = emitFloatBin
	}
	for name := range intBinOps {
		arithOps[name] = emitIntBin
	}
	for name := range castOps {
		arithOps[name] = emitCast
	}
}

// floatBinOps map to LLVM's float binary instructions, which take
// fast-math flags.
var floatBinOps = map[string]func(b *blockBuilder, x, y value.Value) value.Value{
	"arith.addf": func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFAdd(x, y) },
	"arith.subf": func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFSub(x, y) },
	"arith.mulf": func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFMul(x, y) },
	"arith.divf": func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFDiv(x, y) },
	"arith.remf": func(b *blockBuilder, x, y value.Value) value.Value { return b.NewFRem(x, y) },
}

// intBinOps map to LLVM's integer binary instructions. nsw is added on
// index-typed addi, subi and muli only: index values of lowered programs
// never wrap, but arith on iN is wrapping by definition.
var intBinOps = map[string]func(b *blockBuilder, x, y value.Value, nsw bool) value.Value{
	"arith.addi": func(b *blockBuilder, x, y value.Value, nsw bool) value.Value {
		i := b.NewAdd(x, y)
		if nsw {
			i.OverflowFlags = nswFlags
		}
		return i
	},
	"arith.subi": func(b *blockBuilder, x, y value.Value, nsw bool) value.Value {
		i := b.NewSub(x, y)
		if nsw {
			i.OverflowFlags = nswFlags
		}
		return i
	},
	"arith.muli": func(b *blockBuilder, x, y value.Value, nsw bool) value.Value {
		i := b.NewMul(x, y)
		if nsw {
			i.OverflowFlags = nswFlags
		}
		return i
	},
	"arith.divsi": func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewSDiv(x, y) },
	"arith.divui": func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewUDiv(x, y) },
	"arith.remsi": func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewSRem(x, y) },
	"arith.remui": func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewURem(x, y) },
	"arith.andi":  func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewAnd(x, y) },
	"arith.ori":   func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewOr(x, y) },
	"arith.xori":  func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewXor(x, y) },
	"arith.shli":  func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewShl(x, y) },
	"arith.shrsi": func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewAShr(x, y) },
	"arith.shrui": func(b *blockBuilder, x, y value.Value, _ bool) value.Value { return b.NewLShr(x, y) },
}

// castOps map to LLVM conversion instructions with the result type.
var castOps = map[string]func(b *blockBuilder, x value.Value, t types.Type) value.Value{
	"arith.sitofp":  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewSIToFP(x, t) },
	"arith.uitofp":  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewUIToFP(x, t) },
	"arith.fptosi":  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPToSI(x, t) },
	"arith.fptoui":  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPToUI(x, t) },
	"arith.extf":    func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPExt(x, t) },
	"arith.truncf":  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewFPTrunc(x, t) },
	"arith.extsi":   func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewSExt(x, t) },
	"arith.extui":   func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewZExt(x, t) },
	"arith.trunci":  func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewTrunc(x, t) },
	"arith.bitcast": func(b *blockBuilder, x value.Value, t types.Type) value.Value { return b.NewBitCast(x, t) },
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
	inst := floatBinOps[op.Name](fe.bb(), x, y)
	setFMF(inst, fastMath(op))
	fe.bind(op.Results[0], inst, "")
	return nil
}

func emitIntBin(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	_, isIndex := op.Results[0].Type.(ir.IndexType)
	fe.bind(op.Results[0], intBinOps[op.Name](fe.bb(), x, y, isIndex), "")
	return nil
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
	fe.bind(op.Results[0], castOps[op.Name](fe.bb(), x, t), "")
	return nil
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
	case op.Name == "arith.index_castui":
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
	fe.bind(op.Results[0], fe.cur.NewSelect(xs[0], xs[1], xs[2]), "")
	return nil
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
	fe.bind(op.Results[0], fe.floatMinMax(x, y, op.Name == "arith.maxf"), "")
	return nil
}

func (fe *fnEmitter) floatMinMax(x, y value.Value, max bool) value.Value {
	if fe.me.tgt.HasFMaximum {
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
	// x > y ? x : y gives y when either is NaN; then pick x when x is NaN.
	r := fe.cur.NewSelect(fe.cur.NewFCmp(pred, x, y), x, y)
	return fe.cur.NewSelect(fe.cur.NewFCmp(enum.FPredUNO, x, x), x, r)
}

// emitIntMinMax lowers maxsi, minsi, maxui, minui to icmp + select.
func emitIntMinMax(fe *fnEmitter, op *ir.Operation) error {
	x, y, err := fe.operands2(op)
	if err != nil {
		return err
	}
	pred := map[string]enum.IPred{"arith.maxsi": enum.IPredSGT, "arith.minsi": enum.IPredSLT, "arith.maxui": enum.IPredUGT, "arith.minui": enum.IPredULT}[op.Name]
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
	if c, ok := constInt(y); ok && op.Name == "arith.floordivsi" {
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
	if op.Name == "arith.floordivsi" {
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
	switch a := op.Attr("predicate").(type) {
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
	return 0, ir.Errorf(op.Loc, "tollvm: '%s' has an unknown predicate %s", op.Name, op.Attr("predicate"))
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

// fastMath translates the `fastmath = #arith.fastmath<...>` attribute
// (none, or a comma-separated list of reassoc nnan ninf nsz arcp contract
// afn, or fast) to LLVM flags.
func fastMath(op *ir.Operation) []enum.FastMathFlag {
	a := op.Attr("fastmath")
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
	switch a := op.Attr("value").(type) {
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
	for i, e := range elems {
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
			c = constant.NewVector(vt, cs...)
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
	return constant.NewFloat(t, v)
}
