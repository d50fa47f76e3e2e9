package derivatives

import (
	"tir/dialects/ir"
	"tir/dialects/tir"
)

// initsAlongReduced rewrites, in a function body about to be
// differentiated, every reduce whose init varies along a dimension it
// reduces over. The result then has that dimension, as the init's: r(i, k)
// = c(k) ⊕ x(i, 0) ⊕ ... ⊕ x(i, n-1), every point of the result reducing
// the whole of x's dimension of the same name. The two are distinct
// dimensions that share a name; the rewrite gives the one reduced a fresh
// name (each input that has it read through a renaming tir.view, the
// reduce over the new name), so that the reduce is one whose init does not
// vary along what it reduces, which the rules take. It computes the same
// values; the view's transpose gives the inputs back their dimension.
func initsAlongReduced(body *ir.Block) error {
	return eachVaried(body, func(op *ir.Operation, _ map[*ir.Value]bool) ([]*ir.Value, error) {
		if op.Is(tir.Reduce) {
			renameReduced(body, op)
		}
		return nil, nil
	})
}

// renameReduced renames, in one reduce, the reduced dimensions its result
// has; it leaves the reduce as it was when the renamed one would not have
// its type.
func renameReduced(body *ir.Block, op *ir.Operation) {
	rt, ok := tir.AsTensor(op.Results[0].Type)
	if !ok {
		return
	}
	dims := tir.ReduceDims(op)
	names := map[string]string{}
	for _, d := range dims {
		if rt.Find(d) >= 0 {
			names[d] = freshDim(op, d)
		}
	}
	if len(names) == 0 {
		return
	}
	ins, _ := tir.ReduceOperands(op)
	first := 0
	if len(op.Regions) > 0 {
		first = 1
	}
	old := append([]*ir.Value(nil), op.Operands...)
	oldDims := op.Attr(tir.AttrDims)
	var views []*ir.Operation
	for i, v := range ins {
		vt, ok := tir.AsTensor(v.Type)
		if !ok {
			return
		}
		m, renamed := tir.ViewAttr{}, tir.TensorType{Elem: vt.Elem}
		touched := false
		for _, d := range vt.Dims {
			m.Dims = append(m.Dims, d.Name)
			if n, ok := names[d.Name]; ok {
				d.Name, touched = n, true
			}
			m.Exprs = append(m.Exprs, tir.DimVar(d.Name))
			renamed.Dims = append(renamed.Dims, d)
		}
		if !touched {
			continue
		}
		view, ok := viewAs(op.Loc, v, m, renamed)
		if !ok {
			return
		}
		views = append(views, view)
		op.Operands[first+i] = view.Results[0]
	}
	var attr ir.ArrayAttr
	for _, d := range dims {
		if n, ok := names[d]; ok {
			d = n
		}
		attr = append(attr, ir.StringAttr(d))
	}
	op.SetAttr(tir.AttrDims, attr)
	if ts, err := tir.Reduce.Infer(op); err != nil || !ir.TypeEqual(ts[0], op.Results[0].Type) {
		copy(op.Operands, old)
		op.SetAttr(tir.AttrDims, oldDims)
		return
	}
	at := body.IndexOf(op)
	for i, v := range views {
		body.InsertAt(at+i, v)
	}
}

// freshDim is a name for op's reduced dimension d that no operand or
// result of op has.
func freshDim(op *ir.Operation, d string) string {
	taken := func(n string) bool {
		for _, v := range append(append([]*ir.Value(nil), op.Operands...), op.Results...) {
			if t, ok := tir.AsTensor(v.Type); ok && t.Find(n) >= 0 {
				return true
			}
		}
		return false
	}
	n := d + "_r"
	for taken(n) {
		n += "_"
	}
	return n
}
