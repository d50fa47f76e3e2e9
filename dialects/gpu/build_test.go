package gpu_test

import (
	"strings"
	"testing"

	"tir/dialects/arith"
	"tir/dialects/fn"
	"tir/dialects/gpu"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/ir"
	"tir/dialects/memref"
)

// TestBuilders builds what kernel outlining builds (a container module, a
// gpu.module with a kernel reading every index op, a host launch) with the
// builders only, and checks that it verifies, prints to a fixed point,
// reads back from the generic form, is accepted by MLIR, and that the
// accessors give back what was built.
func TestBuilders(t *testing.T) {
	loc := ir.Location{File: "built", Line: 1, Col: 1}
	mt := ir.MemRefType{Shape: []int64{ir.Dynamic}, Elem: ir.F32}

	m := ir.NewModule(loc)
	m.Implicit = false
	m.Op.SetAttr(gpu.ContainerModuleAttr, ir.UnitAttr{})

	mod := gpu.NewModule(loc, "kernels")
	m.Body().Append(mod)
	k := gpu.NewFunc(loc, "k", []ir.Type{mt, ir.Index}, true)
	gpu.AppendToModule(mod, k)
	dev := gpu.NewFunc(loc, "helper", nil, false)
	gpu.AppendToModule(mod, dev)
	gpu.FuncBody(dev).Append(gpu.NewReturn(loc))
	if body := gpu.ModuleBody(mod); len(body.Ops) != 3 || body.Ops[0] != k || body.Ops[1] != dev || !body.Ops[2].Is(gpu.ModuleEnd) {
		t.Fatalf("AppendToModule must insert before gpu.module_end")
	}
	if !gpu.IsKernel(k) || gpu.IsKernel(dev) || gpu.IsKernel(mod) {
		t.Errorf("IsKernel: kernel %v, device function %v, module %v", gpu.IsKernel(k), gpu.IsKernel(dev), gpu.IsKernel(mod))
	}

	kb := gpu.FuncBody(k)
	kb.Args[0].NameHint, kb.Args[1].NameHint = "m", "n"
	var tid *ir.Value
	for _, kind := range gpu.IndexOps {
		for _, d := range []string{"x", "y", "z"} {
			op := gpu.NewIndexOp(loc, kind.Name, d)
			kb.Append(op)
			if !op.Is(kind) {
				t.Errorf("NewIndexOp(%s) built %s", kind.Name, op.Name)
			}
			if got := gpu.Dimension(op); got != d {
				t.Errorf("Dimension(%s %s) = %q", kind.Name, d, got)
			}
			if tid == nil {
				tid = op.Results[0]
			}
		}
	}
	v := kb.Append(memref.NewLoad(loc, kb.Args[0], []*ir.Value{tid})).Results[0]
	kb.Append(memref.NewStore(loc, v, kb.Args[0], []*ir.Value{tid}))
	kb.Append(gpu.NewReturn(loc))

	host, entry := fn.NewFunc(loc, "host", ir.FunctionType{Inputs: []ir.Type{mt, ir.Index}})
	m.Body().Append(host)
	c1 := entry.Append(arith.NewConstantIndex(loc, 1)).Results[0]
	c32 := entry.Append(arith.NewConstantIndex(loc, 32)).Results[0]
	grid := [3]*ir.Value{entry.Args[1], c1, c1}
	block := [3]*ir.Value{c32, c1, c1}
	args := []*ir.Value{entry.Args[0], entry.Args[1]}
	launch := gpu.NewLaunchFunc(loc, "kernels", "k", grid, block, args)
	entry.Append(launch)
	entry.Append(fn.NewReturn(loc))

	if mod, kern := gpu.LaunchKernel(launch); mod != "kernels" || kern != "k" {
		t.Errorf("LaunchKernel = %q, %q", mod, kern)
	}
	if gpu.LaunchGrid(launch) != grid || gpu.LaunchBlock(launch) != block {
		t.Errorf("LaunchGrid/LaunchBlock do not give back the sizes")
	}
	if got := gpu.LaunchArgs(launch); len(got) != 2 || got[0] != args[0] || got[1] != args[1] {
		t.Errorf("LaunchArgs = %v", got)
	}

	out := dialecttest.CheckModule(t, "built", m)
	for _, want := range []string{
		"gpu.func @k(%m: memref<?xf32>, %n: index) kernel {",
		"gpu.func @helper() {",
		"%0 = gpu.thread_id  x",
		"%11 = gpu.grid_dim  z",
		"gpu.launch_func  @kernels::@k blocks in (%1, %2, %2) threads in (%3, %2, %2) args(%0 : memref<?xf32>, %1 : index)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("print lacks %q:\n%s", want, out)
		}
	}
}

// TestBuiltBadDimension: a dimension other than x, y, z is the verifier's
// to report, at the op.
func TestBuiltBadDimension(t *testing.T) {
	loc := ir.Location{File: "built", Line: 7, Col: 3}
	m := ir.NewModule(loc)
	mod := gpu.NewModule(loc, "m")
	m.Body().Append(mod)
	k := gpu.NewFunc(loc, "k", nil, true)
	gpu.AppendToModule(mod, k)
	gpu.FuncBody(k).Append(gpu.NewIndexOp(loc, gpu.ThreadID.Name, "w"))
	gpu.FuncBody(k).Append(gpu.NewReturn(loc))
	err := ir.Verify(m.Op, nil)
	if err == nil || !strings.Contains(err.Error(), "built:7:3") || !strings.Contains(err.Error(), "either 'x', 'y', or 'z'") {
		t.Errorf("want a located dimension error, got %v", err)
	}
}

func TestNewIndexOpUnknownKind(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewIndexOp with an unknown kind must panic")
		}
	}()
	gpu.NewIndexOp(ir.Location{}, "gpu.lane_id", "x")
}
