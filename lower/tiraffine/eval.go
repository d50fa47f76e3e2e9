package tiraffine

import (
	"maps"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// scalar is a tir value at one point: one SSA scalar per leaf of its
// element type (tuples are flattened), and an i1 mask, true where the value
// is masked (no neighbor), or nil when it cannot be masked.
type scalar struct {
	parts []*ir.Value
	mask  *ir.Value
}

// evaluator emits the scalar computation of tir values at one point of a
// loop nest, into one block. Results are memoised per (value, point); a
// child evaluator (for a nested loop or branch) sees its parent's results,
// which dominate it, but keeps its own, which do not dominate the parent.
type evaluator struct {
	fl     *funcLowering
	nest   *nest
	b      builder
	parent *evaluator
	cache  map[cacheKey]scalar
	// env binds region block arguments (reduce/scan bodies) at this point.
	env map[*ir.Value]scalar
	// args binds region block arguments at any point (bindAt): the
	// value at a point of the argument's dimensions.
	args map[*ir.Value]func(e *evaluator, p point) (scalar, error)
}

type cacheKey struct {
	v  *ir.Value
	pt string
}

// newEvaluator starts evaluating in block b of loop nest n.
func (fl *funcLowering) newEvaluator(n *nest, b builder) *evaluator {
	return &evaluator{fl: fl, nest: n, b: b, cache: map[cacheKey]scalar{}, env: map[*ir.Value]scalar{}, args: map[*ir.Value]func(*evaluator, point) (scalar, error){}}
}

// child evaluates in a nested block that the current one dominates.
func (ev *evaluator) child(b builder) *evaluator {
	c := ev.fl.newEvaluator(ev.nest, b)
	c.parent = ev
	return c
}

func (ev *evaluator) lookupCache(k cacheKey) (scalar, bool) {
	for e := ev; e != nil; e = e.parent {
		if s, ok := e.cache[k]; ok {
			return s, true
		}
	}
	return scalar{}, false
}

func (ev *evaluator) lookupArg(v *ir.Value) (func(*evaluator, point) (scalar, error), bool) {
	for e := ev; e != nil; e = e.parent {
		if f, ok := e.args[v]; ok {
			return f, true
		}
	}
	return nil, false
}

// bindAt binds the block argument arg of a body evaluated at q to the
// value v (of which arg is the slice at q, v's dimensions beyond arg's
// taken from q): an op of the body may read arg at other points of its
// dimensions (a view, a shift, a reduction over one of them), which are
// v's at those points.
func (ev *evaluator) bindAt(arg, v *ir.Value, q point) {
	ev.args[arg] = func(e *evaluator, p point) (scalar, error) {
		full := point{}
		maps.Copy(full, q)
		maps.Copy(full, p)
		return e.at(v, full)
	}
}

func (ev *evaluator) lookupEnv(v *ir.Value) (scalar, bool) {
	for e := ev; e != nil; e = e.parent {
		if s, ok := e.env[v]; ok {
			return s, true
		}
	}
	return scalar{}, false
}

func (p point) key() string {
	var parts []string
	for d, e := range p {
		parts = append(parts, d+"="+e.String())
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// restrict keeps only the dimensions of t: a value does not vary along the
// others (broadcast), so they must not split the memo cache.
func (p point) restrict(t tir.TensorType) point {
	q := point{}
	for _, d := range t.Dims {
		if e, ok := p[d.Name]; ok {
			q[d.Name] = e
		}
	}
	return q
}

func (p point) with(dim string, e sizeexpr.Expr) point {
	q := point{}
	for k, v := range p {
		q[k] = v
	}
	q[dim] = e
	return q
}

// leaves flattens a (nested) tuple element type into its scalar types.
func leaves(t ir.Type) []ir.Type {
	if tt, ok := t.(ir.TupleType); ok {
		var out []ir.Type
		for _, e := range tt.Elems {
			out = append(out, leaves(e)...)
		}
		return out
	}
	return []ir.Type{t}
}

func (ev *evaluator) at(v *ir.Value, pt point) (scalar, error) {
	t, ok := tir.AsTensor(v.Type)
	if !ok {
		return scalar{}, ir.Errorf(tir.DefLoc(v), "cannot lower a value of type %s", v.Type)
	}
	if s, ok := ev.lookupEnv(v); ok {
		return s, nil
	}
	pt = pt.restrict(t)
	if f, ok := ev.lookupArg(v); ok {
		return f(ev, pt)
	}
	key := cacheKey{v, pt.key()}
	if s, ok := ev.lookupCache(key); ok {
		return s, nil
	}
	s, err := ev.compute(v, t, pt)
	if err != nil {
		return scalar{}, err
	}
	ev.cache[key] = s
	return s, nil
}

// single evaluates a value that must not be a tuple.
func (ev *evaluator) single(v *ir.Value, pt point) (*ir.Value, *ir.Value, error) {
	s, err := ev.at(v, pt)
	if err != nil {
		return nil, nil, err
	}
	if len(s.parts) != 1 {
		return nil, nil, ir.Errorf(tir.DefLoc(v), "a tuple value cannot be used here")
	}
	return s.parts[0], s.mask, nil
}

func (ev *evaluator) compute(v *ir.Value, t tir.TensorType, pt point) (scalar, error) {
	if bufs, ok := ev.fl.buffers[v]; ok {
		if st, ok := ev.fl.storage[v]; ok {
			t = st
		}
		var s scalar
		for _, mem := range bufs {
			if mem == nil {
				// A leaf of a scan's state nothing reads (leavesRead).
				s.parts = append(s.parts, nil)
				continue
			}
			x, err := ev.load(mem, t, pt)
			if err != nil {
				return scalar{}, ir.Errorf(tir.DefLoc(v), "%v", err)
			}
			s.parts = append(s.parts, x)
		}
		if mem, ok := ev.fl.masks[v]; ok {
			m, err := ev.load(mem, t, pt)
			if err != nil {
				return scalar{}, ir.Errorf(tir.DefLoc(v), "%v", err)
			}
			s.mask = m
		} else if op := v.DefiningOp(); op != nil && op.Is(tir.Scan) && tir.MayBeMaskedMemo(op.Operands[0], ev.fl.maskMemo) {
			// A scan is masked where its init is, along the whole scanned
			// dimension (scanStep skips masked steps): the init's mask at
			// the point is the scan's, with no buffer of its own.
			init, err := ev.at(op.Operands[0], pt)
			if err != nil {
				return scalar{}, err
			}
			s.mask = init.mask
		}
		return s, nil
	}
	op := v.DefiningOp()
	if op == nil {
		return scalar{}, ir.Errorf(tir.DefLoc(v), "cannot lower this block argument here")
	}
	lower, ok := opLowerings[tir.OpOf(op)]
	if !ok {
		switch {
		case tir.MovesData(op):
			lower = lowerAccess
		case op.HasTrait(ir.TraitElementwise):
			lower = lowerElementwise
		default:
			return scalar{}, ir.Errorf(op.Loc, "convert-tir-to-affine does not support '%s' yet", op.Name)
		}
	}
	saved := ev.b.loc
	ev.b.loc = op.Loc
	defer func() { ev.b.loc = saved }()
	return lower(ev, op, t, pt)
}

// load reads a buffer holding a tensor of type t at a point: an affine.load
// when every subscript is affine in loop variables and symbols, otherwise a
// memref.load with subscripts computed by arith ops.
func (ev *evaluator) load(mem *ir.Value, t tir.TensorType, pt point) (*ir.Value, error) {
	subs, err := subscripts(t, pt)
	if err != nil {
		return nil, err
	}
	subs = ev.fl.affinizeAll(subs)
	if ev.affine(subs) {
		m, ops := affineMap(subs, ev.nest.lookup)
		return ev.b.load(mem, m, ops), nil
	}
	var idx []*ir.Value
	for _, s := range subs {
		idx = append(idx, ev.index(s))
	}
	elem := mem.Type.(ir.MemRefType).Elem
	return ev.b.value(memref.Load, append([]*ir.Value{mem}, idx...), elem, nil), nil
}

func subscripts(t tir.TensorType, pt point) ([]sizeexpr.Expr, error) {
	subs := make([]sizeexpr.Expr, len(t.Dims))
	for i, d := range t.Dims {
		x, ok := pt[d.Name]
		if !ok {
			return nil, errorString("dimension " + d.Name + " is not covered by the loop nest")
		}
		subs[i] = sizeexpr.Sub(x, d.Lo)
	}
	return subs, nil
}

type errorString string

func (e errorString) Error() string { return string(e) }

// affine reports whether expressions can be affine.load subscripts: no
// min/max and no data-dependent coordinate.
func (ev *evaluator) affine(es []sizeexpr.Expr) bool {
	for _, e := range es {
		if !e.IsAffine() {
			return false
		}
		for _, v := range e.Vars() {
			if ev.nest.dynamic[v.Name] {
				return false
			}
		}
	}
	return true
}

// index computes an index expression with arith ops (for subscripts that
// affine maps cannot express).
func (ev *evaluator) index(e sizeexpr.Expr) *ir.Value {
	b := ev.b
	c := func(x int64) *ir.Value { return ev.fl.indexConst(x) }
	terms, k := e.Terms()
	acc := c(k)
	first := k == 0
	for _, t := range terms {
		var x *ir.Value
		a := t.Atom
		switch a.Op() {
		case sizeexpr.OpVar:
			x = ev.nest.lookup(a.Var())
		case sizeexpr.OpMin, sizeexpr.OpMax:
			k := arith.MinSI
			if a.Op() == sizeexpr.OpMax {
				k = arith.MaxSI
			}
			for i, arg := range a.Args() {
				y := ev.index(arg)
				if i == 0 {
					x = y
				} else {
					x = b.value(k, []*ir.Value{x, y}, ir.Index, nil)
				}
			}
		default:
			y := ev.index(a.Operand())
			d := c(a.Divisor())
			switch a.Op() {
			case sizeexpr.OpFloorDiv, sizeexpr.OpCeilDiv:
				x = divByPositive(b, y, d, a.Op() == sizeexpr.OpCeilDiv)
			default:
				x = intRem(b, y, d, ir.Index)
			}
		}
		if t.Coef != 1 {
			x = b.value(arith.MulI, []*ir.Value{x, c(t.Coef)}, ir.Index, nil)
		}
		if first {
			acc, first = x, false
		} else {
			acc = b.value(arith.AddI, []*ir.Value{acc, x}, ir.Index, nil)
		}
	}
	return acc
}

// divByPositive rounds y / d (d > 0, as a size expression's divisors are)
// down, or up with ceil, by arith.divsi and a correction from the
// remainder's sign, rather than arith.floordivsi and arith.ceildivsi,
// which MLIR's LLVM conversion does not lower without arith-expand.
func divByPositive(b builder, y, d *ir.Value, ceil bool) *ir.Value {
	q := b.value(arith.DivSI, []*ir.Value{y, d}, ir.Index, nil)
	r := b.value(arith.RemSI, []*ir.Value{y, d}, ir.Index, nil)
	zero := b.constant(ir.IntegerAttr{Value: 0, Type: ir.Index}, ir.Index)
	one := b.constant(ir.IntegerAttr{Value: 1, Type: ir.Index}, ir.Index)
	if ceil {
		up := cmpi(b, cmpiSGT, r, zero)
		return b.value(arith.Select, []*ir.Value{up, b.value(arith.AddI, []*ir.Value{q, one}, ir.Index, nil), q}, ir.Index, nil)
	}
	down := cmpi(b, cmpiSLT, r, zero)
	return b.value(arith.Select, []*ir.Value{down, b.value(arith.SubI, []*ir.Value{q, one}, ir.Index, nil), q}, ir.Index, nil)
}

// orMask combines masks (nil = never masked).
func (ev *evaluator) orMask(ms ...*ir.Value) *ir.Value {
	var out *ir.Value
	for _, m := range ms {
		if m == nil {
			continue
		}
		if out == nil {
			out = m
		} else {
			out = ev.b.value(arith.OrI, []*ir.Value{out, m}, ir.I1, nil)
		}
	}
	return out
}

// constant returns a hoisted arith.constant of the given element type.
func (fl *funcLowering) constant(a ir.Attribute, elem ir.Type) *ir.Value {
	var attr ir.Attribute
	switch a := a.(type) {
	case ir.FloatAttr:
		if ir.IsFloat(elem) {
			attr = ir.FloatAttr{Value: a.Value, Type: elem}
		}
	case ir.IntegerAttr:
		if ir.IsFloat(elem) {
			attr = ir.FloatAttr{Value: float64(a.Value), Type: elem}
		} else {
			attr = ir.IntegerAttr{Value: a.Value, Type: elem}
		}
	case ir.BoolAttr:
		v := int64(0)
		if a {
			v = 1
		}
		attr = ir.IntegerAttr{Value: v, Type: elem}
	}
	if attr == nil {
		attr = a
	}
	key := attr.String()
	if c, ok := fl.consts[key]; ok {
		return c
	}
	// Constants go first in the entry block, before any loop.
	op := ir.NewOpOf(arith.Constant, fl.src.Loc, nil, []ir.Type{elem}, ir.DictAttr{}.With(arith.AttrValue, attr))
	entry := fl.top
	pos := 0
	for pos < len(entry.Ops) && entry.Ops[pos].Is(arith.Constant) {
		pos++
	}
	entry.InsertAt(pos, op)
	op.Results[0].NameHint = "cst"
	if _, isIndex := elem.(ir.IndexType); isIndex {
		op.Results[0].NameHint = "c" + strings.ReplaceAll(strconv.FormatInt(a.(ir.IntegerAttr).Value, 10), "-", "m")
	}
	fl.consts[key] = op.Results[0]
	return op.Results[0]
}

func (fl *funcLowering) indexConst(v int64) *ir.Value {
	return fl.constant(ir.IntegerAttr{Value: v, Type: ir.Index}, ir.Index)
}
