package tir

import (
	"fmt"

	"tir/dialects/ir"
)

// tensorOf returns the tensor type of a value or a located error.
func tensorOf(op *ir.Operation, v *ir.Value, what string) (TensorType, error) {
	t, ok := AsTensor(v.Type)
	if !ok {
		return TensorType{}, ir.Errorf(op.Loc, "'%s' %s must be a !tir.tensor, got %s", op.Name, what, v.Type)
	}
	return t, nil
}

// DefLoc is where a value comes from: its defining op, or for a block
// argument the op owning the block.
func DefLoc(v *ir.Value) ir.Location {
	if d := v.DefiningOp(); d != nil {
		return d.Loc
	}
	if v.Loc.Known() {
		return v.Loc
	}
	if b := v.OwnerBlock(); b != nil && b.ParentOp() != nil {
		return b.ParentOp().Loc
	}
	return ir.UnknownLoc
}

// isConvertibleConstant reports whether v is a 0-d float tir.constant, which
// may meet another float type (it is converted at compile time, 2.2).
func isConvertibleConstant(v *ir.Value) bool {
	d := v.DefiningOp()
	if d == nil || d.Name != "tir.constant" {
		return false
	}
	t, ok := AsTensor(v.Type)
	return ok && t.Rank() == 0 && ir.IsFloat(t.Elem)
}

// commonElem finds the element type shared by the operands of an
// elementwise op.
func commonElem(op *ir.Operation, vals []*ir.Value) (ir.Type, error) {
	var elem ir.Type
	var from *ir.Value
	for _, v := range vals {
		t, err := tensorOf(op, v, "operand")
		if err != nil {
			return nil, err
		}
		// A float constant adapts to the other operands, so it only sets
		// the element type when nothing else does.
		if elem == nil || (isConvertibleConstant(from) && !isConvertibleConstant(v)) {
			elem, from = t.Elem, v
		}
	}
	for _, v := range vals {
		t, _ := AsTensor(v.Type)
		if ir.TypeEqual(t.Elem, elem) {
			continue
		}
		if ir.IsFloat(elem) && isConvertibleConstant(v) {
			continue
		}
		return nil, ir.Errorf(op.Loc, "'%s' element types differ: %s and %s (use tir.cast)", op.Name, elem, t.Elem).
			AddNote(DefLoc(from), "operand of type %s defined here", from.Type).
			AddNote(DefLoc(v), "operand of type %s defined here", v.Type)
	}
	return elem, nil
}

// broadcastDomain computes the domain of an elementwise result (2.2): the union of
// the dimension names in first-appearance order, each with the intersection
// of the operands' intervals. A provably empty intersection is an error that
// names the dimension, with notes at the operands whose intervals do not
// meet.
func broadcastDomain(op *ir.Operation, vals []*ir.Value) ([]Dim, error) {
	ts := make([]TensorType, len(vals))
	for i, v := range vals {
		t, err := tensorOf(op, v, "operand")
		if err != nil {
			return nil, err
		}
		ts[i] = t
	}
	return broadcastTypes(op, ts, vals)
}

// broadcastTypes is broadcastDomain over types; srcs (same length) are the values
// the notes of an empty-domain error point at.
func broadcastTypes(op *ir.Operation, ts []TensorType, srcs []*ir.Value) ([]Dim, error) {
	var dims []Dim
	index := map[string]int{}
	for _, t := range ts {
		for _, d := range t.Dims {
			if i, ok := index[d.Name]; ok {
				dims[i].Interval = dims[i].Intersect(d.Interval)
				continue
			}
			index[d.Name] = len(dims)
			dims = append(dims, d)
		}
	}
	for _, d := range dims {
		if d.ProvablyEmpty() {
			return nil, emptyDomainTypes(op, ts, srcs, d)
		}
	}
	return dims, nil
}

func emptyDomain(op *ir.Operation, vals []*ir.Value, d Dim) error {
	ts := make([]TensorType, len(vals))
	for i, v := range vals {
		ts[i], _ = AsTensor(v.Type)
	}
	return emptyDomainTypes(op, ts, vals, d)
}

func emptyDomainTypes(op *ir.Operation, ts []TensorType, srcs []*ir.Value, d Dim) error {
	diag := ir.Errorf(op.Loc, "empty domain in dimension %s: the operands' intervals do not overlap (intersection [%s:%s])", d.Name, d.Lo, d.Hi)
	for i, t := range ts {
		if od, ok := t.Dim(d.Name); ok && i < len(srcs) {
			// Where each interval comes from (origins.go).
			if vt, ok := AsTensor(srcs[i].Type); ok {
				if vd, ok := vt.Dim(d.Name); ok && vd.Interval.Equal(od.Interval) {
					AddTrail(diag, fmt.Sprintf("operand #%d", i), srcs[i], d.Name)
					continue
				}
			}
			diag.AddNote(DefLoc(srcs[i]), "operand #%d has %s", i, od)
		}
	}
	return diag
}

// without drops the named dimensions of a tensor type.
func without(t TensorType, names []string) TensorType {
	out := TensorType{Elem: t.Elem}
	for _, d := range t.Dims {
		drop := false
		for _, n := range names {
			if d.Name == n {
				drop = true
			}
		}
		if !drop {
			out.Dims = append(out.Dims, d)
		}
	}
	return out
}

// inferElementwise is the type rule of broadcasting ops whose result element
// type is the operands' (add, mul, ...) or fixed (cmp gives i1).
func inferElementwise(resultElem ir.Type) func(op *ir.Operation) ([]ir.Type, error) {
	return func(op *ir.Operation) ([]ir.Type, error) {
		elem, err := commonElem(op, op.Operands)
		if err != nil {
			return nil, err
		}
		dims, err := broadcastDomain(op, op.Operands)
		if err != nil {
			return nil, err
		}
		if resultElem != nil {
			elem = resultElem
		}
		return []ir.Type{TensorType{Elem: elem, Dims: dims}}, nil
	}
}

// checkElem restricts the element types an op accepts.
func checkElem(op *ir.Operation, ok func(ir.Type) bool, what string) error {
	for _, v := range op.Operands {
		t, err := tensorOf(op, v, "operand")
		if err != nil {
			return err
		}
		if !ok(t.Elem) {
			return ir.Errorf(op.Loc, "'%s' expects %s operands, got %s", op.Name, what, t.Elem)
		}
	}
	return nil
}

func isNumeric(t ir.Type) bool { return ir.IsFloat(t) || ir.IsInteger(t) }
