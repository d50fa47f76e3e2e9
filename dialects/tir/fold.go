package tir

import (
	"math"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Folds: local simplifications the canonicalize pass applies to a fixed
// point. Each returns true only after it changed the IR through rw.

func newLike(op *ir.Operation, name string, operands []*ir.Value, attrs ir.DictAttr) *ir.Operation {
	n := ir.NewOp(name, op.Loc, operands, []ir.Type{op.Results[0].Type}, attrs)
	n.Results[0].NameHint = op.Results[0].NameHint
	return n
}

// foldShift removes shifts by zero and merges a shift of a shift.
func foldShift(op *ir.Operation, rw *ir.Rewriter) bool {
	offs, _ := op.Attr("offsets").(OffsetsAttr)
	var keep OffsetsAttr
	for i, d := range offs.Dims {
		if c, ok := offs.Offsets[i].Const(); ok && c == 0 {
			continue
		}
		keep.Dims = append(keep.Dims, d)
		keep.Offsets = append(keep.Offsets, offs.Offsets[i])
	}
	if len(keep.Dims) == 0 {
		rw.ReplaceOp(op, op.Operands)
		return true
	}
	if inner := op.Operands[0].DefiningOp(); inner != nil && inner.Name == "tir.shift" {
		in, _ := inner.Attr("offsets").(OffsetsAttr)
		merged := OffsetsAttr{}
		seen := map[string]bool{}
		for _, a := range []OffsetsAttr{in, keep} {
			for _, d := range a.Dims {
				if seen[d] {
					continue
				}
				seen[d] = true
				merged.Dims = append(merged.Dims, d)
				merged.Offsets = append(merged.Offsets, sizeexpr.Add(in.Offset(d), keep.Offset(d)))
			}
		}
		n := newLike(op, "tir.shift", inner.Operands, ir.DictAttr{}.With("offsets", merged))
		rw.InsertBefore(op, n)
		rw.ReplaceOp(op, n.Results)
		return true
	}
	if len(keep.Dims) != len(offs.Dims) {
		op.SetAttr("offsets", keep)
		rw.Modified(op)
		return true
	}
	return false
}

// foldSubset removes a subset that keeps the whole domain and merges a
// subset of a subset.
func foldSubset(op *ir.Operation, rw *ir.Rewriter) bool {
	if ir.TypeEqual(op.Results[0].Type, op.Operands[0].Type) {
		rw.ReplaceOp(op, op.Operands)
		return true
	}
	if inner := op.Operands[0].DefiningOp(); inner != nil && inner.Name == "tir.subset" {
		// The outer bounds are inside the inner ones, so they are the
		// bounds of the merged subset; inner-only bounds are kept.
		out := DomainAttr{}
		outer, _ := op.Attr("bounds").(DomainAttr)
		in, _ := inner.Attr("bounds").(DomainAttr)
		for _, d := range in {
			if (TensorType{Dims: outer}).Find(d.Name) < 0 {
				out = append(out, d)
			}
		}
		out = append(out, outer...)
		n := newLike(op, "tir.subset", inner.Operands, ir.DictAttr{}.With("bounds", out))
		rw.InsertBefore(op, n)
		rw.ReplaceOp(op, n.Results)
		return true
	}
	return false
}

// foldView removes identity views and composes a view of a view.
func foldView(op *ir.Operation, rw *ir.Rewriter) bool {
	m, _ := op.Attr("map").(ViewAttr)
	if ir.TypeEqual(op.Results[0].Type, op.Operands[0].Type) {
		identity := true
		for i, d := range m.Dims {
			if !m.Exprs[i].Equal(DimVar(d)) {
				identity = false
			}
		}
		if identity {
			rw.ReplaceOp(op, op.Operands)
			return true
		}
	}
	inner := op.Operands[0].DefiningOp()
	if inner == nil || inner.Name != "tir.view" {
		return false
	}
	// y(r) = x'(m(r)) and x'(s) = x(mi(s)): y(r) = x(mi(m(r))).
	mi, _ := inner.Attr("map").(ViewAttr)
	composed := ViewAttr{}
	for i, d := range mi.Dims {
		e := mi.Exprs[i].Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			if v.Kind != sizeexpr.DimVar {
				return sizeexpr.Expr{}, false
			}
			x, ok := m.Expr(v.Name)
			return x, ok
		})
		composed.Dims = append(composed.Dims, d)
		composed.Exprs = append(composed.Exprs, e)
	}
	n := newLike(op, "tir.view", inner.Operands, ir.DictAttr{}.With("map", composed))
	rw.InsertBefore(op, n)
	rw.ReplaceOp(op, n.Results)
	return true
}

// constantValue returns the scalar value of a 0-d tir.constant.
func constantValue(v *ir.Value) (ir.Attribute, bool) {
	d := v.DefiningOp()
	if d == nil || d.Name != "tir.constant" {
		return nil, false
	}
	a := d.Attr("value")
	switch a.(type) {
	case ir.FloatAttr, ir.IntegerAttr:
		return a, true
	}
	return nil, false
}

// foldConstants evaluates arithmetic on constants at compile time, with
// the same rounding as run time (f32 results are rounded to float32).
func foldConstants(op *ir.Operation, rw *ir.Rewriter) bool {
	var vals []ir.Attribute
	for _, o := range op.Operands {
		a, ok := constantValue(o)
		if !ok {
			return false
		}
		vals = append(vals, a)
	}
	t, _ := AsTensor(op.Results[0].Type)
	var out ir.Attribute
	switch elem := t.Elem.(type) {
	case ir.FloatType:
		fs := make([]float64, len(vals))
		for i, v := range vals {
			f, ok := v.(ir.FloatAttr)
			if !ok {
				return false
			}
			fs[i] = f.Value
		}
		r, ok := foldFloat(op.Name, fs)
		if !ok {
			return false
		}
		if elem.Bits() == 32 {
			r = float64(float32(r))
		} else if elem.Bits() == 16 {
			return false // keep half-precision rounding to run time
		}
		out = ir.FloatAttr{Value: r, Type: elem}
	case ir.IntegerType:
		is := make([]int64, len(vals))
		for i, v := range vals {
			x, ok := v.(ir.IntegerAttr)
			if !ok {
				return false
			}
			is[i] = x.Value
		}
		r, ok := foldInt(op.Name, is)
		if !ok {
			return false
		}
		out = ir.IntegerAttr{Value: wrap(r, elem.Width), Type: elem}
	default:
		return false
	}
	n := ir.NewOp("tir.constant", op.Loc, nil, []ir.Type{op.Results[0].Type}, ir.DictAttr{}.With("value", out))
	n.Results[0].NameHint = op.Results[0].NameHint
	rw.InsertBefore(op, n)
	rw.ReplaceOp(op, n.Results)
	return true
}

func foldFloat(name string, x []float64) (float64, bool) {
	switch name {
	case "tir.add":
		return x[0] + x[1], true
	case "tir.sub":
		return x[0] - x[1], true
	case "tir.mul":
		return x[0] * x[1], true
	case "tir.div":
		return x[0] / x[1], true
	case "tir.min":
		// NaN-propagating, as the interpreter and the lowering (math.Min
		// and math.Max return an infinite operand before a NaN one).
		if math.IsNaN(x[0]) || math.IsNaN(x[1]) {
			return math.NaN(), true
		}
		return math.Min(x[0], x[1]), true
	case "tir.max":
		if math.IsNaN(x[0]) || math.IsNaN(x[1]) {
			return math.NaN(), true
		}
		return math.Max(x[0], x[1]), true
	case "tir.neg":
		return -x[0], true
	case "tir.abs":
		return math.Abs(x[0]), true
	}
	return 0, false
}

func foldInt(name string, x []int64) (int64, bool) {
	switch name {
	case "tir.add":
		return x[0] + x[1], true
	case "tir.sub":
		return x[0] - x[1], true
	case "tir.mul":
		return x[0] * x[1], true
	case "tir.min":
		return min(x[0], x[1]), true
	case "tir.max":
		return max(x[0], x[1]), true
	case "tir.neg":
		return -x[0], true
	}
	return 0, false
}

// wrap truncates to a width and sign-extends back.
func wrap(v int64, width int) int64 {
	if width >= 64 {
		return v
	}
	shift := 64 - uint(width)
	return v << shift >> shift
}

// folds are the ops' fold hooks, attached to the values in init: a hook
// that builds or tests its own op would make the op's initializer refer to
// itself.
var folds = map[*Op]func(*ir.Operation, *ir.Rewriter) bool{
	Shift: foldShift, Subset: foldSubset, View: foldView,
	Add: foldConstants, Sub: foldConstants, Mul: foldConstants, Div: foldConstants,
	Min: foldConstants, Max: foldConstants, Neg: foldConstants, Abs: foldConstants,
}
