package interp

import (
	"fmt"

	"tir/dialects/ir"
)

// Ops that only change a value's domain: their result type says it all, so
// they read no attributes except the dimension of pos and concat.

func init() {
	register("tir.subset", evalRestrict)
	register("tir.broadcast", evalRestrict)
	register("tir.assume_shape", evalAssumeShape)
	register("tir.pos", evalPos)
	register("tir.concat", evalConcat)
}

// evalRestrict serves subset (a smaller box, which must be inside) and
// broadcast (new dimensions the value does not vary along): both are the
// operand read on the result's domain.
func evalRestrict(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	_, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := align(in[0], dims)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
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
	s, ok := op.Attr("dim").(ir.StringAttr)
	if !ok || s == "" {
		return "", fmt.Errorf("needs a 'dim' attribute naming a dimension")
	}
	return string(s), nil
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

// evalConcat joins the operands along "dim": each point of the result is
// read from the operand whose interval of dim holds it (operands broadcast
// along the other dimensions). Float operands are rounded to the result
// type (a 0-d float constant of another type converts).
func evalConcat(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
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
	covered := make([]bool, out.Len())
	for i, x := range in {
		j := x.Find(name)
		if j < 0 {
			return nil, fmt.Errorf("operand #%d has no dimension %s", i, name)
		}
		piece := append([]Dim(nil), dims...)
		piece[k].Lo = max(piece[k].Lo, x.Dims[j].Lo)
		piece[k].Hi = min(piece[k].Hi, x.Dims[j].Hi)
		if piece[k].Extent() == 0 {
			continue
		}
		a, err := align(x, piece)
		if err != nil {
			return nil, fmt.Errorf("operand #%d: %v", i, err)
		}
		axes, _ := byName(dims, piece, nil, nil)
		pos, _, err := indexMap(dims, piece, axes, nil)
		if err != nil {
			return nil, err
		}
		for p, q := range pos {
			copyElem(out, q, a, p)
			if out.F64 != nil {
				out.F64[q] = RoundTo(elem, out.F64[q])
			}
			if a.Masked(p) {
				if out.Mask == nil {
					out.Mask = make([]bool, out.Len())
				}
				out.Mask[q] = true
			}
			covered[q] = true
		}
	}
	for q, c := range covered {
		if !c {
			return nil, fmt.Errorf("no operand covers the point%s", pointText(dims, q))
		}
	}
	return []*Tensor{out}, nil
}
