package tc

import (
	"math"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Op construction. Every op goes through the dialect's own type rule
// (OpDef.Infer), exactly as if it had been parsed, so the imported module
// is what `tc-opt` would build from its printed form, and a type rule that
// rejects an op reports it at the TC source location.

// build appends an op and returns its result. result is the result type
// for the ops that take it as an input (view, cast), nil otherwise.
func (b *body) build(name string, loc ir.Location, operands []*ir.Value, attrs ir.DictAttr, result ir.Type) (*ir.Value, error) {
	def := ir.LookupOp(name)
	op := ir.NewOp(name, loc, operands, []ir.Type{result}, attrs)
	if def != nil && def.Infer != nil {
		ts, err := def.Infer(op)
		if err != nil {
			return nil, err
		}
		if len(ts) == 1 {
			op.Results[0].Type = ts[0]
		}
	}
	// Sizes that overflow, or leave the index range, are an error of the
	// statement that derives them (a huge offset, coefficient or range),
	// not of the verifier after the import.
	if err := ir.CheckResultSizes(op); err != nil {
		return nil, err
	}
	b.blk.Append(op)
	if def != nil && def.Verify != nil {
		if err := def.Verify(op, nil); err != nil {
			return nil, err
		}
	}
	return op.Results[0], nil
}

// constant is a 0-d tir.constant of type t holding a literal (C's
// conversions: a float to an integer truncates toward zero, an integer
// wraps to the width, anything non-zero is true).
func (b *body) constant(n *Num, t ir.Type, loc ir.Location) (*ir.Value, error) {
	var a ir.Attribute
	switch t := t.(type) {
	case ir.FloatType:
		v := float64(n.Int)
		if n.Float {
			v = n.F
		}
		a = ir.FloatAttr{Value: v, Type: t}
	case ir.IntegerType:
		v := n.Int
		if n.Float {
			v = truncate(n.F)
		}
		a = ir.IntegerAttr{Value: wrap(v, t.Width), Type: t}
	default:
		return nil, errorf(loc, "a literal cannot have type %s", t)
	}
	return b.build("tir.constant", loc, nil, ir.DictAttr{}.With("value", a), nil)
}

func truncate(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// wrap reduces v to a signed integer of the width (1: 0 or 1).
func wrap(v int64, width int) int64 {
	if width == 1 {
		if v != 0 {
			return 1
		}
		return 0
	}
	if width >= 64 {
		return v
	}
	shift := 64 - uint(width)
	return v << shift >> shift
}

func (b *body) intConst(v int64, t ir.Type, loc ir.Location) (*ir.Value, error) {
	return b.build("tir.constant", loc, nil, ir.DictAttr{}.With("value", ir.IntegerAttr{Value: v, Type: t}), nil)
}

// cast converts v to element type elem (nothing when it has it already).
func (b *body) cast(v *ir.Value, elem ir.Type, loc ir.Location) (*ir.Value, error) {
	t, _ := tir.AsTensor(v.Type)
	if ir.TypeEqual(t.Elem, elem) {
		return v, nil
	}
	return b.build("tir.cast", loc, []*ir.Value{v}, nil, t.WithElem(elem))
}

// view re-indexes x: dimension dims[k] of x reads exprs[k]; the result has
// the dimensions out.
func (b *body) view(x *ir.Value, dims []string, exprs []sizeexpr.Expr, out []tir.Dim, loc ir.Location) (*ir.Value, error) {
	xt, _ := tir.AsTensor(x.Type)
	return b.build("tir.view", loc, []*ir.Value{x}, ir.DictAttr{}.With("map", tir.ViewAttr{Dims: dims, Exprs: exprs}), tir.TensorType{Elem: xt.Elem, Dims: out})
}

// broadcastTo adds the dimensions of dims that v lacks.
func (b *body) broadcastTo(v *ir.Value, dims []tir.Dim, loc ir.Location) (*ir.Value, error) {
	t, _ := tir.AsTensor(v.Type)
	var add tir.DomainAttr
	for _, d := range dims {
		if t.Find(d.Name) < 0 {
			add = append(add, d)
		}
	}
	if len(add) == 0 {
		return v, nil
	}
	return b.build("tir.broadcast", loc, []*ir.Value{v}, ir.DictAttr{}.With("dims", add), nil)
}

// reorder puts v's dimensions in the order of dims (a renaming view) when
// they are not already; v has exactly those dimensions.
func (b *body) reorder(v *ir.Value, dims []tir.Dim, loc ir.Location) (*ir.Value, error) {
	t, _ := tir.AsTensor(v.Type)
	same := len(t.Dims) == len(dims)
	for k := range dims {
		same = same && t.Dims[k].Name == dims[k].Name
	}
	if same {
		return v, nil
	}
	var names []string
	var exprs []sizeexpr.Expr
	var out []tir.Dim
	for _, d := range t.Dims {
		names = append(names, d.Name)
		exprs = append(exprs, tir.DimVar(d.Name))
	}
	for _, d := range dims {
		cur, _ := t.Dim(d.Name)
		out = append(out, cur)
	}
	return b.view(v, names, exprs, out, loc)
}

// sizeValue materialises a size expression as a 0-d i64 tensor: tir has
// no op that reads a size symbol as data, so it is the position of the
// single point of a one-element dimension [e:e+1], reduced away.
func (b *body) sizeValue(e sizeexpr.Expr, loc ir.Location) (*ir.Value, error) {
	if c, ok := e.Const(); ok {
		return b.intConst(c, ir.I64, loc)
	}
	zero, err := b.intConst(0, ir.I64, loc)
	if err != nil {
		return nil, err
	}
	const d = "size"
	one, err := b.build("tir.broadcast", loc, []*ir.Value{zero}, ir.DictAttr{}.With("dims", tir.DomainAttr{{Name: d, Interval: sizeexpr.Span(e, sizeexpr.Add(e, sizeexpr.Const(1)))}}), nil)
	if err != nil {
		return nil, err
	}
	pos, err := b.build("tir.pos", loc, []*ir.Value{one}, ir.DictAttr{}.With("dim", ir.StringAttr(d)), nil)
	if err != nil {
		return nil, err
	}
	return b.build("tir.reduce", loc, []*ir.Value{pos}, ir.DictAttr{}.With("dims", ir.ArrayAttr{ir.StringAttr(d)}).With("kind", ir.StringAttr("max")), nil)
}

// indexValue is an index variable as data: i64, over its range.
func (b *body) indexValue(name string, iv sizeexpr.Interval, loc ir.Location) (*ir.Value, error) {
	zero, err := b.intConst(0, ir.I64, loc)
	if err != nil {
		return nil, err
	}
	dom, err := b.build("tir.broadcast", loc, []*ir.Value{zero}, ir.DictAttr{}.With("dims", tir.DomainAttr{{Name: name, Interval: iv}}), nil)
	if err != nil {
		return nil, err
	}
	return b.build("tir.pos", loc, []*ir.Value{dom}, ir.DictAttr{}.With("dim", ir.StringAttr(name)), nil)
}
