package tollvm

import (
	"testing"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"
)

// TestIntIdentity: the emission drops an integer op only where the constant
// operand leaves the other unchanged; 1 is all ones for i1 only.
func TestIntIdentity(t *testing.T) {
	b1, b32 := ll.NewParam("b", types.I1), ll.NewParam("x", types.I32)
	c := func(t *types.IntType, v int64) value.Value { return constant.NewInt(t, v) }
	for _, tc := range []struct {
		name string
		x, y value.Value
		want value.Value // nil: kept
	}{
		{"arith.ori", c(types.I1, 0), b1, b1},
		{"arith.ori", b1, c(types.I1, 1), nil},
		{"arith.xori", b1, c(types.I1, 0), b1},
		{"arith.xori", b1, c(types.I1, 1), nil},
		{"arith.andi", c(types.I1, 1), b1, b1},
		{"arith.andi", b32, c(types.I32, 1), nil},
		{"arith.andi", b32, c(types.I32, -1), b32},
		{"arith.addi", c(types.I32, 0), b32, b32},
		{"arith.subi", c(types.I32, 0), b32, nil},
		{"arith.subi", b32, c(types.I32, 0), b32},
		{"arith.muli", b32, c(types.I32, 1), b32},
		{"arith.muli", b32, c(types.I32, 0), nil},
		{"arith.shli", c(types.I32, 0), b32, nil},
		{"arith.shrui", b32, c(types.I32, 0), b32},
		{"arith.divsi", b32, c(types.I32, 1), nil},
	} {
		got, ok := intIdentity(tc.name, tc.x, tc.y)
		if tc.want == nil {
			if ok {
				t.Errorf("%s %v, %v: dropped, want kept", tc.name, tc.x.Ident(), tc.y.Ident())
			}
			continue
		}
		if !ok || got != tc.want {
			t.Errorf("%s %v, %v: got %v (%v), want %v", tc.name, tc.x.Ident(), tc.y.Ident(), got, ok, tc.want.Ident())
		}
	}
}
