package arith

import (
	"strings"

	"tir/dialects/ir"
)

// Syntax and type helpers shared by the upstream dialect packages.

// Operand reads one used value and returns it with its location.
func Operand(p *ir.OpParser) (*ir.Value, ir.Location, error) {
	loc := p.CurLoc()
	v, err := p.Operand()
	return v, loc, err
}

// Operands reads `%a, %b, ...` with their locations: exactly n values when
// n >= 0, zero or more when n < 0.
func Operands(p *ir.OpParser, n int) ([]*ir.Value, []ir.Location, error) {
	var vs []*ir.Value
	var locs []ir.Location
	for i := 0; n < 0 || i < n; i++ {
		if i > 0 {
			if n < 0 && !(p.IsPunct(",") && p.PeekAt(1) != nil && p.PeekAt(1).Kind == ir.ItemValue) {
				break
			}
			if err := p.ExpectPunct(","); err != nil {
				return nil, nil, err
			}
		}
		if n < 0 && i == 0 && !p.IsValue() {
			break
		}
		v, loc, err := Operand(p)
		if err != nil {
			return nil, nil, err
		}
		vs = append(vs, v)
		locs = append(locs, loc)
	}
	return vs, locs, nil
}

// CheckType fails at loc when v does not have type t, the way MLIR reports a
// custom form whose trailing type disagrees with an operand.
func CheckType(v *ir.Value, loc ir.Location, t ir.Type) error {
	return ir.CheckOperandType(v, loc, t)
}

// ColonType reads `: T`.
func ColonType(p *ir.OpParser) (ir.Type, error) {
	if err := p.ExpectPunct(":"); err != nil {
		return nil, err
	}
	return p.Type()
}

// TypesOf returns the types of values.
func TypesOf(vs []*ir.Value) []ir.Type {
	ts := make([]ir.Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	return ts
}

// ResultTypes returns the types of an op's results.
func ResultTypes(op *ir.Operation) []ir.Type { return TypesOf(op.Results) }

// Elem returns the element type of a vector (or tensor) type, or t itself.
func Elem(t ir.Type) ir.Type {
	if _, e, ok := ir.ShapeAndElem(t); ok {
		return e
	}
	return t
}

// IsFloatLike reports a float scalar or a vector of floats.
func IsFloatLike(t ir.Type) bool { return ir.IsFloat(Elem(t)) }

// IsIntLike reports an integer or index scalar, or a vector of them.
func IsIntLike(t ir.Type) bool {
	e := Elem(t)
	return ir.IsInteger(e) || ir.TypeEqual(e, ir.Index)
}

// IsSignlessInt reports an integer (not index) scalar or vector of them.
func IsSignlessInt(t ir.Type) bool { return ir.IsInteger(Elem(t)) }

// WithElem returns t's shape with element type e (e itself for a scalar).
func WithElem(t ir.Type, e ir.Type) ir.Type {
	switch t := t.(type) {
	case ir.VectorType:
		return ir.VectorType{Shape: t.Shape, Elem: e, Scalable: t.Scalable}
	case ir.RankedTensorType:
		return ir.RankedTensorType{Shape: t.Shape, Elem: e}
	}
	return e
}

// SameShape reports whether a and b are both scalars or both vectors (or
// tensors) of one shape.
func SameShape(a, b ir.Type) bool {
	sa, _, va := ir.ShapeAndElem(a)
	sb, _, vb := ir.ShapeAndElem(b)
	if va != vb {
		return false
	}
	if len(sa) != len(sb) {
		return false
	}
	for i := range sa {
		if sa[i] != sb[i] {
			return false
		}
	}
	_, ta := a.(ir.VectorType)
	_, tb := b.(ir.VectorType)
	return ta == tb
}

// OnlyAttrs reports whether op has no attributes besides names: the custom
// forms of upstream ops have no place for others (MLIR puts them in an
// attribute dictionary our grammar reads only with the `attributes`
// keyword), so such ops print in the generic form.
func OnlyAttrs(op *ir.Operation, names ...string) bool { return ir.OnlyAttrs(op, names...) }

// DropEmptyBlock turns a region made of one empty block without arguments
// into an empty region. The generic form writes an empty region as `{ }`,
// which the parser reads as one empty block; MLIR means no block at all
// (a function declaration, an absent else).
func DropEmptyBlock(r *ir.Region) {
	if len(r.Blocks) == 1 && len(r.Blocks[0].Args) == 0 && len(r.Blocks[0].Ops) == 0 {
		r.Blocks = nil
	}
}

// EnsureTerminator appends the op built by mk to every block of r that does
// not end with a terminator (the implicit yield of custom forms).
func EnsureTerminator(r *ir.Region, mk func() *ir.Operation) {
	for _, b := range r.Blocks {
		if b.Terminator() == nil {
			b.Append(mk())
		}
	}
}

// IsEmptyTerminator reports whether the block ends with a terminator that
// has no operands and no attributes: one that custom forms may leave out.
func IsEmptyTerminator(b *ir.Block) bool {
	t := b.Terminator()
	return t != nil && len(t.Operands) == 0 && len(t.Attrs) == 0
}

// Errf is ir.Errorf at op's location with the op name prefixed, as MLIR
// words verifier messages: "'arith.addf' op ...".
func Errf(op *ir.Operation, format string, args ...any) error {
	return ir.Errorf(op.Loc, "'"+op.Name+"' op "+format, args...)
}

// ParseValuesColonTypes reads `[%a, %b : T1, T2]` (nothing for no values)
// and checks each value's type: the form of func.return and the yields.
func ParseValuesColonTypes(p *ir.OpParser) ([]*ir.Value, error) {
	if p.AtEnd() {
		return nil, nil
	}
	vs, locs, err := Operands(p, -1)
	if err != nil {
		return nil, err
	}
	if err := p.ExpectPunct(":"); err != nil {
		return nil, err
	}
	ts, err := p.TypeList()
	if err != nil {
		return nil, err
	}
	if len(ts) != len(vs) {
		return nil, p.Errorf("%d values but %d types", len(vs), len(ts))
	}
	for i, v := range vs {
		if err := CheckType(v, locs[i], ts[i]); err != nil {
			return nil, err
		}
	}
	return vs, p.ExpectEnd()
}

// PrintValuesColonTypes writes ` %a, %b : T1, T2` (nothing for no values).
func PrintValuesColonTypes(p ir.OpPrinter, vs []*ir.Value) {
	if len(vs) == 0 {
		return
	}
	p.Write(" ")
	p.Values(vs)
	p.Write(" : ")
	p.Types(TypesOf(vs))
}

// Directives are the pieces of upstream syntax that the upstream
// dialects' format strings (ir.Format) share:
//
//	values-types($x)  ` %a, %b : T1, T2`, nothing for no values: operands
//	                  x, each checked against its type where it is used
//	                  (the form of func.return and the yields)
//	index-group($x)   `(%a, %b)`: zero or more operands x, each index,
//	                  checked where it is used; first in a format, it
//	                  hugs the op name (`memref.alloc(%n)`)
//	fastmath          an optional `fastmath<fast>`: attribute fastmath
//	                  (#arith.fastmath<none> when left out)
//	predicate         a comparison's predicate keyword, `olt`: attribute
//	                  predicate, its enum value as an i64
//	i1-of($x,$y)      the one type T of operands x and y, each checked
//	                  where it is used; the result is T's shape of i1
//	pair-of($x,$y)    the same, for two results of type T
//	carry-of($x,$y)   `T, C`: the same, the second result T's shape of i1,
//	                  C checked against it
//	select-of($c,$a,$b)  `T` or `C, T`: operands a and b and the result
//	                  have type T, condition c has C (i1 when left out)
var Directives = ir.Directives{
	"values-types": {
		Operands: func(arg string) (string, bool) { return strings.TrimPrefix(arg, "$"), true },
		Parse: func(c *ir.FormatParser, arg string) error {
			vs, err := ParseValuesColonTypes(c.OpParser)
			c.SetOperands(strings.TrimPrefix(arg, "$"), vs)
			return err
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			PrintValuesColonTypes(c, c.Operands(strings.TrimPrefix(arg, "$")))
		},
	},
	"index-group": {
		Operands: func(arg string) (string, bool) { return strings.TrimPrefix(arg, "$"), true },
		List:     true,
		HugsName: true,
		Parse: func(c *ir.FormatParser, arg string) error {
			g, err := c.Group()
			if err != nil {
				return err
			}
			vs, locs, err := Operands(g, -1)
			if err != nil {
				return err
			}
			if err := g.ExpectEnd(); err != nil {
				return err
			}
			for i, v := range vs {
				if err := CheckType(v, locs[i], ir.Index); err != nil {
					return err
				}
			}
			c.SetOperands(strings.TrimPrefix(arg, "$"), vs)
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			c.Write("(")
			c.Values(c.Operands(strings.TrimPrefix(arg, "$")))
			c.Write(")")
		},
	},
	"predicate": {
		Attrs: func(string) []string { return []string{"predicate"} },
		Parse: func(c *ir.FormatParser, _ string) error {
			preds := predicates[c.St.Name]
			w, loc, err := c.Keyword("a comparison predicate")
			if err != nil {
				return err
			}
			k := indexOf(preds, w)
			if k < 0 {
				return ir.Errorf(loc, "unknown '%s' predicate '%s' (expected one of %s)", c.St.Name, w, strings.Join(preds, ", "))
			}
			c.St.Attrs = c.St.Attrs.With("predicate", ir.IntegerAttr{Value: int64(k), Type: ir.I64})
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			c.Write(predicates[c.Op.Name][c.Op.Attr("predicate").(ir.IntegerAttr).Value])
		},
		Printable: func(c *ir.FormatPrinter, _ string) bool {
			a, ok := c.Op.Attr("predicate").(ir.IntegerAttr)
			return ok && a.Value >= 0 && a.Value < int64(len(predicates[c.Op.Name]))
		},
	},
	"i1-of": {
		Parse: func(c *ir.FormatParser, arg string) error {
			t, err := operandsType(c, arg)
			if err != nil {
				return err
			}
			c.St.ResultTypes = []ir.Type{WithElem(t, ir.I1)}
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			first, _, _ := strings.Cut(arg, ",")
			c.Type(c.Operands(strings.TrimPrefix(first, "$"))[0].Type)
		},
	},
	"pair-of":  {Parse: parseExtended(false), Print: printExtended(false)},
	"carry-of": {Parse: parseExtended(true), Print: printExtended(true)},
	"select-of": {
		Parse: func(c *ir.FormatParser, arg string) error {
			g := strings.Split(arg, ",")
			ts, err := c.TypeList()
			if err != nil {
				return err
			}
			ct, t := ir.Type(ir.I1), ts[len(ts)-1]
			if len(ts) == 2 {
				ct = ts[0]
			} else if len(ts) != 1 {
				return c.Errorf("expected ': T' or ': CONDTYPE, T'")
			}
			for i, v := range []*ir.Value{c.Operands(g[0][1:])[0], c.Operands(g[1][1:])[0], c.Operands(g[2][1:])[0]} {
				if i > 0 {
					ct = t
				}
				if err := c.CheckUse(v, c.CurLoc(), ct); err != nil {
					return err
				}
			}
			c.St.ResultTypes = []ir.Type{t}
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			cond, _, _ := strings.Cut(arg, ",")
			if ct := c.Operands(cond[1:])[0].Type; !ir.TypeEqual(ct, ir.I1) {
				c.Type(ct)
				c.Write(", ")
			}
			c.Type(c.Op.Results[0].Type)
		},
	},
	"fastmath": {
		Attrs: func(string) []string { return []string{"fastmath"} },
		Parse: func(c *ir.FormatParser, _ string) error {
			fm, err := ParseFastMathFlags(c.OpParser)
			// Set last, after the attr-dict, as MLIR orders it.
			c.Defer(func() error {
				c.St.Attrs = c.St.Attrs.With("fastmath", fm)
				return nil
			})
			return err
		},
		Print: func(c *ir.FormatPrinter, _ string) { PrintFastMathFlags(c, c.Op) },
	},
}

// operandsType reads the type written for the operand groups of arg
// ("$lhs,$rhs") and checks each of their operands against it, where it
// is written.
func operandsType(c *ir.FormatParser, arg string) (ir.Type, error) {
	loc := c.CurLoc()
	t, err := c.Type()
	if err != nil {
		return nil, err
	}
	for _, g := range strings.Split(arg, ",") {
		for _, v := range c.Operands(strings.TrimPrefix(g, "$")) {
			if err := c.CheckUse(v, loc, t); err != nil {
				return nil, err
			}
		}
	}
	return t, nil
}

// parseExtended reads the types of a two-result integer op: `T` (both
// results T) or, with carry, `T, C` (C must be T's shape of i1).
func parseExtended(carry bool) func(c *ir.FormatParser, arg string) error {
	return func(c *ir.FormatParser, arg string) error {
		t, err := operandsType(c, arg)
		if err != nil {
			return err
		}
		second := t
		if carry {
			second = WithElem(t, ir.I1)
		}
		c.St.ResultTypes = []ir.Type{t, second}
		if !carry {
			return nil
		}
		if err := c.ExpectPunct(","); err != nil {
			return err
		}
		cloc := c.CurLoc()
		ct, err := c.Type()
		if err != nil {
			return err
		}
		if !ir.TypeEqual(ct, second) {
			return ir.Errorf(cloc, "the overflow type must be %s, got %s", second, ct)
		}
		return nil
	}
}

// printExtended writes the result types of a two-result integer op: the
// first, and with carry the overflow's.
func printExtended(carry bool) func(c *ir.FormatPrinter, arg string) {
	return func(c *ir.FormatPrinter, _ string) {
		c.Space()
		c.Type(c.Op.Results[0].Type)
		if carry {
			c.Write(", ")
			c.Type(c.Op.Results[1].Type)
		}
	}
}

// Format compiles an upstream op's format string with Directives.
func Format(spec string) *ir.Format { return ir.NewFormat(spec, Directives, false) }

// Register registers op definitions after guarding their custom printers:
// an op whose operand, result or region counts differ from its definition
// (unverified IR, printed for a diagnostic) prints in the generic form
// instead of crashing a Print hook.
func Register(defs ...*ir.OpDef) {
	for _, d := range defs {
		d := d
		custom := d.NeedsGeneric
		d.NeedsGeneric = func(op *ir.Operation) bool {
			if d.NumOperands >= 0 && len(op.Operands) != d.NumOperands ||
				d.NumResults >= 0 && len(op.Results) != d.NumResults ||
				d.NumRegions >= 0 && len(op.Regions) != d.NumRegions {
				return true
			}
			for _, v := range op.Operands {
				if v == nil || v.Type == nil {
					return true
				}
			}
			return custom != nil && custom(op)
		}
	}
	ir.Register(defs...)
}
