package derivatives

import (
	"tir/dialects/ir"
	"tir/dialects/tir"
)

// capturedAsInputs rewrites, in a function body about to be
// differentiated, every scan whose step reads a value from outside its
// body that depends on a differentiable argument (a vertical solver's
// coefficients read inside the step) into one that takes it as an input:
// the value broadcast along the scanned dimension, which every step reads
// at its own point as it read the value. The scan computes the same thing; its derivatives
// are then those of an input, by the scan's rules, and the broadcast's
// transpose sums the steps' contributions. Values that depend on no
// differentiable argument (constants) are left where they are.
func capturedAsInputs(body *ir.Block) error {
	return eachVaried(body, func(op *ir.Operation, varied map[*ir.Value]bool) ([]*ir.Value, error) {
		if op.Is(tir.Scan) {
			return nil, scanCapturesAsInputs(body, op, varied)
		}
		return nil, nil
	})
}

// eachVaried calls visit, in program order, on each op of a function body
// that reads (as an operand, or from inside its regions) a value computed
// from a differentiable argument; varied says which values before op are.
// visit may replace op: it returns the values that stand for op's
// results (nil: op's own), which are then marked varied where they are
// differentiable.
func eachVaried(body *ir.Block, visit func(op *ir.Operation, varied map[*ir.Value]bool) ([]*ir.Value, error)) error {
	varied := map[*ir.Value]bool{}
	for _, a := range body.Args {
		varied[a] = isDiff(a.Type)
	}
	for _, op := range append([]*ir.Operation(nil), body.Ops...) {
		any := false
		for _, v := range inputsOf(op) {
			any = any || varied[v]
		}
		if !any {
			continue
		}
		results, err := visit(op, varied)
		if err != nil {
			return err
		}
		if results == nil {
			results = op.Results
		}
		for _, r := range results {
			varied[r] = isDiff(r.Type)
		}
	}
	return nil
}

func scanCapturesAsInputs(body *ir.Block, op *ir.Operation, varied map[*ir.Value]bool) error {
	// The values are bound one at a time: an op is built per value.
	dim := tir.DimAttr(op)
	rt, ok := tir.AsTensor(op.Results[0].Type)
	if !ok {
		return nil
	}
	step := op.Regions[0].Entry()
	for _, v := range inputsOf(op)[len(op.Operands):] {
		vt, ok := tir.AsTensor(v.Type)
		if !ok || !varied[v] || vt.Find(dim) >= 0 {
			// A value with the scanned dimension cannot be read by a
			// step (which has none): the rules refuse it as before.
			continue
		}
		kd, _ := rt.Dim(dim)
		missing := tir.DomainAttr{kd}
		bc := ir.NewOpOf(tir.Broadcast, op.Loc, []*ir.Value{v}, []ir.Type{nil}, ir.DictAttr{}.With(tir.AttrDims, missing))
		ts, err := tir.Broadcast.Infer(bc)
		if err != nil {
			return err
		}
		bc.SetResultTypes(ts)
		bc.Results[0].NameHint = v.NameHint
		bt, _ := tir.AsTensor(ts[0])
		arg := step.AddArg(dropDim(bt, dim), v.NameHint)
		body.InsertAt(body.IndexOf(op), bc)
		op.Operands = append(op.Operands, bc.Results[0])
		for _, inner := range step.Ops {
			ir.ReplaceAllUsesWith(inner, v, arg)
		}
		if nts, err := tir.Scan.Infer(op); err != nil || !ir.TypeEqual(nts[0], op.Results[0].Type) || !ir.TypeEqual(arg.Type, v.Type) {
			// Not the same scan: undo, and let the rules refuse it.
			for _, inner := range step.Ops {
				ir.ReplaceAllUsesWith(inner, arg, v)
			}
			op.Operands = op.Operands[:len(op.Operands)-1]
			step.Args = step.Args[:len(step.Args)-1]
			body.Remove(bc)
		}
	}
	return nil
}

// reduceCapturesAsInputs makes the values a region reduce's body reads
// from outside it that depend on a differentiable argument and have none
// of its reduced dimensions (a weight, a coefficient per column) inputs of
// the reduce: the body's argument for such an input is the value itself
// (an input is read without the reduced dimensions), so the reduce
// computes the same thing, and a body acc ⊕ t that read one is then the
// reduction of t, which the reduce's rule takes, over any number of
// dimensions. A value with a reduced dimension is left as it is.
func reduceCapturesAsInputs(op *ir.Operation, varied map[*ir.Value]bool) {
	body := op.Regions[0].Entry()
	dims := tir.ReduceDims(op)
	seen := map[*ir.Value]bool{}
	for _, v := range inputsOf(op)[len(op.Operands):] {
		vt, ok := tir.AsTensor(v.Type)
		if !ok || !varied[v] || seen[v] {
			continue
		}
		seen[v] = true
		along := false
		for _, d := range dims {
			along = along || vt.Find(d) >= 0
		}
		if along {
			continue
		}
		arg := body.AddArg(vt, v.NameHint)
		op.Operands = append(op.Operands, v)
		for _, inner := range body.Ops {
			ir.ReplaceAllUsesWith(inner, v, arg)
		}
		if ts, err := tir.Reduce.Infer(op); err != nil || !ir.TypeEqual(ts[0], op.Results[0].Type) {
			// The value has a dimension the result lacks: undo.
			for _, inner := range body.Ops {
				ir.ReplaceAllUsesWith(inner, arg, v)
			}
			op.Operands = op.Operands[:len(op.Operands)-1]
			body.Args = body.Args[:len(body.Args)-1]
		}
	}
}
