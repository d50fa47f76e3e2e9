package interp

import (
	"fmt"

	"tir/dialects/ir"
)

func init() { register("tir.gather", evalGather) }

// evalGather: g(t, r) = x(D = table(t), r) for the gathered dimension D
// (attribute "dim"), t over the table's dimensions and r over x's others.
// A point is masked where the table entry falls outside x's interval of D
// (no neighbor, conventionally -1), or where the table or x is masked.
func evalGather(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	name, err := dimAttr(op)
	if err != nil {
		return nil, err
	}
	_, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	x, table := in[0], in[1]
	g := x.Find(name)
	if g < 0 {
		return nil, fmt.Errorf("the operand has no dimension %s", name)
	}
	if _, err := kindOf(table.Elem); err != nil || !ir.IsInteger(table.Elem) {
		return nil, fmt.Errorf("the table must have integer elements, got %s", table.Elem)
	}
	tab, err := align(table, dims)
	if err != nil {
		return nil, fmt.Errorf("table: %v", err)
	}
	// Index of x at D = Lo for every result point; the table adds the rest.
	axes, err := byName(x.Dims, dims, nil, map[string]int64{name: x.Dims[g].Lo})
	if err != nil {
		return nil, err
	}
	base, bad, err := indexMap(x.Dims, dims, axes, nil)
	if err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, fmt.Errorf("operand: %s", bad.describe(x.Dims, dims))
	}
	stride := 1
	for _, d := range x.Dims[g+1:] {
		stride *= int(d.Extent())
	}
	w := width(table.Elem)
	idx := make([]int, len(base))
	for i, b := range base {
		v := signed(tab.I64[i], w)
		if tab.Masked(i) || v < x.Dims[g].Lo || v >= x.Dims[g].Hi {
			idx[i] = -1
			continue
		}
		idx[i] = b + int(v-x.Dims[g].Lo)*stride
	}
	return []*Tensor{take(x, dims, idx)}, nil
}
