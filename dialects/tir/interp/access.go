package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// The ops that only move data — shift, view, subset, broadcast, gather,
// concat — are evaluated from their access rule (tir.AccessOf): every
// point of the result reads the point of an operand the rule names, a
// gathered coordinate comes from the table, a concat piece covers the
// points along its dimension that it holds. A masked operand element, or a
// gathered coordinate outside the operand, gives a masked result element.

func evalAccess(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	acc, ok := tir.AccessOf(op)
	if !ok {
		return nil, fmt.Errorf("'%s' has no access rule", op.Name)
	}
	out := mustTensor(elem, dims)
	covered := make([]bool, out.Len())
	tables := map[int]bool{}
	for _, r := range acc {
		if r.Gathered != "" {
			tables[r.Table] = true
		}
	}
	for _, r := range acc {
		if tables[r.Operand] {
			continue // read through the gather that uses it
		}
		if err := ev.readInto(op, r, in, out, covered); err != nil {
			return nil, err
		}
	}
	for q, c := range covered {
		if !c {
			return nil, fmt.Errorf("no operand covers the point%s", pointText(dims, q))
		}
	}
	return []*Tensor{out}, nil
}

// readInto fills the points of out that read r: out(p) = x(r.At(p)).
func (ev *evaluator) readInto(op *ir.Operation, r tir.Read, in []*Tensor, out *Tensor, covered []bool) error {
	x := in[r.Operand]
	piece := out.Dims
	if r.Along != "" {
		lo, err1 := evalExpr(r.Within.Lo, ev.syms, nil)
		hi, err2 := evalExpr(r.Within.Hi, ev.syms, nil)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("the interval of a piece along %s cannot be evaluated", r.Along)
		}
		piece = append([]Dim(nil), out.Dims...)
		k := findDim(piece, r.Along)
		if k < 0 {
			return fmt.Errorf("the result has no dimension %s", r.Along)
		}
		piece[k].Lo, piece[k].Hi = max(piece[k].Lo, lo), min(piece[k].Hi, hi)
		if piece[k].Extent() <= 0 {
			return nil
		}
	}
	g := -1
	axes := make([]axisMap, len(x.Dims))
	for k, d := range x.Dims {
		if d.Name == r.Gathered {
			g = k
			axes[k] = axisMap{c: d.Lo} // the table adds the rest
			continue
		}
		e, ok := r.At[d.Name]
		if !ok {
			return fmt.Errorf("the access rule gives no coordinate for dimension %s", d.Name)
		}
		var err error
		if axes[k], err = viewAxis(e, piece, ev.syms); err != nil {
			return fmt.Errorf("dimension %s: %v", d.Name, err)
		}
	}
	var idx []int
	var bad *outsidePoint
	var err error
	if g >= 0 && x.Dims[g].Extent() <= 0 {
		// Nothing to gather from: every read is masked.
		idx = make([]int, numPoints(piece))
		for i := range idx {
			idx[i] = -1
		}
		g = -1
	} else if idx, bad, err = indexMap(x.Dims, piece, axes, ev.syms); err != nil {
		return err
	}
	if bad != nil {
		if op.Is(tir.View) {
			return fmt.Errorf("view precondition fails: %s", bad.describe(x.Dims, piece))
		}
		return fmt.Errorf("value on %s is read outside its domain: %s", dimsString(x.Dims), bad.describe(x.Dims, piece))
	}
	if g >= 0 {
		if err := gatherIndices(idx, x, g, in[r.Table], piece); err != nil {
			return err
		}
	}
	// Where the piece's points sit in out (the identity when it is all).
	pos := idx
	if r.Along != "" {
		same, _ := byName(out.Dims, piece, nil, nil)
		if pos, _, err = indexMap(out.Dims, piece, same, nil); err != nil {
			return err
		}
	} else {
		pos = nil
	}
	for p, i := range idx {
		q := p
		if pos != nil {
			q = pos[p]
		}
		covered[q] = true
		if i < 0 || x.Masked(i) {
			if out.Mask == nil {
				out.Mask = make([]bool, out.Len())
			}
			out.Mask[q] = true
			continue
		}
		copyElem(out, q, x, i)
		if out.F64 != nil && !ir.TypeEqual(x.Elem, out.Elem) {
			// A 0-d float constant of another type converts (concat).
			out.F64[q] = RoundTo(out.Elem, out.F64[q])
		}
	}
	return nil
}

// gatherIndices adds the gathered coordinate, read from the table at each
// point of the piece, to the flat indices of x (computed with that
// coordinate at its lower bound); a coordinate outside x's interval, or a
// masked table entry, makes the read masked (-1).
func gatherIndices(idx []int, x *Tensor, g int, table *Tensor, piece []Dim) error {
	if !ir.IsInteger(table.Elem) {
		return fmt.Errorf("the table must have integer elements, got %s", table.Elem)
	}
	tab, err := align(table, piece)
	if err != nil {
		return fmt.Errorf("table: %v", err)
	}
	stride := 1
	for _, d := range x.Dims[g+1:] {
		stride *= int(d.Extent())
	}
	w := width(table.Elem)
	d := x.Dims[g]
	for i, b := range idx {
		v := signed(tab.I64[i], w)
		if b < 0 || tab.Masked(i) || v < d.Lo || v >= d.Hi {
			idx[i] = -1
			continue
		}
		idx[i] = b + int(v-d.Lo)*stride
	}
	return nil
}
