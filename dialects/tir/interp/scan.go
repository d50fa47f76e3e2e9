package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

func init() { register(tir.Scan, evalScan) }

// evalScan runs the body once per point of the scanned dimension (attribute
// "dim"), from the lower bound up ("forward") or from the upper bound down
// ("backward"), over the result's interval of that dimension. Operands are
// (init, ins...); the body gets the state and each input's slice at the
// current point, and r(k) is the state after step k. Where an input's slice
// or the new state is masked, the step is skipped and the state kept, as a
// reduction skips masked points; a masked init thus masks its whole column
// and nothing else does.
func evalScan(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	name, err := dimAttr(op)
	if err != nil {
		return nil, err
	}
	dir := tir.ScanOp{Operation: op}.Direction()
	if dir != "forward" && dir != "backward" {
		return nil, fmt.Errorf("needs a 'direction' attribute, forward or backward")
	}
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	k := findDim(dims, name)
	if k < 0 {
		return nil, fmt.Errorf("the result has no dimension %s", name)
	}
	if len(in) < 1 || len(op.Regions) == 0 || op.Regions[0].Entry() == nil {
		return nil, fmt.Errorf("needs an init value and a body")
	}
	state, err := initial(elem, without(dims, name), in[0], "")
	if err != nil {
		return nil, err
	}
	out := mustTensor(elem, dims)
	lo, hi, step := dims[k].Lo, dims[k].Hi-1, int64(1)
	if dir == "backward" {
		lo, hi, step = hi, lo, -1
	}
	for x := lo; dims[k].Extent() > 0 && (x-hi)*step <= 0; x += step {
		fixed := map[string]int64{name: x}
		args := []*Tensor{state}
		views := []*Tensor{state}
		for _, t := range in[1:] {
			s, err := slice(t, fixed)
			if err != nil {
				return nil, err
			}
			args = append(args, s)
			v, err := align(s, state.Dims)
			if err != nil {
				return nil, err
			}
			views = append(views, v)
		}
		outs, err := ev.block(op.Regions[0].Entry(), args)
		if err != nil {
			return nil, err
		}
		y, err := align(outs[0], state.Dims)
		if err != nil {
			return nil, fmt.Errorf("yield at %s=%d: %v", name, x, err)
		}
		state = merge(state, y, orMasks(state.Len(), append(views, y)...))
		if err := insertSlice(out, fixed, state); err != nil {
			return nil, err
		}
	}
	return []*Tensor{out}, nil
}
