package gpu_test

import (
	"testing"

	"tir/dialects/gpu"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
)

// TestOpValues: every op registered under "gpu." has its value in
// gpu.Ops(), which lists the registered definitions themselves, once each.
func TestOpValues(t *testing.T) {
	listed := map[*ir.OpDef]bool{}
	for _, d := range gpu.Ops() {
		switch {
		case ir.Dialect(d.Name) != "gpu":
			t.Errorf("%s in gpu.Ops() is not of the gpu dialect", d.Name)
		case ir.LookupOp(d.Name) != d:
			t.Errorf("%s in gpu.Ops() is not the registered definition", d.Name)
		case listed[d]:
			t.Errorf("%s is listed twice in gpu.Ops()", d.Name)
		}
		listed[d] = true
	}
	for _, d := range ir.RegisteredOps() {
		if ir.Dialect(d.Name) == "gpu" && !listed[d] {
			t.Errorf("%s is registered but has no value in gpu.Ops(): give it one", d.Name)
		}
	}
}

// TestSyntaxIsDeclarative lists the ops whose custom syntax is written by
// hand instead of a format string (ir.Format), each with the reason a
// format cannot say it.
func TestSyntaxIsDeclarative(t *testing.T) {
	dialecttest.CheckSyntaxIsDeclarative(t, gpu.Ops(), map[*ir.OpDef]string{
		gpu.Func:       "a signature that names the entry block's arguments, with workgroup and private attributions and the kernel keyword",
		gpu.LaunchFunc: "optional async and dependencies, a nested @module::@kernel, `blocks in (...) threads in (...)` triples, optional shared memory size and `args(%a : T, ...)`",
	})
}
