// Package emit prints what tc-opt's non-IR --emit kinds produce (spec 5.1,
// 5.2): from a tir-level module, the C header of the compiled functions'
// ABI (--emit=c-header), the same as JSON (--emit=abi-json) and a Fortran
// module calling it (--emit=fortran),
// the halo widths every argument is read with
// (--emit=extents, and as JSON --emit=extents-json) and the dataflow graph
// for Graphviz (--emit=dot); from
// the module the GPU pipeline outlined, the CUDA host wrapper
// (--emit=cuda-host) and the launch description (--emit=launch-json).
//
// The tir-level kinds read tir.func ops, before any lowering: the tir
// types carry the named dimensions, intervals and size symbols the outputs
// describe, and the lowered func.func has lost most of them. Each works on
// the whole module and returns text, or an error that says what in the
// input is wrong.
package emit

import (
	"errors"
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// ErrNoTirFuncs is returned when the module holds no tir.func: either it
// is empty or a pipeline already lowered it. tc-opt reports it as a usage
// error, since the fix is to drop the lowering passes.
var ErrNoTirFuncs = errors.New("the module has no tir.func")

// tirFuncs returns the module's tir.func ops in order, or ErrNoTirFuncs.
func tirFuncs(m *ir.Module) ([]*ir.Operation, error) {
	var fns []*ir.Operation
	for _, op := range m.Body().Ops {
		if op.Is(tir.Func) {
			fns = append(fns, op)
		}
	}
	if len(fns) == 0 {
		return nil, ErrNoTirFuncs
	}
	return fns, nil
}

// signature is a tir.func's signature with the names its arguments had in
// the input (the lowering and the ABI use the same names).
type signature struct {
	fn       *ir.Operation
	name     string
	ft       ir.FunctionType
	args     []*ir.Value // entry block arguments
	argNames []string
	ins      []tir.TensorType
	outs     []tir.TensorType
}

func readSignature(fn *ir.Operation) (*signature, error) {
	ft, ok := tir.FuncType(fn)
	if !ok || len(fn.Regions) == 0 || fn.Regions[0].Entry() == nil {
		return nil, ir.Errorf(fn.Loc, "%s without a signature or body", tir.Func.Name)
	}
	s := &signature{fn: fn, name: ir.SymbolName(fn), ft: ft, args: fn.Regions[0].Entry().Args}
	for i, t := range ft.Inputs {
		tt, ok := tir.AsTensor(t)
		if !ok {
			return nil, ir.Errorf(fn.Loc, "@%s: argument #%d is not a tensor", s.name, i)
		}
		s.ins = append(s.ins, tt)
		name := ""
		if i < len(s.args) {
			name = s.args[i].NameHint
		}
		if name == "" {
			// The lowering's fallback (tiraffine.lowerFunc).
			name = fmt.Sprintf("arg%d", i)
		}
		s.argNames = append(s.argNames, name)
	}
	for i, t := range ft.Results {
		tt, ok := tir.AsTensor(t)
		if !ok {
			return nil, ir.Errorf(fn.Loc, "@%s: result #%d is not a tensor", s.name, i)
		}
		s.outs = append(s.outs, tt)
	}
	return s, nil
}

// resultName is the name the lowering gives result i of n (tiraffine:
// "result" alone, else "result0", "result1", ...).
func resultName(i, n int) string {
	if n == 1 {
		return "result"
	}
	return fmt.Sprintf("result%d", i)
}

// domainText prints a tensor's dimensions joined by sep (`I[0:5] J[0:7]`),
// or `scalar`.
func domainText(t tir.TensorType, sep string) string {
	if len(t.Dims) == 0 {
		return "scalar"
	}
	s := ""
	for i, d := range t.Dims {
		if i > 0 {
			s += sep
		}
		s += d.String()
	}
	return s
}
