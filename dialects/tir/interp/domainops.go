package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// assume_shape (a run-time check) and pos (which reads no element).

func init() {
	register(tir.AssumeShape, evalAssumeShape)
	register(tir.Pos, evalPos)
}

// evalAssumeShape is the run-time check of tir.assume_shape: the operand's
// intervals must be the ones the result type states.
func evalAssumeShape(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	_, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	x := in[0]
	if len(x.Dims) != len(dims) {
		return nil, fmt.Errorf("assumed shape does not hold: the value is on %s, the type says %s", dimsString(x.Dims), dimsString(dims))
	}
	for k, d := range dims {
		if g := x.Dims[k]; g.Name != d.Name || g.Lo != d.Lo || g.Hi != d.Hi {
			return nil, fmt.Errorf("assumed shape does not hold: dimension %s is %s at run time, the type says %s", d.Name, g, d)
		}
	}
	return []*Tensor{rebase(x, dims)}, nil
}

// dimAttr is the dimension an op works along (attribute "dim").
func dimAttr(op *ir.Operation) (string, error) {
	s := tir.DimAttr(op)
	if s == "" {
		return "", fmt.Errorf("needs a 'dim' attribute naming a dimension")
	}
	return s, nil
}

// evalPos: p(i) = i along the dimension "dim" of the result.
func evalPos(ev *evaluator, op *ir.Operation, _ []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	name, err := dimAttr(op)
	if err != nil {
		return nil, err
	}
	k := findDim(dims, name)
	if k < 0 {
		return nil, fmt.Errorf("the result has no dimension %s", name)
	}
	out := mustTensor(elem, dims)
	i := 0
	_ = points(dims, func(c []int64) error {
		out.I64[i] = wrap(c[k], width(elem))
		i++
		return nil
	})
	return []*Tensor{out}, nil
}
