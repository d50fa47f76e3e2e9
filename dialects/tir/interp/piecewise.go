package interp

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

func init() { register(tir.Piecewise, evalPiecewise) }

// evalPiecewise gives each level along the op's dimension the value of
// the first piece whose interval holds it, else of the last operand. Each
// operand is read (its access rule's read) over the levels it supplies
// only, so that no operand is read where it is not chosen.
func evalPiecewise(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	acc, _ := tir.AccessOf(op)
	dim, _, pieces := tir.PiecewiseParts(op)
	out := mustTensor(elem, dims)
	k := findDim(dims, dim)
	lo, n := dims[k].Lo, int(dims[k].Extent())
	stride := 1
	for _, d := range dims[k+1:] {
		stride *= int(d.Extent())
	}
	// choice[z] is the operand level lo + z takes.
	choice := make([]int, n)
	var bounds [][2]int64
	for _, p := range pieces {
		plo, err := evalExpr(p.Lo, ev.syms, nil)
		if err != nil {
			return nil, err
		}
		phi, err := evalExpr(p.Hi, ev.syms, nil)
		if err != nil {
			return nil, err
		}
		bounds = append(bounds, [2]int64{plo, phi})
	}
	first, last := make([]int, len(in)), make([]int, len(in))
	for j := range in {
		first[j], last[j] = n, -1
	}
	for z := 0; z < n; z++ {
		c := len(pieces)
		for i, b := range bounds {
			if b[0] <= lo+int64(z) && lo+int64(z) < b[1] {
				c = i
				break
			}
		}
		choice[z] = c
		first[c], last[c] = min(first[c], z), max(last[c], z)
	}
	for j, r := range acc {
		if first[j] > last[j] {
			continue // never chosen
		}
		part := mustTensor(elem, dims)
		if r.Along != "" {
			r.Within = sizeexpr.Span(sizeexpr.Const(lo+int64(first[j])), sizeexpr.Const(lo+int64(last[j])+1))
		}
		if err := ev.readInto(op, r, in, part, make([]bool, part.Len())); err != nil {
			return nil, err
		}
		for q := 0; q < out.Len(); q++ {
			if choice[(q/stride)%n] != j {
				continue
			}
			copyElem(out, q, part, q)
			if part.Masked(q) {
				if out.Mask == nil {
					out.Mask = make([]bool, out.Len())
				}
				out.Mask[q] = true
			}
		}
	}
	return []*Tensor{out}, nil
}
