package parser

import (
	"math"
	"strconv"

	"tir/dialects/ir"
	"tir/grammar/tirparser"
)

// MLIR's builtin shaped literals `dense<...>` and `array<T: ...>` have the
// shape of a parametric type in the grammar (`dense<1>`, `array<i32: 1, 0>`);
// they are recognised here by name. `dense` takes its shaped type after a
// colon (an elementsType in an attribute, a `: T` item in a custom form).

// literalAttr builds the attribute spelled by a parametric "type" named
// dense or array; ok is false for any other type. A dense literal comes back
// untyped (ir.TypedDense gives it its type).
func (b *builder) literalAttr(ctx tirparser.ICompositeTypeContext) (a ir.Attribute, ok bool, err error) {
	if e, isEmpty := ctx.(*tirparser.EmptyParametricTypeContext); isEmpty {
		if e.Identifier().GetText() == "dense" {
			return ir.DenseElementsAttr{Values: []ir.Attribute{}}, true, nil
		}
		return nil, false, nil
	}
	pt, isParam := ctx.(*tirparser.ParametricTypeContext)
	if !isParam {
		return nil, false, nil
	}
	switch pt.Identifier().GetText() {
	case "dense":
		d, err := b.denseLiteral(pt)
		return d, true, err
	case "array":
		d, err := b.arrayLiteral(pt)
		return d, true, err
	case "locality":
		// memref.prefetch's `locality<3>`.
		text := pt.GetText()
		return ir.OpaqueAttr{Name: "locality", Body: text[len("locality<") : len(text)-1]}, true, nil
	case "fastmath":
		// arith/math's `fastmath<nnan,ninf>` in a custom form: the flags
		// as written, for the op's parser to check.
		text := pt.GetText()
		return ir.OpaqueAttr{Name: "fastmath", Body: text[len("fastmath<") : len(text)-1]}, true, nil
	}
	return nil, false, nil
}

func (b *builder) denseLiteral(pt *tirparser.ParametricTypeContext) (ir.DenseElementsAttr, error) {
	var d ir.DenseElementsAttr
	params := pt.AllTypeParam()
	if len(params) != 1 {
		return d, ir.Errorf(b.locOf(pt), "dense<...> takes one value or one [list]")
	}
	switch c := params[0].(type) {
	case *tirparser.IntParamContext:
		// As parseInt: the int64 minimum (a signed maximum reduction's
		// neutral element) and unsigned spellings read as MLIR reads them.
		v, err := parseInt(c.INT().GetText(), 10, c.GetNeg() != nil)
		if err != nil {
			return d, ir.Errorf(b.locOf(c), "integer out of range")
		}
		d.Values = []ir.Attribute{ir.IntegerAttr{Value: v}}
	case *tirparser.FloatParamContext:
		v, err := strconv.ParseFloat(c.FLOAT().GetText(), 64)
		if err != nil && !math.IsInf(v, 0) {
			return d, ir.Errorf(b.locOf(c), "bad float literal %s", c.FLOAT().GetText())
		}
		if c.GetNeg() != nil {
			v = -v
		}
		d.Values = []ir.Attribute{ir.FloatAttr{Value: v}}
	case *tirparser.ListParamContext:
		for _, e := range c.AllExpr() {
			n, err := b.expr(e)
			if err != nil {
				return d, err
			}
			v, ok := intLiteral(n)
			if !ok {
				return d, ir.Errorf(n.Loc, "dense lists hold integer literals")
			}
			d.Values = append(d.Values, ir.IntegerAttr{Value: v})
		}
	case *tirparser.BoolParamContext:
		v := int64(0)
		if c.GetText() == "true" {
			v = 1
		}
		d.Values = []ir.Attribute{ir.IntegerAttr{Value: v}}
	case *tirparser.FloatListParamContext:
		for _, f := range c.AllSignedFloat() {
			v, err := strconv.ParseFloat(f.FLOAT().GetText(), 64)
			if err != nil && !math.IsInf(v, 0) {
				return d, ir.Errorf(b.locOf(f), "bad float literal %s", f.FLOAT().GetText())
			}
			if f.GetNeg() != nil {
				v = -v
			}
			d.Values = append(d.Values, ir.FloatAttr{Value: v})
		}
	default:
		return d, ir.Errorf(b.locOf(c), "expected a number or a [list] in dense<...>")
	}
	return d, nil
}

func (b *builder) arrayLiteral(pt *tirparser.ParametricTypeContext) (ir.DenseArrayAttr, error) {
	var a ir.DenseArrayAttr
	for i, p := range pt.AllTypeParam() {
		switch c := p.(type) {
		case *tirparser.ShapeParamContext: // array<i32>
			if i != 0 || len(c.AllSHAPE_DIM()) > 0 || len(pt.AllTypeParam()) != 1 {
				return a, ir.Errorf(b.locOf(c), "expected array<T: values>")
			}
			t, err := b.typ(c.Type_())
			if err != nil {
				return a, err
			}
			a.Elem = t
		case *tirparser.KeyParamContext: // i32: 1
			if i != 0 {
				return a, ir.Errorf(b.locOf(c), "expected an integer")
			}
			t := ir.BuiltinScalar(c.Identifier().GetText())
			if !ir.IsInteger(t) {
				return a, ir.Errorf(b.locOf(c), "array<...> needs an integer element type")
			}
			a.Elem = t
			n, err := b.expr(c.Expr())
			if err != nil {
				return a, err
			}
			v, ok := intLiteral(n)
			if !ok {
				return a, ir.Errorf(n.Loc, "expected an integer")
			}
			a.Values = append(a.Values, v)
		case *tirparser.IntParamContext:
			if i == 0 {
				return a, ir.Errorf(b.locOf(c), "expected array<T: values>")
			}
			v, err := parseInt(c.INT().GetText(), 10, c.GetNeg() != nil)
			if err != nil {
				return a, ir.Errorf(b.locOf(c), "integer out of range")
			}
			a.Values = append(a.Values, v)
		default:
			return a, ir.Errorf(b.locOf(c), "expected an integer in array<...>")
		}
	}
	if a.Elem == nil {
		return a, ir.Errorf(b.locOf(pt), "expected array<T: values>")
	}
	return a, nil
}

// typeAttr builds a typeAttr alternative: a type, `unit`, or a shaped
// literal (`dense<1> : tensor<2xi32>`, `array<i32: 1, 0>`).
func (b *builder) typeAttr(c *tirparser.TypeAttrContext) (ir.Attribute, error) {
	if ct, ok := c.Type_().(*tirparser.CompositeTypeAltContext); ok {
		a, ok, err := b.literalAttr(ct.CompositeType())
		if err != nil {
			return nil, err
		}
		if d, isDense := a.(ir.DenseElementsAttr); isDense {
			if c.ElementsType() == nil {
				return nil, ir.Errorf(b.locOf(c), "dense<...> needs its type: dense<...> : vector<...> or tensor<...>")
			}
			t, err := b.typ(c.ElementsType().Type_())
			if err != nil {
				return nil, err
			}
			d, err = ir.TypedDense(d, t)
			if err != nil {
				return nil, ir.Errorf(b.locOf(c), "%v", err)
			}
			return d, nil
		}
		if ok && c.ElementsType() == nil {
			return a, nil
		}
	}
	if c.ElementsType() != nil {
		return nil, ir.Errorf(b.locOf(c.ElementsType()), "only dense<...> attributes take a ': type'")
	}
	if c.GetText() == "unit" {
		return ir.UnitAttr{}, nil
	}
	t, err := b.typ(c.Type_())
	if err != nil {
		return nil, err
	}
	return ir.TypeAttr{Type: t}, nil
}

// intLiteral reads an integer expression node: N or -N.
func intLiteral(n *ir.ExprNode) (int64, bool) {
	switch {
	case n.Kind == ir.ExprInt:
		return n.Int, true
	case n.Kind == ir.ExprNeg && n.Args[0].Kind == ir.ExprInt:
		return -n.Args[0].Int, true
	}
	return 0, false
}
