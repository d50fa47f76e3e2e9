package derivatives

import (
	"slices"
	"strings"

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
// both). A fold over several dimensions is flattened first (flattenFold).
// One whose scan would not have its type is left to the reduce's rule,
// which refuses it.
func foldsAsScans(body *ir.Block) error {
	err := eachVaried(body, func(op *ir.Operation, varied map[*ir.Value]bool) ([]*ir.Value, error) {
		if !op.Is(tir.Reduce) || len(op.Regions) == 0 {
			return nil, nil
		}
		reduceCapturesAsInputs(op, varied)
		captures := capturesAny(op, func(v *ir.Value) bool { return varied[v] })
		if tir.ReduceBodySplits(op) && !captures {
			return nil, nil
		}
		var flat []*ir.Value
		if len(tir.ReduceDims(op)) > 1 {
			if op = flattenFold(body, op); op == nil {
				return nil, nil
			}
			flat = op.Results
		}
		if last := foldAsScan(body, op); last != nil {
			return []*ir.Value{last}, nil
		}
		return flat, nil
	})
	if err != nil {
		return err
	}
	// A fold inside a step (over a dimension of the state: a column
	// normalised by a recurrence) is a scan inside it.
	for _, op := range body.Ops {
		if op.Is(tir.Scan, tir.Reduce) && len(op.Regions) > 0 {
			if err := foldsAsScans(op.Regions[0].Entry()); err != nil {
				return err
			}
		}
	}
	return nil
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
	last, ok := viewAs(op.Loc, states, m, op.Results[0].Type)
	if !ok {
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

// flattenFold rewrites a region reduce over several dimensions into one
// over a single new dimension that runs over their points in the order
// the reduce visits them, row-major in the order the dimensions are
// listed (the interpreter's, and the loops'): each input that has some of
// them is read through a view [D1 = lo1 + L floordiv s1, ..., Dn = lon + L
// mod cn] (strides s, extents c). The fold is then one over one dimension,
// a scan; the view's transpose reads the cotangent back at each point
// (tir's flattening rule). Every dimension but the first needs a constant
// extent (L's extent is the product); nil when one has not, or when the
// flattened reduce would not have the type of op.
func flattenFold(body *ir.Block, op *ir.Operation) *ir.Operation {
	dims := tir.ReduceDims(op)
	n := len(dims)
	ivs := make([]sizeexpr.Interval, n)
	ext := make([]int64, n)
	for j, d := range dims {
		ivs[j] = tir.ReducedInterval(op, d)
		if j > 0 {
			c, ok := sizeexpr.Sub(ivs[j].Hi, ivs[j].Lo).Const()
			if !ok || c <= 0 {
				return nil
			}
			ext[j] = c
		}
	}
	stride := make([]int64, n)
	stride[n-1] = 1
	for j := n - 2; j >= 0; j-- {
		stride[j] = stride[j+1] * ext[j+1]
		if stride[j] > 1<<20 {
			return nil
		}
	}
	name := freshDim(op, strings.Join(dims, "_"))
	l := tir.DimVar(name)
	total := sizeexpr.Mul(sizeexpr.Sub(ivs[0].Hi, ivs[0].Lo), stride[0])
	ld := tir.Dim{Name: name, Interval: sizeexpr.Span(sizeexpr.Const(0), total)}
	at := func(j int) sizeexpr.Expr {
		x := l
		if stride[j] > 1 {
			x, _ = sizeexpr.FloorDiv(x, stride[j])
		}
		if j > 0 {
			if ext[j] == 1 {
				x = sizeexpr.Const(0)
			} else {
				x, _ = sizeexpr.Mod(x, ext[j])
			}
		}
		return sizeexpr.Add(x, ivs[j].Lo)
	}
	operands := []*ir.Value{op.Operands[0]}
	var views []*ir.Operation
	for _, v := range op.Operands[1:] {
		vt, ok := tir.AsTensor(v.Type)
		if !ok {
			return nil
		}
		// An input with some of the dimensions is broadcast to the others
		// first: the view then reads each of its points once (a
		// bijection, which the transpose inverts), and the broadcast's
		// transpose sums what the points it repeats read.
		var missing tir.DomainAttr
		has := false
		for j, d := range dims {
			if vt.Find(d) >= 0 {
				has = true
			} else {
				missing = append(missing, tir.Dim{Name: d, Interval: ivs[j]})
			}
		}
		if has && len(missing) > 0 {
			bc := ir.NewOpOf(tir.Broadcast, op.Loc, []*ir.Value{v}, []ir.Type{nil}, ir.DictAttr{}.With(tir.AttrDims, missing))
			ts, err := tir.Broadcast.Infer(bc)
			if err != nil {
				return nil
			}
			bc.SetResultTypes(ts)
			bc.Results[0].NameHint = v.NameHint
			views = append(views, bc)
			v = bc.Results[0]
			vt, _ = tir.AsTensor(v.Type)
		}
		m, rt, placed := tir.ViewAttr{}, tir.TensorType{Elem: vt.Elem}, false
		for _, d := range vt.Dims {
			m.Dims = append(m.Dims, d.Name)
			if j := slices.Index(dims, d.Name); j >= 0 {
				m.Exprs = append(m.Exprs, at(j))
				if !placed {
					rt.Dims, placed = append(rt.Dims, ld), true
				}
				continue
			}
			m.Exprs = append(m.Exprs, tir.DimVar(d.Name))
			rt.Dims = append(rt.Dims, d)
		}
		if !placed {
			operands = append(operands, v)
			continue
		}
		view, ok := viewAs(op.Loc, v, m, rt)
		if !ok {
			return nil
		}
		views = append(views, view)
		operands = append(operands, view.Results[0])
	}
	flat := ir.NewOpOf(tir.Reduce, op.Loc, operands, []ir.Type{nil}, ir.DictAttr{}.With(tir.AttrDims, ir.ArrayAttr{ir.StringAttr(name)}))
	region := flat.AddRegion()
	ts, err := tir.Reduce.Infer(flat)
	if err != nil || !ir.TypeEqual(ts[0], op.Results[0].Type) {
		return nil
	}
	flat.SetResultTypes(ts)
	// The body moves over as it is: its arguments are the inputs without
	// the reduced dimensions, as they were.
	old := op.Regions[0]
	for _, b := range append([]*ir.Block(nil), old.Blocks...) {
		region.AdoptBlock(b)
	}
	op.Regions = nil
	idx := body.IndexOf(op)
	for i, v := range append(views, flat) {
		body.InsertAt(idx+i, v)
	}
	flat.Results[0].NameHint = op.Results[0].NameHint
	ir.ReplaceAllUsesWith(body.ParentOp(), op.Results[0], flat.Results[0])
	body.Remove(op)
	return flat
}

// viewAs builds (detached) the tir.view of v by map m, named as v, when
// its type is want.
func viewAs(loc ir.Location, v *ir.Value, m tir.ViewAttr, want ir.Type) (*ir.Operation, bool) {
	view := ir.NewOpOf(tir.View, loc, []*ir.Value{v}, []ir.Type{want}, ir.DictAttr{}.With(tir.AttrMap, m))
	if ts, err := tir.View.Infer(view); err != nil || !ir.TypeEqual(ts[0], want) {
		return nil, false
	}
	view.Results[0].NameHint = v.NameHint
	return view, true
}
