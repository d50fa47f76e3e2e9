package tir

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// The derivative rule of every op (derivative.go). Elementwise math is
// given by its partial derivatives; the data-movement ops by their
// transposes; reductions by the rules of their combiner. Where a function
// is not differentiable the choice is fixed so that every backend gives the
// same values: abs, floor, ceil and round have derivative 0 at their kinks
// and steps, nextafter(a, b) has derivative 1 in a and 0 in b everywhere,
// min and max give a tie to their first operand, a reduction
// min or max gives its derivative to the first point that attains the
// extremum (its init first, then the points in increasing index order of
// the reduced dimensions, the first one listed varying slowest).

var derivativeRules = map[*Op]DerivativeRule{
	Add: {Tangent: addTangent, Adjoint: addAdjoint},
	Sub: {Tangent: subTangent, Adjoint: subAdjoint},
	Neg: {Tangent: negTangent, Adjoint: negAdjoint},
	Mul: fromPartials(func(e *emitter, o DerivativeOp, need []bool) []*ir.Value {
		return []*ir.Value{o.X[1], o.X[0]}
	}),
	Div: {Tangent: divTangent, Adjoint: divAdjoint},
	Rem: fromPartials(func(e *emitter, o DerivativeOp, need []bool) []*ir.Value {
		// y = a - b*floor(a/b): dy/da = 1, dy/db = -floor(a/b).
		a, b := o.X[0], o.X[1]
		p := []*ir.Value{e.c(a, 1), nil}
		if need[1] {
			p[1] = e.op(Neg, e.op(Floor, e.op(Div, a, b)))
		}
		return p
	}),
	Min: choiceRule("le"),
	Max: choiceRule("ge"),
	Pow: fromPartials(func(e *emitter, o DerivativeOp, need []bool) []*ir.Value {
		// y = a^b: dy/da = b a^(b-1), dy/db = y log(a).
		a, b := o.X[0], o.X[1]
		p := make([]*ir.Value, 2)
		if need[0] {
			p[0] = e.op(Mul, b, e.op(Pow, a, e.op(Sub, b, e.c(b, 1))))
		}
		if need[1] {
			p[1] = e.op(Mul, o.Y[0], e.op(Log, a))
		}
		return p
	}),
	Abs: fromPartials(func(e *emitter, o DerivativeOp, need []bool) []*ir.Value {
		// sign(a), 0 at 0.
		a := o.X[0]
		pos := e.cmp("gt", a, e.c(a, 0))
		neg := e.cmp("lt", a, e.c(a, 0))
		return []*ir.Value{e.op(Select, pos, e.c(a, 1), e.op(Select, neg, e.c(a, -1), e.c(a, 0)))}
	}),
	Exp: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value { return y }),
	Log: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value { return e.op(Div, e.c(a, 1), a) }),
	// At 0 both follow the formula: infinite.
	Sqrt:  unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value { return e.op(Div, e.c(a, 0.5), y) }),
	Rsqrt: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value { return e.op(Div, e.op(Mul, e.c(a, -0.5), y), a) }),
	Sin:   unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value { return e.op(Cos, a) }),
	Cos:   unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value { return e.op(Neg, e.op(Sin, a)) }),
	Tan: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value {
		return e.op(Add, e.c(a, 1), e.op(Mul, y, y))
	}),
	Tanh: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value {
		return e.op(Sub, e.c(a, 1), e.op(Mul, y, y))
	}),
	Sigmoid: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value {
		return e.op(Mul, y, e.op(Sub, e.c(a, 1), y))
	}),
	// d erf(a) = 2/sqrt(pi) exp(-a^2).
	Erf: unaryPartial(func(e *emitter, a, y *ir.Value) *ir.Value {
		return e.op(Mul, e.c(a, 2/math.Sqrt(math.Pi)), e.op(Exp, e.op(Neg, e.op(Mul, a, a))))
	}),
	// nextafter(a, b) is a moved by at most one ulp: derivative 1 in a and
	// 0 in b, which is the derivative away from its steps (b = a, and the
	// ulp steps themselves), taken everywhere.
	NextAfter: fromPartials(func(e *emitter, o DerivativeOp, need []bool) []*ir.Value {
		return []*ir.Value{e.c(o.X[0], 1), nil}
	}),
	// Piecewise constant: derivative 0 everywhere (their steps included).
	Floor: {}, Ceil: {}, Round: {},
	// Results that carry no derivative (i1, integers, indices).
	And: {}, Or: {}, Xor: {}, Not: {}, Cmp: {}, CanDeref: {}, Pos: {}, Iota: {},
	Constant: {},

	Select:      {Tangent: selectTangent, Adjoint: selectAdjoint},
	Cast:        {Tangent: castTangent, Adjoint: castAdjoint},
	Shift:       {Tangent: sameOpTangent, Adjoint: shiftAdjoint},
	Subset:      {Tangent: sameOpTangent, Adjoint: passAdjoint},
	Broadcast:   {Tangent: sameOpTangent, Adjoint: passAdjoint},
	View:        {Tangent: sameOpTangent, Adjoint: viewAdjoint},
	AssumeShape: {Tangent: sameOpTangent, Adjoint: assumeShapeAdjoint},
	Concat:      {Tangent: concatTangent, Adjoint: concatAdjoint},
	Piecewise:   {Tangent: piecewiseTangent, Adjoint: piecewiseAdjoint},
	MakeTuple:   {Tangent: makeTupleTangent, Adjoint: makeTupleAdjoint},
	TupleGet:    {Tangent: sameOpTangent, Adjoint: tupleGetAdjoint},
	Reduce:      {Tangent: reduceTangent, Adjoint: reduceAdjoint},
	Scan:        {Tangent: scanTangent, Adjoint: scanAdjoint},
	Gather:      {Tangent: gatherTangent, Adjoint: gatherAdjoint},
	Compress:    {Tangent: compressTangent, Adjoint: compressAdjoint},

	Func: {Structural: true}, Return: {Structural: true}, Yield: {Structural: true}, Call: {Structural: true},
}

// derivativeNotYet lists the ops without a rule in this version, with
// what is missing; the pass refuses them at the op.
var derivativeNotYet = map[*Op]string{}

// emitter builds IR through a DerivativeBuilder and keeps the first error,
// so that a rule reads as the formula it implements.
type emitter struct {
	b   DerivativeBuilder
	err error
}

func (e *emitter) build(k *Op, attrs ir.DictAttr, result ir.Type, xs ...*ir.Value) *ir.Value {
	if e.err != nil {
		return nil
	}
	for _, x := range xs {
		if x == nil {
			return nil
		}
	}
	v, err := e.b.Build(k, xs, attrs, result)
	if err != nil {
		e.err = err
	}
	return v
}

func (e *emitter) op(k *Op, xs ...*ir.Value) *ir.Value { return e.build(k, nil, nil, xs...) }

func (e *emitter) cmp(pred string, a, b *ir.Value) *ir.Value {
	return e.build(Cmp, ir.DictAttr{}.With("predicate", ir.StringAttr(pred)), nil, a, b)
}

// c is a 0-d constant of v's element type.
func (e *emitter) c(v *ir.Value, x float64) *ir.Value { return e.b.Const(elemOf(v), x) }

func (e *emitter) fit(v *ir.Value, t TensorType) *ir.Value {
	if e.err != nil || v == nil {
		return nil
	}
	r, err := e.b.Fit(v, t)
	if err != nil {
		e.err = err
	}
	return r
}

func (e *emitter) reduce(kind string, v *ir.Value, dims []string) *ir.Value {
	return e.build(Reduce, ir.DictAttr{}.With("kind", ir.StringAttr(kind)).With("dims", dimsAttr(dims)), nil, v)
}

// add sums two tangents, either of which may be nil (zero).
func (e *emitter) add(a, b *ir.Value) *ir.Value {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return e.op(Add, a, b)
}

// orZero is v, or the zero of t's element type when v is nil.
func (e *emitter) orZero(v *ir.Value, t *ir.Value) *ir.Value {
	if v != nil {
		return v
	}
	return e.c(t, 0)
}

func elemOf(v *ir.Value) ir.Type {
	t, _ := AsTensor(v.Type)
	return t.Elem
}

func tensorTypeOf(v *ir.Value) TensorType {
	t, _ := AsTensor(v.Type)
	return t
}

func dimsAttr(dims []string) ir.ArrayAttr {
	var a ir.ArrayAttr
	for _, d := range dims {
		a = append(a, ir.StringAttr(d))
	}
	return a
}

func rule(f func(e *emitter) []*ir.Value, b DerivativeBuilder) ([]*ir.Value, error) {
	e := &emitter{b: b}
	out := f(e)
	if e.err != nil {
		return nil, e.err
	}
	return out, nil
}

// isConstant reports whether v is a tir.constant holding x.
func isConstant(v *ir.Value, x float64) bool {
	d := v.DefiningOp()
	if d == nil || !d.Is(Constant) {
		return false
	}
	f, ok := d.Attr("value").(ir.FloatAttr)
	return ok && f.Value == x
}

// fromPartials makes the rule of an elementwise op from its partial
// derivatives (nil: zero): dy = sum of p_i dx_i, and dx_i += p_i dy.
func fromPartials(partials func(e *emitter, o DerivativeOp, need []bool) []*ir.Value) DerivativeRule {
	times := func(e *emitter, d, p *ir.Value) *ir.Value {
		switch {
		case isConstant(p, 1):
			return d
		case isConstant(p, -1):
			return e.op(Neg, d)
		}
		return e.op(Mul, d, p)
	}
	return DerivativeRule{
		Tangent: func(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
			return rule(func(e *emitter) []*ir.Value {
				need := make([]bool, len(dx))
				for i, d := range dx {
					need[i] = d != nil
				}
				p := partials(e, o, need)
				var sum *ir.Value
				for i, d := range dx {
					if d != nil && i < len(p) && p[i] != nil {
						sum = e.add(sum, times(e, d, p[i]))
					}
				}
				return []*ir.Value{sum}
			}, b)
		},
		Adjoint: func(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
			return rule(func(e *emitter) []*ir.Value {
				out := make([]*ir.Value, len(o.X))
				if dy[0] == nil {
					return out
				}
				p := partials(e, o, need)
				for i := range out {
					if need[i] && i < len(p) && p[i] != nil {
						out[i] = times(e, dy[0], p[i])
					}
				}
				return out
			}, b)
		},
	}
}

// unaryPartial is fromPartials for a unary op whose derivative is a
// function of its operand a and result y.
func unaryPartial(p func(e *emitter, a, y *ir.Value) *ir.Value) DerivativeRule {
	return fromPartials(func(e *emitter, o DerivativeOp, need []bool) []*ir.Value {
		return []*ir.Value{p(e, o.X[0], o.Y[0])}
	})
}

func addTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value { return []*ir.Value{e.add(dx[0], dx[1])} }, b)
}

func addAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return []*ir.Value{dy[0], dy[0]}, nil
}

func subTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		switch {
		case dx[1] == nil:
			return []*ir.Value{dx[0]}
		case dx[0] == nil:
			return []*ir.Value{e.op(Neg, dx[1])}
		}
		return []*ir.Value{e.op(Sub, dx[0], dx[1])}
	}, b)
}

func subAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		out := []*ir.Value{dy[0], nil}
		if need[1] && dy[0] != nil {
			out[1] = e.op(Neg, dy[0])
		}
		return out
	}, b)
}

func negTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value { return []*ir.Value{e.op(Neg, dx[0])} }, b)
}

func negAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value { return []*ir.Value{e.op(Neg, dy[0])} }, b)
}

// divTangent is y = a / b's: dy = (da - y db) / b, one division.
func divTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		num := dx[0]
		if dx[1] != nil {
			ydb := e.op(Mul, o.Y[0], dx[1])
			if num == nil {
				num = e.op(Neg, ydb)
			} else {
				num = e.op(Sub, num, ydb)
			}
		}
		if num == nil {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.op(Div, num, o.X[1])}
	}, b)
}

// divAdjoint is y = a / b's: da = dy r and db = -(da y) with r = 1/b,
// one division, which every quotient by the same b shares after cse
// (c/den and d/den of the Thomas algorithm): -y dy / b would divide once
// more per quotient.
func divAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		out := make([]*ir.Value, 2)
		if dy[0] == nil || !need[0] && !need[1] {
			return out
		}
		den := o.X[1]
		da := e.op(Mul, dy[0], e.op(Div, e.c(den, 1), den))
		if need[0] {
			out[0] = da
		}
		if need[1] {
			out[1] = e.op(Neg, e.op(Mul, da, o.Y[0]))
		}
		return out
	}, b)
}

// choiceRule is min (pred le) or max (ge): the derivative of the operand
// chosen, the first one on a tie.
func choiceRule(pred string) DerivativeRule {
	return DerivativeRule{
		Tangent: func(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
			return rule(func(e *emitter) []*ir.Value {
				first := e.cmp(pred, o.X[0], o.X[1])
				y := o.Y[0]
				return []*ir.Value{e.op(Select, first, e.orZero(dx[0], y), e.orZero(dx[1], y))}
			}, b)
		},
		Adjoint: func(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
			return rule(func(e *emitter) []*ir.Value {
				out := make([]*ir.Value, 2)
				if dy[0] == nil {
					return out
				}
				first := e.cmp(pred, o.X[0], o.X[1])
				zero := e.c(dy[0], 0)
				if need[0] {
					out[0] = e.op(Select, first, dy[0], zero)
				}
				if need[1] {
					out[1] = e.op(Select, first, zero, dy[0])
				}
				return out
			}, b)
		},
	}
}

func selectTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		if dx[1] == nil && dx[2] == nil {
			return []*ir.Value{nil}
		}
		y := o.Y[0]
		return []*ir.Value{e.op(Select, o.X[0], e.orZero(dx[1], y), e.orZero(dx[2], y))}
	}, b)
}

func selectAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		out := make([]*ir.Value, 3)
		if dy[0] == nil {
			return out
		}
		zero := e.c(dy[0], 0)
		if need[1] {
			out[1] = e.op(Select, o.X[0], dy[0], zero)
		}
		if need[2] {
			out[2] = e.op(Select, o.X[0], zero, dy[0])
		}
		return out
	}, b)
}

// A cast between float types carries the derivative, converted; the pass
// never asks for it when either side is an integer.
func castTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		if dx[0] == nil || !ir.IsFloat(elemOf(o.X[0])) || !ir.IsFloat(elemOf(o.Y[0])) {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.build(Cast, nil, tensorTypeOf(dx[0]).WithElem(elemOf(o.Y[0])), dx[0])}
	}, b)
}

func castAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		if dy[0] == nil || !ir.IsFloat(elemOf(o.X[0])) || !ir.IsFloat(elemOf(o.Y[0])) {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.build(Cast, nil, tensorTypeOf(dy[0]).WithElem(elemOf(o.X[0])), dy[0])}
	}, b)
}

// sameOpTangent applies the op itself to the tangent of its one operand:
// the linear ops (shift, subset, broadcast, view, assume_shape,
// tuple_get) are their own derivative.
func sameOpTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		k := OpOf(o.Op)
		var result ir.Type
		if k == View || k == AssumeShape {
			result = o.Y[0].Type
		}
		return []*ir.Value{e.build(k, o.Op.Attrs, result, dx[0])}
	}, b)
}

// passAdjoint gives the cotangent as it is: the transpose of a subset is
// the zero-padding, of a broadcast the sum over the added dimensions, and
// the pass does both when it fits a contribution to its operand.
func passAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return []*ir.Value{dy[0]}, nil
}

// The transpose of a read at an offset is a read at the opposite offset.
func shiftAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		offs, _ := o.Op.Attr("offsets").(OffsetsAttr)
		back := OffsetsAttr{Dims: offs.Dims}
		for _, x := range offs.Offsets {
			back.Offsets = append(back.Offsets, sizeexpr.Neg(x))
		}
		return []*ir.Value{e.build(Shift, ir.DictAttr{}.With("offsets", back), nil, dy[0])}
	}, b)
}

func assumeShapeAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		return []*ir.Value{e.build(AssumeShape, nil, o.X[0].Type, dy[0])}
	}, b)
}

// tangentsOrZeros returns the tangents dx with zero(i) in place of each
// operand that has none (a linear op rebuilt on its tangents), and
// whether any operand has one.
func tangentsOrZeros(dx []*ir.Value, zero func(i int) *ir.Value) ([]*ir.Value, bool) {
	parts := make([]*ir.Value, len(dx))
	any := false
	for i, d := range dx {
		if d != nil {
			parts[i], any = d, true
		} else {
			parts[i] = zero(i)
		}
	}
	return parts, any
}

func concatTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		pieces, any := tangentsOrZeros(dx, func(i int) *ir.Value { return e.fit(e.c(o.Y[0], 0), tensorTypeOf(o.X[i])) })
		if !any {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.build(Concat, o.Op.Attrs, nil, pieces...)}
	}, b)
}

// The transpose of a concat splits the cotangent into its pieces.
func concatAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		out := make([]*ir.Value, len(o.X))
		dim := DimAttr(o.Op)
		for i, x := range o.X {
			if !need[i] || dy[0] == nil {
				continue
			}
			d, _ := tensorTypeOf(x).Dim(dim)
			out[i] = e.build(Subset, ir.DictAttr{}.With("bounds", DomainAttr{d}), nil, dy[0])
		}
		return out
	}, b)
}

func makeTupleTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		parts, any := tangentsOrZeros(dx, func(i int) *ir.Value { return e.c(o.X[i], 0) })
		if !any {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.op(MakeTuple, parts...)}
	}, b)
}

func makeTupleAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		out := make([]*ir.Value, len(o.X))
		for i := range o.X {
			if need[i] && dy[0] != nil {
				out[i] = e.build(TupleGet, ir.DictAttr{}.With("index", ir.IntegerAttr{Value: int64(i), Type: ir.I64}), nil, dy[0])
			}
		}
		return out
	}, b)
}

// The transpose of taking a component is a tuple that holds the cotangent
// there and zeros elsewhere.
func tupleGetAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		if dy[0] == nil {
			return []*ir.Value{nil}
		}
		tt, _ := elemOf(o.X[0]).(ir.TupleType)
		parts := make([]*ir.Value, len(tt.Elems))
		for i, el := range tt.Elems {
			if i == TupleIndex(o.Op) {
				parts[i] = dy[0]
			} else {
				parts[i] = e.b.Const(el, 0)
			}
		}
		return []*ir.Value{e.op(MakeTuple, parts...)}
	}, b)
}

// viewAdjoint scatters the cotangent of a view back into its operand's
// dimensions. Each operand dimension d read at an expression of result
// dimensions needs one result dimension r of its own with coefficient ±1
// (the pivot): r is then d minus the rest, so the cotangent, padded with
// zeros along r far enough, is read back by a view over (d, the other
// result dimensions), and summed over the other result dimensions (those
// several points of the result read the same operand point: a
// convolution's i + k, a broadcast's unused dimension). An operand
// dimension fixed to a constant gets the cotangent at that one point.
func viewAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	if dy[0] == nil || !need[0] {
		return []*ir.Value{nil}, nil
	}
	m, _ := o.Op.Attr("map").(ViewAttr)
	xt, yt := tensorTypeOf(o.X[0]), tensorTypeOf(o.Y[0])
	type read struct {
		dim   Dim
		terms []sizeexpr.Term // over result dimensions
		off   sizeexpr.Expr   // symbols and the constant
		pivot int             // index into terms, -1 for a constant read
	}
	uses := map[string]int{}
	var reads []read
	for _, d := range xt.Dims {
		ex, _ := m.Expr(d.Name)
		terms, c, ok := ex.Linear()
		if !ok {
			if f, ok := flatteningOf(o); ok {
				return unflatten(b, f, dy[0])
			}
			return nil, NotDifferentiableYet(o.Op, "the expression of "+d.Name+" is not affine")
		}
		r := read{dim: d, off: sizeexpr.Const(c), pivot: -1}
		for _, t := range terms {
			if t.Var.Kind == sizeexpr.DimVar {
				r.terms = append(r.terms, t)
				uses[t.Var.Name]++
			} else {
				r.off = sizeexpr.Add(r.off, sizeexpr.Mul(t.Var.Expr(), t.Coef))
			}
		}
		reads = append(reads, r)
	}
	isPivot := map[string]bool{}
	for i := range reads {
		r := &reads[i]
		if len(r.terms) == 0 {
			continue
		}
		for j, t := range r.terms {
			if (t.Coef == 1 || t.Coef == -1) && uses[t.Var.Name] == 1 && (r.pivot < 0 || t.Var.Name == r.dim.Name) {
				r.pivot = j
			}
		}
		if r.pivot < 0 {
			// A strided or mixed read: the scatter written densely.
			return denseViewAdjoint(b, o, dy[0])
		}
		isPivot[r.terms[r.pivot].Var.Name] = true
	}
	// z: over the operand's non-constant dimensions and the result's other
	// dimensions, which must not share names.
	zt := TensorType{Elem: yt.Elem}
	for _, r := range reads {
		if len(r.terms) > 0 {
			zt.Dims = append(zt.Dims, r.dim)
		}
	}
	var rest []string
	for _, d := range yt.Dims {
		if isPivot[d.Name] {
			continue
		}
		if zt.Find(d.Name) >= 0 {
			return nil, NotDifferentiableYet(o.Op, "result dimension "+d.Name+" is summed over but the operand has a dimension of that name too")
		}
		zt.Dims = append(zt.Dims, d)
		rest = append(rest, d.Name)
	}
	vm := ViewAttr{}
	padded := TensorType{Elem: yt.Elem}
	for _, d := range yt.Dims {
		ex := DimVar(d.Name)
		iv := d.Interval
		for _, r := range reads {
			if len(r.terms) == 0 || r.terms[r.pivot].Var.Name != d.Name {
				continue
			}
			// r = s (d - other terms - off), s = ±1.
			s := r.terms[r.pivot].Coef
			x := sizeexpr.Sub(DimVar(r.dim.Name), r.off)
			for j, t := range r.terms {
				if j != r.pivot {
					x = sizeexpr.Sub(x, sizeexpr.Mul(DimVar(t.Var.Name), t.Coef))
				}
			}
			ex = sizeexpr.Mul(x, s)
			img, ok := ImageInterval(ex, zt)
			if !ok {
				return nil, NotDifferentiableYet(o.Op, "the inverse of "+d.Name+" is not affine")
			}
			iv = img
		}
		vm.Dims = append(vm.Dims, d.Name)
		vm.Exprs = append(vm.Exprs, ex)
		padded.Dims = append(padded.Dims, Dim{Name: d.Name, Interval: iv})
	}
	return rule(func(e *emitter) []*ir.Value {
		g := e.fit(dy[0], padded)
		z := e.build(View, ir.DictAttr{}.With("map", vm), zt, g)
		if len(rest) > 0 {
			z = e.reduce("add", z, rest)
		}
		for _, r := range reads {
			if len(r.terms) == 0 {
				at := Dim{Name: r.dim.Name, Interval: sizeexpr.Span(r.off, sizeexpr.Add(r.off, sizeexpr.Const(1)))}
				z = e.build(Broadcast, ir.DictAttr{}.With("dims", DomainAttr{at}), nil, z)
			}
		}
		return []*ir.Value{z}
	}, b)
}

// flattening is a view that reads a box of operand dimensions, one point
// per point of a result dimension l, in row-major order (the one a fold
// over several dimensions runs in, which tir-derivatives flattens so):
// operand dimension d is read at lo_d + (l floordiv stride_d) mod
// extent_d, the first one without the mod, the last with a stride of 1;
// the result's other dimensions are the operand's (read as themselves)
// and an operand dimension read at a constant is one point.
type flattening struct {
	view   DerivativeOp
	l      Dim
	dims   []string // the box's operand dimensions
	lo     []sizeexpr.Expr
	stride []int64
	extent []sizeexpr.Expr
}

// flatteningOf recognizes a flattening view.
func flatteningOf(o DerivativeOp) (*flattening, bool) {
	m, _ := o.Op.Attr("map").(ViewAttr)
	xt, yt := tensorTypeOf(o.X[0]), tensorTypeOf(o.Y[0])
	f := &flattening{view: o}
	type part struct {
		dim        string
		lo         sizeexpr.Expr
		stride, by int64 // by: the modulus, 0 for none
	}
	var parts []part
	for _, d := range xt.Dims {
		ex, _ := m.Expr(d.Name)
		if ex.Equal(DimVar(d.Name)) && yt.Find(d.Name) >= 0 {
			continue
		}
		if ex.IsConst() {
			continue
		}
		terms, c := ex.Terms()
		if len(terms) != 1 || terms[0].Coef != 1 || yt.Find(d.Name) >= 0 {
			return nil, false
		}
		p := part{dim: d.Name, lo: sizeexpr.Const(c), stride: 1}
		a := terms[0].Atom
		if a.Op() == sizeexpr.OpMod {
			p.by = a.Divisor()
			inner, c := a.Operand().Terms()
			if len(inner) != 1 || inner[0].Coef != 1 || c != 0 {
				return nil, false
			}
			a = inner[0].Atom
		}
		if a.Op() == sizeexpr.OpFloorDiv {
			p.stride = a.Divisor()
			inner, c := a.Operand().Terms()
			if len(inner) != 1 || inner[0].Coef != 1 || c != 0 {
				return nil, false
			}
			a = inner[0].Atom
		}
		if a.Op() != sizeexpr.OpVar || a.Var().Kind != sizeexpr.DimVar {
			return nil, false
		}
		if f.l.Name == "" {
			l, ok := yt.Dim(a.Var().Name)
			if !ok || xt.Find(l.Name) >= 0 {
				return nil, false
			}
			f.l = l
		} else if a.Var().Name != f.l.Name {
			return nil, false
		}
		parts = append(parts, part{dim: p.dim, lo: p.lo, stride: p.stride, by: p.by})
	}
	if len(parts) < 2 || !f.l.Lo.Equal(sizeexpr.Const(0)) {
		return nil, false
	}
	// Every other result dimension is the operand's, read as itself.
	for _, d := range yt.Dims {
		if d.Name != f.l.Name {
			if ex, ok := m.Expr(d.Name); !ok || !ex.Equal(DimVar(d.Name)) {
				return nil, false
			}
		}
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].stride > parts[j].stride })
	// Mixed radix: the last stride 1, each stride the next one's times
	// its extent, the first without a modulus and covering l exactly.
	for i, p := range parts {
		last := i == len(parts)-1
		if (i == 0) != (p.by == 0) || last && p.stride != 1 || !last && p.stride != parts[i+1].stride*parts[i+1].by {
			return nil, false
		}
		ext := sizeexpr.Const(p.by)
		if i == 0 {
			q, err := sizeexpr.FloorDiv(f.l.Hi, p.stride)
			if err != nil || !sizeexpr.Mul(q, p.stride).Equal(f.l.Hi) {
				return nil, false
			}
			ext = q
		}
		f.dims = append(f.dims, p.dim)
		f.lo = append(f.lo, p.lo)
		f.stride = append(f.stride, p.stride)
		f.extent = append(f.extent, ext)
	}
	return f, true
}

// unflatten is a flattening's transpose: each point of the box reads the
// cotangent at the one point of l that read it (l = the sum of
// stride_d (d - lo_d)), an affine view; the operand's points outside the
// box are padded with zeros by the sum of the contributions.
func unflatten(b DerivativeBuilder, f *flattening, g *ir.Value) ([]*ir.Value, error) {
	m, _ := f.view.Op.Attr("map").(ViewAttr)
	xt, yt := tensorTypeOf(f.view.X[0]), tensorTypeOf(f.view.Y[0])
	zt := TensorType{Elem: yt.Elem}
	for _, d := range xt.Dims {
		ex, _ := m.Expr(d.Name)
		if c, ok := ex.Const(); ok {
			d.Interval = sizeexpr.Span(sizeexpr.Const(c), sizeexpr.Const(c+1))
		} else if i := slices.Index(f.dims, d.Name); i >= 0 {
			d.Interval = sizeexpr.Span(f.lo[i], sizeexpr.Add(f.lo[i], f.extent[i]))
		} else {
			d, _ = yt.Dim(d.Name)
		}
		zt.Dims = append(zt.Dims, d)
	}
	at := sizeexpr.Const(0)
	for i, d := range f.dims {
		at = sizeexpr.Add(at, sizeexpr.Mul(sizeexpr.Sub(DimVar(d), f.lo[i]), f.stride[i]))
	}
	vm := ViewAttr{}
	for _, d := range yt.Dims {
		vm.Dims = append(vm.Dims, d.Name)
		if d.Name == f.l.Name {
			vm.Exprs = append(vm.Exprs, at)
		} else {
			vm.Exprs = append(vm.Exprs, DimVar(d.Name))
		}
	}
	return rule(func(e *emitter) []*ir.Value {
		return []*ir.Value{e.build(View, ir.DictAttr{}.With("map", vm), zt, g)}
	}, b)
}

// reduction is a reduce as its rules see it: a simple reduction of x by
// kind over dims (intervals along), with an init (nil for the identity)
// and its result y. A region-form reduce whose body combines the
// accumulator with a value t that does not depend on it (acc + t(a, b),
// max(acc, t)) is the simple reduction of t over the inputs' whole
// domain; body and t say so (nil for the simple form).
type reduction struct {
	kind    string
	dims    []string
	along   DomainAttr
	x, init *ir.Value
	y       *ir.Value
	body    *ir.Block
	t       *ir.Value
	ins     []*ir.Value
}

// reductionOf checks a reduction the rules handle and describes it.
func reductionOf(o DerivativeOp) (*reduction, error) {
	r := &reduction{dims: ReduceDims(o.Op), y: o.Y[0]}
	for _, d := range r.dims {
		if tensorTypeOf(o.Y[0]).Find(d) >= 0 {
			return nil, NotDifferentiableYet(o.Op, "its init varies along the reduced dimension "+d)
		}
		r.along = append(r.along, Dim{Name: d, Interval: ReducedInterval(o.Op, d)})
	}
	if len(o.Op.Regions) == 0 {
		r.kind, r.x = ReduceKind(o.Op), o.X[0]
		if len(o.X) > 1 {
			r.init = o.X[1]
		}
		return r, nil
	}
	r.body, r.init, r.ins = o.Op.Regions[0].Entry(), o.X[0], o.X[1:]
	if err := r.combiner(); err != nil {
		return nil, NotDifferentiableYet(o.Op, err.Error())
	}
	return r, nil
}

// combiner finds a region body's last op: add, mul, min or max of the
// accumulator and a value computed from the inputs alone.
func (r *reduction) combiner() error {
	fail := fmt.Errorf("the region form of tir.reduce is handled when its body ends with add, mul, min or max of the accumulator and a value that does not depend on it, or as a fold (a scan) over one dimension or over several whose extents, but the first's, are constants")
	yield := r.body.Terminator()
	if yield == nil || len(yield.Operands) != 1 {
		return fail
	}
	last := yield.Operands[0].DefiningOp()
	acc := r.body.Args[0]
	if last == nil || last.ParentBlock() != r.body || len(last.Operands) != 2 {
		return fail
	}
	kinds := map[*Op]string{Add: "add", Mul: "mul", Min: "min", Max: "max"}
	k, ok := kinds[OpOf(last)]
	if !ok {
		return fail
	}
	switch acc {
	case last.Operands[0]:
		r.t = last.Operands[1]
	case last.Operands[1]:
		r.t = last.Operands[0]
	default:
		return fail
	}
	if dependsOn(r.t, acc) {
		return fail
	}
	r.kind = k
	return nil
}

// ReduceBodySplits reports whether the reduce rule takes a reduce: the
// simple form, or a region whose body ends with add, mul, min or max of
// the accumulator and a value computed from the inputs alone. A body
// where the accumulator enters otherwise (a recurrence, a*acc + b) is a
// fold, which tir-derivatives differentiates as a scan.
func ReduceBodySplits(op *ir.Operation) bool {
	if len(op.Regions) == 0 {
		return true
	}
	r := &reduction{body: op.Regions[0].Entry()}
	return r.combiner() == nil
}

// dependsOn reports whether v is computed from w.
func dependsOn(v, w *ir.Value) bool {
	if v == w {
		return true
	}
	d := v.DefiningOp()
	if d == nil {
		return false
	}
	for _, x := range d.Operands {
		if dependsOn(x, w) {
			return true
		}
	}
	return false
}

// bodyArgs binds a region body's arguments to whole tensors: the
// accumulator to the init (t does not read it), the inputs to themselves.
func (r *reduction) bodyArgs() []*ir.Value { return append([]*ir.Value{r.init}, r.ins...) }

// inputType is the domain the reduction reads: its result's, with the
// reduced intervals.
func (r *reduction) inputType(elem ir.Type) TensorType {
	t := TensorType{Elem: elem, Dims: append([]Dim(nil), tensorTypeOf(r.y).Dims...)}
	return TensorType{Elem: elem, Dims: append(t.Dims, r.along...)}
}

// materialize computes t over the whole domain for a region form (and,
// given the inputs' tangents, its tangent): r.x and the returned dx.
func (r *reduction) materialize(b DerivativeBuilder, dins []*ir.Value) (dx *ir.Value, err error) {
	if r.body == nil {
		return nil, nil
	}
	x, dx, err := b.BodyTangent(r.body, r.bodyArgs(), append([]*ir.Value{nil}, dins...), r.t)
	if err != nil {
		return nil, err
	}
	it := r.inputType(elemOf(r.y))
	if r.x, err = b.Fit(x, it); err != nil {
		return nil, err
	}
	if dx != nil {
		dx, err = b.Fit(dx, it)
	}
	return dx, err
}

// mulOthers is, at each point of a reduce mul's input, the product of the
// other factors (the init included), computed without dividing by a zero:
// with no zero among the factors the product over the nonzero ones divided
// by this one, with one zero the product of the others at the zero and 0
// elsewhere, with more zeros 0.
func mulOthers(e *emitter, x, init *ir.Value, dims []string) *ir.Value {
	zero, one := e.c(x, 0), e.c(x, 1)
	isZero := e.cmp("eq", x, zero)
	nonzero := e.op(Select, isZero, one, x)
	prod := e.reduce("mul", nonzero, dims)
	zeros := e.reduce("add", e.op(Select, isZero, one, zero), dims)
	atZero := e.op(Select, e.cmp("eq", zeros, one), prod, zero)
	elsewhere := e.op(Select, e.cmp("eq", zeros, zero), e.op(Div, prod, nonzero), zero)
	others := e.op(Select, isZero, atZero, elsewhere)
	if init != nil {
		others = e.op(Mul, others, init)
	}
	return others
}

// extremumPoint marks, for a reduce min or max, the one point of the input
// that gets the derivative (i1 over the input's domain) and where the init
// gets it instead (nil without an init): the init when it attains the
// result, else the first attaining point in index order.
func extremumPoint(e *emitter, r *reduction) (point, initWins *ir.Value) {
	att := e.cmp("eq", r.x, r.y)
	if r.init != nil {
		initWins = e.cmp("eq", r.init, r.y)
		att = e.op(Select, initWins, e.b.Const(ir.I1, 0), att)
	}
	never := e.b.Const(ir.I64, 1<<62)
	for _, d := range r.dims {
		p := e.build(Pos, ir.DictAttr{}.With("dim", ir.StringAttr(d)), nil, r.x)
		first := e.reduce("min", e.op(Select, att, p, never), r.dims)
		att = e.op(And, att, e.cmp("eq", p, first))
	}
	return att, initWins
}

func reduceTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	r, err := reductionOf(o)
	if err != nil {
		return nil, err
	}
	var dxv, dinit *ir.Value
	if r.body != nil {
		dinit = dx[0]
		if dxv, err = r.materialize(b, dx[1:]); err != nil {
			return nil, err
		}
	} else {
		dxv = dx[0]
		if r.init != nil {
			dinit = dx[1]
		}
	}
	return rule(func(e *emitter) []*ir.Value {
		var t *ir.Value
		x, dims := r.x, r.dims
		switch r.kind {
		case "add":
			if dxv != nil {
				t = e.reduce("add", dxv, dims)
			}
			t = e.add(t, dinit)
		case "mul":
			if dxv != nil {
				t = e.reduce("add", e.op(Mul, dxv, mulOthers(e, x, r.init, dims)), dims)
			}
			if dinit != nil {
				t = e.add(t, e.op(Mul, dinit, e.reduce("mul", x, dims)))
			}
		case "min", "max":
			point, initWins := extremumPoint(e, r)
			if dxv != nil {
				t = e.reduce("add", e.op(Select, point, dxv, e.c(x, 0)), dims)
			}
			if dinit != nil {
				t = e.add(t, e.op(Select, initWins, dinit, e.c(x, 0)))
			}
		}
		return []*ir.Value{t}
	}, b)
}

func reduceAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	r, err := reductionOf(o)
	if err != nil {
		return nil, err
	}
	g := dy[0]
	out := make([]*ir.Value, len(o.X))
	if g == nil {
		return out, nil
	}
	// Where the input and the init are among the operands.
	xAt, initAt := 0, 1
	needX := need[0]
	if r.body != nil {
		xAt, initAt = -1, 0
		needX = false
		for _, n := range need[1:] {
			needX = needX || n
		}
		if _, err := r.materialize(b, make([]*ir.Value, len(r.ins))); err != nil {
			return nil, err
		}
	}
	needInit := r.init != nil && need[initAt]
	var dx *ir.Value
	outs, err := rule(func(e *emitter) []*ir.Value {
		x, dims := r.x, r.dims
		switch r.kind {
		case "add":
			if needX {
				// The sum's transpose: the cotangent, the same at every
				// point of the reduced interval.
				dx = e.build(Broadcast, ir.DictAttr{}.With("dims", r.along), nil, g)
			}
			if needInit {
				out[initAt] = g
			}
		case "mul":
			if needX {
				dx = e.op(Mul, g, mulOthers(e, x, r.init, dims))
			}
			if needInit {
				out[initAt] = e.op(Mul, g, e.reduce("mul", x, dims))
			}
		case "min", "max":
			point, initWins := extremumPoint(e, r)
			zero := e.c(x, 0)
			if needX {
				dx = e.op(Select, point, g, zero)
			}
			if needInit {
				out[initAt] = e.op(Select, initWins, g, zero)
			}
		}
		return out
	}, b)
	if err != nil || dx == nil {
		return outs, err
	}
	if xAt >= 0 {
		outs[xAt] = dx
		return outs, nil
	}
	// The region form: the inputs get what t's computation passes back.
	cs, err := b.BodyAdjoint(r.body, r.bodyArgs(), dx, append([]bool{false}, need[1:]...), r.t)
	if err != nil {
		return nil, err
	}
	copy(outs[1:], cs[1:])
	return outs, nil
}

// A scan's step is s(k) = F(s(k-1), a(k)), s(k-1) being the init at the
// first step. Its derivatives run the rules of F's body: the tangent is a
// scan in the same direction whose step is F's tangent,
// ds(k) = F_s ds(k-1) + F_a da(k); the adjoint is a scan in the opposite
// direction over the stored states. With mu(k) the whole cotangent of
// s(k) (its own, g(k), plus what step k+1 passes back) and nu(k) = F_s^T
// mu(k) what step k passes back to s(k-1), the adjoint scan carries nu:
// nu(k) = F_s^T (g(k) + nu(k+1)); then the inputs get F_a^T mu(k) at every
// point at once (F's body applied to whole tensors), and the init gets nu
// at the first step.

// scanParts returns the scan's dimension, its interval and whether it runs
// forward.
func scanParts(o DerivativeOp) (dim string, iv sizeexpr.Interval, forward bool) {
	dim = DimAttr(o.Op)
	d, _ := tensorTypeOf(o.Y[0]).Dim(dim)
	return dim, d.Interval, ScanDirection(o.Op) == "forward"
}

// previousStates is s(k-1) at every step k (the state each step starts
// from): the result moved one step, with the init at the first step.
func previousStates(e *emitter, o DerivativeOp) *ir.Value {
	dim, iv, forward := scanParts(o)
	rt := tensorTypeOf(o.Y[0])
	at := func(lo, hi sizeexpr.Expr) TensorType {
		t := TensorType{Elem: rt.Elem}
		for _, d := range rt.Dims {
			if d.Name == dim {
				d.Interval = sizeexpr.Span(lo, hi)
			}
			t.Dims = append(t.Dims, d)
		}
		return t
	}
	one := sizeexpr.Const(1)
	var padded *ir.Value
	var back sizeexpr.Expr
	if forward {
		init := e.fit(o.X[0], at(sizeexpr.Sub(iv.Lo, one), iv.Lo))
		padded = e.build(Concat, ir.DictAttr{}.With("dim", ir.StringAttr(dim)), nil, init, o.Y[0])
		back = sizeexpr.Const(-1)
	} else {
		init := e.fit(o.X[0], at(iv.Hi, sizeexpr.Add(iv.Hi, one)))
		padded = e.build(Concat, ir.DictAttr{}.With("dim", ir.StringAttr(dim)), nil, o.Y[0], init)
		back = one
	}
	prev := e.build(Shift, ir.DictAttr{}.With("offsets", OffsetsAttr{Dims: []string{dim}, Offsets: []sizeexpr.Expr{back}}), nil, padded)
	return e.fit(prev, rt)
}

// stepMask is, for a scan whose inputs may be masked, where a step runs
// (i1: every input there is not masked) and the inputs with 0 where they
// are masked; nil and the inputs themselves when none may be.
func stepMask(e *emitter, ins []*ir.Value) (*ir.Value, []*ir.Value) {
	var ok *ir.Value
	out := append([]*ir.Value(nil), ins...)
	for i, x := range ins {
		if !MayBeMasked(x) {
			continue
		}
		here := e.op(CanDeref, x)
		out[i] = e.op(Select, here, x, e.b.Const(elemOf(x), 0))
		if ok == nil {
			ok = here
		} else {
			ok = e.op(And, ok, here)
		}
	}
	return ok, out
}

// liveColumns, for a scan whose init may be masked, adds to the steps'
// mask (runs, nil for none) the columns whose init is not masked (where
// the result is not: its mask is the init's, along the whole column), and
// reads the states there with 0 where they are masked. A masked column's
// cotangent is 0 (the sweep gives a masked value none): each of its steps,
// taken as a masked one, passes that 0 back whole and gives the inputs
// nothing, and no partial is computed from a masked state (compiled code
// carries no mask through the loop: it would read what the gather left
// there). The arguments are returned as they are for any other scan.
func liveColumns(e *emitter, o DerivativeOp, runs, prev, states *ir.Value) (*ir.Value, *ir.Value, *ir.Value) {
	if !MayBeMasked(o.X[0]) {
		return runs, prev, states
	}
	live := e.op(CanDeref, o.Y[0])
	zero := e.b.Const(elemOf(o.Y[0]), 0)
	prev = e.op(Select, live, prev, zero)
	states = e.op(Select, live, states, zero)
	if runs == nil {
		return live, prev, states
	}
	return e.op(And, runs, live), prev, states
}

func scanAttrs(o DerivativeOp, direction string) ir.DictAttr {
	a := ir.DictAttr{}.With("dim", ir.StringAttr(DimAttr(o.Op))).With("direction", ir.StringAttr(direction))
	if iv, ok := o.Op.Attr("interval").(DomainAttr); ok {
		a = a.With("interval", iv)
	}
	return a
}

// A scan whose init may be masked masks the whole column of a masked init
// (its states keep the init's mask) and nothing else. Masked inputs are
// handled too: a step with a masked input leaves the state as it was, so
// its tangent keeps the state's tangent (the tangent scan skips the same
// steps) and its adjoint passes the whole cotangent of the state back (the
// adjoint scan must not skip it: it reads the inputs unmasked and chooses
// by the step's mask). A masked column takes part in nothing: the
// tangent of the result is 0 there (as that of any value that may be
// masked), and the adjoint treats its every step as a masked one
// (liveColumns).

func scanTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		body := o.Op.Regions[0].Entry()
		prev := previousStates(e, o)
		dinit := e.orZero(dx[0], o.Y[0])
		ins := append([]*ir.Value{prev}, o.X[1:]...)
		var which []int
		for i, d := range dx[1:] {
			if d != nil {
				ins = append(ins, d)
				which = append(which, i)
			}
		}
		if e.err != nil {
			return nil
		}
		n := len(o.X) - 1
		r, err := b.BuildScan(dinit, ins, scanAttrs(o, ScanDirection(o.Op)), func(bb DerivativeBuilder, args []*ir.Value) (*ir.Value, error) {
			dargs := make([]*ir.Value, n+1)
			dargs[0] = args[0]
			for j, i := range which {
				dargs[1+i] = args[2+n+j]
			}
			_, dy, err := bb.BodyTangent(body, args[1:2+n], dargs, nil)
			if dy == nil && err == nil {
				dy = bb.Const(elemOf(o.Y[0]), 0)
			}
			return dy, err
		})
		e.err = err
		return []*ir.Value{r}
	}, b)
}

func scanAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	out := make([]*ir.Value, len(o.X))
	if dy[0] == nil {
		return out, nil
	}
	dim, iv, forward := scanParts(o)
	g := dy[0]
	return rule(func(e *emitter) []*ir.Value {
		body := o.Op.Regions[0].Entry()
		prev := previousStates(e, o)
		opposite := "backward"
		if !forward {
			opposite = "forward"
		}
		if e.err != nil {
			return nil
		}
		n := len(o.X) - 1
		// The adjoint scan's state is a tuple: nu, then the cotangent of
		// each input that needs one, which the step computes at its own
		// point from mu (carried along only to be stored: no step reads
		// it back). The column is walked once, and the inputs'
		// cotangents need no second pass over the domain.
		stepNeed := make([]bool, n+1)
		stepNeed[0] = true
		stateElems := []ir.Type{elemOf(g)}
		var which []int
		for i, x := range o.X[1:] {
			if need[1+i] && Differentiable(elemOf(x)) {
				stepNeed[1+i] = true
				which = append(which, i)
				stateElems = append(stateElems, elemOf(x))
			}
		}
		runs, ins := stepMask(e, o.X[1:])
		states := o.Y[0]
		runs, prev, states = liveColumns(e, o, runs, prev, states)
		scanIns := append([]*ir.Value{g, prev}, ins...)
		if runs != nil {
			scanIns = append(scanIns, runs)
		}
		// The state the step computed, which the scan stored: the step's
		// adjoint reads it rather than computing it again.
		scanIns = append(scanIns, states)
		if e.err != nil {
			return nil
		}
		init := b.Const(elemOf(g), 0)
		if len(which) > 0 {
			init = b.Const(ir.TupleType{Elems: stateElems}, 0)
		}
		r, err := b.BuildScan(init, scanIns, scanAttrs(o, opposite),
			func(bb DerivativeBuilder, args []*ir.Value) (*ir.Value, error) {
				se := &emitter{b: bb}
				later := args[0]
				if len(which) > 0 {
					later = se.build(TupleGet, ir.DictAttr{}.With("index", ir.IntegerAttr{Value: 0, Type: ir.I64}), nil, args[0])
				}
				if se.err != nil {
					return nil, se.err
				}
				mu, err := bb.Add(args[1], later)
				if err != nil {
					return nil, err
				}
				// An input without some of the state's other dimensions
				// (read the same at every point of them) is read
				// broadcast to them: its cotangent then has the state's
				// dimensions, as its place in the state does, and is
				// summed over them once, outside.
				bargs := append([]*ir.Value(nil), args[2:3+n]...)
				st := tensorTypeOf(args[1])
				for _, i := range which {
					var missing DomainAttr
					for _, d := range st.Dims {
						if tensorTypeOf(bargs[1+i]).Find(d.Name) < 0 {
							missing = append(missing, d)
						}
					}
					if len(missing) > 0 {
						bargs[1+i] = se.build(Broadcast, ir.DictAttr{}.With(AttrDims, missing), nil, bargs[1+i])
					}
				}
				if se.err != nil {
					return nil, se.err
				}
				cs, err := bb.BodyAdjointKnown(body, bargs, args[len(args)-1], mu, stepNeed)
				if err != nil {
					return nil, err
				}
				back := cs[0]
				if back == nil {
					back = bb.Const(elemOf(g), 0)
				}
				if runs != nil {
					// A masked step kept the state: all of mu goes back,
					// and the inputs, which it did not read, get nothing.
					back = se.op(Select, args[3+n], back, mu)
				}
				if len(which) == 0 {
					return back, se.err
				}
				parts := []*ir.Value{back}
				for j, i := range which {
					c := cs[1+i]
					if c == nil {
						c = bb.Const(stateElems[1+j], 0)
					} else if runs != nil {
						c = se.op(Select, args[3+n], c, bb.Const(stateElems[1+j], 0))
					}
					parts = append(parts, c)
				}
				return se.op(MakeTuple, parts...), se.err
			})
		if err != nil {
			e.err = err
			return nil
		}
		nu := r
		if len(which) > 0 {
			get := func(i int) *ir.Value {
				return e.build(TupleGet, ir.DictAttr{}.With("index", ir.IntegerAttr{Value: int64(i), Type: ir.I64}), nil, r)
			}
			for j, i := range which {
				out[1+i] = get(1 + j)
			}
			if need[0] {
				nu = get(0)
			}
		}
		if need[0] {
			one := sizeexpr.Const(1)
			first := sizeexpr.Span(iv.Lo, sizeexpr.Add(iv.Lo, one))
			if !forward {
				first = sizeexpr.Span(sizeexpr.Sub(iv.Hi, one), iv.Hi)
			}
			if iv.ProvablyNonEmpty() {
				out[0] = e.build(Subset, ir.DictAttr{}.With("bounds", DomainAttr{{Name: dim, Interval: first}}), nil, nu)
			} else {
				// An empty scan leaves the init as it is: its cotangent is
				// then 0 from the scan, read where nu is padded with zeros.
				at := tensorTypeOf(nu)
				at.Dims = append([]Dim(nil), at.Dims...)
				at.Dims[at.Find(dim)].Interval = first
				out[0] = e.fit(nu, at)
			}
		}
		return out
	}, b)
}

// A gather's tangent is the same gather of the tangent. Its transpose is
// a scatter-add through the same table: every point of the operand
// receives the sum of the cotangent over the table entries that name it.
// It is written densely, as a sum over the table's dimensions of the
// cotangent where the entry equals the point's position (entries outside
// the operand's interval matching nothing): the form tir.ScatterAddOf
// recognizes, which the lowering computes in O(entries + points) by one
// sweep over the table (lower/tiraffine/scatter.go), not in the
// O(points x entries) the form spells.
func gatherTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		if dx[0] == nil {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.build(Gather, o.Op.Attrs, nil, dx[0], o.X[1])}
	}, b)
}

func gatherAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	out := make([]*ir.Value, 2)
	if dy[0] == nil || !need[0] {
		return out, nil
	}
	dim := DimAttr(o.Op)
	xt, tt := tensorTypeOf(o.X[0]), tensorTypeOf(o.X[1])
	return rule(func(e *emitter) []*ir.Value {
		table, g := o.X[1], dy[0]
		if tt.Find(dim) >= 0 {
			// The table's own dimension of that name is the destination:
			// rename it (in the table and the cotangent) so that it does not
			// meet the operand's.
			fresh := dim + "_to"
			for tt.Find(fresh) >= 0 || xt.Find(fresh) >= 0 {
				fresh += "_"
			}
			rename := func(v *ir.Value) *ir.Value {
				vt := tensorTypeOf(v)
				rt := TensorType{Elem: vt.Elem}
				m := ViewAttr{}
				for _, d := range vt.Dims {
					m.Dims = append(m.Dims, d.Name)
					if d.Name == dim {
						m.Exprs = append(m.Exprs, DimVar(fresh))
						d.Name = fresh
					} else {
						m.Exprs = append(m.Exprs, DimVar(d.Name))
					}
					rt.Dims = append(rt.Dims, d)
				}
				return e.build(View, ir.DictAttr{}.With("map", m), rt, v)
			}
			table, g = rename(table), rename(g)
		}
		var over []string
		for _, d := range tensorTypeOf(table).Dims {
			if xt.Find(d.Name) < 0 {
				over = append(over, d.Name)
			}
		}
		pos := e.build(Pos, ir.DictAttr{}.With("dim", ir.StringAttr(dim)), nil, o.X[0])
		if te := tensorTypeOf(table).Elem; !ir.TypeEqual(te, ir.I64) {
			pos = e.build(Cast, nil, tensorTypeOf(pos).WithElem(te), pos)
		}
		hit := e.cmp("eq", table, pos)
		picked := e.op(Select, hit, g, e.c(g, 0))
		if len(over) > 0 {
			picked = e.reduce("add", picked, over)
		}
		out[0] = picked
		return out
	}, b)
}

// denseViewAdjoint is the transpose of any view whose expressions are
// affine (offsets may hold size symbols), written densely: each operand point
// receives the sum of the cotangent over the result points whose
// expressions name it (O(operand points x result points); the strided
// reads of a subsampling, 2*i + 1). A result dimension named like an
// operand dimension is renamed first so that the two do not meet.
func denseViewAdjoint(b DerivativeBuilder, o DerivativeOp, g *ir.Value) ([]*ir.Value, error) {
	m, _ := o.Op.Attr("map").(ViewAttr)
	xt, yt := tensorTypeOf(o.X[0]), tensorTypeOf(o.Y[0])
	renamed := map[string]string{}
	for _, d := range yt.Dims {
		if xt.Find(d.Name) >= 0 {
			n := d.Name + "_from"
			for xt.Find(n) >= 0 || yt.Find(n) >= 0 {
				n += "_"
			}
			renamed[d.Name] = n
		}
	}
	for _, d := range xt.Dims {
		ex, _ := m.Expr(d.Name)
		if _, _, ok := ex.Linear(); !ok {
			return nil, NotDifferentiableYet(o.Op, "the expression of "+d.Name+" is not affine")
		}
	}
	return rule(func(e *emitter) []*ir.Value {
		if len(renamed) > 0 {
			rt := TensorType{Elem: yt.Elem}
			vm := ViewAttr{}
			for _, d := range yt.Dims {
				vm.Dims = append(vm.Dims, d.Name)
				if n, ok := renamed[d.Name]; ok {
					d.Name = n
				}
				vm.Exprs = append(vm.Exprs, DimVar(d.Name))
				rt.Dims = append(rt.Dims, d)
			}
			g = e.build(View, ir.DictAttr{}.With("map", vm), rt, g)
		}
		name := func(r string) string {
			if n, ok := renamed[r]; ok {
				return n
			}
			return r
		}
		i64 := func(c int64) *ir.Value { return e.b.Const(ir.I64, float64(c)) }
		var hit *ir.Value
		for _, d := range xt.Dims {
			ex, _ := m.Expr(d.Name)
			terms, c, _ := ex.Linear()
			// The offset, with its size symbols (X = 2*j + N) a size
			// expression as a value, compared with the position like the
			// rest.
			off := sizeexpr.Const(c)
			for _, t := range terms {
				if t.Var.Kind != sizeexpr.DimVar {
					off = sizeexpr.Add(off, sizeexpr.Mul(t.Var.Expr(), t.Coef))
				}
			}
			at := i64(c)
			if !off.IsConst() {
				at = e.build(Constant, ir.DictAttr{}.With("value", SizeAttr{Expr: off}), Scalar(ir.I64))
			}
			for _, t := range terms {
				if t.Var.Kind != sizeexpr.DimVar {
					continue
				}
				p := e.build(Pos, ir.DictAttr{}.With("dim", ir.StringAttr(name(t.Var.Name))), nil, g)
				if t.Coef != 1 {
					p = e.op(Mul, p, i64(t.Coef))
				}
				at = e.op(Add, at, p)
			}
			eq := e.cmp("eq", at, e.build(Pos, ir.DictAttr{}.With("dim", ir.StringAttr(d.Name)), nil, o.X[0]))
			if hit == nil {
				hit = eq
			} else {
				hit = e.op(And, hit, eq)
			}
		}
		picked := e.op(Select, hit, g, e.c(g, 0))
		var over []string
		for _, d := range yt.Dims {
			over = append(over, name(d.Name))
		}
		return []*ir.Value{e.reduce("add", picked, over)}
	}, b)
}

// A compress keeps the points of x where the mask holds, renumbered from
// 0; its extent comes from the data and is a constant of the derivative.
// Both rules go through the rank of each point of x, the number of kept
// points up to it minus one (a scan of the mask), which is its index in
// the result where it is kept. The transpose reads the cotangent back
// through the rank as a table (a gather whose table has the dimension
// itself) where the mask holds; the tangent sums, densely, the tangent of
// x where the rank names the result's point. Neither makes an extent of
// its own.
func compressRank(b DerivativeBuilder, o DerivativeOp) (*ir.Value, error) {
	dim := DimAttr(o.Op)
	attrs := ir.DictAttr{}.With("dim", ir.StringAttr(dim)).With("direction", ir.StringAttr("forward"))
	return b.BuildScan(b.Const(ir.I64, -1), []*ir.Value{o.X[1]}, attrs, func(bb DerivativeBuilder, args []*ir.Value) (*ir.Value, error) {
		one, err := bb.Build(Cast, []*ir.Value{args[1]}, nil, tensorTypeOf(args[1]).WithElem(ir.I64))
		if err != nil {
			return nil, err
		}
		return bb.Build(Add, []*ir.Value{args[0], one}, nil, nil)
	})
}

func compressTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	if dx[0] == nil {
		return []*ir.Value{nil}, nil
	}
	dim := DimAttr(o.Op)
	xt := tensorTypeOf(o.X[0])
	src := dim + "_src"
	for xt.Find(src) >= 0 {
		src += "_"
	}
	rank, err := compressRank(b, o)
	if err != nil {
		return nil, err
	}
	return rule(func(e *emitter) []*ir.Value {
		rename := func(v *ir.Value) *ir.Value {
			vt := tensorTypeOf(v)
			rt := TensorType{Elem: vt.Elem}
			m := ViewAttr{}
			for _, d := range vt.Dims {
				m.Dims = append(m.Dims, d.Name)
				if d.Name == dim {
					d.Name = src
				}
				m.Exprs = append(m.Exprs, DimVar(d.Name))
				rt.Dims = append(rt.Dims, d)
			}
			return e.build(View, ir.DictAttr{}.With("map", m), rt, v)
		}
		at := e.build(Pos, ir.DictAttr{}.With("dim", ir.StringAttr(dim)), nil, o.Y[0])
		hit := e.op(And, rename(o.X[1]), e.cmp("eq", rename(rank), at))
		picked := e.op(Select, hit, rename(dx[0]), e.c(dx[0], 0))
		return []*ir.Value{e.reduce("add", picked, []string{src})}
	}, b)
}

func compressAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	out := make([]*ir.Value, 2)
	if dy[0] == nil || !need[0] {
		return out, nil
	}
	rank, err := compressRank(b, o)
	if err != nil {
		return nil, err
	}
	return rule(func(e *emitter) []*ir.Value {
		back := e.build(Gather, ir.DictAttr{}.With("dim", ir.StringAttr(DimAttr(o.Op))), nil, dy[0], rank)
		out[0] = e.op(Select, o.X[1], back, e.c(dy[0], 0))
		return out
	}, b)
}
