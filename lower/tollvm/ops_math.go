package tollvm

import (
	"fmt"
	"strings"

	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/ir"
	"tir/dialects/mathd"
	"tir/passes/mathexpand"
)

// mathSpec says how a math op is lowered: to an overloaded LLVM intrinsic
// (which llc expands, for vectors too), or to a libm function (scalars
// only; vectors are scalarised), or by a custom expansion.
type mathSpec struct {
	nargs     int
	intrinsic string // "llvm.exp": the type suffix (.f32, .v8f32) is added
	libm32    string // tanhf
	libm64    string // tanh
	custom    func(fe *fnEmitter, op *ir.Operation, args []value.Value) (value.Value, error)
}

var mathOps = map[*ir.OpDef]mathSpec{
	mathd.Exp:       {nargs: 1, intrinsic: "llvm.exp"},
	mathd.Exp2:      {nargs: 1, intrinsic: "llvm.exp2"},
	mathd.Log:       {nargs: 1, intrinsic: "llvm.log"},
	mathd.Log2:      {nargs: 1, intrinsic: "llvm.log2"},
	mathd.Log10:     {nargs: 1, intrinsic: "llvm.log10"},
	mathd.Sqrt:      {nargs: 1, intrinsic: "llvm.sqrt"},
	mathd.Sin:       {nargs: 1, intrinsic: "llvm.sin"},
	mathd.Cos:       {nargs: 1, intrinsic: "llvm.cos"},
	mathd.Floor:     {nargs: 1, intrinsic: "llvm.floor"},
	mathd.Ceil:      {nargs: 1, intrinsic: "llvm.ceil"},
	mathd.Round:     {nargs: 1, intrinsic: "llvm.round"},
	mathd.RoundEven: {nargs: 1, intrinsic: "llvm.roundeven"},
	mathd.Trunc:     {nargs: 1, intrinsic: "llvm.trunc"},
	mathd.AbsF:      {nargs: 1, intrinsic: "llvm.fabs"},
	mathd.PowF:      {nargs: 2, intrinsic: "llvm.pow"},
	mathd.CopySign:  {nargs: 2, intrinsic: "llvm.copysign"},
	mathd.Fma:       {nargs: 3, intrinsic: "llvm.fma"},
	mathd.Tan:       {nargs: 1, libm32: "tanf", libm64: "tan"},
	mathd.Tanh:      {nargs: 1, libm32: "tanhf", libm64: "tanh"},
	mathd.Atan:      {nargs: 1, libm32: "atanf", libm64: "atan"},
	mathd.Atan2:     {nargs: 2, libm32: "atan2f", libm64: "atan2"},
	mathd.Erf:       {nargs: 1, libm32: "erff", libm64: "erf"},
	mathd.ExpM1:     {nargs: 1, libm32: "expm1f", libm64: "expm1"},
	mathd.Log1p:     {nargs: 1, libm32: "log1pf", libm64: "log1p"},
	mathd.Cbrt:      {nargs: 1, libm32: "cbrtf", libm64: "cbrt"},
	mathd.Rsqrt:     {nargs: 1, custom: emitRsqrt},
	mathd.AbsI:      {nargs: 1, custom: emitAbsI},
}

// emitMath lowers one math op according to its spec.
func (fe *fnEmitter) emitMath(op *ir.Operation, spec mathSpec) error {
	if err := checkCounts(op, spec.nargs, 1); err != nil {
		return err
	}
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	t, err := resultType(op, 0)
	if err != nil {
		return err
	}
	var r value.Value
	switch {
	case fe.me.libdevice && fe.me.tgt.Kernels && !fe.me.tgt.Emulated && libdeviceNeeded[op.Name]:
		r, err = fe.callLibdevice(op, t, args)
	case spec.custom != nil:
		r, err = spec.custom(fe, op, args)
	case spec.intrinsic != "":
		r = fe.callIntrinsic(spec.intrinsic, t, args...)
		setFMF(r, fastMath(op))
	default:
		r, err = fe.callLibm(op, spec, t, args)
	}
	if err != nil {
		return err
	}
	if k := halfKind(op.Results[0].Type); k != "" && !exactOnHalf[op.Def] {
		// Computed in f32, rounded once (spec 2.7).
		r = fe.roundHalf(k, r)
	}
	fe.bind(op.Results[0], r, "")
	return nil
}

// exactOnHalf are the math ops whose result on an f16 or bf16 value is
// again one: they need no rounding.
var exactOnHalf = map[*ir.OpDef]bool{
	mathd.AbsF: true, mathd.CopySign: true, mathd.Floor: true, mathd.Ceil: true,
	mathd.Round: true, mathd.RoundEven: true, mathd.Trunc: true,
}

// typeSuffix is LLVM's overloaded-intrinsic name mangling of a type.
func typeSuffix(t types.Type) string {
	switch t := t.(type) {
	case *types.FloatType:
		switch t.Kind {
		case types.FloatKindHalf:
			return "f16"
		case types.FloatKindFloat:
			return "f32"
		}
		return "f64"
	case *types.IntType:
		return fmt.Sprintf("i%d", t.BitSize)
	case *types.VectorType:
		return fmt.Sprintf("v%d%s", t.Len, typeSuffix(t.ElemType))
	}
	return strings.ReplaceAll(t.String(), " ", "")
}

// callIntrinsic calls the overload of an intrinsic for the type of its
// first argument (all math intrinsics here are overloaded on it), with
// result type t.
func (fe *fnEmitter) callIntrinsic(base string, t types.Type, args ...value.Value) value.Value {
	ps := make([]types.Type, len(args))
	for i, a := range args {
		ps[i] = a.Type()
	}
	f := fe.me.declare(base+"."+typeSuffix(args[0].Type()), t, false, ps...)
	return fe.cur.NewCall(f, args...)
}

// callLibm calls a libm function, element by element for vectors.
func (fe *fnEmitter) callLibm(op *ir.Operation, spec mathSpec, t types.Type, args []value.Value) (value.Value, error) {
	st := scalarOf(t)
	ft, ok := st.(*types.FloatType)
	if !ok || (ft.Kind != types.FloatKindFloat && ft.Kind != types.FloatKindDouble) {
		return nil, ir.Errorf(op.Loc, "tollvm: '%s' on %s: only f32 and f64 are supported", op.Name, t)
	}
	name := spec.libm64
	if ft.Kind == types.FloatKindFloat {
		name = spec.libm32
	}
	ps := make([]types.Type, len(args))
	for i := range ps {
		ps[i] = st
	}
	f := fe.me.declare(name, st, false, ps...)
	vt, isVec := t.(*types.VectorType)
	if !isVec {
		return fe.cur.NewCall(f, args...), nil
	}
	var acc value.Value = constant.NewUndef(vt)
	for k := uint64(0); k < vt.Len; k++ {
		idx := constant.NewInt(types.I32, int64(k))
		lane := make([]value.Value, len(args))
		for i, a := range args {
			lane[i] = fe.cur.NewExtractElement(a, idx)
		}
		acc = fe.cur.NewInsertElement(acc, fe.cur.NewCall(f, lane...), idx)
	}
	return acc, nil
}

// emitRsqrt is 1 / sqrt(x) (correctly rounded sqrt, then a division).
func emitRsqrt(fe *fnEmitter, op *ir.Operation, args []value.Value) (value.Value, error) {
	t := args[0].Type()
	ft, ok := scalarOf(t).(*types.FloatType)
	if !ok {
		return nil, ir.Errorf(op.Loc, "tollvm: math.rsqrt needs a float operand")
	}
	s := fe.callIntrinsic("llvm.sqrt", t, args[0])
	d := fe.cur.NewFDiv(splat(t, floatConst(ft, 1)), s)
	d.FastMathFlags = fastMath(op)
	return d, nil
}

// emitAbsI is llvm.abs(x, is_int_min_poison = false): |INT_MIN| = INT_MIN,
// as MLIR defines it.
func emitAbsI(fe *fnEmitter, op *ir.Operation, args []value.Value) (value.Value, error) {
	t := args[0].Type()
	if _, ok := scalarOf(t).(*types.IntType); !ok {
		return nil, ir.Errorf(op.Loc, "tollvm: math.absi needs an integer operand")
	}
	f := fe.me.declare("llvm.abs."+typeSuffix(t), t, false, t, types.I1)
	return fe.cur.NewCall(f, args[0], constant.False), nil
}

// libdeviceNeeded are the math ops LLVM 14's NVPTX backend cannot select:
// those expand-math computes with arithmetic (convert-to-llvm's default on
// nvptx64), or, with math=libdevice, calls to libdevice.
var libdeviceNeeded = map[string]bool{}

func init() {
	for _, name := range mathexpand.Ops() {
		libdeviceNeeded[name] = true
	}
}

// callLibdevice calls libdevice's __nv_<name>f (f32) or __nv_<name> (f64),
// which the user links from libdevice.10.bc (llvm-link --only-needed).
func (fe *fnEmitter) callLibdevice(op *ir.Operation, t types.Type, args []value.Value) (value.Value, error) {
	ft, ok := t.(*types.FloatType)
	if !ok || ft.Kind != types.FloatKindFloat && ft.Kind != types.FloatKindDouble {
		return nil, ir.Errorf(op.Loc, "tollvm: '%s' on %s: libdevice has f32 and f64 functions only (use math=expand)", op.Name, t)
	}
	base := strings.TrimPrefix(op.Name, "math.")
	switch base {
	case "powf":
		base = "pow"
	case "roundeven":
		base = "rint"
	}
	name := "__nv_" + base
	if ft.Kind == types.FloatKindFloat {
		name += "f"
	}
	ps := make([]types.Type, len(args))
	for i := range ps {
		ps[i] = t
	}
	return fe.cur.NewCall(fe.me.declare(name, t, false, ps...), args...), nil
}
