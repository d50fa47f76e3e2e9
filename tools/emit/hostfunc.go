package emit

import (
	"errors"
	"fmt"

	"tir/dialects/fn"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/lower/abi"
)

// The GPU emit kinds (--emit=launch-json, --emit=cuda-host) read the module
// after gpu-kernel-outlining: each func.func there is host code — entry
// checks, size arithmetic, temporaries and gpu.launch_func in order — and
// each launched gpu.func has the parameters the host must pass.

// ErrNotOutlined is returned by the GPU emit kinds for a module that holds
// no outlined GPU functions.
var ErrNotOutlined = errors.New("the module has no GPU host functions")

// hostFunc is one outlined function.
type hostFunc struct {
	fn  *ir.Operation
	sig *abi.Signature
	ops []*ir.Operation // the body, in order
	// kernels are the launched gpu.func ops, by launch op.
	kernels map[*ir.Operation]*ir.Operation
}

// hostFuncs finds the host functions of an outlined module.
func hostFuncs(m *ir.Module) ([]*hostFunc, error) {
	if _, ok := m.Op.Attr(gpu.ContainerModuleAttr).(ir.UnitAttr); !ok {
		return nil, ErrNotOutlined
	}
	kernels := map[string]*ir.Operation{}
	for _, op := range m.Body().Ops {
		if !op.Is(gpu.Module) {
			continue
		}
		for _, k := range gpu.ModuleBody(op).Ops {
			if k.Is(gpu.Func) {
				kernels[ir.SymbolName(op)+"::"+ir.SymbolName(k)] = k
			}
		}
	}
	var out []*hostFunc
	for _, op := range m.Body().Ops {
		if !op.Is(fn.Func) || len(op.Regions[0].Blocks) == 0 {
			continue
		}
		ta, _ := op.Attr(fn.AttrFunctionType).(ir.TypeAttr)
		ft, ok := ta.Type.(ir.FunctionType)
		if !ok {
			return nil, ir.Errorf(op.Loc, "%s without a function type", fn.Func.Name)
		}
		sig, err := abi.Read(op, ir.SymbolName(op), ft.Inputs)
		if err != nil {
			return nil, err
		}
		h := &hostFunc{fn: op, sig: sig, ops: op.Regions[0].Entry().Ops, kernels: map[*ir.Operation]*ir.Operation{}}
		for _, o := range h.ops {
			if len(o.Regions) > 0 {
				return nil, ir.Errorf(o.Loc, "'%s' in the host code of @%s: the GPU emit kinds need every loop nest outlined (run -O2 --target=nvptx64)", o.Name, sig.Name)
			}
			if o.Is(gpu.LaunchFunc) {
				mod, k := gpu.LaunchKernel(o)
				kf := kernels[mod+"::"+k]
				if kf == nil {
					return nil, ir.Errorf(o.Loc, "%s of an unknown kernel @%s::@%s", gpu.LaunchFunc.Name, mod, k)
				}
				h.kernels[o] = kf
			}
		}
		out = append(out, h)
	}
	if len(out) == 0 {
		return nil, ErrNotOutlined
	}
	return out, nil
}

// argOf returns the function argument a value is, or nil.
func (h *hostFunc) argOf(v *ir.Value) *abi.Arg {
	if v.DefiningOp() != nil || v.OwnerBlock() != h.fn.Regions[0].Entry() {
		return nil
	}
	return h.sig.Args[v.ArgIndex()]
}

// launchParam is one scalar a launch passes: a piece of a buffer
// (abi.BodyParams) or an index value.
type launchParam struct {
	name  string
	piece abi.BodyParam
	value *ir.Value // the launch operand it comes from
	elem  ir.Type   // element type of a buffer pointer
}

// launchParams expands a launch's operands into the kernel's parameters,
// in order, named as the kernel's LLVM parameters are.
func (h *hostFunc) launchParams(launch *ir.Operation) ([]launchParam, error) {
	kf := h.kernels[launch]
	kargs := gpu.FuncBody(kf).Args
	args := gpu.LaunchArgs(launch)
	if len(args) != len(kargs) {
		return nil, ir.Errorf(launch.Loc, "%s passes %d arguments to a kernel of %d", gpu.LaunchFunc.Name, len(args), len(kargs))
	}
	var out []launchParam
	for i, v := range args {
		base := kargs[i].NameHint
		if base == "" {
			base = fmt.Sprintf("arg%d", i)
		}
		var elem ir.Type
		if mt, ok := v.Type.(ir.MemRefType); ok {
			elem = mt.Elem
		}
		for _, bp := range abi.BodyParams(v.Type) {
			name := base
			switch bp.Kind {
			case abi.ParamOffset:
				name += ".offset"
			case abi.ParamSize:
				name += fmt.Sprintf(".size%d", bp.Dim)
			case abi.ParamStride:
				name += fmt.Sprintf(".stride%d", bp.Dim)
			}
			out = append(out, launchParam{name: name, piece: bp, value: v, elem: elem})
		}
	}
	return out, nil
}
