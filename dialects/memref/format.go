package memref

import (
	"strconv"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// memref's ops use the declarative format of ir.Format (one string per
// op, from which the parser and printer follow) with arith's directives
// and these of the dialect's own:
//
//	mixed(x)    a bracket list of integers and index operands: operands x,
//	            attribute static_x (array<i64>, dynamic entries are
//	            math.MinInt64 as in MLIR)
//	indices($x) [%i, %j]: index operands x; indices($x*) any number of them
//	reassoc     [[0, 1], [2]]: attribute reassociation
//	kind(a)     a keyword of atomicKinds: attribute a (i64)
//	memref-type($m)  ` : memref<...>`: the type of operand m, checked
//	            where m is used (a type that is no memref is an error at
//	            the colon); memref-type(res) the result's
//	flag(a:yes:no)  the keyword yes or no: attribute a, a bool (set after
//	            the operands' attributes)
//	locality    locality<N>, N from 0 to 3: attribute localityHint (i32)
//	alloc-symbols($x)  an optional `[%s, ...]`: index operands x
//	elem($m)    nothing written: the result is m's element type;
//	            elem($m,$v) operand v has it (checked where v is used)
//	index($x)   nothing written: operand x has type index (checked where
//	            it is used); index(res) the result has it
var directives = ir.Directives{
	"flag": {
		Attrs: func(arg string) []string { a, _, _ := strings.Cut(arg, ":"); return []string{a} },
		Parse: func(c *ir.FormatParser, arg string) error {
			parts := strings.Split(arg, ":")
			w, wloc, err := c.Keyword(parts[1] + " or " + parts[2])
			if err != nil {
				return err
			}
			if w != parts[1] && w != parts[2] {
				return ir.Errorf(wloc, "expected '%s' or '%s'", parts[1], parts[2])
			}
			c.Defer(func() error {
				c.St.Attrs = c.St.Attrs.With(parts[0], ir.BoolAttr(w == parts[1]))
				return nil
			})
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			parts := strings.Split(arg, ":")
			c.Space()
			if b, _ := c.Op.Attr(parts[0]).(ir.BoolAttr); b {
				c.Write(parts[1])
			} else {
				c.Write(parts[2])
			}
		},
	},
	"locality": {
		Attrs: func(string) []string { return []string{"localityHint"} },
		Parse: func(c *ir.FormatParser, _ string) error {
			it := c.Next()
			if it == nil {
				return c.Errorf("expected locality<0-3>")
			}
			o, ok := it.Attr.(ir.OpaqueAttr)
			if !ok || o.Name != "locality" {
				return c.Errorf("expected locality<0-3>")
			}
			v, err := strconv.Atoi(strings.TrimSpace(o.Body))
			if err != nil || v < 0 || v > 3 {
				return ir.Errorf(it.Loc, "locality hint must be 0 to 3")
			}
			c.St.Attrs = c.St.Attrs.With("localityHint", ir.IntegerAttr{Value: int64(v), Type: ir.I32})
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			l, _ := c.Op.Attr("localityHint").(ir.IntegerAttr)
			c.Write("locality<" + strconv.FormatInt(l.Value, 10) + ">")
		},
	},
	"alloc-symbols": {
		Operands: func(arg string) (string, bool) { return strings.TrimPrefix(arg, "$"), true },
		Parse: func(c *ir.FormatParser, arg string) error {
			var syms []*ir.Value
			var err error
			if c.IsBrackets() {
				syms, err = parseIndexList(c.OpParser)
			}
			c.SetOperands(strings.TrimPrefix(arg, "$"), syms)
			return err
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			if syms := c.Operands(strings.TrimPrefix(arg, "$")); len(syms) > 0 {
				c.Write("[")
				c.Values(syms)
				c.Write("]")
			}
		},
	},
	"memref-type": {
		Parse: func(c *ir.FormatParser, arg string) error {
			loc := c.CurLoc()
			if arg == "res" {
				t, err := parseMemRefType(c.OpParser, nil, ir.Location{})
				c.St.ResultTypes = []ir.Type{t}
				return err
			}
			m := c.Operands(strings.TrimPrefix(arg, "$"))[0]
			if err := c.ExpectPunct(":"); err != nil {
				return err
			}
			t, err := c.Type()
			if err != nil {
				return err
			}
			if _, ok := t.(ir.MemRefType); !ok {
				return ir.Errorf(loc, "expected a memref type, got %s", t)
			}
			return c.CheckUse(m, loc, t)
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Write(" : ")
			if arg == "res" {
				c.Type(c.Op.Results[0].Type)
				return
			}
			c.Type(c.Operands(strings.TrimPrefix(arg, "$"))[0].Type)
		},
	},
	"elem": {
		Parse: func(c *ir.FormatParser, arg string) error {
			m, v, two := strings.Cut(arg, ",")
			elem := c.Operands(strings.TrimPrefix(m, "$"))[0].Type.(ir.MemRefType).Elem
			if !two {
				c.St.ResultTypes = []ir.Type{elem}
				return nil
			}
			return c.CheckUse(c.Operands(strings.TrimPrefix(v, "$"))[0], c.CurLoc(), elem)
		},
		Print: func(*ir.FormatPrinter, string) {},
	},
	"index": {
		Parse: func(c *ir.FormatParser, arg string) error {
			if arg == "res" {
				c.St.ResultTypes = []ir.Type{ir.Index}
				return nil
			}
			return c.CheckUse(c.Operands(strings.TrimPrefix(arg, "$"))[0], c.CurLoc(), ir.Index)
		},
		Print: func(*ir.FormatPrinter, string) {},
	},
	"mixed": {
		Operands: func(arg string) (string, bool) { return arg, true },
		Attrs:    func(arg string) []string { return []string{"static_" + arg} },
		List:     true,
		Parse: func(c *ir.FormatParser, arg string) error {
			entries, _, err := c.Brackets()
			if err != nil {
				return err
			}
			dyn, static, err := mixedList(c.OpParser, entries)
			if err != nil {
				return err
			}
			c.SetOperands(arg, dyn)
			c.St.Attrs = c.St.Attrs.With("static_"+arg, ir.DenseArrayAttr{Elem: ir.I64, Values: static})
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			a := c.Op.Attr("static_" + arg).(ir.DenseArrayAttr)
			dyn := c.Operands(arg)
			c.Write("[")
			k := 0
			for i, v := range a.Values {
				if i > 0 {
					c.Write(", ")
				}
				if v == ir.Dynamic {
					c.Value(dyn[k])
					k++
				} else {
					c.Write(strconv.FormatInt(v, 10))
				}
			}
			c.Write("]")
		},
		Printable: func(c *ir.FormatPrinter, arg string) bool {
			a, ok := c.Op.Attr("static_" + arg).(ir.DenseArrayAttr)
			if !ok {
				return false
			}
			n := 0
			for _, v := range a.Values {
				if v == ir.Dynamic {
					n++
				}
			}
			return n == len(c.Operands(arg))
		},
	},
	"indices": {
		Operands: func(arg string) (string, bool) { return strings.Trim(arg, "$*"), strings.HasSuffix(arg, "*") },
		List:     true,
		Parse: func(c *ir.FormatParser, arg string) error {
			vs, err := parseIndexList(c.OpParser)
			c.SetOperands(strings.Trim(arg, "$*"), vs)
			return err
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			c.Write("[")
			c.Values(c.Operands(strings.Trim(arg, "$*")))
			c.Write("]")
		},
	},
	"reassoc": {
		Attrs: func(string) []string { return []string{"reassociation"} },
		Parse: func(c *ir.FormatParser, _ string) error {
			entries, loc, err := c.Brackets()
			if err != nil {
				return err
			}
			a, err := reassociation(entries, loc)
			c.St.Attrs = c.St.Attrs.With("reassociation", a)
			return err
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			c.Attr(reassocPlain(c.Op.Attr("reassociation").(ir.ArrayAttr)))
		},
		Printable: func(c *ir.FormatPrinter, _ string) bool {
			_, ok := c.Op.Attr("reassociation").(ir.ArrayAttr)
			return ok
		},
	},
	"kind": {
		Attrs: func(arg string) []string { return []string{arg} },
		Parse: func(c *ir.FormatParser, arg string) error {
			w, loc, err := c.Keyword("an atomic kind")
			if err != nil {
				return err
			}
			k := indexOf(atomicKinds, w)
			if k < 0 {
				return ir.Errorf(loc, "unknown atomic kind '%s' (expected %s)", w, strings.Join(atomicKinds, ", "))
			}
			c.St.Attrs = c.St.Attrs.With(arg, ir.IntegerAttr{Value: int64(k), Type: ir.I64})
			return nil
		},
		Print: func(c *ir.FormatPrinter, arg string) {
			c.Space()
			c.Write(atomicKinds[c.Op.Attr(arg).(ir.IntegerAttr).Value])
		},
		Printable: func(c *ir.FormatPrinter, arg string) bool {
			a, ok := c.Op.Attr(arg).(ir.IntegerAttr)
			return ok && a.Value >= 0 && int(a.Value) < len(atomicKinds)
		},
	},
}

// atomicKinds are MLIR 16's arith::AtomicRMWKind values, in order.
var atomicKinds = []string{"addf", "addi", "assign", "maxf", "maxs", "maxu", "minf", "mins", "minu", "mulf", "muli", "ori", "andi"}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// reassociation reads [[0, 1], [2]].
func reassociation(entries []ir.BracketEntry, loc ir.Location) (ir.Attribute, error) {
	out := ir.ArrayAttr{}
	for _, e := range entries {
		if e.Form != ir.EntryNested {
			return nil, ir.Errorf(e.Loc, "expected a list of dimension groups [[0, 1], [2]]")
		}
		g := ir.ArrayAttr{}
		for _, d := range e.Nested {
			if d.Form != ir.EntryExpr || d.E.Kind != ir.ExprInt {
				return nil, ir.Errorf(d.Loc, "expected a dimension number")
			}
			g = append(g, ir.IntegerAttr{Value: d.E.Int, Type: ir.I64})
		}
		out = append(out, g)
	}
	return out, nil
}

// mixedList reads the entries of [%a, 4, ?]: index operands for values,
// static integers for the rest (math.MinInt64 where an operand stands).
func mixedList(p *ir.OpParser, entries []ir.BracketEntry) ([]*ir.Value, []int64, error) {
	var dyn []*ir.Value
	static := []int64{}
	for _, e := range entries {
		if e.Form != ir.EntryExpr {
			return nil, nil, ir.Errorf(e.Loc, "expected an integer or an SSA value of type index")
		}
		switch n := e.E; {
		case n.Kind == ir.ExprValue:
			v, err := p.Host.ResolveValue(n.Name, n.Loc)
			if err != nil {
				return nil, nil, err
			}
			if err := arith.CheckType(v, n.Loc, ir.Index); err != nil {
				return nil, nil, err
			}
			dyn = append(dyn, v)
			static = append(static, ir.Dynamic)
		case n.Kind == ir.ExprInt:
			static = append(static, n.Int)
		case n.Kind == ir.ExprNeg && n.Args[0].Kind == ir.ExprInt:
			static = append(static, -n.Args[0].Int)
		default:
			return nil, nil, ir.Errorf(e.Loc, "expected an integer or an SSA value of type index")
		}
	}
	return dyn, static, nil
}

// reassocPlain drops the i64 types so the list prints as [[0, 1], [2]].
func reassocPlain(a ir.ArrayAttr) ir.ArrayAttr {
	out := ir.ArrayAttr{}
	for _, g := range a {
		ga, _ := g.(ir.ArrayAttr)
		pg := ir.ArrayAttr{}
		for _, d := range ga {
			if i, ok := d.(ir.IntegerAttr); ok {
				pg = append(pg, ir.IntegerAttr{Value: i.Value})
			}
		}
		out = append(out, pg)
	}
	return out
}

// formatOp defines an op from its format. Extra checks go in verify.
func formatOp(name, summary, spec string, segments bool, numResults int, traits ir.Trait, verify func(op *ir.Operation) error) *ir.OpDef {
	f := ir.NewFormat(spec, directives, segments)
	d := &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      name + " " + spec,
		Traits:      traits,
		NumOperands: -1, NumResults: numResults, NumRegions: -1,
		Format:       f,
		NeedsGeneric: func(op *ir.Operation) bool { return !f.Printable(op) },
	}
	d.Verify = func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if _, ok := f.OperandGroups(op); !ok {
			return arith.Errf(op, "has operands that do not fit its form '%s'", spec)
		}
		if verify != nil {
			return verify(op)
		}
		return nil
	}
	return d
}

// format compiles the format of an op defined by hand (its own counts and
// verifier) with the dialect's directives.
func format(spec string) *ir.Format { return ir.NewFormat(spec, withArith, false) }

// formatWithSegments is format for ops whose operand groups vary in size
// (operand_segment_sizes).
func formatWithSegments(spec string) *ir.Format { return ir.NewFormat(spec, withArith, true) }

// withArith is memref's directives and arith's, one table for every op.
var withArith = arith.Directives.With(directives)
