package tiraffine

import (
	"math"
	"strconv"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// A reduction becomes inner affine.for loops over the reduced dimensions
// carrying the accumulator leaves in iter_args; masked points are skipped
// by keeping the old accumulator.

// identity is the neutral element of a simple reduction.
func identity(kind string, t ir.Type) ir.Attribute {
	if ft, ok := t.(ir.FloatType); ok {
		v := map[string]float64{"add": 0, "mul": 1, "min": math.Inf(1), "max": math.Inf(-1)}[kind]
		return ir.FloatAttr{Value: v, Type: ft}
	}
	it := t.(ir.IntegerType)
	w := uint(it.Width)
	maxInt := int64(1)<<(w-1) - 1
	if w == 64 {
		maxInt = math.MaxInt64
	}
	if w == 1 {
		maxInt = 1
	}
	v := map[string]int64{"add": 0, "mul": 1, "min": maxInt, "max": -maxInt - 1, "and": -1, "or": 0}[kind]
	if w == 1 && (kind == "and" || kind == "min") {
		v = 1
	}
	if w == 1 && kind == "max" {
		v = 0
	}
	return ir.IntegerAttr{Value: v, Type: it}
}

var combiner = map[string][2]*ir.OpDef{ // kind -> float op, integer op
	"add": {arith.AddF, arith.AddI}, "mul": {arith.MulF, arith.MulI},
	"min": {arith.MinF, arith.MinSI}, "max": {arith.MaxF, arith.MaxSI},
	"and": {nil, arith.AndI}, "or": {nil, arith.OrI},
}

func lowerReduce(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	inits, mask, body, err := ev.reduction(op, t, pt)
	if err != nil {
		return scalar{}, err
	}
	res, err := ev.reduceLoops(tir.ReduceDims(op), 0, op, pt, inits, body)
	if err != nil {
		return scalar{}, err
	}
	return scalar{parts: res, mask: mask}, nil
}

// reduceBody computes the accumulators of one iteration of a reduction
// at point q (the result's point and the reduced coordinates) from acc.
type reduceBody func(c *evaluator, q point, acc []*ir.Value) ([]*ir.Value, error)

// reduction returns the initial accumulators of a reduction at pt, the
// mask of the result there and its loop body. The result is masked where
// init is (docs/tir.md): skipping masked points only concerns the reduced
// operands, and an accumulator that starts without an element has none
// at the end either, as in the interpreter.
func (ev *evaluator) reduction(op *ir.Operation, t tir.TensorType, pt point) ([]*ir.Value, *ir.Value, reduceBody, error) {
	ins, init := tir.ReduceOperands(op)
	types := leaves(t.Elem)
	var inits []*ir.Value
	var mask *ir.Value
	if init != nil {
		s, err := ev.at(init, pt)
		if err != nil {
			return nil, nil, nil, err
		}
		mask = s.mask
		for i, p := range s.parts {
			if !ir.TypeEqual(p.Type, types[i]) {
				p = ev.fl.constant(constantValue(init), types[i])
			}
			inits = append(inits, p)
		}
	} else {
		inits = []*ir.Value{ev.fl.constant(identity(tir.ReduceKind(op), types[0]), types[0])}
	}
	body := func(c *evaluator, q point, acc []*ir.Value) ([]*ir.Value, error) {
		var masks []*ir.Value
		var next []*ir.Value
		if kind := tir.ReduceKind(op); kind != "" {
			x, m, err := c.single(ins[0], q)
			if err != nil {
				return nil, err
			}
			k := combiner[kind][1]
			if ir.IsFloat(types[0]) {
				k = combiner[kind][0]
			}
			next = []*ir.Value{c.b.value(k, []*ir.Value{acc[0], x}, types[0], nil)}
			masks = append(masks, m)
		} else {
			blk := op.Regions[0].Entry()
			c.env[blk.Args[0]] = scalar{parts: acc}
			for i, v := range ins {
				x, err := c.at(v, q)
				if err != nil {
					return nil, err
				}
				// An op of the body may read the input at other
				// points of its dimensions.
				c.bindAt(blk.Args[i+1], v, q)
				masks = append(masks, x.mask)
			}
			y, err := c.at(blk.Terminator().Operands[0], q)
			if err != nil {
				return nil, err
			}
			next = y.parts
			masks = append(masks, y.mask)
		}
		if m := c.orMask(masks...); m != nil {
			for i := range next {
				next[i] = c.b.value(arith.Select, []*ir.Value{m, acc[i], next[i]}, types[i], ir.DictAttr{}.With(arith.MaskSelectAttr, ir.UnitAttr{}))
			}
		}
		return next, nil
	}
	return inits, mask, body, nil
}

// fuseSiblingReductions computes, before anything else at point pt, the
// reductions that the values vs read at pt (through elementwise ops) when
// several run over the same reduced dimensions and intervals and none
// reads another: one loop nest carries all their accumulators, so what
// their bodies share (neighbor-table loads, masks, weights) is computed
// once per iteration. Their results go to the memo cache, where the
// evaluation of vs finds them; reductions found there already are not
// computed again.
func (ev *evaluator) fuseSiblingReductions(vs []*ir.Value, pt point) error {
	var order []string
	groups := map[string][]*ir.Operation{}
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value)
	walk = func(v *ir.Value) {
		if seen[v] {
			return
		}
		seen[v] = true
		if _, ok := ev.fl.buffers[v]; ok {
			return
		}
		op := v.DefiningOp()
		switch {
		case op == nil:
		case op.Is(tir.Reduce):
			t, _ := tir.AsTensor(v.Type)
			if _, done := ev.lookupCache(cacheKey{v, pt.restrict(t).key()}); done {
				return // computed here already (with other siblings)
			}
			key := ""
			for _, d := range tir.ReduceDims(op) {
				key += d + tir.ReducedInterval(op, d).String() + " "
			}
			if _, ok := groups[key]; !ok {
				order = append(order, key)
			}
			groups[key] = append(groups[key], op)
		case op.HasTrait(ir.TraitElementwise):
			for _, o := range op.Operands {
				walk(o)
			}
		}
	}
	for _, v := range vs {
		walk(v)
	}
	for _, key := range order {
		var members []*ir.Operation
		for _, op := range groups[key] {
			independent := true
			for _, m := range members {
				if reads(op, m.Results[0]) || reads(m, op.Results[0]) {
					independent = false
				}
			}
			if independent {
				members = append(members, op)
			}
		}
		if len(members) < 2 {
			continue
		}
		if err := ev.reduceTogether(members, pt); err != nil {
			return err
		}
	}
	return nil
}

// reads reports whether op's operands (or the ops in its regions) are
// computed from v, an op's result.
func reads(op *ir.Operation, v *ir.Value) bool {
	var operands []*ir.Value
	op.Walk(func(o *ir.Operation) bool {
		operands = append(operands, o.Operands...)
		return true
	})
	def := v.DefiningOp()
	return computedFrom(operands, func(o *ir.Operation) bool { return o == def })
}

// computedFrom reports whether one of vs is computed by an op for which
// hit holds, or from the result of one (the ops in a defining op's
// regions included).
func computedFrom(vs []*ir.Value, hit func(*ir.Operation) bool) bool {
	seen := map[*ir.Value]bool{}
	var from func(x *ir.Value) bool
	from = func(x *ir.Value) bool {
		if seen[x] {
			return false
		}
		seen[x] = true
		d := x.DefiningOp()
		if d == nil {
			return false
		}
		found := false
		d.Walk(func(o *ir.Operation) bool {
			found = found || hit(o)
			for _, y := range o.Operands {
				if !found && from(y) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	for _, v := range vs {
		if from(v) {
			return true
		}
	}
	return false
}

// reduceTogether emits the loops of several reductions over the same
// dimensions and intervals as one nest and caches their results at pt.
func (ev *evaluator) reduceTogether(members []*ir.Operation, pt point) error {
	var inits, masks []*ir.Value
	var bodies []reduceBody
	var widths []int
	for _, op := range members {
		t, _ := tir.AsTensor(op.Results[0].Type)
		in, mask, body, err := ev.reduction(op, t, pt.restrict(t))
		if err != nil {
			return err
		}
		inits = append(inits, in...)
		masks = append(masks, mask)
		bodies = append(bodies, body)
		widths = append(widths, len(in))
	}
	all := func(c *evaluator, q point, acc []*ir.Value) ([]*ir.Value, error) {
		var next []*ir.Value
		at := 0
		for i, body := range bodies {
			out, err := body(c, q, acc[at:at+widths[i]])
			if err != nil {
				return nil, err
			}
			next = append(next, out...)
			at += widths[i]
		}
		return next, nil
	}
	res, err := ev.reduceLoops(tir.ReduceDims(members[0]), 0, members[0], pt, inits, all)
	if err != nil {
		return err
	}
	at := 0
	for i, op := range members {
		t, _ := tir.AsTensor(op.Results[0].Type)
		ev.cache[cacheKey{op.Results[0], pt.restrict(t).key()}] = scalar{parts: res[at : at+widths[i]], mask: masks[i]}
		at += widths[i]
	}
	return nil
}

// reduceLoops emits one loop per reduced dimension, innermost last, each
// carrying the accumulators.
func (ev *evaluator) reduceLoops(dims []string, k int, op *ir.Operation, pt point, acc []*ir.Value,
	body func(c *evaluator, q point, acc []*ir.Value) ([]*ir.Value, error)) ([]*ir.Value, error) {
	if k == len(dims) {
		return body(ev, pt, acc)
	}
	iv := tir.ReducedInterval(op, dims[k])
	loop, b, err := ev.loop(iv, acc)
	if err != nil {
		return nil, ir.Errorf(op.Loc, "%v", err)
	}
	c := ev.child(b)
	blk := loop.Regions[0].Entry()
	name := ev.nest.fresh(dims[k], blk.Args[0])
	q := pt.with(dims[k], sizeexpr.Dim(name, 100+len(ev.nest.ivs)))
	next, err := c.reduceLoops(dims, k+1, op, q, blk.Args[1:], body)
	if err != nil {
		return nil, err
	}
	b.op(affine.Yield, next, nil, nil)
	return loop.Results, nil
}

// loop emits an affine.for over an interval of symbols, with iter_args.
func (ev *evaluator) loop(iv sizeexpr.Interval, inits []*ir.Value) (*ir.Operation, builder, error) {
	lb, lbOps, err := boundMap(iv.Lo, true, ev.nest)
	if err != nil {
		return nil, builder{}, err
	}
	ub, ubOps, err := boundMap(iv.Hi, false, ev.nest)
	if err != nil {
		return nil, builder{}, err
	}
	loop, b := ev.b.affineForIter(lb, lbOps, ub, ubOps, inits)
	return loop, b, nil
}

// fresh registers a new loop variable for a dimension and returns its name.
func (n *nest) fresh(dim string, iv *ir.Value) string {
	name := "r" + dim + "_" + strconv.Itoa(len(n.ivs))
	iv.NameHint = "r" + ivHint(dim)
	n.ivs[name] = iv
	return name
}
