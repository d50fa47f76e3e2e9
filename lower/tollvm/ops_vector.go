package tollvm

import (
	"math"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/vector"
)

func init() {
	arithOps[vector.Broadcast] = emitBroadcast
	arithOps[vector.Reduction] = emitReduction
	arithOps[vector.Shuffle] = emitShuffle
}

// emitShuffle lowers vector.shuffle to LLVM's shufflevector, whose mask
// indexes the two operands' lanes the same way.
func emitShuffle(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 2, 1); err != nil {
		return err
	}
	mask, ok := vector.ShuffleMask(op)
	if !ok {
		return ir.Errorf(op.Loc, "tollvm: 'vector.shuffle' needs a mask of lane indices")
	}
	xs, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	lanes := make([]constant.Constant, len(mask))
	for i, m := range mask {
		lanes[i] = constant.NewInt(types.I32, m)
	}
	fe.bind(op.Results[0], fe.cur.NewShuffleVector(xs[0], xs[1], constant.NewVector(types.NewVector(uint64(len(mask)), types.I32), lanes...)), "")
	return nil
}

// emitBroadcast lowers vector.broadcast of a scalar to LLVM's splat idiom:
// the scalar inserted at lane 0 of an undef vector, then a shufflevector
// with an all-zero mask (llc selects one broadcast instruction,
// vbroadcastss or dup, folding a load when the scalar comes from memory).
func emitBroadcast(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 1, 1); err != nil {
		return err
	}
	x, err := fe.val(op.Operands[0], op)
	if err != nil {
		return err
	}
	rt, err := resultType(op, 0)
	if err != nil {
		return err
	}
	vt, ok := rt.(*types.VectorType)
	if !ok {
		return ir.Errorf(op.Loc, "tollvm: 'vector.broadcast' must produce a vector, not %s", op.Results[0].Type)
	}
	ins := fe.cur.NewInsertElement(constant.NewUndef(vt), x, constant.NewInt(types.I32, 0))
	mask := constant.NewZeroInitializer(types.NewVector(vt.Len, types.I32))
	fe.bind(op.Results[0], fe.cur.NewShuffleVector(ins, constant.NewUndef(vt), mask), "")
	return nil
}

// intReductions name LLVM 14's integer llvm.vector.reduce.* intrinsics.
var intReductions = map[vector.CombiningKind]string{
	vector.KindAdd: "add", vector.KindMul: "mul", vector.KindAnd: "and", vector.KindOr: "or", vector.KindXor: "xor",
	vector.KindMinSI: "smin", vector.KindMaxSI: "smax", vector.KindMinUI: "umin", vector.KindMaxUI: "umax",
}

// emitReduction lowers vector.reduction, then combines the accumulator
// (when there is one) with the result:
//
//   - integer kinds call llvm.vector.reduce.{add,mul,and,or,xor,smin,smax,
//     umin,umax}, which llc expands into a shuffle tree;
//   - float add and mul call llvm.vector.reduce.fadd/fmul with the
//     accumulator (or -0.0, 1.0) as the start value: in lane order, or as
//     a tree with the reassoc flag when the module may reassociate them
//     (Options.ReassociateFPReductions);
//   - float maxf and minf halve the vector with shufflevectors, combining
//     the halves with the same compares and selects as arith.maxf/minf.
//     LLVM's llvm.vector.reduce.fmax/fmin are maxnum/minnum, which ignore
//     NaN; these ops propagate it and order -0 below +0, so every order of
//     the lanes gives the same value.
func emitReduction(fe *fnEmitter, op *ir.Operation) error {
	kind, ok := op.Attr(vector.AttrKind).(vector.CombiningKind)
	if !ok || len(op.Operands) < 1 || len(op.Operands) > 2 || len(op.Results) != 1 {
		return ir.Errorf(op.Loc, "tollvm: 'vector.reduction' needs a kind, a vector, an optional accumulator and one result")
	}
	xs, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	v := xs[0]
	vt, ok := v.Type().(*types.VectorType)
	if !ok {
		return ir.Errorf(op.Loc, "tollvm: 'vector.reduction' of %s: expected a vector", op.Operands[0].Type)
	}
	var acc value.Value
	if len(xs) == 2 {
		acc = xs[1]
	}
	et := vt.ElemType
	b := fe.cur
	var r value.Value
	switch {
	case kind == vector.KindMinF || kind == vector.KindMaxF:
		max := kind == vector.KindMaxF
		r = fe.lanesTree(v, func(x, y value.Value) value.Value { return fe.floatMinMax(x, y, max) })
		if acc != nil {
			r = fe.floatMinMax(acc, r, max)
		}
	case types.IsFloat(et):
		if halfKind(op.Results[0].Type) != "" {
			return ir.Errorf(op.Loc, "tollvm: 'vector.reduction <%s>' of %s is not supported (each step would need rounding to the half type)", kind.Name(), op.Operands[0].Type)
		}
		name, start := "llvm.vector.reduce.fadd", math.Copysign(0, -1)
		if kind == vector.KindMul {
			name, start = "llvm.vector.reduce.fmul", 1
		}
		if acc == nil {
			acc = constant.NewFloat(et.(*types.FloatType), start)
		}
		f := fe.me.declare(name+"."+typeSuffix(vt), et, false, et, vt)
		call := b.NewCall(f, acc, v)
		if fe.me.reassocReductions {
			call.FastMathFlags = []enum.FastMathFlag{enum.FastMathFlagReassoc}
		}
		r = call
	default:
		name, ok := intReductions[kind]
		if !ok {
			return ir.Errorf(op.Loc, "tollvm: 'vector.reduction <%s>' of %s is not supported", kind.Name(), op.Operands[0].Type)
		}
		f := fe.me.declare("llvm.vector.reduce."+name+"."+typeSuffix(vt), et, false, vt)
		r = b.NewCall(f, v)
		if acc != nil {
			r = combineInt(b, kind, acc, r)
		}
	}
	fe.bind(op.Results[0], r, "")
	return nil
}

// combineInt applies an integer combining kind to two scalars.
func combineInt(b *ll.Block, kind vector.CombiningKind, x, y value.Value) value.Value {
	pred := map[vector.CombiningKind]enum.IPred{vector.KindMaxSI: enum.IPredSGT, vector.KindMinSI: enum.IPredSLT,
		vector.KindMaxUI: enum.IPredUGT, vector.KindMinUI: enum.IPredULT}
	if p, ok := pred[kind]; ok {
		return b.NewSelect(b.NewICmp(p, x, y), x, y)
	}
	k := map[vector.CombiningKind]*ir.OpDef{vector.KindAdd: arith.AddI, vector.KindMul: arith.MulI,
		vector.KindAnd: arith.AndI, vector.KindOr: arith.OrI, vector.KindXor: arith.XOrI}[kind]
	return intBinOps[k](b, x, y, false)
}

// lanesTree combines the lanes of v pairwise with f: the low half with the
// high half (shufflevectors) until two lanes are left, which are combined
// as scalars; the last lane of an odd length is combined at the end.
func (fe *fnEmitter) lanesTree(v value.Value, f func(x, y value.Value) value.Value) value.Value {
	b := fe.cur
	lane := func(x value.Value, k uint64) value.Value {
		return b.NewExtractElement(x, constant.NewInt(types.I32, int64(k)))
	}
	var odd []value.Value
	for v.Type().(*types.VectorType).Len > 2 {
		vt := v.Type().(*types.VectorType)
		n := vt.Len
		if n%2 == 1 {
			odd = append(odd, lane(v, n-1))
		}
		h := n / 2
		lo, hi := make([]constant.Constant, h), make([]constant.Constant, h)
		for k := uint64(0); k < h; k++ {
			lo[k] = constant.NewInt(types.I32, int64(k))
			hi[k] = constant.NewInt(types.I32, int64(h+k))
		}
		undef := constant.NewUndef(vt)
		v = f(b.NewShuffleVector(v, undef, constant.NewVector(types.NewVector(h, types.I32), lo...)),
			b.NewShuffleVector(v, undef, constant.NewVector(types.NewVector(h, types.I32), hi...)))
	}
	r := lane(v, 0)
	if v.Type().(*types.VectorType).Len == 2 {
		r = f(r, lane(v, 1))
	}
	for _, x := range odd {
		r = f(r, x)
	}
	return r
}
