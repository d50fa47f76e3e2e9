package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// The ops whose extent depends on data (tir/dataextent.go): evaluating
// one binds the size symbol its result type names, ?_r_I, so that every
// later type that uses it has a domain.

func init() {
	register(tir.Iota, evalIota)
	register(tir.Compress, evalCompress)
}

// bindDataExtent records the value of the extent op defines.
func (ev *evaluator) bindDataExtent(op *ir.Operation, n int64) error {
	v, ok := tir.DataExtentSym(op)
	if !ok {
		return fmt.Errorf("its result type does not name the extent it computes")
	}
	if old, seen := ev.syms[v.Name]; seen && old != n {
		return fmt.Errorf("the extent %s is computed twice (%d, then %d)", v.Name, old, n)
	}
	ev.syms[v.Name] = n
	return nil
}

// evalIota: start + i*step for i in [0, n), n the number of steps before
// stop; a step of 0, or a count beyond int64, is a run-time error with
// the compiled code's message.
func evalIota(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	for i, t := range in {
		if t.Len() != 1 || t.I64 == nil {
			return nil, fmt.Errorf("operand #%d is not a 0-d integer tensor", i)
		}
		if t.Masked(0) {
			return nil, fmt.Errorf("operand #%d is masked", i)
		}
	}
	start, stop, step := in[0].I64[0], in[1].I64[0], in[2].I64[0]
	n, ok := tir.IotaExtent(start, stop, step)
	if !ok {
		zero, large := tir.IotaMessages(ev.fn, op)
		if step == 0 {
			return nil, ir.Errorf(op.Loc, "%s", zero)
		}
		return nil, ir.Errorf(op.Loc, "%s", large)
	}
	if n > maxDataExtent {
		return nil, ir.Errorf(op.Loc, "tir.iota: %d elements are more than the interpreter holds (%d)", n, int64(maxDataExtent))
	}
	if err := ev.bindDataExtent(op, n); err != nil {
		return nil, err
	}
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := NewTensor(elem, dims)
	if err != nil {
		return nil, err
	}
	w := width(elem)
	for i := range out.I64 {
		// In the element type: start + i*step wraps like the compiled
		// code's multiply-add, and stays between start and stop.
		out.I64[i] = wrap(start+int64(i)*step, w)
	}
	return []*Tensor{out}, nil
}

// maxDataExtent bounds what the interpreter materializes for tir.iota (the
// compiled code never stores an iota: it computes it where it is read).
const maxDataExtent = 1 << 31

// evalCompress keeps, in order, the slices of x along I where the mask
// holds.
func evalCompress(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	dim := tir.DimAttr(op)
	x, mask := in[0], in[1]
	k := x.Find(dim)
	if k < 0 || len(mask.Dims) != 1 || mask.Dims[0].Name != dim {
		return nil, fmt.Errorf("the operand or the mask lacks dimension %s", dim)
	}
	xd, md := x.Dims[k], mask.Dims[0]
	if xd.Lo != md.Lo || xd.Extent() != md.Extent() {
		// The run-time check of the interval says so first.
		return nil, fmt.Errorf("the mask is on %s but the operand on %s", md, xd)
	}
	var keep []int64
	for i := 0; i < mask.Len(); i++ {
		if mask.Masked(i) {
			return nil, fmt.Errorf("the mask is masked%s", pointText(mask.Dims, i))
		}
		if mask.I64[i] != 0 {
			keep = append(keep, int64(i))
		}
	}
	if err := ev.bindDataExtent(op, int64(len(keep))); err != nil {
		return nil, err
	}
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	// Point (..., j, ...) of the result is point (..., lo + keep[j], ...)
	// of x: flat indices, row-major.
	idx := make([]int, 0, numPoints(dims))
	err = points(dims, func(c []int64) error {
		src := map[string]int64{}
		for i, d := range dims {
			src[d.Name] = c[i]
		}
		src[dim] = xd.Lo + keep[c[k]-dims[k].Lo]
		j, ok := x.Offset(src)
		if !ok {
			return fmt.Errorf("interpreter bug: compress reads outside its operand")
		}
		idx = append(idx, j)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := take(x, dims, idx)
	if !ir.TypeEqual(out.Elem, elem) {
		return nil, fmt.Errorf("element type %s, but the result type says %s", out.Elem, elem)
	}
	return []*Tensor{out}, nil
}

// dataExtents evaluates, in program order, the ops of the function body b
// that define data-dependent extents and the ops they read from, binding
// the extents before anything else runs (as compiled code computes them
// first); block then skips what was evaluated here.
func (ev *evaluator) dataExtents(b *ir.Block, args []*Tensor) error {
	var cone []*ir.Operation
	need := map[*ir.Operation]bool{}
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		if !tir.IsDataExtentOp(op) && !need[op] {
			continue
		}
		need[op] = true
		cone = append(cone, op)
		op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				if d := v.DefiningOp(); d != nil && d.ParentBlock() == b {
					need[d] = true
				}
			}
			return true
		})
	}
	if len(cone) == 0 {
		return nil
	}
	if len(args) != len(b.Args) {
		return fmt.Errorf("block takes %d arguments, got %d", len(b.Args), len(args))
	}
	for i, a := range b.Args {
		ev.vals[a] = args[i]
	}
	ev.done = map[*ir.Operation]bool{}
	for i := len(cone) - 1; i >= 0; i-- {
		op := cone[i]
		in := make([]*Tensor, len(op.Operands))
		for k, v := range op.Operands {
			t, ok := ev.vals[v]
			if !ok {
				return ir.Errorf(op.Loc, "'%s' operand #%d has no value (not computed before its use)", op.Name, k)
			}
			in[k] = t
		}
		if err := ev.op(op, in); err != nil {
			return err
		}
		ev.done[op] = true
	}
	return nil
}

// ResultDims gives the domains of fn's results from their extents as a
// caller learns them (compiled code's f_result_shape_data): the size
// symbols of syms, and the extents computed from data bound from the
// extents themselves, where an extent is a*?_r_I + c, as unknown argument
// extents are from arguments. A domain that the extents do not determine,
// or do not fit, is an error.
func ResultDims(fn *ir.Operation, syms map[string]int64, extents [][]int64) ([][]Dim, error) {
	ft, _ := tir.FuncType(fn)
	env := copySyms(syms)
	var exact, empty []equation
	for i, r := range ft.Results {
		t, ok := tir.AsTensor(r)
		if !ok || i >= len(extents) || len(extents[i]) != len(t.Dims) {
			return nil, fmt.Errorf("result #%d: expected %d extents", i, len(t.Dims))
		}
		for k, d := range t.Dims {
			q := equation{d.Extent(), extents[i][k]}
			if q.v > 0 {
				exact = append(exact, q)
			} else {
				empty = append(empty, q)
			}
		}
	}
	// A positive extent is hi - lo exactly; an empty one only says
	// hi <= lo (I[0:?_r_I - 1] is empty for ?_r_I of 0 and of 1): it
	// binds what nothing else does, to the least value it allows.
	solve(exact, env)
	for {
		least := map[string]int64{}
		for _, q := range empty {
			one := map[string]int64{}
			for k, v := range env {
				one[k] = v
			}
			solve([]equation{q}, one)
			for k, v := range one {
				if _, known := env[k]; !known && v >= 0 {
					if old, seen := least[k]; !seen || v < old {
						least[k] = v
					}
				}
			}
		}
		if len(least) == 0 {
			break
		}
		for k, v := range least {
			env[k] = v
		}
	}
	var out [][]Dim
	for i, r := range ft.Results {
		t, _ := tir.AsTensor(r)
		dims, err := EvalDims(t, env)
		if err != nil {
			return nil, fmt.Errorf("result #%d: %v", i, err)
		}
		for k, d := range dims {
			if d.Extent() != extents[i][k] {
				return nil, fmt.Errorf("result #%d dimension %s: extent %d, but the result type gives %s = %d", i, d.Name, extents[i][k], t.Dims[k].Extent(), d.Extent())
			}
		}
		out = append(out, dims)
	}
	return out, nil
}
