package ir

import (
	"strconv"
	"strings"
)

// A declarative assembly format, in the spirit of ODS's assemblyFormat: one
// string per op gives its custom syntax, from which both the parser and the
// printer follow. An OpDef carries it in its Format field (Register derives
// Parse and Print from it). Directives, separated by blanks:
//
//	$x          one operand
//	$x+         one or more comma-separated operands
//	$x*         zero or more comma-separated operands (zero only where the
//	            input ends)
//	($x*)       a parenthesised operand list; ($x*)? one left out when empty;
//	            ($x) one operand in parentheses. First in the format, the
//	            list (or a dialect's HugsName directive) hugs the op name
//	            (`scf.condition(%c)`)
//	check($x:T) nothing written: operand x has the builtin type T, checked
//	            where it is used (`(%c)` of scf.condition is i1)
//	attr-dict   an optional {...} dictionary with the other attributes
//	attr-dict-with-keyword  the same as `attributes {...}`
//	type($x)    the type of operand x (checked, a mismatch reported at
//	            the type)
//	use-type($x)  the same, a mismatch reported where x is used (MLIR's
//	            resolveOperands: arith's casts `%x : A to B`)
//	type(res)   the result type; types(res) the result types, comma-separated
//	type(all)   the one type of the result and of every operand, each
//	            operand checked where it is used (MLIR's
//	            SameOperandsAndResultType forms: `%a, %b : f32`)
//	type(res)?  ` : T`, optional: the single result's type, which the op's
//	            type rule infers where the input leaves it out; types(res)?
//	            the same for any number of results
//	fn($x,$y)   (T, S) -> R: the types of operands x and y, then the result
//	types($x,$y)  T, S: the types of operands x and y, each checked where
//	            it is used once all are read
//	res-type($x)  nothing written: the result has operand x's type;
//	            res-type(T) the builtin type T (`index`)
//	results?    an optional `-> T` or `-> (T, U)`: the result types
//	sym(a)      @name: flat symbol reference attribute a
//	sym-name    @name: the op's own name, string attribute sym_name (set
//	            after the attr-dict's, as MLIR's parsers order them)
//	int(a:T)    an integer literal: attribute a of type T
//	region      a region whose entry block declares its own arguments
//	other       a keyword or punctuation to read and write verbatim
//
// A dialect adds its own directives (memref's mixed offset lists, tir's
// dimension lists and offsets) as a Directives table passed to NewFormat:
// a directive `name` or `name(arg)` whose name is in the table is the
// dialect's; the generic machinery knows no dialect.
//
// Operands are stored in the order their directives appear; with
// segments, operand_segment_sizes says how many each group has. Without,
// at most one group may vary in size.
type Format struct {
	spec     string
	tokens   []string
	dirs     Directives
	segments bool
	groups   []string // operand groups in order
}

// Directive is a piece of custom syntax a dialect defines once for all its
// formats. Parse and Print are required; the rest may be nil.
type Directive struct {
	// Operands names the operand group the directive binds, given its
	// argument ("" for none), and whether its size varies.
	Operands func(arg string) (group string, variadic bool)
	// Attrs lists the attributes the directive spells (attr-dict leaves
	// them out).
	Attrs func(arg string) []string
	// List marks a bracketed list that hugs the operand or list before it
	// (`%m[%i]`, MLIR's `%src[0] [4]`); a list after it hugs it in turn
	// (`@g(%a)` after a callee).
	List bool
	// HugsName marks a directive that, first in a format, hugs the op
	// name (`memref.alloc(%n)`).
	HugsName bool
	// Parse reads the directive's part of the custom form.
	Parse func(c *FormatParser, arg string) error
	// Print writes it; it calls c.Space() first to write the blank the
	// format puts before it (and may leave out both, for nothing to say).
	Print func(c *FormatPrinter, arg string)
	// Printable reports whether op's attributes fit the directive; when
	// it does not, the op prints in the generic form (nil: always fits).
	Printable func(c *FormatPrinter, arg string) bool
}

// Directives are a dialect's directives by name.
type Directives map[string]*Directive

// With returns one table of ds's directives and more's, for a dialect
// that uses another's (arith's operand lists and types) beside its own;
// more's entry wins a name both have.
func (ds Directives) With(more Directives) Directives {
	out := make(Directives, len(ds)+len(more))
	for n, d := range ds {
		out[n] = d
	}
	for n, d := range more {
		out[n] = d
	}
	return out
}

// NewFormat compiles a format string; dirs are the dialect's directives.
// A format whose operands could not be told apart (two groups of varying
// size without segments) is a mistake in the dialect: NewFormat panics, as
// the op tables are built at start-up.
func NewFormat(spec string, dirs Directives, segments bool) *Format {
	f := &Format{spec: spec, tokens: strings.Fields(spec), dirs: dirs, segments: segments}
	variadic := 0
	for _, t := range f.tokens {
		if _, tname, _ := strings.Cut(t, ":"); strings.HasPrefix(t, "check(") && BuiltinScalar(strings.TrimSuffix(tname, ")")) == nil ||
			strings.HasPrefix(t, "res-type(") && !strings.HasPrefix(t, "res-type($") && BuiltinScalar(inner(t)) == nil {
			panic("ir: format '" + spec + "' names an unknown type in " + t)
		}
		if g, v := f.groupOf(t); g != "" {
			f.groups = append(f.groups, g)
			if v {
				variadic++
			}
		}
	}
	if variadic > 1 && !segments {
		panic("ir: format '" + spec + "' has several operand groups of varying size but no segments")
	}
	return f
}

// Spec is the format string.
func (f *Format) Spec() string { return f.spec }

// directive returns the dialect directive of token t and its argument.
func (f *Format) directive(t string) (*Directive, string) {
	name, arg := t, ""
	if open := strings.Index(t, "("); open > 0 && strings.HasSuffix(t, ")") {
		name, arg = t[:open], t[open+1:len(t)-1]
	}
	if d := f.dirs[name]; d != nil {
		return d, arg
	}
	return nil, ""
}

// groupOf returns the operand group a directive binds ("" for none) and
// whether its size varies.
func (f *Format) groupOf(t string) (string, bool) {
	if d, arg := f.directive(t); d != nil {
		if d.Operands == nil {
			return "", false
		}
		return d.Operands(arg)
	}
	if strings.HasPrefix(t, "$") || strings.HasPrefix(t, "($") {
		return strings.Trim(t, "$()*+?"), strings.ContainsAny(t, "*+")
	}
	return "", false
}

// FormatParser is what a directive parses with: the op parser, the state
// being built and the operand groups read so far.
type FormatParser struct {
	*OpParser
	St       *OpState
	operands map[string][]*Value
	locs     map[*Value][]Location // where each single operand was used
	deferred []func() error
}

// SetOperands binds the values of an operand group.
func (c *FormatParser) SetOperands(group string, vs []*Value) { c.operands[group] = vs }

// Operands returns the values of an operand group read so far.
func (c *FormatParser) Operands(group string) []*Value { return c.operands[group] }

// CheckUse fails when operand v does not have type t, at the place v was
// used in the form (each use of a value read twice in turn), or at loc
// for a value the form did not read itself.
func (c *FormatParser) CheckUse(v *Value, loc Location, t Type) error {
	if l := c.locs[v]; len(l) > 0 {
		loc, c.locs[v] = l[0], l[1:]
	}
	return CheckOperandType(v, loc, t)
}

// Defer runs f once the whole form has been read (and found to end where
// it should): for a directive that needs what comes after it, such as the
// result type.
func (c *FormatParser) Defer(f func() error) { c.deferred = append(c.deferred, f) }

// Parse reads the custom form after the op name into st.
func (f *Format) Parse(p *OpParser, st *OpState) error {
	c := &FormatParser{OpParser: p, St: st, operands: map[string][]*Value{}, locs: map[*Value][]Location{}}
	for _, t := range f.tokens {
		if err := f.parseToken(c, t); err != nil {
			return err
		}
	}
	var sizes []int
	for _, g := range f.groups {
		st.Operands = append(st.Operands, c.operands[g]...)
		sizes = append(sizes, len(c.operands[g]))
	}
	if f.segments {
		st.Attrs = st.Attrs.With(AttrOperandSegmentSizes, SegmentSizes(sizes...))
	}
	if err := p.ExpectEnd(); err != nil {
		return err
	}
	for _, d := range c.deferred {
		if err := d(); err != nil {
			return err
		}
	}
	return nil
}

func (f *Format) parseToken(c *FormatParser, t string) error {
	p, st := c.OpParser, c.St
	if d, arg := f.directive(t); d != nil {
		return d.Parse(c, arg)
	}
	var err error
	switch {
	case t == "attr-dict":
		var d DictAttr
		if d, err = p.OptionalTrailingAttrDict(); err == nil {
			st.Attrs = append(st.Attrs, d...)
		}
	case t == "attr-dict-with-keyword":
		var d DictAttr
		if d, err = p.OptionalAttrDict(); err == nil {
			for _, e := range d {
				st.Attrs = st.Attrs.With(e.Name, e.Value)
			}
		}
	case t == "region":
		var r *Region
		if r, err = p.Region(nil, nil); err == nil {
			st.Regions = append(st.Regions, r)
		}
	case strings.HasPrefix(t, "($") && !strings.ContainsAny(t, "*+"):
		var sub *OpParser
		if sub, err = p.Group(); err != nil {
			return err
		}
		loc := sub.CurLoc()
		var v *Value
		if v, err = sub.Operand(); err != nil {
			return err
		}
		g, _ := f.groupOf(t)
		c.operands[g] = []*Value{v}
		c.locs[v] = append(c.locs[v], loc)
		return sub.ExpectEnd()
	case strings.HasPrefix(t, "check($"):
		name, tname, _ := strings.Cut(inner(t), ":")
		for _, v := range c.operands[strings.TrimPrefix(name, "$")] {
			if err = c.CheckUse(v, p.CurLoc(), BuiltinScalar(tname)); err != nil {
				break
			}
		}
	case strings.HasPrefix(t, "($"):
		g, _ := f.groupOf(t)
		if strings.HasSuffix(t, "?") && !p.IsGroup() {
			c.operands[g] = nil
			return nil
		}
		var sub *OpParser
		if sub, err = p.Group(); err == nil {
			c.operands[g] = nil
			if !sub.AtEnd() {
				c.operands[g], err = sub.OperandList()
			}
			if err == nil {
				err = sub.ExpectEnd()
			}
		}
	case strings.HasPrefix(t, "$") && strings.HasSuffix(t, "*"):
		g, _ := f.groupOf(t)
		if p.AtEnd() {
			c.operands[g] = nil
			return nil
		}
		c.operands[g], err = p.OperandList()
	case strings.HasPrefix(t, "$") && strings.HasSuffix(t, "+"):
		g, _ := f.groupOf(t)
		c.operands[g], err = p.OperandList()
	case strings.HasPrefix(t, "$"):
		loc := p.CurLoc()
		var v *Value
		if v, err = p.Operand(); err == nil {
			g, _ := f.groupOf(t)
			c.operands[g] = []*Value{v}
			c.locs[v] = append(c.locs[v], loc)
		}
	case t == "sym-name":
		var name string
		if name, err = p.Symbol(); err == nil {
			c.Defer(func() error {
				st.Attrs = st.Attrs.With(AttrSymName, StringAttr(name))
				return nil
			})
		}
	case strings.HasPrefix(t, "sym("):
		it := p.Peek()
		if it == nil || it.Kind != ItemSymbol {
			return p.Errorf("expected a symbol '@name'")
		}
		p.Next()
		st.Attrs = st.Attrs.With(inner(t), it.Attr)
	case strings.HasPrefix(t, "int("):
		name, tname, _ := strings.Cut(inner(t), ":")
		var v int64
		if v, err = p.Integer(); err == nil {
			st.Attrs = st.Attrs.With(name, IntegerAttr{Value: v, Type: BuiltinScalar(tname)})
		}
	case strings.HasPrefix(t, "type($"):
		loc := p.CurLoc()
		var ty Type
		if ty, err = p.Type(); err == nil {
			for _, v := range c.operands[strings.Trim(inner(t), "$")] {
				if err = CheckOperandType(v, loc, ty); err != nil {
					break
				}
			}
		}
	case strings.HasPrefix(t, "use-type($"):
		loc := p.CurLoc()
		var ty Type
		if ty, err = p.Type(); err == nil {
			for _, v := range c.operands[strings.Trim(inner(t), "$")] {
				if err = c.CheckUse(v, loc, ty); err != nil {
					break
				}
			}
		}
	case strings.HasPrefix(t, "types($"):
		loc := p.CurLoc()
		names := strings.Split(inner(t), ",")
		var ts []Type
		for i := range names {
			if i > 0 {
				if err := p.ExpectPunct(","); err != nil {
					return err
				}
			}
			ty, err := p.Type()
			if err != nil {
				return err
			}
			ts = append(ts, ty)
		}
		for i, n := range names {
			for _, v := range c.operands[strings.TrimPrefix(n, "$")] {
				if err := c.CheckUse(v, loc, ts[i]); err != nil {
					return err
				}
			}
		}
	case strings.HasPrefix(t, "res-type($"):
		for _, v := range c.operands[strings.TrimPrefix(inner(t), "$")] {
			st.ResultTypes = []Type{v.Type}
		}
	case strings.HasPrefix(t, "res-type("):
		st.ResultTypes = []Type{BuiltinScalar(inner(t))}
	case t == "results?":
		if p.Punct("->") {
			st.ResultTypes, err = p.ResultTypeList()
		}
	case t == "type(res)":
		var ty Type
		if ty, err = p.Type(); err == nil {
			st.ResultTypes = []Type{ty}
		}
	case t == "type(all)":
		loc := p.CurLoc()
		ty, err := p.Type()
		if err != nil {
			return err
		}
		for _, g := range f.groups {
			for _, v := range c.operands[g] {
				if err := c.CheckUse(v, loc, ty); err != nil {
					return err
				}
			}
		}
		st.ResultTypes = []Type{ty}
	case t == "type(res)?", t == "types(res)?":
		ts, ok, err := p.OptionalColonTypes()
		if err != nil || !ok {
			return err
		}
		if len(ts) != 1 && t == "type(res)?" {
			return p.Errorf("expected one result type")
		}
		st.ResultTypes = ts
	case t == "types(res)":
		st.ResultTypes, err = p.TypeList()
	case strings.HasPrefix(t, "fn("):
		loc := p.CurLoc()
		var ty Type
		if ty, err = p.Type(); err == nil {
			ft, ok := ty.(FunctionType)
			names := strings.Split(inner(t), ",")
			if !ok || len(ft.Inputs) != len(names) || len(ft.Results) != 1 {
				return Errorf(loc, "expected a function type with %d inputs and one result", len(names))
			}
			for i, n := range names {
				for _, v := range c.operands[strings.Trim(n, "$")] {
					if err := CheckOperandType(v, loc, ft.Inputs[i]); err != nil {
						return err
					}
				}
			}
			st.ResultTypes = ft.Results
		}
	case isFormatPunct(t):
		err = p.ExpectPunct(t)
	default:
		err = p.ExpectWord(t)
	}
	return err
}

func inner(t string) string {
	open := strings.Index(t, "(")
	return t[open+1 : len(t)-1]
}

func isFormatPunct(t string) bool {
	switch t {
	case ":", ",", "->", "=", "+", "-", "*", "?":
		return true
	}
	return false
}

// CheckOperandType fails at loc when v does not have type t, the way MLIR
// reports a custom form whose trailing type disagrees with an operand.
func CheckOperandType(v *Value, loc Location, t Type) error {
	if !TypeEqual(v.Type, t) {
		return Errorf(loc, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'", v.NameHint, t, v.Type)
	}
	return nil
}

// OnlyAttrs reports whether op has no attributes besides names.
func OnlyAttrs(op *Operation, names ...string) bool {
	for _, a := range op.Attrs {
		known := false
		for _, n := range names {
			if a.Name == n {
				known = true
				break
			}
		}
		if !known {
			return false
		}
	}
	return true
}

// OperandGroups splits op's operands by group (using
// operand_segment_sizes when the format has segments, otherwise one
// operand per single group and the rest for the one variadic group); ok
// is false when they do not fit.
func (f *Format) OperandGroups(op *Operation) (map[string][]*Value, bool) {
	out := map[string][]*Value{}
	if f.segments {
		seg, ok := op.Attr(AttrOperandSegmentSizes).(DenseArrayAttr)
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
		if g, v := f.groupOf(t); g != "" && v {
			variadic++
		}
	}
	singles := len(f.groups) - variadic
	if variadic > 1 || len(op.Operands) < singles || variadic == 0 && len(op.Operands) != singles {
		return nil, false
	}
	next := 0
	for _, t := range f.tokens {
		g, v := f.groupOf(t)
		if g == "" {
			continue
		}
		n := 1
		if v {
			n = len(op.Operands) - singles
		}
		out[g] = op.Operands[next : next+n]
		next += n
	}
	return out, true
}

// Spelled lists the attributes the format writes itself.
func (f *Format) Spelled() []string {
	names := []string{}
	if f.segments {
		names = append(names, AttrOperandSegmentSizes)
	}
	for _, t := range f.tokens {
		if d, arg := f.directive(t); d != nil {
			if d.Attrs != nil {
				names = append(names, d.Attrs(arg)...)
			}
			continue
		}
		switch {
		case t == "sym-name":
			names = append(names, AttrSymName)
		case strings.HasPrefix(t, "sym("):
			names = append(names, inner(t))
		case strings.HasPrefix(t, "int("):
			n, _, _ := strings.Cut(inner(t), ":")
			names = append(names, n)
		}
	}
	return names
}

func (f *Format) hasAttrDict() bool {
	for _, t := range f.tokens {
		if t == "attr-dict" || t == "attr-dict-with-keyword" {
			return true
		}
	}
	return false
}

// Printable reports whether op can be written in this format.
func (f *Format) Printable(op *Operation) bool {
	groups, ok := f.OperandGroups(op)
	if !ok {
		return false
	}
	if !f.hasAttrDict() && !OnlyAttrs(op, f.Spelled()...) {
		return false
	}
	c := &FormatPrinter{Op: op, groups: groups, f: f}
	for _, t := range f.tokens {
		if d, arg := f.directive(t); d != nil {
			if d.Printable != nil && !d.Printable(c, arg) {
				return false
			}
			continue
		}
		switch {
		case t == "sym-name":
			if _, ok := op.Attr(AttrSymName).(StringAttr); !ok {
				return false
			}
		case strings.HasPrefix(t, "sym("):
			if _, ok := SymbolPath(op.Attr(inner(t))); !ok {
				return false
			}
		case strings.HasPrefix(t, "int("):
			n, _, _ := strings.Cut(inner(t), ":")
			if _, ok := op.Attr(n).(IntegerAttr); !ok {
				return false
			}
		case t == "type(res)", t == "type(all)":
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

// FormatPrinter is what a directive prints with: the op printer, the op
// and its operand groups.
type FormatPrinter struct {
	OpPrinter
	Op     *Operation
	groups map[string][]*Value
	f      *Format
	space  bool
}

// Operands returns the values of an operand group.
func (c *FormatPrinter) Operands(group string) []*Value { return c.groups[group] }

// Space writes the blank the format puts before the directive, once.
func (c *FormatPrinter) Space() {
	if c.space {
		c.Write(" ")
		c.space = false
	}
}

// Print writes the custom form after the op name.
func (f *Format) Print(p OpPrinter, op *Operation) {
	groups, _ := f.OperandGroups(op)
	c := &FormatPrinter{OpPrinter: p, Op: op, groups: groups, f: f}
	prev := ""
	for _, t := range f.tokens {
		c.space = f.spaceBefore(prev, t)
		prev = t
		if d, arg := f.directive(t); d != nil {
			d.Print(c, arg)
			continue
		}
		switch {
		case strings.HasPrefix(t, "check("), strings.HasPrefix(t, "res-type("):
			// Nothing to write.
		case t == "results?":
			if len(op.Results) == 1 {
				p.Write(" -> ")
				p.Type(op.Results[0].Type)
			} else if len(op.Results) > 1 {
				p.Write(" -> (")
				p.Types(resultTypes(op))
				p.Write(")")
			}
		case t == "attr-dict":
			rest := op.Attrs
			for _, n := range f.Spelled() {
				rest = rest.Without(n)
			}
			if len(rest) > 0 {
				p.Write(" ")
				p.Attr(rest)
			}
		case t == "attr-dict-with-keyword":
			p.AttrDict(op.Attrs, f.Spelled()...)
		case t == "type(res)?", t == "types(res)?":
			if len(op.Results) > 0 {
				p.Write(" : ")
				p.Types(resultTypes(op))
			}
		case strings.HasPrefix(t, "($"):
			g, _ := f.groupOf(t)
			vs := groups[g]
			if len(vs) > 0 || !strings.HasSuffix(t, "?") {
				c.Space()
				p.Write("(")
				p.Values(vs)
				p.Write(")")
			}
		case strings.HasPrefix(t, "$"):
			g, _ := f.groupOf(t)
			if len(groups[g]) > 0 {
				c.Space()
				p.Values(groups[g])
			}
		default:
			c.Space()
			f.printToken(c, t)
		}
	}
}

// spaceBefore says whether a blank separates token t from prev, as MLIR
// prints: none before a comma or the directives that write their own;
// lists hug the value or list before them; a colon after a keyword hugs
// it (`offset: [...]`).
func (f *Format) spaceBefore(prev, t string) bool {
	switch t {
	case ",", "attr-dict", "attr-dict-with-keyword", "type(res)?", "types(res)?":
		return false
	}
	prevDir, _ := f.directive(prev)
	if d, _ := f.directive(t); prev == "" && (strings.HasPrefix(t, "($") || d != nil && d.HugsName) {
		return false
	}
	after := strings.HasPrefix(prev, "$") || prevDir != nil && prevDir.List
	if d, _ := f.directive(t); after && (d != nil && d.List || strings.HasPrefix(t, "($")) {
		return false
	}
	keyword := prev != "" && prevDir == nil && !strings.HasPrefix(prev, "attr-dict") && !isFormatPunct(prev) && !strings.ContainsAny(prev, "$()")
	return !(t == ":" && keyword)
}

func (f *Format) printToken(c *FormatPrinter, t string) {
	p, op, groups := c.OpPrinter, c.Op, c.groups
	switch {
	case t == "region":
		p.Region(op.Regions[0], true)
	case t == "sym-name":
		p.Write(SymbolRefAttr(SymbolName(op)).String())
	case strings.HasPrefix(t, "sym("):
		p.Attr(op.Attr(inner(t)))
	case strings.HasPrefix(t, "int("):
		n, _, _ := strings.Cut(inner(t), ":")
		p.Write(strconv.FormatInt(op.Attr(n).(IntegerAttr).Value, 10))
	case strings.HasPrefix(t, "type($"), strings.HasPrefix(t, "use-type($"):
		p.Type(groups[strings.Trim(inner(t), "$")][0].Type)
	case t == "type(res)", t == "type(all)":
		p.Type(op.Results[0].Type)
	case t == "types(res)":
		p.Types(resultTypes(op))
	case strings.HasPrefix(t, "types($"):
		for i, n := range strings.Split(inner(t), ",") {
			if i > 0 {
				p.Write(", ")
			}
			p.Type(groups[strings.TrimPrefix(n, "$")][0].Type)
		}
	case strings.HasPrefix(t, "fn("):
		p.Write("(")
		for i, n := range strings.Split(inner(t), ",") {
			if i > 0 {
				p.Write(", ")
			}
			p.Type(groups[strings.Trim(n, "$")][0].Type)
		}
		p.Write(") -> ")
		p.Type(op.Results[0].Type)
	default:
		p.Write(t)
	}
}

func resultTypes(op *Operation) []Type {
	ts := make([]Type, len(op.Results))
	for i, r := range op.Results {
		ts[i] = r.Type
	}
	return ts
}
