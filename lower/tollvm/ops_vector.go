package tollvm

import (
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"

	"tir/dialects/ir"
)

func init() { arithOps["vector.broadcast"] = emitBroadcast }

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
