package tirpasses

import (
	"testing"

	"tir/dialects/tir"
	"tir/passes"
)

// The pass package knows no dialect and names its anchors; they must be
// the names of the ops they stand for.
func TestAnchorIsTirFunc(t *testing.T) {
	if passes.AnchorTIRFunc != tir.Func.Name {
		t.Errorf("passes.AnchorTIRFunc is %q, tir.Func is %q", passes.AnchorTIRFunc, tir.Func.Name)
	}
}
