package tir

import (
	"strconv"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// The tir ops' custom syntax is declarative: each op's Format is one
// ir.Format string, from which its parser and printer follow, e.g.
//
//	tir.shift:  "$x offsets attr-dict-with-keyword type(res)?"
//	            %y = tir.shift %x [I + 1, J - 2] : T
//
// The pieces of syntax that are the dialect's own are the directives
// below, written once here:
//
//	predicate        lt | le | gt | ge | eq | ne: attribute predicate
//	offsets          [I + 1, J - N]: attribute offsets (OffsetsAttr)
//	index            [N] right after the operand: attribute index (i64)
//	map              [d0 = i + k, d1 = 2*j]: attribute map (ViewAttr), read
//	                 against the result type's dimensions
//	dim-table($t)    [DIM = %t]: attribute dim and operand t
//	domain(a)        [I[1:4], K[0:N-1]]: attribute a (DomainAttr)
//	dim              a dimension name: attribute dim
//	pieces           [lo:hi] %v, ... else %w after `along dim`: attributes
//	                 interval and pieces, the values as operands
//	data-extent(op)  (last) the result's extent computed from data, for
//	                 tir.iota and tir.compress
//	callee           @g: attribute callee; (last) binds the callee's size
//	                 symbols and infers the result types
//	value-types($x)  ` : T, ...`: the types of operands x, optional and not
//	                 stored (the verifier checks them); printed from the
//	                 enclosing tir.func's results for a return
//	constant         4.0 : f32 | (0.0, 1) : tuple<f32, i32> | L - 1 : i64:
//	                 attribute value and the element type
//
// tir.func, tir.reduce and tir.scan have hand-written Parse and Print:
// their regions declare block arguments the syntax names (function
// parameters, `ins(...)` bound to the body's ^bb0), which no format
// directive reads (TestSyntaxIsDeclarative lists them).
var directives = ir.Directives{
	"predicate": {
		Attrs: attrs(AttrPredicate),
		Parse: func(c *ir.FormatParser, _ string) error {
			pred, loc, err := c.Keyword("a comparison predicate (lt, le, gt, ge, eq, ne)")
			if err != nil {
				return err
			}
			if !isCmpPredicate(pred) {
				return ir.Errorf(loc, "unknown comparison predicate '%s' (expected lt, le, gt, ge, eq, ne)", pred)
			}
			c.St.Attrs = c.St.Attrs.With(AttrPredicate, ir.StringAttr(pred))
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			pred, _ := c.Op.Attr(AttrPredicate).(ir.StringAttr)
			c.Space()
			c.Write(string(pred))
		},
	},
	"offsets": {
		Attrs: attrs(AttrOffsets),
		Parse: func(c *ir.FormatParser, _ string) error {
			entries, _, err := c.Brackets()
			if err != nil {
				return err
			}
			offs, err := parseDimOffsets(c.Host, entries)
			if err != nil {
				return err
			}
			c.St.Attrs = c.St.Attrs.With(AttrOffsets, offs)
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			if a, ok := c.Op.Attr(AttrOffsets).(OffsetsAttr); ok {
				c.Space()
				c.Write(a.Text())
			}
		},
	},
	"index": {
		Attrs: attrs(AttrIndex),
		List:  true,
		Parse: func(c *ir.FormatParser, _ string) error {
			entries, loc, err := c.Brackets()
			if err != nil {
				return err
			}
			if len(entries) != 1 || entries[0].Form != ir.EntryExpr || entries[0].E.Kind != ir.ExprInt {
				return ir.Errorf(loc, "expected a constant index [N]")
			}
			c.St.Attrs = c.St.Attrs.With(AttrIndex, ir.IntegerAttr{Value: entries[0].E.Int, Type: ir.I64})
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			c.Write("[" + strconv.Itoa(TupleIndex(c.Op)) + "]")
		},
	},
	"map": {
		Attrs: attrs(AttrMap),
		Parse: func(c *ir.FormatParser, _ string) error {
			entries, _, err := c.Brackets()
			if err != nil {
				return err
			}
			// The map names result dimensions: it is read once the
			// result type is known.
			c.Defer(func() error { return parseViewMap(c, entries) })
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			if m, ok := c.Op.Attr(AttrMap).(ViewAttr); ok {
				c.Space()
				c.Write(m.Text())
			}
		},
	},
	"dim-table": {
		Operands: func(arg string) (string, bool) { return arg[1:], false },
		Attrs:    attrs(AttrDim),
		Parse: func(c *ir.FormatParser, arg string) error {
			entries, loc, err := c.Brackets()
			if err != nil {
				return err
			}
			if len(entries) != 1 || entries[0].Form != ir.EntryAssign || entries[0].E.Kind != ir.ExprValue {
				return ir.Errorf(loc, "expected [DIM = %%table]")
			}
			table, err := c.Host.ResolveValue(entries[0].E.Name, entries[0].E.Loc)
			if err != nil {
				return err
			}
			c.SetOperands(arg[1:], []*ir.Value{table})
			c.St.Attrs = c.St.Attrs.With(AttrDim, ir.StringAttr(entries[0].Name))
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			c.Write("[" + DimAttr(c.Op) + " = ")
			c.Values(c.Operands(arg[1:]))
			c.Write("]")
		},
	},
	"domain": {
		Attrs: func(arg string) []string { return []string{arg} },
		Parse: func(c *ir.FormatParser, arg string) error {
			entries, _, err := c.Brackets()
			if err != nil {
				return err
			}
			d, err := parseDomain(c.Host, entries)
			if err != nil {
				return err
			}
			c.St.Attrs = c.St.Attrs.With(arg, d)
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			if d, ok := c.Op.Attr(arg).(DomainAttr); ok {
				c.Space()
				c.Write(d.Text())
			}
		},
	},
	"dim": {
		Attrs: attrs(AttrDim),
		Parse: func(c *ir.FormatParser, _ string) error {
			dim, _, err := c.Keyword("a dimension name")
			if err != nil {
				return err
			}
			c.St.Attrs = c.St.Attrs.With(AttrDim, ir.StringAttr(dim))
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			c.Write(DimAttr(c.Op))
		},
	},
	"pieces": {
		Operands: func(string) (string, bool) { return "pieces", true },
		Attrs:    attrs(AttrInterval, AttrPieces),
		Parse:    parsePieces,
		Print:    printPieces,
	},
	"data-extent": {
		Parse: func(c *ir.FormatParser, arg string) error {
			c.Defer(func() error { return inferDataExtentResult(c, "tir."+arg) })
			return nil
		},
		Print: func(*ir.FormatPrinter, string) {},
	},
	"callee": {
		Attrs: attrs(AttrCallee),
		List:  true, // the argument list hugs it: @g(%a)
		Parse: func(c *ir.FormatParser, _ string) error {
			name, err := c.Symbol()
			if err != nil {
				return err
			}
			c.St.Attrs = c.St.Attrs.With(AttrCallee, ir.SymbolRefAttr(name))
			c.Defer(func() error { return inferCallResults(c, name) })
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			c.Write("@" + ir.SymbolRefAttr(Callee(c.Op)).String()[1:])
		},
	},
	"value-types": {
		Parse: func(c *ir.FormatParser, _ string) error {
			_, _, err := c.OptionalColonTypes()
			return err
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			vs := c.Operands(arg[1:])
			if len(vs) == 0 {
				return
			}
			c.Write(" : ")
			if fn := c.Op.ParentOp(); fn != nil && fn.Name == "tir.func" && c.Op.Name == "tir.return" {
				if ft, ok := FuncType(fn); ok && len(ft.Results) == len(vs) {
					c.Types(ft.Results)
					return
				}
			}
			var ts []ir.Type
			for _, v := range vs {
				ts = append(ts, v.Type)
			}
			c.Types(ts)
		},
	},
	"constant": {
		Attrs: attrs(AttrValue),
		Parse: func(c *ir.FormatParser, _ string) error { return parseConstant(c.OpParser, c.St) },
		Print: func(c *ir.FormatPrinter, _ string) {
			t, _ := AsTensor(c.Op.Results[0].Type)
			c.Space()
			c.Write(constantText(c.Op.Attr(AttrValue)) + " : ")
			c.Type(t.Elem)
		},
	},
}

// syntax compiles an op's format with the dialect's directives.
func syntax(spec string) *ir.Format { return ir.NewFormat(spec, directives, false) }

func attrs(names ...string) func(string) []string {
	return func(string) []string { return names }
}

// parseViewMap reads a view's map against its result type. A dimension of
// the operand the brackets leave out maps to the result dimension of the
// same name: `[E2V = 1]` on Edge x E2V keeps Edge. The map is completed
// here, so it prints in full.
func parseViewMap(c *ir.FormatParser, entries []ir.BracketEntry) error {
	st := c.St
	if len(st.ResultTypes) == 0 {
		return c.Errorf("'tir.view' needs its result type (: !tir.tensor<...>)")
	}
	rt, ok := AsTensor(st.ResultTypes[0])
	if !ok {
		return c.Errorf("'tir.view' result must be a !tir.tensor")
	}
	m, err := parseView(c.Host, entries, func(n string) bool { return rt.Find(n) >= 0 })
	if err != nil {
		return err
	}
	if xt, ok := AsTensor(st.Operands[0].Type); ok {
		for _, d := range xt.Dims {
			if _, named := m.Expr(d.Name); !named && rt.Find(d.Name) >= 0 {
				m.Dims = append(m.Dims, d.Name)
				m.Exprs = append(m.Exprs, DimVar(d.Name))
			}
		}
	}
	st.Attrs = st.Attrs.With(AttrMap, m)
	return nil
}

// parsePieces reads `K[0:L] [0:1] %top, [L - 1:L] %bottom, else %inner`
// after `along K` (the dim directive).
func parsePieces(c *ir.FormatParser, _ string) error {
	p, st := c.OpParser, c.St
	dimAttr, _ := st.Attrs.Get(AttrDim).(ir.StringAttr)
	dim := string(dimAttr)
	interval := func(what string) (sizeexpr.Interval, error) {
		entries, loc, err := p.Brackets()
		if err != nil {
			return sizeexpr.Interval{}, err
		}
		if len(entries) != 1 || entries[0].Form != ir.EntryInterval || entries[0].Lo == nil {
			return sizeexpr.Interval{}, ir.Errorf(loc, "expected %s [lo:hi]", what)
		}
		d, err := parseDomain(p.Host, []ir.BracketEntry{{Form: ir.EntryNamedInterval, Loc: entries[0].Loc, Name: dim, Lo: entries[0].Lo, Hi: entries[0].Hi}})
		if err != nil {
			return sizeexpr.Interval{}, err
		}
		return d[0].Interval, nil
	}
	whole, err := interval("the interval of " + dim)
	if err != nil {
		return err
	}
	var pieces IntervalsAttr
	var vs []*ir.Value
	for !p.IsWord("else") {
		iv, err := interval("a piece")
		if err != nil {
			return err
		}
		v, err := p.Operand()
		if err != nil {
			return err
		}
		pieces = append(pieces, iv)
		vs = append(vs, v)
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
	}
	p.Word("else")
	if len(pieces) == 0 {
		return p.Errorf("'tir.piecewise' needs at least one piece [lo:hi] %%value before 'else'")
	}
	v, err := p.Operand()
	if err != nil {
		return err
	}
	c.SetOperands("pieces", append(vs, v))
	st.Attrs = st.Attrs.With(AttrInterval, DomainAttr{{Name: dim, Interval: whole}}).With(AttrPieces, pieces)
	return nil
}

// printPieces writes `K[0:L] [0:1] %top, ... else %inner` (the interval
// hugs the dimension name).
func printPieces(c *ir.FormatPrinter, _ string) {
	_, whole, pieces := PiecewiseParts(c.Op)
	c.Write(whole.String())
	vs := c.Operands("pieces")
	for i, iv := range pieces {
		c.Write(" " + iv.String() + " ")
		c.Value(vs[i])
		c.Write(",")
	}
	c.Write(" else ")
	c.Value(vs[len(vs)-1])
}
