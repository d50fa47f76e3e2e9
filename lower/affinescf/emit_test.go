package affinescf

import (
	"testing"

	"tir/dialects/ir"
)

// TestBinaryFoldsConstantOffsets: (x + c0) + c1 is emitted as x + (c0 +
// c1), with the constant on either side of the inner addition, so that
// one point reached by two paths (i + 2, and (i + 1) + 1 in the next copy
// of a coarsened kernel's body) gets the same operation, which cse then
// merges, and with it the loads that use it.
func TestBinaryFoldsConstantOffsets(t *testing.T) {
	b := &ir.Block{}
	x := b.AddArg(ir.Index, "x")
	e := &Emitter{Block: b}
	isXPlus := func(v *ir.Value, c int64) bool {
		d := v.DefiningOp()
		if d == nil || d.Name != "arith.addi" || d.Operands[0] != x {
			return false
		}
		got, ok := constIndex(d.Operands[1])
		return ok && got == c
	}
	if v := e.Binary("addi", e.Binary("addi", x, e.Index(1)), e.Index(1)); !isXPlus(v, 2) {
		t.Errorf("(x + 1) + 1 is not emitted as x + 2")
	}
	if v := e.Binary("addi", e.Binary("addi", e.Index(1), x), e.Index(1)); !isXPlus(v, 2) {
		t.Errorf("(1 + x) + 1 is not emitted as x + 2")
	}
	if v := e.Binary("addi", e.Binary("addi", x, e.Index(3)), e.Index(-3)); v != x {
		t.Errorf("(x + 3) + -3 is not x")
	}
	// Other operations keep their order: (x * 2) + 1 stays as written.
	m := e.Binary("muli", x, e.Index(2))
	if s := e.Binary("addi", m, e.Index(1)); s.DefiningOp().Operands[0] != m {
		t.Errorf("(x * 2) + 1 was rewritten")
	}
}
