package interp

import (
	"fmt"

	"tir/dialects/ir"
)

func init() { register("tir.call", evalCall) }

// evalCall runs the callee (attribute "callee", a symbol of the module) on
// the operands. The callee's size symbols are bound from the operands'
// actual bounds (unification at run time), which must equal its parameter
// bounds; its results, on its declared output domains, are then read on
// the call's result domains.
func evalCall(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	ref, ok := op.Attr("callee").(ir.SymbolRefAttr)
	if !ok {
		return nil, fmt.Errorf("needs a 'callee' symbol attribute")
	}
	callee := lookupFunc(ev.fn, string(ref))
	if callee == nil || callee.Name != "tir.func" {
		return nil, fmt.Errorf("no tir.func @%s in the module", ref)
	}
	outs, err := call(callee, in, nil, ev.depth+1, true)
	if err != nil {
		return nil, err
	}
	if len(outs) != len(op.Results) {
		return nil, fmt.Errorf("@%s returned %d values for %d results", ref, len(outs), len(op.Results))
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
