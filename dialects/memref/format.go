package memref

import (
	"strconv"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// A small declarative assembly format, in the spirit of ODS's
// assemblyFormat: one string per op gives its custom syntax, from which
// both the parser and the printer follow. Directives, separated by blanks:
//
//	$x          one operand
//	$x*         zero or more comma-separated operands
//	[$x*]       a bracketed operand list; ($x*) a parenthesised one, and
//	($x*)?      one left out when empty
//	mixed(x)    a bracket list of integers and index operands: operands x,
//	            attribute static_x (array<i64>, dynamic entries are
//	            math.MinInt64 as in MLIR)
//	reassoc     [[0, 1], [2]]: attribute reassociation
//	sym(a)      @name: flat symbol reference attribute a
//	int(a:T)    an integer literal: attribute a of type T
//	kind(a)     a keyword of atomicKinds: attribute a (i64)
//	attr-dict   an optional {...} dictionary with the other attributes
//	type($x)    the type of operand x (checked)
//	type(res)   the result type; types(res) the result types, comma-separated
//	fn($x,$y)   (T, S) -> R: the types of operands x and y, then the result
//	region      a region whose entry block declares its own arguments
//	other       a keyword or punctuation to read and write verbatim
//
// Operands are stored in the order their directives appear; with
// segments, operand_segment_sizes says how many each group has.
type format struct {
	tokens   []string
	segments bool
	groups   []string // operand groups in order
}

func newFormat(spec string, segments bool) *format {
	f := &format{tokens: strings.Fields(spec), segments: segments}
	for _, t := range f.tokens {
		if g := groupOf(t); g != "" {
			f.groups = append(f.groups, g)
		}
	}
	return f
}

// groupOf returns the operand group a directive binds, or "".
func groupOf(t string) string {
	switch {
	case strings.HasPrefix(t, "mixed("):
		return strings.TrimSuffix(strings.TrimPrefix(t, "mixed("), ")")
	case strings.HasPrefix(t, "$"), strings.HasPrefix(t, "[$"), strings.HasPrefix(t, "($"):
		return strings.Trim(t, "$[]()*?")
	}
	return ""
}

// atomicKinds are MLIR 16's arith::AtomicRMWKind values, in order.
var atomicKinds = []string{"addf", "addi", "assign", "maxf", "maxs", "maxu", "minf", "mins", "minu", "mulf", "muli", "ori", "andi"}

func (f *format) parse(p *ir.OpParser, st *ir.OpState) error {
	ops := map[string][]*ir.Value{}
	types := map[string]ir.Type{}
	readValues := func(sub *ir.OpParser) ([]*ir.Value, error) {
		vs, _, err := arith.Operands(sub, -1)
		if err != nil {
			return nil, err
		}
		return vs, sub.ExpectEnd()
	}
	for _, t := range f.tokens {
		var err error
		switch {
		case t == "attr-dict":
			var d ir.DictAttr
			if d, err = arith.OptionalBareDict(p); err == nil {
				st.Attrs = append(st.Attrs, d...)
			}
		case t == "region":
			var r *ir.Region
			if r, err = p.Region(nil, nil); err == nil {
				st.Regions = append(st.Regions, r)
			}
		case t == "reassoc":
			var entries []ir.BracketEntry
			var loc ir.Location
			if entries, loc, err = p.Brackets(); err == nil {
				var a ir.Attribute
				a, err = reassociation(entries, loc)
				st.Attrs = st.Attrs.With("reassociation", a)
			}
		case strings.HasPrefix(t, "mixed("):
			g := groupOf(t)
			var entries []ir.BracketEntry
			if entries, _, err = p.Brackets(); err == nil {
				var dyn []*ir.Value
				var static []int64
				if dyn, static, err = mixedList(p, entries); err == nil {
					ops[g] = dyn
					st.Attrs = st.Attrs.With("static_"+g, ir.DenseArrayAttr{Elem: ir.I64, Values: static})
				}
			}
		case strings.HasPrefix(t, "[$"):
			var vs []*ir.Value
			if vs, err = parseIndexList(p); err == nil {
				ops[groupOf(t)] = vs
			}
		case strings.HasPrefix(t, "($"):
			if strings.HasSuffix(t, "?") && !p.IsGroup() {
				ops[groupOf(t)] = nil
				continue
			}
			var g *ir.OpParser
			if g, err = p.Group(); err == nil {
				ops[groupOf(t)], err = readValues(g)
			}
		case strings.HasPrefix(t, "$") && strings.HasSuffix(t, "*"):
			ops[groupOf(t)], _, err = arith.Operands(p, -1)
		case strings.HasPrefix(t, "$"):
			var v *ir.Value
			if v, err = p.Operand(); err == nil {
				ops[groupOf(t)] = []*ir.Value{v}
			}
		case strings.HasPrefix(t, "sym("):
			it := p.Peek()
			if it == nil || it.Kind != ir.ItemSymbol {
				return p.Errorf("expected a symbol '@name'")
			}
			p.Next()
			st.Attrs = st.Attrs.With(inner(t), it.Attr)
		case strings.HasPrefix(t, "int("):
			name, tname, _ := strings.Cut(inner(t), ":")
			var v int64
			if v, err = p.Integer(); err == nil {
				st.Attrs = st.Attrs.With(name, ir.IntegerAttr{Value: v, Type: ir.BuiltinScalar(tname)})
			}
		case strings.HasPrefix(t, "kind("):
			var w string
			var loc ir.Location
			if w, loc, err = p.Keyword("an atomic kind"); err == nil {
				k := indexOf(atomicKinds, w)
				if k < 0 {
					return ir.Errorf(loc, "unknown atomic kind '%s' (expected %s)", w, strings.Join(atomicKinds, ", "))
				}
				st.Attrs = st.Attrs.With(inner(t), ir.IntegerAttr{Value: int64(k), Type: ir.I64})
			}
		case strings.HasPrefix(t, "type($"):
			loc := p.CurLoc()
			var ty ir.Type
			if ty, err = p.Type(); err == nil {
				types[groupOf(inner(t))] = ty
				for _, v := range ops[groupOf(inner(t))] {
					if err = arith.CheckType(v, loc, ty); err != nil {
						break
					}
				}
			}
		case t == "type(res)":
			var ty ir.Type
			if ty, err = p.Type(); err == nil {
				st.ResultTypes = []ir.Type{ty}
			}
		case t == "types(res)":
			st.ResultTypes, err = p.TypeList()
		case strings.HasPrefix(t, "fn("):
			loc := p.CurLoc()
			var ty ir.Type
			if ty, err = p.Type(); err == nil {
				ft, ok := ty.(ir.FunctionType)
				names := strings.Split(inner(t), ",")
				if !ok || len(ft.Inputs) != len(names) || len(ft.Results) != 1 {
					return ir.Errorf(loc, "expected a function type with %d inputs and one result", len(names))
				}
				for i, n := range names {
					for _, v := range ops[groupOf(n)] {
						if err := arith.CheckType(v, loc, ft.Inputs[i]); err != nil {
							return err
						}
					}
				}
				st.ResultTypes = ft.Results
			}
		case isPunct(t):
			err = p.ExpectPunct(t)
		default:
			err = p.ExpectWord(t)
		}
		if err != nil {
			return err
		}
	}
	var sizes []int
	for _, g := range f.groups {
		st.Operands = append(st.Operands, ops[g]...)
		sizes = append(sizes, len(ops[g]))
	}
	if f.segments {
		st.Attrs = st.Attrs.With("operand_segment_sizes", ir.SegmentSizes(sizes...))
	}
	return p.ExpectEnd()
}

func inner(t string) string {
	open := strings.Index(t, "(")
	return t[open+1 : len(t)-1]
}

func isPunct(t string) bool {
	switch t {
	case ":", ",", "->", "=", "+", "-", "*", "?":
		return true
	}
	return false
}

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

// operandGroups splits op's operands by group (using
// operand_segment_sizes when the format has segments, otherwise one
// operand per single group and the rest for the one variadic group).
func (f *format) operandGroups(op *ir.Operation) (map[string][]*ir.Value, bool) {
	out := map[string][]*ir.Value{}
	if f.segments {
		seg, ok := op.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
		if !ok || len(seg.Values) != len(f.groups) {
			return nil, false
		}
		next := 0
		for i, g := range f.groups {
			n := int(seg.Values[i])
			if next+n > len(op.Operands) {
				return nil, false
			}
			out[g] = op.Operands[next : next+n]
			next += n
		}
		return out, next == len(op.Operands)
	}
	variadic := 0
	for _, t := range f.tokens {
		if groupOf(t) != "" && f.isVariadic(t) {
			variadic++
		}
	}
	singles := len(f.groups) - variadic
	if variadic > 1 || len(op.Operands) < singles || variadic == 0 && len(op.Operands) != singles {
		return nil, false
	}
	next := 0
	for _, t := range f.tokens {
		g := groupOf(t)
		if g == "" {
			continue
		}
		n := 1
		if f.isVariadic(t) {
			n = len(op.Operands) - singles
		}
		out[g] = op.Operands[next : next+n]
		next += n
	}
	return out, true
}

func (f *format) isVariadic(t string) bool {
	return strings.HasPrefix(t, "mixed(") || strings.HasSuffix(t, "*") || strings.HasSuffix(t, "*]") ||
		strings.HasSuffix(t, "*)") || strings.HasSuffix(t, "*)?")
}

// spelled lists the attributes the format writes itself.
func (f *format) spelled() []string {
	names := []string{}
	if f.segments {
		names = append(names, "operand_segment_sizes")
	}
	for _, t := range f.tokens {
		switch {
		case t == "reassoc":
			names = append(names, "reassociation")
		case strings.HasPrefix(t, "mixed("):
			names = append(names, "static_"+groupOf(t))
		case strings.HasPrefix(t, "sym("), strings.HasPrefix(t, "kind("):
			names = append(names, inner(t))
		case strings.HasPrefix(t, "int("):
			n, _, _ := strings.Cut(inner(t), ":")
			names = append(names, n)
		}
	}
	return names
}

func (f *format) hasAttrDict() bool {
	for _, t := range f.tokens {
		if t == "attr-dict" {
			return true
		}
	}
	return false
}

// printable reports whether op can be written in this format.
func (f *format) printable(op *ir.Operation) bool {
	groups, ok := f.operandGroups(op)
	if !ok {
		return false
	}
	spelled := f.spelled()
	if !f.hasAttrDict() && !arith.OnlyAttrs(op, spelled...) {
		return false
	}
	for _, t := range f.tokens {
		switch {
		case strings.HasPrefix(t, "mixed("):
			a, ok := op.Attr("static_" + groupOf(t)).(ir.DenseArrayAttr)
			if !ok {
				return false
			}
			n := 0
			for _, v := range a.Values {
				if v == ir.Dynamic {
					n++
				}
			}
			if n != len(groups[groupOf(t)]) {
				return false
			}
		case t == "reassoc":
			if _, ok := op.Attr("reassociation").(ir.ArrayAttr); !ok {
				return false
			}
		case strings.HasPrefix(t, "sym("):
			if _, ok := ir.SymbolPath(op.Attr(inner(t))); !ok {
				return false
			}
		case strings.HasPrefix(t, "int("), strings.HasPrefix(t, "kind("):
			n, _, _ := strings.Cut(inner(t), ":")
			a, ok := op.Attr(n).(ir.IntegerAttr)
			if !ok || strings.HasPrefix(t, "kind(") && (a.Value < 0 || int(a.Value) >= len(atomicKinds)) {
				return false
			}
		case t == "type(res)":
			if len(op.Results) != 1 {
				return false
			}
		case t == "region":
			if len(op.Regions) != 1 {
				return false
			}
		}
	}
	return true
}

func (f *format) print(p ir.OpPrinter, op *ir.Operation) {
	groups, _ := f.operandGroups(op)
	prev := ""
	for _, t := range f.tokens {
		// Spacing as MLIR prints: lists hug the value or list before them.
		after := strings.HasPrefix(prev, "$") || strings.HasPrefix(prev, "[$") || strings.HasPrefix(prev, "mixed(")
		hug := after && (strings.HasPrefix(t, "[$") || strings.HasPrefix(t, "mixed(") || strings.HasPrefix(t, "($"))
		// `offset: [...]`: a colon after a keyword hugs it.
		keyword := prev != "" && prev != "attr-dict" && !isPunct(prev) && !strings.ContainsAny(prev, "$()")
		if t != "," && t != "attr-dict" && !hug && !(t == ":" && keyword) {
			p.Write(" ")
		}
		prev = t
		switch {
		case t == "attr-dict":
			rest := op.Attrs
			for _, n := range f.spelled() {
				rest = rest.Without(n)
			}
			if len(rest) > 0 {
				p.Write(" ")
				p.Attr(rest)
			}
		case t == "region":
			p.Region(op.Regions[0], true)
		case t == "reassoc":
			p.Attr(reassocPlain(op.Attr("reassociation").(ir.ArrayAttr)))
		case strings.HasPrefix(t, "mixed("):
			a := op.Attr("static_" + groupOf(t)).(ir.DenseArrayAttr)
			dyn := groups[groupOf(t)]
			p.Write("[")
			k := 0
			for i, v := range a.Values {
				if i > 0 {
					p.Write(", ")
				}
				if v == ir.Dynamic {
					p.Value(dyn[k])
					k++
				} else {
					p.Write(strconv.FormatInt(v, 10))
				}
			}
			p.Write("]")
		case strings.HasPrefix(t, "[$"):
			p.Write("[")
			p.Values(groups[groupOf(t)])
			p.Write("]")
		case strings.HasPrefix(t, "($"):
			vs := groups[groupOf(t)]
			if len(vs) > 0 || !strings.HasSuffix(t, "?") {
				p.Write("(")
				p.Values(vs)
				p.Write(")")
			}
		case strings.HasPrefix(t, "$"):
			p.Values(groups[groupOf(t)])
		case strings.HasPrefix(t, "sym("):
			p.Attr(op.Attr(inner(t)))
		case strings.HasPrefix(t, "int("):
			n, _, _ := strings.Cut(inner(t), ":")
			p.Write(strconv.FormatInt(op.Attr(n).(ir.IntegerAttr).Value, 10))
		case strings.HasPrefix(t, "kind("):
			p.Write(atomicKinds[op.Attr(inner(t)).(ir.IntegerAttr).Value])
		case strings.HasPrefix(t, "type($"):
			p.Type(groups[groupOf(inner(t))][0].Type)
		case t == "type(res)":
			p.Type(op.Results[0].Type)
		case t == "types(res)":
			p.Types(arith.ResultTypes(op))
		case strings.HasPrefix(t, "fn("):
			p.Write("(")
			for i, n := range strings.Split(inner(t), ",") {
				if i > 0 {
					p.Write(", ")
				}
				p.Type(groups[groupOf(n)][0].Type)
			}
			p.Write(") -> ")
			p.Type(op.Results[0].Type)
		default:
			p.Write(t)
		}
	}
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
	f := newFormat(spec, segments)
	d := &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      name + " " + spec,
		Traits:      traits,
		NumOperands: -1, NumResults: numResults, NumRegions: -1,
		Parse:        f.parse,
		Print:        f.print,
		NeedsGeneric: func(op *ir.Operation) bool { return !f.printable(op) },
	}
	d.Verify = func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if _, ok := f.operandGroups(op); !ok {
			return arith.Errf(op, "has operands that do not fit its form '%s'", spec)
		}
		if verify != nil {
			return verify(op)
		}
		return nil
	}
	return d
}
