package interp

import (
	"fmt"
	"math"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

func init() { register(tir.Reduce, evalReduce) }

// evalReduce runs a reduction over the dimensions of attribute "dims"
// (strings). The simple form has a "kind" (add mul min max and or) and
// operands (x [, init]); the region form has operands (init, ins...) and a
// body run once per point of the reduced dimensions. The reduction runs
// over the intersection of the inputs' intervals of each reduced
// dimension, in row-major order of the reduced dimensions as listed,
// accumulating from init (or the identity) in that order; masked points are
// skipped.
func evalReduce(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	names, err := stringList(op.Attr("dims"))
	if err != nil {
		return nil, fmt.Errorf("'dims': %v", err)
	}
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	kind := tir.ReduceOp{Operation: op}.Kind()
	var ins []*Tensor
	var init *Tensor
	if len(op.Regions) > 0 {
		if len(in) < 2 {
			return nil, fmt.Errorf("the region form needs init and at least one input")
		}
		init, ins = in[0], in[1:]
	} else {
		if kind == "" || len(in) < 1 || len(in) > 2 {
			return nil, fmt.Errorf("needs a 'kind' and one input (and an optional init), or a body")
		}
		ins = in[:1]
		if len(in) == 2 {
			init = in[1]
		}
	}
	red, err := reducedBox(names, ins)
	if err != nil {
		return nil, err
	}
	acc, err := initial(elem, dims, init, kind)
	if err != nil {
		return nil, err
	}
	if len(op.Regions) > 0 {
		return reduceRegion(ev, op, acc, ins, red)
	}
	return reduceSimple(kind, acc, ins[0], red)
}

func stringList(a ir.Attribute) ([]string, error) {
	arr, ok := a.(ir.ArrayAttr)
	if !ok || len(arr) == 0 {
		return nil, fmt.Errorf("expected a non-empty array of dimension names")
	}
	var out []string
	for _, e := range arr {
		s, ok := e.(ir.StringAttr)
		if !ok {
			return nil, fmt.Errorf("expected dimension names, got %s", e)
		}
		out = append(out, string(s))
	}
	return out, nil
}

// reducedBox is, for each reduced dimension, the intersection of the
// intervals of the inputs that have it.
func reducedBox(names []string, ins []*Tensor) ([]Dim, error) {
	var red []Dim
	for _, n := range names {
		d := Dim{Name: n}
		found := false
		for _, t := range ins {
			if k := t.Find(n); k >= 0 {
				if !found {
					d.Lo, d.Hi = t.Dims[k].Lo, t.Dims[k].Hi
				} else {
					d.Lo, d.Hi = max(d.Lo, t.Dims[k].Lo), min(d.Hi, t.Dims[k].Hi)
				}
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("no input has the reduced dimension %s", n)
		}
		red = append(red, d)
	}
	return red, nil
}

// initial is the accumulator before the first step: init broadcast to the
// result's domain (a float constant of another float type converts), or
// the identity of kind.
func initial(elem ir.Type, dims []Dim, init *Tensor, kind string) (*Tensor, error) {
	acc := mustTensor(elem, dims)
	if init == nil {
		if kind == "" {
			return nil, fmt.Errorf("the region form needs an init value")
		}
		for i := range acc.F64 {
			acc.F64[i] = floatIdentity(kind)
		}
		for i := range acc.I64 {
			acc.I64[i] = intIdentity(kind, width(elem))
		}
		return acc, nil
	}
	a, err := align(init, dims)
	if err != nil {
		return nil, fmt.Errorf("init: %v", err)
	}
	if !ir.TypeEqual(a.Elem, elem) && !(ir.IsFloat(a.Elem) && ir.IsFloat(elem)) {
		return nil, fmt.Errorf("init has element type %s, the result %s", a.Elem, elem)
	}
	for i := 0; i < acc.Len(); i++ {
		copyElem(acc, i, a, i)
	}
	for i := range acc.F64 {
		acc.F64[i] = RoundTo(elem, acc.F64[i])
	}
	if a.Mask != nil {
		acc.Mask = append([]bool(nil), a.Mask...)
	}
	return acc, nil
}

func floatIdentity(kind string) float64 {
	switch kind {
	case "mul":
		return 1
	case "min":
		return math.Inf(1)
	case "max":
		return math.Inf(-1)
	}
	return 0
}

// reduceSimple accumulates x over the reduced box into acc. An init that
// varies along a reduced dimension gives the result that dimension too: a
// dimension of the result's own, which x does not vary along (x's is the
// one reduced), so each point of the result reduces x's points at its
// other coordinates (r(i, k) = c(k) + sum over k' of x(i, k')), as the
// region form and compiled code do.
func reduceSimple(kind string, acc, x *Tensor, red []Dim) ([]*Tensor, error) {
	var names []string
	for _, d := range red {
		names = append(names, d.Name)
	}
	outer := without(acc.Dims, names...)
	xa, err := align(x, append(append([]Dim(nil), outer...), red...))
	if err != nil {
		return nil, err
	}
	// row[i] is the point of outer that the result's point i reduces at.
	rows := mustTensor(ir.I64, outer)
	for j := range rows.I64 {
		rows.I64[j] = int64(j)
	}
	row, err := align(rows, acc.Dims)
	if err != nil {
		return nil, err
	}
	r := numPoints(red)
	switch k, _ := kindOf(acc.Elem); k {
	case kindFloat:
		fb := floatBinary[kind]
		if fb == nil {
			return nil, fmt.Errorf("reduction '%s' is not defined on %s", kind, acc.Elem)
		}
		for i := range acc.F64 {
			o := int(row.I64[i])
			for j := o * r; j < (o+1)*r; j++ {
				if !xa.Masked(j) {
					acc.F64[i] = RoundTo(acc.Elem, fb(acc.F64[i], xa.F64[j]))
				}
			}
		}
	case kindInt:
		ib := intBinary[kind]
		if ib == nil {
			return nil, fmt.Errorf("reduction '%s' is not defined on %s", kind, acc.Elem)
		}
		w := width(acc.Elem)
		for i := range acc.I64 {
			o := int(row.I64[i])
			for j := o * r; j < (o+1)*r; j++ {
				if !xa.Masked(j) {
					v, err := ib(signed(acc.I64[i], w), signed(xa.I64[j], w))
					if err != nil {
						return nil, err
					}
					acc.I64[i] = wrap(v, w)
				}
			}
		}
	default:
		return nil, fmt.Errorf("reduction '%s' is not defined on %s", kind, acc.Elem)
	}
	return []*Tensor{acc}, nil
}

// reduceRegion runs the body once per point of the reduced box with the
// accumulator and each input's slice at that point; at a result point where
// any slice is masked the accumulator keeps its value, and one that is
// masked (a masked init) stays masked even if the body ignores it, as
// compiled code, which carries no mask through the loop, has it.
func reduceRegion(ev *evaluator, op *ir.Operation, acc *Tensor, ins []*Tensor, red []Dim) ([]*Tensor, error) {
	body := op.Regions[0].Entry()
	if body == nil {
		return nil, fmt.Errorf("empty body")
	}
	err := points(red, func(c []int64) error {
		fixed := map[string]int64{}
		for k, d := range red {
			fixed[d.Name] = c[k]
		}
		args := []*Tensor{acc}
		var views []*Tensor
		for _, t := range ins {
			s, err := slice(t, fixed)
			if err != nil {
				return err
			}
			args = append(args, s)
			v, err := align(s, acc.Dims)
			if err != nil {
				return err
			}
			views = append(views, v)
		}
		skip := orMasks(acc.Len(), append(views, acc)...)
		outs, err := ev.block(body, args)
		if err != nil {
			return err
		}
		y, err := align(outs[0], acc.Dims)
		if err != nil {
			return fmt.Errorf("yield: %v", err)
		}
		acc = merge(acc, y, skip)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return []*Tensor{acc}, nil
}

// merge is a fresh tensor holding y, except old where keep is true.
func merge(old, y *Tensor, keep []bool) *Tensor {
	n := old.Len()
	out := mustTensor(old.Elem, old.Dims)
	for i := 0; i < n; i++ {
		src := y
		if masked(keep, i) {
			src = old
		}
		copyElem(out, i, src, i)
		if src.Masked(i) {
			if out.Mask == nil {
				out.Mask = make([]bool, n)
			}
			out.Mask[i] = true
		}
	}
	return out
}
