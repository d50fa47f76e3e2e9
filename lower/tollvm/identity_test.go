package tollvm

import (
	"testing"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// TestIntIdentity: the emission drops an integer op only where the constant
// operand leaves the other unchanged; 1 is all ones for i1 only.
func TestIntIdentity(t *testing.T) {
	b1, b32 := ll.NewParam("b", types.I1), ll.NewParam("x", types.I32)
	c := func(t *types.IntType, v int64) value.Value { return constant.NewInt(t, v) }
	for _, tc := range []struct {
		op   *ir.OpDef
		x, y value.Value
		want value.Value // nil: kept
	}{
		{arith.OrI, c(types.I1, 0), b1, b1},
		{arith.OrI, b1, c(types.I1, 1), nil},
		{arith.XOrI, b1, c(types.I1, 0), b1},
		{arith.XOrI, b1, c(types.I1, 1), nil},
		{arith.AndI, c(types.I1, 1), b1, b1},
		{arith.AndI, b32, c(types.I32, 1), nil},
		{arith.AndI, b32, c(types.I32, -1), b32},
		{arith.AddI, c(types.I32, 0), b32, b32},
		{arith.SubI, c(types.I32, 0), b32, nil},
		{arith.SubI, b32, c(types.I32, 0), b32},
		{arith.MulI, b32, c(types.I32, 1), b32},
		{arith.MulI, b32, c(types.I32, 0), nil},
		{arith.ShLI, c(types.I32, 0), b32, nil},
		{arith.ShRUI, b32, c(types.I32, 0), b32},
		{arith.DivSI, b32, c(types.I32, 1), nil},
	} {
		got, ok := intIdentity(tc.op, tc.x, tc.y)
		if tc.want == nil {
			if ok {
				t.Errorf("%s %v, %v: dropped, want kept", tc.op.Name, tc.x.Ident(), tc.y.Ident())
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s %v, %v: got %v (%v), want %v", tc.op.Name, tc.x.Ident(), tc.y.Ident(), got, ok, tc.want.Ident())
		}
	}
}
