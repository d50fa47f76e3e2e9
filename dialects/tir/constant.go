package tir

import (
	"fmt"
	"math"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// parseConstant reads `4.0 : f32`, `-1 : i32`, `true : i1`, a tuple
// `(0.0, 1) : tuple<f32, i32>` or a size expression `L - 1 : i64`.
func parseConstant(p *ir.OpParser, st *ir.OpState) error {
	lit := p.Peek()
	if lit == nil {
		return p.Errorf("expected a constant value")
	}
	if isSizeConstant(p) {
		return parseSizeConstant(p, st)
	}
	var raw []*ir.Item
	var items []ir.Item
	neg := false
	if lit.Kind == ir.ItemParens {
		p.Next()
		items = lit.Items
	} else {
		if p.Punct("-") {
			neg = true
		}
		it := p.Next()
		if it == nil {
			return p.Errorf("expected a constant value")
		}
		raw = append(raw, it)
	}
	if err := p.ExpectPunct(":"); err != nil {
		return err
	}
	t, err := p.Type()
	if err != nil {
		return err
	}
	if err := p.ExpectEnd(); err != nil {
		return err
	}
	var v ir.Attribute
	if lit.Kind == ir.ItemParens {
		v, err = tupleConstant(p, lit, items, t)
	} else {
		v, err = scalarConstant(raw[0], neg, t)
	}
	if err != nil {
		return err
	}
	st.Attrs = st.Attrs.With("value", v)
	return nil
}

func tupleConstant(p *ir.OpParser, group *ir.Item, items []ir.Item, t ir.Type) (ir.Attribute, error) {
	tt, ok := t.(ir.TupleType)
	if !ok {
		return nil, ir.Errorf(group.Loc, "a parenthesised constant needs a tuple type, got %s", t)
	}
	sub := p.Sub(group)
	var out ir.ArrayAttr
	for i := 0; !sub.AtEnd(); i++ {
		if i >= len(tt.Elems) {
			return nil, ir.Errorf(sub.CurLoc(), "too many values for %s", t)
		}
		var v ir.Attribute
		var err error
		if sub.IsGroup() {
			g := sub.Next()
			v, err = tupleConstant(sub, g, g.Items, tt.Elems[i])
		} else {
			neg := sub.Punct("-")
			it := sub.Next()
			if it == nil {
				return nil, sub.Errorf("expected a value")
			}
			v, err = scalarConstant(it, neg, tt.Elems[i])
		}
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if !sub.Punct(",") {
			break
		}
	}
	if err := sub.ExpectEnd(); err != nil {
		return nil, err
	}
	if len(out) != len(tt.Elems) {
		return nil, ir.Errorf(group.Loc, "expected %d values for %s, got %d", len(tt.Elems), t, len(out))
	}
	return out, nil
}

func scalarConstant(it *ir.Item, neg bool, t ir.Type) (ir.Attribute, error) {
	sign := 1.0
	if neg {
		sign = -1
	}
	switch tt := t.(type) {
	case ir.FloatType:
		switch it.Kind {
		case ir.ItemFloat:
			return ir.FloatAttr{Value: sign * it.Float, Type: t}, nil
		case ir.ItemInt:
			if strings.HasPrefix(it.Text, "0x") {
				return ir.FloatAttr{Value: floatFromBits(uint64(it.Int), tt), Type: t}, nil
			}
			return ir.FloatAttr{Value: sign * float64(it.Int), Type: t}, nil
		}
	case ir.IntegerType:
		switch it.Kind {
		case ir.ItemInt:
			// The parser keeps the literal's 64 bits (Int is its uint64
			// value, wrapped): check the magnitude before negating it.
			u := uint64(it.Int)
			v := int64(u)
			if neg {
				v = -v
			}
			if tt.Width == 1 && (neg || u > 1) {
				return nil, ir.Errorf(it.Loc, "i1 constant must be 0, 1, true or false")
			}
			if negMax, posMax := intRange(tt.Width); neg && u > negMax || !neg && u > posMax {
				sign := ""
				if neg {
					sign = "-"
				}
				return nil, ir.Errorf(it.Loc, "integer literal %s%s does not fit in %s (-%d to %d)", sign, it.Text, t, negMax, posMax)
			}
			if w := tt.Width; w > 1 && w < 64 {
				// The value is the signed reading (255 : i8 is -1), as
				// for i64, whose literals above 2^63 - 1 wrap in int64.
				v = v << (64 - w) >> (64 - w)
			}
			return ir.IntegerAttr{Value: v, Type: t}, nil
		case ir.ItemBool:
			if tt.Width != 1 {
				return nil, ir.Errorf(it.Loc, "boolean constant needs type i1, got %s", t)
			}
			return ir.IntegerAttr{Value: it.Int, Type: t}, nil
		}
	default:
		return nil, ir.Errorf(it.Loc, "'%s' is not a scalar element type", t)
	}
	return nil, ir.Errorf(it.Loc, "expected a literal of type %s", t)
}

// intRange is the range of a literal of an iN constant, MLIR's rule for
// signless integers: the signed or the unsigned reading of N bits, from
// -2^(N-1) to 2^N - 1, given as the largest magnitudes of a negative and
// of a positive literal. A literal of i8 may be 255 (the bits of -1), not
// 300: a literal that does not fit is an error, never a silent wrap.
func intRange(w int) (negMax, posMax uint64) {
	if w >= 64 {
		return 1 << 63, math.MaxUint64
	}
	return uint64(1) << (w - 1), uint64(1)<<w - 1
}

// constantText prints a constant's value without its type: `4.0`, `(0.0, 1)`.
func constantText(a ir.Attribute) string {
	switch a := a.(type) {
	case ir.FloatAttr:
		return ir.FormatFloat(a.Value, a.Type)
	case ir.IntegerAttr:
		if it, ok := a.Type.(ir.IntegerType); ok && it.Width == 1 {
			if a.Value != 0 {
				return "true"
			}
			return "false"
		}
		return fmt.Sprint(a.Value)
	case SizeAttr:
		return a.Expr.String()
	case ir.ArrayAttr:
		parts := make([]string, len(a))
		for i, e := range a {
			parts[i] = constantText(e)
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "<<bad constant>>"
}

func constantElemType(a ir.Attribute) (ir.Type, error) {
	switch a := a.(type) {
	case ir.FloatAttr:
		return a.Type, nil
	case ir.IntegerAttr:
		// The generic form's `value = 300 : i8` is checked here, as the
		// custom form's literal is by scalarConstant.
		if it, ok := a.Type.(ir.IntegerType); ok && it.Width < 64 {
			negMax, posMax := intRange(it.Width)
			if a.Value < -int64(negMax) || a.Value > int64(posMax) {
				return nil, fmt.Errorf("integer value %d does not fit in %s (-%d to %d)", a.Value, it, negMax, posMax)
			}
		}
		return a.Type, nil
	case ir.BoolAttr:
		return ir.I1, nil
	case SizeAttr:
		return ir.I64, nil
	case ir.ArrayAttr:
		var es []ir.Type
		for _, e := range a {
			t, err := constantElemType(e)
			if err != nil {
				return nil, err
			}
			es = append(es, t)
		}
		return ir.TupleType{Elems: es}, nil
	}
	return nil, fmt.Errorf("'tir.constant' needs a value attribute (number, boolean or array for tuples)")
}

// SizeAttr is the value of a tir.constant that is a size expression
// (`tir.constant L - 1 : i64`): an i64 computed from the function's size
// symbols when it runs, comparable with tir.pos. Printed #tir.size<L - 1>
// in the generic form. A size expression without symbols is an
// IntegerAttr (the parser folds it).
type SizeAttr struct{ Expr sizeexpr.Expr }

func (a SizeAttr) String() string { return "#tir.size<" + a.Expr.String() + ">" }

// SizeValue returns the size expression a tir.constant holds, if any.
func SizeValue(op *ir.Operation) (sizeexpr.Expr, bool) {
	a, ok := op.Attr("value").(SizeAttr)
	return a.Expr, ok
}

// isSizeConstant reports whether the value ahead is a size expression
// rather than a literal: anything but a number, a boolean or a
// parenthesised tuple directly followed by ':'.
func isSizeConstant(p *ir.OpParser) bool {
	k := 0
	if it := p.PeekAt(0); it != nil && it.Kind == ir.ItemPunct && it.Text == "-" {
		k = 1
	}
	it := p.PeekAt(k)
	if it == nil {
		return false
	}
	switch it.Kind {
	case ir.ItemInt, ir.ItemFloat, ir.ItemBool, ir.ItemParens:
		next := p.PeekAt(k + 1)
		return next != nil && !(next.Kind == ir.ItemPunct && next.Text == ":")
	case ir.ItemWord:
		return true
	}
	return false
}

// parseSizeConstant reads `L - 1 : i64`, `2*N + 1 : i64`.
func parseSizeConstant(p *ir.OpParser, st *ir.OpState) error {
	n, err := ir.ItemExpr(p)
	if err != nil {
		return err
	}
	e, err := n.ToIndexExpr(symbolResolver(p.Host))
	if err != nil {
		return err
	}
	if err := p.ExpectPunct(":"); err != nil {
		return err
	}
	tloc := p.CurLoc()
	t, err := p.Type()
	if err != nil {
		return err
	}
	if err := p.ExpectEnd(); err != nil {
		return err
	}
	if !ir.TypeEqual(t, ir.I64) {
		return ir.Errorf(tloc, "a size expression constant has type i64 (as tir.pos), got %s", t)
	}
	st.Attrs = st.Attrs.With("value", sizeConstantAttr(e))
	return nil
}

// sizeConstantAttr is the value of a constant holding e: an integer when
// e has no symbols.
func sizeConstantAttr(e sizeexpr.Expr) ir.Attribute {
	if c, ok := e.Const(); ok {
		return ir.IntegerAttr{Value: c, Type: ir.I64}
	}
	return SizeAttr{Expr: e}
}

// verifyConstant checks a size expression constant built by a pass or
// read from the generic form: within the index range, and over size
// symbols of its function (those its signature and body mention
// elsewhere, unknown extents included); a symbol mentioned only by a
// constant would silently become a parameter of the compiled function.
func verifyConstant(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	e, ok := SizeValue(op)
	if !ok {
		return nil
	}
	if err := e.CheckLimit(); err != nil {
		return ir.Errorf(op.Loc, "the size expression %s: %v", e, err)
	}
	fn := enclosingFunc(op)
	if fn == nil {
		return nil
	}
	known := map[string]bool{}
	for _, v := range Symbols(fn) {
		known[v.Name] = true
	}
	for _, v := range e.Vars() {
		if v.Kind != sizeexpr.SymbolVar {
			return ir.Errorf(op.Loc, "the size expression %s of a constant uses %s, which is not a size symbol", e, v.Name)
		}
		if !known[v.Name] && !IsUnknownExtent(v) {
			names := []string{}
			for _, s := range Symbols(fn) {
				names = append(names, s.Name)
			}
			have := "has no size symbols"
			if len(names) > 0 {
				have = "has " + strings.Join(names, ", ")
			}
			return ir.Errorf(op.Loc, "unknown size symbol %s in the constant %s: @%s %s", v.Name, e, ir.SymbolName(fn), have)
		}
	}
	return nil
}

func init() {
	ir.RegisterAttr("tir.size", func(p *ir.OpParser) (ir.Attribute, error) {
		n, err := ir.ItemExpr(p)
		if err != nil {
			return nil, err
		}
		e, err := n.ToIndexExpr(symbolResolver(p.Host))
		if err != nil {
			return nil, err
		}
		return SizeAttr{Expr: e}, p.ExpectEnd()
	})
}
