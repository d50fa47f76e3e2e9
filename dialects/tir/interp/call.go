package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

func init() { register(tir.Call, evalCall) }

// evalCall runs the callee (attribute "callee", a symbol of the module) on
// the operands. The callee's size symbols are bound from the operands'
// actual bounds (unification at run time), which must equal its parameter
// bounds; its results, on its declared output domains, are then read on
// the call's result domains.
func evalCall(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	name := tir.CallOp{Operation: op}.Callee()
	if name == "" {
		return nil, fmt.Errorf("needs a 'callee' symbol attribute")
	}
	callee := lookupFunc(ev.fn, name)
	if callee == nil || !callee.Is(tir.Func) {
		return nil, fmt.Errorf("no tir.func @%s in the module", name)
	}
	// The callee runs in its own coordinates: a dimension whose origin the
	// call moves (tir.Unify's Shift) is rebased on the way in and out.
	bind, err := tir.Unify(op, callee, op.Operands)
	if err != nil {
		return nil, err
	}
	shift := map[string]int64{}
	for d := range bind.Shift {
		if e, ok := bind.Shifted(d); ok {
			v, err := evalExpr(e, ev.syms, nil)
			if err != nil {
				return nil, fmt.Errorf("the shift of dimension %s: %v", d, err)
			}
			shift[d] = v
		}
	}
	moved := func(t *Tensor, sign int64) *Tensor {
		if len(shift) == 0 {
			return t
		}
		dims := append([]Dim(nil), t.Dims...)
		for k := range dims {
			dims[k].Lo += sign * shift[dims[k].Name]
			dims[k].Hi += sign * shift[dims[k].Name]
		}
		return rebase(t, dims)
	}
	args := make([]*Tensor, len(in))
	for i, t := range in {
		args[i] = moved(t, -1)
	}
	outs, err := call(callee, args, nil, ev.depth+1, true)
	if err != nil {
		return nil, err
	}
	for i := range outs {
		outs[i] = moved(outs[i], 1)
	}
	if len(outs) != len(op.Results) {
		return nil, fmt.Errorf("@%s returned %d values for %d results", name, len(outs), len(op.Results))
	}
	for i := range outs {
		elem, dims, err := ev.result(op, i)
		if err != nil {
			return nil, err
		}
		if outs[i], err = restrict(outs[i], elem, dims); err != nil {
			return nil, fmt.Errorf("result #%d: %v", i, err)
		}
	}
	return outs, nil
}
