package tollvm

import (
	"fmt"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	memrefd "tir/dialects/memref"
	"tir/lower/abi"
	"tir/passes/mathexpand"
)

// GPU kernels (gpu.func ... kernel in a gpu.module) become LLVM functions
// `void @k(params...)` whose parameters are those of a CPU function body
// (abi.BodyParams of each kernel argument: a buffer's pointer in the global
// address space, its offset, dynamic sizes and outer strides; scalars as
// is), marked as kernels in !nvvm.annotations. The host side — entry
// checks, temporaries, launches — is C (--emit=cuda-host), built from the
// func.func that calls them.
//
// For testing without a GPU the same kernels can be emitted for the host
// CPU (Options.Emulate): `void @k(i8** params, i32* ids)` takes the
// argument array of cuLaunchKernel (params[k] points at the k-th parameter)
// and the thread's indices, ids = tid.xyz, ctaid.xyz, ntid.xyz, nctaid.xyz,
// which a CUDA driver emulator supplies while it loops over the grid.

// sregNames are the PTX special registers behind the gpu index ops, and
// emulatedIDs the position of their x component in the emulator's ids.
var (
	sregNames   = map[*ir.OpDef]string{gpu.ThreadID: "tid", gpu.BlockID: "ctaid", gpu.BlockDim: "ntid", gpu.GridDim: "nctaid"}
	emulatedIDs = map[*ir.OpDef]int64{gpu.ThreadID: 0, gpu.BlockID: 3, gpu.BlockDim: 6, gpu.GridDim: 9}
)

// emitGPUModule lowers the kernels of a gpu.module.
func (me *moduleEmitter) emitGPUModule(op *ir.Operation) error {
	for _, k := range gpu.ModuleBody(op).Ops {
		switch {
		case k.Is(gpu.ModuleEnd):
		case k.Is(gpu.Func) && gpu.IsKernel(k):
			if !me.libdevice {
				// The math NVPTX cannot select is computed with arithmetic
				// (expand-math), on a copy: emitting LLVM IR leaves the
				// module as it was. The host emulation computes the same.
				k = k.Clone(map[*ir.Value]*ir.Value{})
				if err := mathexpand.Expand(k); err != nil {
					return err
				}
			}
			if err := me.emitKernel(k); err != nil {
				return err
			}
		default:
			return ir.Errorf(k.Loc, "tollvm: '%s' in a gpu.module is not supported (only kernels are lowered)", k.Name)
		}
	}
	return nil
}

// kernelArgs describes a kernel's arguments for abi.BodyParams.
func kernelArgs(op *ir.Operation, blk *ir.Block) ([]*abi.Arg, []types.Type, error) {
	var args []*abi.Arg
	var elems []types.Type
	for i, v := range blk.Args {
		name := valueHint(v)
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		a := &abi.Arg{Index: i, Name: name, Type: v.Type}
		t := v.Type
		if mt, ok := v.Type.(ir.MemRefType); ok {
			a.Mem = &mt
			t = mt.Elem
		}
		lt, err := llType(t)
		if err != nil {
			return nil, nil, ir.Errorf(op.Loc, "tollvm: kernel argument '%s': %v", name, err)
		}
		args = append(args, a)
		elems = append(elems, lt)
	}
	return args, elems, nil
}

// emitKernel lowers one kernel.
func (me *moduleEmitter) emitKernel(op *ir.Operation) error {
	name := ir.SymbolName(op)
	blk := gpu.FuncBody(op)
	args, elems, err := kernelArgs(op, blk)
	if err != nil {
		return err
	}
	params := me.bodyParams(args, elems)
	markReadOnly(blk, args, params)
	var fn *ll.Func
	var pp, ids *ll.Param
	if me.tgt.Emulated {
		pp = ll.NewParam("params", types.NewPointer(types.I8Ptr))
		ids = ll.NewParam("ids", types.I32Ptr)
		fn = me.mod.NewFunc(name, types.Void, pp, ids)
	} else {
		fn = me.mod.NewFunc(name, types.Void, params...)
		me.annotateKernel(fn)
	}
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	fe := newFnEmitter(me, fn)
	fe.emulatedIDs = ids
	entry := fe.place(fe.newBlock("entry"))
	fe.prologue = entry
	var vals []value.Value
	if me.tgt.Emulated {
		// params[k] points at the k-th parameter's value.
		for k, p := range params {
			slot := entry.NewGetElementPtr(types.I8Ptr, pp, i64(int64(k)))
			slot.InBounds = true
			raw := entry.NewLoad(types.I8Ptr, slot)
			typed := entry.NewBitCast(raw, types.NewPointer(p.Typ))
			vals = append(vals, fe.setName(entry.NewLoad(p.Typ, typed), p.LocalName))
		}
	} else {
		vals = paramValues(fn.Params)
	}
	start := fe.place(fe.newBlock("start"))
	fe.cur = start
	fe.bindParams(args, elems, blk, vals)
	if _, err := fe.emitBlock(blk); err != nil {
		return err
	}
	if fe.cur.Term == nil {
		fe.cur.NewRet(nil)
	}
	fe.prologue.NewBr(start)
	return nil
}

// annotateKernel adds `!{void (...)* @k, !"kernel", i32 1}` to
// !nvvm.annotations, which makes llc emit the function as a PTX .entry.
func (me *moduleEmitter) annotateKernel(fn *ll.Func) {
	md := &metadata.Tuple{
		MetadataID: metadata.MetadataID(len(me.mod.MetadataDefs)),
		Fields:     []metadata.Field{fn, &metadata.String{Value: "kernel"}, constant.NewInt(types.I32, 1)},
	}
	me.mod.MetadataDefs = append(me.mod.MetadataDefs, md)
	named, ok := me.mod.NamedMetadataDefs["nvvm.annotations"]
	if !ok {
		named = &metadata.NamedDef{Name: "nvvm.annotations"}
		me.mod.NamedMetadataDefs["nvvm.annotations"] = named
	}
	named.Nodes = append(named.Nodes, md)
}

// emitGPUIndex lowers gpu.thread_id / block_id / block_dim / grid_dim x|y|z
// to the PTX special register (or the emulator's ids), as an index.
func emitGPUIndex(fe *fnEmitter, op *ir.Operation) error {
	if err := checkCounts(op, 0, 1); err != nil {
		return err
	}
	dim := gpu.Dimension(op)
	k := map[string]int64{"x": 0, "y": 1, "z": 2}[dim]
	if dim == "" {
		return ir.Errorf(op.Loc, "tollvm: '%s' needs a dimension x, y or z", op.Name)
	}
	var v value.Value
	switch {
	case fe.emulatedIDs != nil:
		p := fe.cur.NewGetElementPtr(types.I32, fe.emulatedIDs, i64(emulatedIDs[op.Def]+k))
		p.InBounds = true
		v = fe.cur.NewLoad(types.I32, p)
	case fe.me.tgt.Kernels && !fe.me.tgt.Emulated:
		f := fe.me.declare(fmt.Sprintf("llvm.nvvm.read.ptx.sreg.%s.%s", sregNames[op.Def], dim), types.I32, false)
		v = fe.cur.NewCall(f)
	default:
		return ir.Errorf(op.Loc, "tollvm: '%s' is only meaningful in a GPU kernel (target nvptx64)", op.Name)
	}
	fe.bind(op.Results[0], fe.cur.NewZExt(v, types.I64), sregNames[op.Def]+"."+dim)
	return nil
}

// checkHostFunc refuses a func.func with loops when emitting kernels: its
// loop nests were not outlined (run gpu-kernel-outlining first), and the
// GPU target emits no host code.
func checkHostFunc(fn *ir.Operation) error {
	var err error
	fn.Walk(func(op *ir.Operation) bool {
		if op != fn && len(op.Regions) > 0 {
			err = ir.Errorf(op.Loc, "tollvm: '%s' in a host function: target nvptx64 needs the loop nests outlined into kernels (run gpu-kernel-outlining before convert-to-llvm)", op.Name)
		}
		return err == nil
	})
	return err
}

// markReadOnly adds `readonly` to the pointers of the buffers a kernel only
// reads: with noalias, NVPTX then loads them through the read-only data
// cache (ld.global.nc).
func markReadOnly(blk *ir.Block, args []*abi.Arg, params []*ll.Param) {
	written := map[*ir.Value]bool{}
	blk.ParentOp().Walk(func(op *ir.Operation) bool {
		switch op.Def {
		case memrefd.Store, memrefd.AtomicRMW, affine.Store, affine.VectorStore:
			if len(op.Operands) > 1 {
				written[op.Operands[1]] = true
			}
		}
		return true
	})
	k := 0
	for i, a := range args {
		for _, bp := range abi.BodyParams(a.Type) {
			if bp.Kind == abi.ParamPtr && !written[blk.Args[i]] {
				params[k].Attrs = append(params[k].Attrs, enum.ParamAttrReadOnly)
			}
			k++
		}
	}
}
