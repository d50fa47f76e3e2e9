package derivatives

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// foldsAsScans rewrites, in a function body about to be differentiated,
// every region-form reduce over one dimension that the reduce's rule does
// not take into the forward scan of the same step, read at the
// dimension's last point by a view that fixes it. Such a reduce is a fold
// whose accumulator enters the step other than as acc ⊕ t(inputs) (a
// recurrence a*acc + b, a running normalisation), or whose step reads a
// differentiable value from outside (which capturedAsInputs then turns
// into an input of the scan). The scan applies the step in the reduce's
// order to the same values, so the function computes what it did; its
// derivatives are the scan's (one adjoint scan per column, states read
// from the forward scan), and the view's transpose puts the result's
// cotangent at the last state (a masked init masks the whole column of
// both). A reduce over several dimensions and one whose scan would not
// have its type are left to the reduce's rule, which refuses them.
func foldsAsScans(body *ir.Block) error {
	return eachVaried(body, func(op *ir.Operation, varied map[*ir.Value]bool) ([]*ir.Value, error) {
		if !op.Is(tir.Reduce) || len(op.Regions) == 0 || len(tir.ReduceDims(op)) != 1 {
			return nil, nil
		}
		captures := capturesAny(op, func(v *ir.Value) bool { return varied[v] })
		if tir.ReduceBodySplits(op) && !captures {
			return nil, nil
		}
		if last := foldAsScan(body, op); last != nil {
			return []*ir.Value{last}, nil
		}
		return nil, nil
	})
}

// foldAsScan rewrites one reduce and returns the view that replaces its
// result, or nil when it leaves the reduce as it is.
func foldAsScan(body *ir.Block, op *ir.Operation) *ir.Value {
	dim := tir.ReduceDims(op)[0]
	iv := tir.ReducedInterval(op, dim)
	attrs := ir.DictAttr{}.With(tir.AttrDim, ir.StringAttr(dim)).With(tir.AttrDirection, ir.StringAttr("forward"))
	scan := ir.NewOpOf(tir.Scan, op.Loc, append([]*ir.Value(nil), op.Operands...), []ir.Type{nil}, attrs)
	ts, err := tir.Scan.Infer(scan)
	if err != nil {
		return nil // not a scan: the reduce's rule refuses it
	}
	st, ok := tir.AsTensor(ts[0])
	if !ok {
		return nil
	}
	if d, ok := st.Dim(dim); !ok || !d.Interval.Equal(iv) {
		return nil
	}
	scan.SetResultTypes(ts)
	at := body.IndexOf(op)
	var built []*ir.Operation
	states := scan.Results[0]
	if !iv.ProvablyNonEmpty() {
		// The fold of an empty interval is its init: the states are read
		// after the init placed just below the interval, so that the last
		// point, hi - 1, is inside them when hi = lo.
		below := tir.DomainAttr{{Name: dim, Interval: sizeexpr.Span(sizeexpr.Sub(iv.Lo, sizeexpr.Const(1)), iv.Lo)}}
		bc := ir.NewOpOf(tir.Broadcast, op.Loc, []*ir.Value{op.Operands[0]}, []ir.Type{nil}, ir.DictAttr{}.With(tir.AttrDims, below))
		cat := ir.NewOpOf(tir.Concat, op.Loc, []*ir.Value{bc.Results[0], states}, []ir.Type{nil}, ir.DictAttr{}.With(tir.AttrDim, ir.StringAttr(dim)))
		for _, o := range []*ir.Operation{bc, cat} {
			ots, err := tir.OpOf(o).Infer(o)
			if err != nil {
				return nil
			}
			o.SetResultTypes(ots)
		}
		if st, ok = tir.AsTensor(cat.Results[0].Type); !ok {
			return nil
		}
		built, states = []*ir.Operation{bc, cat}, cat.Results[0]
	}
	m := tir.ViewAttr{}
	for _, d := range st.Dims {
		m.Dims = append(m.Dims, d.Name)
		if d.Name == dim {
			m.Exprs = append(m.Exprs, sizeexpr.Sub(iv.Hi, sizeexpr.Const(1)))
		} else {
			m.Exprs = append(m.Exprs, tir.DimVar(d.Name))
		}
	}
	last := ir.NewOpOf(tir.View, op.Loc, []*ir.Value{states}, []ir.Type{op.Results[0].Type}, ir.DictAttr{}.With(tir.AttrMap, m))
	if vts, err := tir.View.Infer(last); err != nil || !ir.TypeEqual(vts[0], op.Results[0].Type) {
		return nil
	}
	// The step moves over whole: the reduce's body becomes the scan's.
	for _, r := range op.Regions {
		scan.AdoptRegion(r)
	}
	op.Regions = nil
	for i, o := range append(append([]*ir.Operation{scan}, built...), last) {
		body.InsertAt(at+i, o)
	}
	last.Results[0].NameHint = op.Results[0].NameHint
	ir.ReplaceAllUsesWith(body.ParentOp(), op.Results[0], last.Results[0])
	body.Remove(op)
	return last.Results[0]
}

// hoistInvariants moves out of every scan's and region reduce's step the
// pure ops that read nothing the step defines (a column total reduced
// inside the step, a coefficient computed from values outside it): they
// compute the same value at every step, so computing it once before the
// op changes no result. A value outside the step that varies along the
// scanned dimension can only be read there through such an op; hoisted,
// what the step reads is a value without that dimension, which
// capturedAsInputs makes an input.
func hoistInvariants(body *ir.Block) {
	for _, op := range append([]*ir.Operation(nil), body.Ops...) {
		if !op.Is(tir.Scan, tir.Reduce) || len(op.Regions) == 0 {
			continue
		}
		step := op.Regions[0].Entry()
		defined := map[*ir.Value]bool{}
		for _, a := range step.Args {
			defined[a] = true
		}
		for _, inner := range append([]*ir.Operation(nil), step.Ops...) {
			invariant := inner.HasTrait(ir.TraitPure) && len(inner.Regions) == 0 && len(inner.Results) > 0
			for _, v := range inner.Operands {
				invariant = invariant && !defined[v]
			}
			if !invariant {
				for _, r := range inner.Results {
					defined[r] = true
				}
				continue
			}
			step.Remove(inner)
			body.InsertAt(body.IndexOf(op), inner)
		}
	}
}
