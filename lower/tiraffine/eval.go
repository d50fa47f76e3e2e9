package tiraffine

import (
	"sort"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// evaluator emits the scalar computation of tir values at one point of a
// loop nest. Results are memoised per (value, point), so a value read twice
// at the same point (after shifts cancel, for instance) is computed once.
type evaluator struct {
	fl    *funcLowering
	nest  *nest
	b     builder
	cache map[cacheKey]*ir.Value
}

type cacheKey struct {
	v  *ir.Value
	pt string
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

func (ev *evaluator) at(v *ir.Value, pt point) (*ir.Value, error) {
	t, ok := tir.AsTensor(v.Type)
	if !ok {
		return nil, ir.Errorf(tir.DefLoc(v), "cannot lower a value of type %s", v.Type)
	}
	pt = pt.restrict(t)
	key := cacheKey{v, pt.key()}
	if r, ok := ev.cache[key]; ok {
		return r, nil
	}
	r, err := ev.compute(v, t, pt)
	if err != nil {
		return nil, err
	}
	ev.cache[key] = r
	return r, nil
}

func (ev *evaluator) compute(v *ir.Value, t tir.TensorType, pt point) (*ir.Value, error) {
	if mem, ok := ev.fl.mem[v]; ok {
		subs := make([]sizeexpr.Expr, len(t.Dims))
		for i, d := range t.Dims {
			x, ok := pt[d.Name]
			if !ok {
				return nil, ir.Errorf(tir.DefLoc(v), "dimension %s of an argument is not covered by the loop nest", d.Name)
			}
			subs[i] = sizeexpr.Sub(x, d.Lo)
		}
		m, ops := affineMap(subs, ev.nest.lookup)
		return ev.b.load(mem, m, ops), nil
	}
	op := v.DefiningOp()
	if op == nil {
		return nil, ir.Errorf(tir.DefLoc(v), "cannot lower this block argument")
	}
	b := ev.b
	b.loc = op.Loc
	switch {
	case op.Name == "tir.constant":
		return ev.fl.constant(op.Attr("value"), t.Elem), nil
	case op.Name == "tir.shift":
		offs, _ := op.Attr("offsets").(tir.OffsetsAttr)
		q := point{}
		for d, e := range pt {
			q[d] = sizeexpr.Add(e, offs.Offset(d))
		}
		return ev.at(op.Operands[0], q)
	case op.HasTrait(ir.TraitElementwise):
		var args []*ir.Value
		for _, o := range op.Operands {
			a, err := ev.at(o, pt)
			if err != nil {
				return nil, err
			}
			// A float constant of another type converts at compile time.
			if ot, _ := tir.AsTensor(o.Type); !ir.TypeEqual(ot.Elem, t.Elem) && o.DefiningOp() != nil &&
				o.DefiningOp().Name == "tir.constant" && ir.IsFloat(ot.Elem) && op.Name != "tir.cmp" && op.Name != "tir.select" {
				a = ev.fl.constant(o.DefiningOp().Attr("value"), t.Elem)
			}
			args = append(args, a)
		}
		return scalarOp(b, op, args, t.Elem)
	}
	return nil, ir.Errorf(op.Loc, "convert-tir-to-affine does not support '%s' yet", op.Name)
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
		attr = ir.IntegerAttr{Value: a.Value, Type: elem}
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
	op := ir.NewOp("arith.constant", fl.src.Loc, nil, []ir.Type{elem}, ir.DictAttr{}.With("value", attr))
	entry := fl.entry.block
	pos := 0
	for pos < len(entry.Ops) && entry.Ops[pos].Name == "arith.constant" {
		pos++
	}
	entry.InsertAt(pos, op)
	op.Results[0].NameHint = "cst"
	fl.consts[key] = op.Results[0]
	return op.Results[0]
}
