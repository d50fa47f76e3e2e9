package ir

import (
	"strconv"

	"tir/dialects/sizeexpr"
)

// ItemKind classifies the pieces of a custom op form. The grammar splits the
// text after an op name into items (values, words, types, bracket lists,
// regions, ...); each op's Parse hook then reads them with an OpParser, the
// way MLIR's OpAsmParser reads tokens.
type ItemKind int

const (
	ItemValue     ItemKind = iota // %x (Text is the name without '%')
	ItemSymbol                    // @f or @m::@f (Text is the root name, Attr the SymbolRefAttr or NestedSymbolRefAttr)
	ItemBlockRef                  // ^bb1
	ItemWord                      // keyword or bare type name: add, lt, f32
	ItemType                      // a composite type (Type is set)
	ItemAttr                      // affine map/set, alias or dialect attribute (Attr is set)
	ItemInt                       // integer literal (Int; Text keeps the spelling)
	ItemFloat                     // float literal (Float; Text keeps the spelling)
	ItemString                    // string literal (Text is unescaped)
	ItemBool                      // true / false (Int is 1 / 0)
	ItemPunct                     // , : = -> + - * ?
	ItemParens                    // ( items )
	ItemBrackets                  // [ entries ]
	ItemAttrDict                  // attributes {dict} (Attr is a DictAttr)
	ItemRegion                    // { region } (Raw is the parser's handle; Attr, when set, is the DictAttr the same text is as a dictionary)
	ItemBareDict                  // {dict} without 'attributes' (Attr is a DictAttr)
	ItemAngleWord                 // <add> right after the op name (Text is the word)
)

// Item is one piece of a custom op form.
type Item struct {
	Kind    ItemKind
	Loc     Location
	Text    string
	Int     int64
	Float   float64
	Type    Type
	Attr    Attribute
	Items   []Item
	Entries []BracketEntry
	Raw     any
}

func (it *Item) describe() string {
	switch it.Kind {
	case ItemValue:
		return "'%" + it.Text + "'"
	case ItemSymbol:
		if it.Attr != nil {
			return "'" + it.Attr.String() + "'"
		}
		return "'@" + it.Text + "'"
	case ItemWord, ItemPunct:
		return "'" + it.Text + "'"
	case ItemAngleWord:
		return "'<" + it.Text + ">'"
	case ItemType:
		return "type " + it.Type.String()
	case ItemAttr:
		return "attribute " + it.Attr.String()
	case ItemInt, ItemFloat:
		return "number " + it.Text
	case ItemString:
		return "string " + QuoteString(it.Text)
	case ItemParens:
		return "'('"
	case ItemBrackets:
		return "'['"
	case ItemRegion:
		return "region"
	case ItemAttrDict:
		return "'attributes'"
	case ItemBareDict:
		return "attribute dictionary"
	}
	return "item"
}

// EntryForm tells which shape a bracket entry has.
type EntryForm int

const (
	EntryExpr          EntryForm = iota // I + 1, %i + 1, 3
	EntryAssign                         // d0 = i + k, Vertex = %e2v
	EntryNamedInterval                  // I[1:4], I[?]  (Lo nil for the one-bound form)
	EntryInterval                       // 0:9
	EntryCase                           // default: ^bb1(%x : i32), 42: ^bb2 (Name "default" or E the value; Succ, Args)
	EntryNested                         // [0, 1] inside a bracket list (Nested)
)

// BracketEntry is one comma-separated entry of a bracket list.
type BracketEntry struct {
	Form   EntryForm
	Loc    Location
	Name   string
	E      *ExprNode // EntryExpr, EntryAssign
	Lo, Hi *ExprNode // intervals
	// Succ is the block of an EntryCase (without '^'); Args, when not
	// nil, its parenthesised operands.
	Succ string
	Args *Item
	// Nested holds the entries of an EntryNested list.
	Nested []BracketEntry
	// Text is an EntryCase value as written (it may exceed 64 bits).
	Text string
}

// ExprKind classifies expression syntax nodes.
type ExprKind int

const (
	ExprInt     ExprKind = iota
	ExprName             // identifier: a size symbol, a dimension, d0/s0
	ExprValue            // %x inside affine subscripts
	ExprUnknown          // '?'
	ExprNeg
	ExprAdd
	ExprSub
	ExprMul
	ExprFloorDiv
	ExprCeilDiv
	ExprMod
	ExprCall // min(...), max(...), symbol(%n)
)

// ExprNode is an expression as written, before names are given a meaning.
// Meaning depends on the context (a size symbol in a type, a dimension in a
// shift, an SSA value in an affine subscript), so each user converts it with
// its own resolver.
type ExprNode struct {
	Kind ExprKind
	Loc  Location
	Int  int64
	Name string
	Args []*ExprNode
}

// Resolver gives names and values of an expression their meaning.
type Resolver func(n *ExprNode) (sizeexpr.Expr, error)

// ToExpr converts the syntax tree to a canonical size expression. A
// sub-expression whose value does not fit in int64 is an error at that
// sub-expression (the innermost one), so `I - 9223372036854775807 - 2`
// points at what overflowed.
func (n *ExprNode) ToExpr(resolve Resolver) (sizeexpr.Expr, error) {
	e, err := n.toExpr(resolve)
	if err == nil && e.Overflowed() {
		return sizeexpr.Expr{}, Errorf(n.Loc, "integer overflow: %s does not fit in 64 bits", n)
	}
	return e, err
}

// ToIndexExpr is ToExpr for the sizes a program writes (a bound, an
// offset, an affine map's result): it also refuses an integer outside
// sizeexpr.IndexLimit, at the expression. These are where sizes enter the
// compiler, and the limit keeps what the passes derive from them away
// from the ends of int64.
func (n *ExprNode) ToIndexExpr(resolve Resolver) (sizeexpr.Expr, error) {
	e, err := n.ToExpr(resolve)
	if err != nil {
		return sizeexpr.Expr{}, err
	}
	if err := e.CheckLimit(); err != nil {
		return sizeexpr.Expr{}, Errorf(n.Loc, "%v", err)
	}
	return e, nil
}

func (n *ExprNode) toExpr(resolve Resolver) (sizeexpr.Expr, error) {
	switch n.Kind {
	case ExprInt:
		return sizeexpr.Const(n.Int), nil
	case ExprName, ExprValue, ExprUnknown:
		return resolve(n)
	case ExprCall:
		if n.Name == "symbol" {
			return resolve(n)
		}
		if n.Name != "min" && n.Name != "max" {
			return sizeexpr.Expr{}, Errorf(n.Loc, "unknown function '%s' in expression (expected min or max)", n.Name)
		}
		args := make([]sizeexpr.Expr, len(n.Args))
		for i, a := range n.Args {
			e, err := a.ToExpr(resolve)
			if err != nil {
				return sizeexpr.Expr{}, err
			}
			args[i] = e
		}
		if n.Name == "min" {
			return sizeexpr.MinOf(args...), nil
		}
		return sizeexpr.MaxOf(args...), nil
	}
	a, err := n.Args[0].ToExpr(resolve)
	if err != nil {
		return sizeexpr.Expr{}, err
	}
	if n.Kind == ExprNeg {
		return sizeexpr.Neg(a), nil
	}
	b, err := n.Args[1].ToExpr(resolve)
	if err != nil {
		return sizeexpr.Expr{}, err
	}
	var e sizeexpr.Expr
	switch n.Kind {
	case ExprAdd:
		return sizeexpr.Add(a, b), nil
	case ExprSub:
		return sizeexpr.Sub(a, b), nil
	case ExprMul:
		e, err = sizeexpr.MulExpr(a, b)
	default:
		c, ok := b.Const()
		if !ok {
			return sizeexpr.Expr{}, Errorf(n.Args[1].Loc, "divisor must be a constant")
		}
		switch n.Kind {
		case ExprFloorDiv:
			e, err = sizeexpr.FloorDiv(a, c)
		case ExprCeilDiv:
			e, err = sizeexpr.CeilDiv(a, c)
		default:
			e, err = sizeexpr.Mod(a, c)
		}
	}
	if err != nil {
		return sizeexpr.Expr{}, Errorf(n.Loc, "%v", err)
	}
	return e, nil
}

// String prints the expression as written (for messages).
func (n *ExprNode) String() string {
	switch n.Kind {
	case ExprInt:
		return strconv.FormatInt(n.Int, 10)
	case ExprName:
		return n.Name
	case ExprValue:
		return "%" + n.Name
	case ExprUnknown:
		if n.Name != "" {
			return n.Name
		}
		return "?"
	case ExprNeg:
		return "-" + n.Args[0].String()
	case ExprCall:
		s := n.Name + "("
		for i, a := range n.Args {
			if i > 0 {
				s += ", "
			}
			s += a.String()
		}
		return s + ")"
	}
	op := map[ExprKind]string{ExprAdd: " + ", ExprSub: " - ", ExprMul: "*", ExprFloorDiv: " floordiv ", ExprCeilDiv: " ceildiv ", ExprMod: " mod "}[n.Kind]
	return "(" + n.Args[0].String() + op + n.Args[1].String() + ")"
}

// RegionArg declares an entry-block argument that an op's syntax names
// outside the region (function parameters, loop induction variables).
type RegionArg struct {
	Name string
	Type Type
	Loc  Location
}

// ParserHost is what the textual parser offers to op Parse hooks.
type ParserHost interface {
	// ResolveValue looks up a used value by name (without '%').
	ResolveValue(name string, loc Location) (*Value, error)
	// BuildRegion parses a region item. With args != nil they become the
	// entry block's arguments; otherwise the region's own entry label
	// declares them and labelTypes fill in omitted argument types.
	BuildRegion(it *Item, args []RegionArg, labelTypes []Type) (*Region, error)
	// SizeSymbol returns the module-wide size symbol of that name.
	SizeSymbol(name string) sizeexpr.Expr
	// HasSizeSymbol reports whether a size symbol was already used.
	HasSizeSymbol(name string) bool
	// File is the file being parsed.
	File() string
	// LookupSymbol finds a top-level op defined earlier by its sym_name.
	LookupSymbol(name string) *Operation
}

// GenericResultTypes is implemented by ParserHosts that read the generic
// form: while a generic op's attribute dictionary is read, DeclaredResults
// gives the result types its trailing function type declares (nil
// elsewhere). An attribute whose names mean different things depending on
// the op's type (a view map mixes result dimensions and size symbols)
// tells them apart with it, as the custom form does from its result type.
type GenericResultTypes interface {
	DeclaredResults() []Type
}

// ResultNamer is implemented by ParserHosts that know the names the input
// gives the results of the op being read (`%r = ...` gives ["r"]; nil
// elsewhere). An op whose result type names something after its result
// (the data-dependent extent ?_r_I of tir.compress) reads them here.
type ResultNamer interface {
	ResultNames() []string
}

// BlockResolver is implemented by ParserHosts that read multi-block
// regions: it finds the block labelled ^name in the region being read.
type BlockResolver interface {
	ResolveBlock(name string, loc Location) (*Block, error)
}

// Successor reads a block reference ^name.
func (p *OpParser) Successor() (*Block, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemBlockRef {
		return nil, p.expected("a block '^bb...'")
	}
	p.Next()
	return p.ResolveBlock(it.Text, it.Loc)
}

// ResolveBlock finds a block of the region being read.
func (p *OpParser) ResolveBlock(name string, loc Location) (*Block, error) {
	r, ok := p.Host.(BlockResolver)
	if !ok {
		return nil, Errorf(loc, "block references are not supported here")
	}
	return r.ResolveBlock(name, loc)
}

// OpState collects what a Parse hook read; the parser then builds the op.
type OpState struct {
	Name     string
	Loc      Location
	Operands []*Value
	// ResultTypes as given in the input; nil entries are inferred.
	ResultTypes []Type
	// NumResults is how many results the input's `%r, %s =` named.
	NumResults int
	Attrs      DictAttr
	Regions    []*Region
	// Successors are the blocks a terminator branches to.
	Successors []*Block
}

// OpParser is a cursor over the items of one custom op form.
type OpParser struct {
	Host  ParserHost
	Loc   Location // the op name's location
	items []Item
	pos   int
	end   Location
}

// NewOpParser creates a cursor over items.
func NewOpParser(host ParserHost, loc Location, items []Item) *OpParser {
	return &OpParser{Host: host, Loc: loc, items: items, end: loc}
}

// Sub creates a cursor over the items of a group (parens) item.
func (p *OpParser) Sub(it *Item) *OpParser {
	return &OpParser{Host: p.Host, Loc: it.Loc, items: it.Items, end: it.Loc}
}

// AtEnd reports whether every item was consumed.
func (p *OpParser) AtEnd() bool { return p.pos >= len(p.items) }

// Peek returns the next item without consuming it (nil at the end).
func (p *OpParser) Peek() *Item {
	if p.AtEnd() {
		return nil
	}
	return &p.items[p.pos]
}

// PeekAt returns the item k positions ahead, or nil.
func (p *OpParser) PeekAt(k int) *Item {
	if p.pos+k >= len(p.items) {
		return nil
	}
	return &p.items[p.pos+k]
}

// Next consumes an item (nil at the end).
func (p *OpParser) Next() *Item {
	if p.AtEnd() {
		return nil
	}
	it := &p.items[p.pos]
	p.pos++
	p.end = it.Loc
	return it
}

// CurLoc is the location of the next item (or of the last one at the end).
func (p *OpParser) CurLoc() Location {
	if it := p.Peek(); it != nil {
		return it.Loc
	}
	return p.end
}

// Errorf reports an error at the next item.
func (p *OpParser) Errorf(format string, args ...any) error {
	return Errorf(p.CurLoc(), format, args...)
}

func (p *OpParser) expected(what string) error {
	if it := p.Peek(); it != nil {
		return p.Errorf("expected %s, found %s", what, it.describe())
	}
	return p.Errorf("expected %s at the end of the operation", what)
}

// IsPunct reports whether the next item is the punctuation s.
func (p *OpParser) IsPunct(s string) bool {
	it := p.Peek()
	return it != nil && it.Kind == ItemPunct && it.Text == s
}

// Punct consumes the punctuation s if it is next.
func (p *OpParser) Punct(s string) bool {
	if p.IsPunct(s) {
		p.pos++
		return true
	}
	return false
}

// ExpectPunct consumes s or fails.
func (p *OpParser) ExpectPunct(s string) error {
	if !p.Punct(s) {
		return p.expected("'" + s + "'")
	}
	return nil
}

// IsWord reports whether the next item is the keyword w.
func (p *OpParser) IsWord(w string) bool {
	it := p.Peek()
	return it != nil && it.Kind == ItemWord && it.Text == w
}

// Word consumes keyword w if it is next.
func (p *OpParser) Word(w string) bool {
	if p.IsWord(w) {
		p.Next()
		return true
	}
	return false
}

// ExpectWord consumes keyword w or fails.
func (p *OpParser) ExpectWord(w string) error {
	if !p.Word(w) {
		return p.expected("'" + w + "'")
	}
	return nil
}

// AngleWord consumes the `<word>` that may follow an op name (the
// combining kind of vector.reduction) and returns the word.
func (p *OpParser) AngleWord(what string) (string, Location, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemAngleWord {
		return "", p.CurLoc(), p.expected(what)
	}
	p.Next()
	return it.Text, it.Loc, nil
}

// Keyword consumes any bare word and returns it.
func (p *OpParser) Keyword(what string) (string, Location, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemWord {
		return "", p.CurLoc(), p.expected(what)
	}
	p.Next()
	return it.Text, it.Loc, nil
}

// IsValue reports whether the next item is an SSA value.
func (p *OpParser) IsValue() bool {
	it := p.Peek()
	return it != nil && it.Kind == ItemValue
}

// ValueName consumes a %name (a definition, not a use).
func (p *OpParser) ValueName() (string, Location, error) {
	if !p.IsValue() {
		return "", p.CurLoc(), p.expected("an SSA value")
	}
	it := p.Next()
	return it.Text, it.Loc, nil
}

// Operand consumes and resolves a used value.
func (p *OpParser) Operand() (*Value, error) {
	if lit := p.literalAhead(); lit != nil {
		// tir.mul %u, 2.0: operands are values, constants ops of their own.
		text, elem := literalText(p), "f64"
		if last := p.items[p.pos]; last.Kind == ItemInt || (last.Kind == ItemPunct && p.items[p.pos+1].Kind == ItemInt) {
			elem = "i64"
		}
		err := Errorf(lit.Loc, "expected an SSA value, found the literal %s", text)
		return nil, err.AddNote(lit.Loc, "a number is not an operand: define it first with a constant op (`%%c = tir.constant %s : %s` in tir, `arith.constant` in arith) and use %%c", text, elem)
	}
	if !p.IsValue() {
		return nil, p.expected("an SSA value")
	}
	it := p.Next()
	return p.Host.ResolveValue(it.Text, it.Loc)
}

// OperandList reads `%a, %b, ...` (at least one).
func (p *OpParser) OperandList() ([]*Value, error) {
	var vs []*Value
	for {
		v, err := p.Operand()
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
		if !(p.IsPunct(",") && p.PeekAt(1) != nil && p.PeekAt(1).Kind == ItemValue) {
			if p.IsPunct(",") && p.PeekAt(1) != nil && isLiteralStart(p.items, p.pos+1) {
				p.Next()
				continue // Operand reports the literal
			}
			return vs, nil
		}
		p.Next()
	}
}

// Type consumes a type: a composite type item or a builtin scalar word.
func (p *OpParser) Type() (Type, error) {
	it := p.Peek()
	if it == nil {
		return nil, p.expected("a type")
	}
	switch it.Kind {
	case ItemType:
		p.Next()
		return it.Type, nil
	case ItemWord:
		if t := BuiltinScalar(it.Text); t != nil {
			p.Next()
			return t, nil
		}
		return nil, Errorf(it.Loc, "unknown type '%s'", it.Text)
	case ItemParens:
		// A function type written in a custom form: (T, ...) -> R.
		p.Next()
		sub := p.Sub(it)
		ins, err := sub.TypeList()
		if err != nil {
			return nil, err
		}
		if !sub.AtEnd() {
			return nil, sub.expected("')'")
		}
		if err := p.ExpectPunct("->"); err != nil {
			return nil, err
		}
		outs, err := p.ResultTypeList()
		if err != nil {
			return nil, err
		}
		return FunctionType{Inputs: ins, Results: outs}, nil
	}
	return nil, p.expected("a type")
}

// TypeList reads `T, T, ...` (possibly empty when at the end).
func (p *OpParser) TypeList() ([]Type, error) {
	var ts []Type
	if p.AtEnd() {
		return nil, nil
	}
	for {
		t, err := p.Type()
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
		if !p.Punct(",") {
			return ts, nil
		}
	}
}

// ResultTypeList reads either `T` or `(T, ...)`.
func (p *OpParser) ResultTypeList() ([]Type, error) {
	if it := p.Peek(); it != nil && it.Kind == ItemParens {
		p.Next()
		sub := p.Sub(it)
		ts, err := sub.TypeList()
		if err != nil {
			return nil, err
		}
		if !sub.AtEnd() {
			return nil, sub.expected("')'")
		}
		return ts, nil
	}
	t, err := p.Type()
	if err != nil {
		return nil, err
	}
	return []Type{t}, nil
}

// OptionalColonTypes reads `: T, T` if present.
func (p *OpParser) OptionalColonTypes() ([]Type, bool, error) {
	if !p.Punct(":") {
		return nil, false, nil
	}
	ts, err := p.TypeList()
	if err != nil {
		return nil, true, err
	}
	if len(ts) == 0 {
		return nil, true, p.expected("a type")
	}
	return ts, true, nil
}

// Integer reads an optionally negative integer literal.
func (p *OpParser) Integer() (int64, error) {
	neg := p.IsPunct("-") && p.PeekAt(1) != nil && p.PeekAt(1).Kind == ItemInt
	if neg {
		p.Next()
	}
	it := p.Peek()
	if it == nil || it.Kind != ItemInt {
		return 0, p.expected("an integer")
	}
	p.Next()
	if neg {
		return -it.Int, nil
	}
	return it.Int, nil
}

// Symbol reads a flat @name (a nested @a::@b is an error: the op names a
// symbol of its own symbol table).
func (p *OpParser) Symbol() (string, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemSymbol {
		return "", p.expected("a symbol name (@name)")
	}
	if path, ok := SymbolPath(it.Attr); ok && len(path) > 1 {
		return "", Errorf(it.Loc, "expected a flat symbol name (@name), found nested reference %s", it.Attr)
	}
	p.Next()
	return it.Text, nil
}

// SymbolPath reads a symbol reference, flat (@f) or nested (@m::@f), and
// returns its names, root first.
func (p *OpParser) SymbolPath() ([]string, Location, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemSymbol {
		return nil, p.CurLoc(), p.expected("a symbol reference (@name or @module::@name)")
	}
	p.Next()
	if path, ok := SymbolPath(it.Attr); ok {
		return path, it.Loc, nil
	}
	return []string{it.Text}, it.Loc, nil
}

// Group consumes a parenthesised group and returns a cursor over it.
func (p *OpParser) Group() (*OpParser, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemParens {
		return nil, p.expected("'('")
	}
	p.Next()
	return p.Sub(it), nil
}

// IsGroup reports whether a parenthesised group is next.
func (p *OpParser) IsGroup() bool {
	it := p.Peek()
	return it != nil && it.Kind == ItemParens
}

// Brackets consumes a bracket list.
func (p *OpParser) Brackets() ([]BracketEntry, Location, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemBrackets {
		return nil, p.CurLoc(), p.expected("'['")
	}
	p.Next()
	return it.Entries, it.Loc, nil
}

// IsBrackets reports whether a bracket list is next.
func (p *OpParser) IsBrackets() bool {
	it := p.Peek()
	return it != nil && it.Kind == ItemBrackets
}

// IsRegion reports whether a region is next.
func (p *OpParser) IsRegion() bool {
	it := p.Peek()
	return it != nil && it.Kind == ItemRegion
}

// Region consumes and builds a region (see ParserHost.BuildRegion).
func (p *OpParser) Region(args []RegionArg, labelTypes []Type) (*Region, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemRegion {
		return nil, p.expected("a region '{ ... }'")
	}
	p.Next()
	return p.Host.BuildRegion(it, args, labelTypes)
}

// OptionalAttrDict reads `attributes {...}` if present.
func (p *OpParser) OptionalAttrDict() (DictAttr, error) {
	it := p.Peek()
	if it == nil || it.Kind != ItemAttrDict {
		return nil, nil
	}
	p.Next()
	d, _ := it.Attr.(DictAttr)
	return d, nil
}

// OptionalTrailingAttrDict reads the `{...}` dictionary MLIR prints after
// an op's last region for its other attributes, if present. A region item
// that is also a dictionary (`{tir.parallel}`) is read as one: this is
// only called where no region can follow.
func (p *OpParser) OptionalTrailingAttrDict() (DictAttr, error) {
	it := p.Peek()
	if it == nil || !(it.Kind == ItemBareDict || it.Kind == ItemRegion && it.Attr != nil) {
		return nil, nil
	}
	p.Next()
	d, _ := it.Attr.(DictAttr)
	return d, nil
}

// ExpectEnd fails if items are left over.
func (p *OpParser) ExpectEnd() error {
	if it := p.Peek(); it != nil {
		return Errorf(it.Loc, "unexpected %s", it.describe())
	}
	return nil
}

// TypeParams is what a dialect type parser receives: the parameters of
// !dialect.name<...> already split by the grammar.
type TypeParams struct {
	Name   string
	Loc    Location
	Params []TypeParam
	Host   ParserHost
}

// TypeParamKind classifies a dialect type parameter.
type TypeParamKind int

const (
	ParamType     TypeParamKind = iota // f32, tuple<...>
	ParamDim                           // I[0:N-1], I[?]
	ParamExprList                      // [?, 1]
	ParamKeyValue                      // offset: ?
	ParamExpr                          // 4
	ParamAttr                          // affine_map<...>, #alias (Attr)
)

// TypeParam is one parameter of a dialect type.
type TypeParam struct {
	Kind   TypeParamKind
	Loc    Location
	Type   Type
	Name   string
	Lo, Hi *ExprNode // ParamDim (Lo nil for I[?] / I[N]); ParamKeyValue/ParamExpr use Hi
	List   []*ExprNode
	// Scalable marks the dimensions of List written [N] (ParamType).
	Scalable []bool
	// Unranked marks `*xT` (ParamType, List empty).
	Unranked bool
	Attr     Attribute
}

// isLiteralStart reports whether items[i] starts a number: a literal, or
// '-' before one.
func isLiteralStart(items []Item, i int) bool {
	if i >= len(items) {
		return false
	}
	if k := items[i].Kind; k == ItemInt || k == ItemFloat {
		return true
	}
	return items[i].Kind == ItemPunct && items[i].Text == "-" && i+1 < len(items) &&
		(items[i+1].Kind == ItemInt || items[i+1].Kind == ItemFloat)
}

// literalAhead returns the first item of a number where an operand is
// expected, or nil.
func (p *OpParser) literalAhead() *Item {
	if isLiteralStart(p.items, p.pos) {
		return &p.items[p.pos]
	}
	return nil
}

// literalText spells the number ahead as written.
func literalText(p *OpParser) string {
	it := p.items[p.pos]
	if it.Kind == ItemPunct && p.pos+1 < len(p.items) {
		return "-" + p.items[p.pos+1].Text
	}
	return it.Text
}
