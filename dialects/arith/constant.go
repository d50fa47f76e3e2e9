package arith

import (
	"math"
	"strings"

	"tir/dialects/ir"
)

// arith.constant: `%c = arith.constant 0 : index`, `arith.constant 1.5 :
// f32`, `arith.constant true`, `arith.constant dense<0.0> : vector<8xf32>`.
// Generic: {value = <typed attribute>}.

// Constant is arith.constant.
var Constant = &ir.OpDef{
	Name:        "arith.constant",
	Summary:     "an integer, index, float or splat/dense vector constant",
	Syntax:      "%c = arith.constant 1.5 : f32 | 0 : index | true | dense<0.0> : vector<8xf32>",
	Traits:      ir.TraitPure | ir.TraitConstantLike,
	NumOperands: 0, NumResults: 1, NumRegions: 0,
	Parse: parseConstant,
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		// Other attributes come first, as MLIR prints them.
		if rest := op.Attrs.Without("value"); len(rest) > 0 {
			p.Write(" ")
			p.Attr(rest)
		}
		switch v := op.Attr("value").(type) {
		case ir.IntegerAttr: // `0 : index`, or `true` for i1
			p.Write(" " + v.String())
		case ir.DenseElementsAttr:
			p.Write(" " + v.Literal() + " : ")
			p.Type(v.Type)
		case ir.FloatAttr:
			p.Write(" " + ir.FormatFloat(v.Value, v.Type) + " : ")
			p.Type(v.Type)
		}
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		switch op.Attr("value").(type) {
		case ir.IntegerAttr, ir.FloatAttr, ir.DenseElementsAttr:
			return false
		}
		return true
	},
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		// The generic form spells an i1 value `true`, which reads as a bool.
		if b, ok := op.Attr("value").(ir.BoolAttr); ok {
			v := int64(0)
			if b {
				v = 1
			}
			op.SetAttr("value", ir.IntegerAttr{Value: v, Type: ir.I1})
		}
		return nil, nil
	},
	Verify: verifyConstant,
}

func parseConstant(p *ir.OpParser, st *ir.OpState) error {
	extra, err := OptionalBareDict(p)
	if err != nil {
		return err
	}
	st.Attrs = append(st.Attrs, extra...)
	neg := p.Punct("-")
	lit := p.Next()
	if lit == nil {
		return p.Errorf("expected a constant value")
	}
	if lit.Kind == ir.ItemBool && !neg {
		if p.Punct(":") {
			t, err := p.Type()
			if err != nil {
				return err
			}
			if !ir.TypeEqual(t, ir.I1) {
				return ir.Errorf(lit.Loc, "'true'/'false' constants have type i1, not %s", t)
			}
		}
		st.Attrs = st.Attrs.With("value", ir.IntegerAttr{Value: lit.Int, Type: ir.I1})
		st.ResultTypes = []ir.Type{ir.I1}
		return p.ExpectEnd()
	}
	t, err := ColonType(p)
	if err != nil {
		return err
	}
	v, err := constantValue(lit, neg, t)
	if err != nil {
		return err
	}
	st.Attrs = st.Attrs.With("value", v)
	st.ResultTypes = []ir.Type{t}
	return p.ExpectEnd()
}

func constantValue(lit *ir.Item, neg bool, t ir.Type) (ir.Attribute, error) {
	if d, ok := lit.Attr.(ir.DenseElementsAttr); ok && lit.Kind == ir.ItemAttr && !neg {
		typed, err := ir.TypedDense(d, t)
		if err != nil {
			return nil, ir.Errorf(lit.Loc, "%v", err)
		}
		return typed, nil
	}
	sign := 1.0
	if neg {
		sign = -1
	}
	switch tt := t.(type) {
	case ir.FloatType:
		switch {
		case lit.Kind == ir.ItemFloat:
			return ir.FloatAttr{Value: sign * lit.Float, Type: t}, nil
		case lit.Kind == ir.ItemInt && strings.HasPrefix(lit.Text, "0x") && !neg:
			bits := uint64(lit.Int)
			if tt.Bits() <= 32 {
				return ir.FloatAttr{Value: float64(math.Float32frombits(uint32(bits))), Type: t}, nil
			}
			return ir.FloatAttr{Value: math.Float64frombits(bits), Type: t}, nil
		case lit.Kind == ir.ItemInt:
			return ir.FloatAttr{Value: sign * float64(lit.Int), Type: t}, nil
		}
	case ir.IntegerType, ir.IndexType:
		if lit.Kind == ir.ItemInt {
			v := lit.Int
			if neg {
				v = -v
			}
			return ir.IntegerAttr{Value: v, Type: t}, nil
		}
	default:
		return nil, ir.Errorf(lit.Loc, "'arith.constant' of type %s needs a dense<...> value", t)
	}
	return nil, ir.Errorf(lit.Loc, "expected a literal of type %s", t)
}

func verifyConstant(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	rt := op.Results[0].Type
	var vt ir.Type
	switch v := op.Attr("value").(type) {
	case ir.IntegerAttr:
		vt = v.Type
		if it, ok := v.Type.(ir.IntegerType); ok && it.Width < 64 {
			lo, hi := -(int64(1) << (it.Width - 1)), (int64(1)<<it.Width)-1
			if v.Value < lo || v.Value > hi {
				return Errf(op, "value %d does not fit in %s", v.Value, it)
			}
		}
	case ir.FloatAttr:
		vt = v.Type
	case ir.DenseElementsAttr:
		vt = v.Type
		_, isVec := vt.(ir.VectorType)
		_, isTensor := vt.(ir.RankedTensorType)
		if !isVec && !isTensor {
			return Errf(op, "dense constants must have a vector or tensor type, got %s", vt)
		}
	default:
		return Errf(op, "needs a value attribute (integer, float or dense)")
	}
	if !ir.TypeEqual(vt, rt) {
		return Errf(op, "value type %s does not match the result type %s", vt, rt)
	}
	if !IsIntLike(rt) && !IsFloatLike(rt) {
		return Errf(op, "unsupported constant type %s", rt)
	}
	return nil
}
