// Package parser builds IR from text. The ANTLR grammar (grammar/TIR.g4)
// does the lexing and the structural parse; this package is the one place
// that turns its parse tree into ir values: it resolves names, builds types
// and attributes, and hands custom op forms, as items, to each op's Parse
// hook. Syntax errors and semantic errors come back as located diagnostics;
// the parser never panics on bad input.
package parser

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/internal/limits"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/grammar/tirparser"
)

// Parse reads a module from text. On error the module may be partial and
// the diagnostics say what went wrong, sorted by position.
func Parse(file, src string) (m *ir.Module, diags ir.DiagList) {
	defer func() {
		if r := recover(); r != nil {
			// A panic here is a bug of ours, not of the input: report it
			// as an internal error at the file, with the stack for a bug
			// report, instead of crashing.
			diags = append(diags, ir.Errorf(ir.Location{File: file}, "internal error in the parser: %v\n%s", r, debug.Stack()))
		}
	}()
	listener := &errorListener{file: file}
	lexer := tirparser.NewTIRLexer(antlr.NewInputStream(src))
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(listener)
	tokens := antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel)
	// Input nested too deeply is refused before the parse, whose time
	// would grow with the square of the depth (limits.MaxNesting).
	tokens.Fill()
	if d := limits.Nesting(file, tokens.GetAllTokens(), tirTokens); d != nil {
		if len(listener.diags) > 0 && listener.diags[0].Loc.Line < d.Loc.Line {
			return nil, listener.diags[:1]
		}
		return nil, ir.DiagList{d}
	}
	p := tirparser.NewTIRParser(tokens)
	p.RemoveErrorListeners()
	p.AddErrorListener(listener)
	tree := p.Module_()
	if len(listener.diags) > 0 {
		return nil, listener.diags[:1]
	}
	b := &builder{
		file:      file,
		mod:       ir.NewModule(ir.Location{File: file, Line: 1, Col: 1}),
		typeAlias: map[string]ir.Type{},
		attrAlias: map[string]ir.Attribute{},
		symbols:   map[string]sizeexpr.Expr{},
		scopes:    []map[string]*ir.Value{{}},
	}
	for _, top := range tree.AllTopLevel() {
		if err := b.topLevel(top); err != nil {
			return b.mod, diagList(err)
		}
	}
	return b.mod, nil
}

// tirTokens are the brackets and operators of the grammar for
// limits.Nesting.
var tirTokens = limits.Tokens{
	Open:      limits.Set(tirparser.TIRParserLPAREN, tirparser.TIRParserLBRACKET, tirparser.TIRParserLBRACE, tirparser.TIRParserLANGLE),
	Close:     limits.Set(tirparser.TIRParserRPAREN, tirparser.TIRParserRBRACKET, tirparser.TIRParserRBRACE, tirparser.TIRParserRANGLE),
	Prefix:    limits.Set(tirparser.TIRParserMINUS, tirparser.TIRParserPLUS, tirparser.TIRParserSTAR, tirparser.TIRParserCOLON, tirparser.TIRParserGE, tirparser.TIRParserLE, tirparser.TIRParserEQEQ),
	Infix:     limits.Set(tirparser.TIRParserEQUAL, tirparser.TIRParserARROW),
	Separator: limits.Set(tirparser.TIRParserCOMMA),
}

func diagList(err error) ir.DiagList {
	if l, ok := err.(ir.DiagList); ok {
		return l
	}
	return ir.DiagList{ir.AsDiagnostic(err, ir.UnknownLoc)}
}

type errorListener struct {
	*antlr.DefaultErrorListener
	file  string
	diags ir.DiagList
}

func (l *errorListener) SyntaxError(_ antlr.Recognizer, _ interface{}, line, column int, msg string, _ antlr.RecognitionException) {
	l.diags = append(l.diags, ir.Errorf(ir.Location{File: l.file, Line: line, Col: column + 1}, "syntax error: %s", msg))
}

type builder struct {
	file      string
	mod       *ir.Module
	typeAlias map[string]ir.Type
	attrAlias map[string]ir.Attribute
	symbols   map[string]sizeexpr.Expr
	scopes    []map[string]*ir.Value
	// dialects is the default-dialect stack: one entry per custom op whose
	// regions are being read (see defaultDialects).
	dialects []string
	// blocks maps the labels of the regions being read to their blocks,
	// innermost region last.
	blocks []map[string]*ir.Block
	// declared holds the result types of the generic op whose attribute
	// dictionary is being read (ir.GenericResultTypes).
	declared []ir.Type
	// resultNames are the names of the results of the custom op being
	// read (ir.ResultNamer).
	resultNames []string
	// exprDepth, exprTerms and exprLoc follow the expression being built
	// (limits.MaxExprTerms).
	exprDepth, exprTerms int
	exprLoc              ir.Location
}

// unknownExtentOrder is the Order of every unknown extent's symbol.
const unknownExtentOrder = 1 << 28

// DeclaredResults implements ir.GenericResultTypes.
func (b *builder) DeclaredResults() []ir.Type { return b.declared }

// ResultNames implements ir.ResultNamer.
func (b *builder) ResultNames() []string { return b.resultNames }

// ResolveBlock implements ir.BlockResolver: a label of the innermost
// region being read.
func (b *builder) ResolveBlock(name string, loc ir.Location) (*ir.Block, error) {
	if n := len(b.blocks); n > 0 {
		if blk, ok := b.blocks[n-1][name]; ok {
			return blk, nil
		}
	}
	return nil, ir.Errorf(loc, "reference to an undefined block '^%s'", name)
}

// defaultDialects names the dialect whose ops MLIR prints without their
// prefix inside an op's regions (OpAsmOpInterface's default dialect): MLIR
// writes `return` for func.return in a func.func body. Only custom forms
// set it; a generic op's regions keep the enclosing one, as in MLIR.
var defaultDialects = map[string]string{
	"builtin.module": "builtin",
	"func.func":      "func",
}

func (b *builder) loc(t antlr.Token) ir.Location {
	return ir.Location{File: b.file, Line: t.GetLine(), Col: t.GetColumn() + 1}
}

func (b *builder) locOf(ctx antlr.ParserRuleContext) ir.Location { return b.loc(ctx.GetStart()) }

func (b *builder) topLevel(ctx tirparser.ITopLevelContext) error {
	switch {
	case ctx.TypeAliasDef() != nil:
		d := ctx.TypeAliasDef()
		name := d.BANG_ID().GetText()[1:]
		if _, dup := b.typeAlias[name]; dup {
			return ir.Errorf(b.loc(d.BANG_ID().GetSymbol()), "type alias !%s is defined twice", name)
		}
		t, err := b.typ(d.Type_())
		if err != nil {
			return err
		}
		b.typeAlias[name] = t
		b.mod.TypeAliases = append(b.mod.TypeAliases, ir.TypeAlias{Name: name, Type: t})
	case ctx.AttrAliasDef() != nil:
		d := ctx.AttrAliasDef()
		name := d.HASH_ID().GetText()[1:]
		a, err := b.attr(d.Attribute())
		if err != nil {
			return err
		}
		b.attrAlias[name] = a
	default:
		op, err := b.operation(ctx.Operation())
		if err != nil {
			return err
		}
		// An explicit `module { }` replaces the implicit one.
		if op.Name == "builtin.module" && len(b.mod.Body().Ops) == 0 && b.mod.Implicit {
			b.mod.Op = op
			b.mod.Implicit = false
			return nil
		}
		b.mod.Body().Append(op)
	}
	return nil
}

// ---- values and scopes ----

func (b *builder) define(name string, v *ir.Value, loc ir.Location) error {
	top := b.scopes[len(b.scopes)-1]
	if _, dup := top[name]; dup {
		return ir.Errorf(loc, "redefinition of SSA value '%%%s'", name)
	}
	top[name] = v
	if v.DefiningOp() == nil && !v.Loc.Known() {
		v.Loc = loc
	}
	if v.NameHint == "" {
		v.NameHint = name
	}
	return nil
}

// ResolveValue implements ir.ParserHost.
func (b *builder) ResolveValue(name string, loc ir.Location) (*ir.Value, error) {
	for i := len(b.scopes) - 1; i >= 0; i-- {
		if v, ok := b.scopes[i][name]; ok {
			return v, nil
		}
	}
	return nil, ir.Errorf(loc, "use of undefined value '%%%s'", name)
}

// SizeSymbol implements ir.ParserHost: symbols are numbered in order of
// first appearance in the module, which is their canonical print order.
// Unknown extents (?_ARG_DIM, and the bare `?` before it is named) come
// after every size symbol, among themselves by name: a printed module
// writes them where the first print put them, and numbering them by
// position would make the reprint order min(N, ?_a_I) differently.
func (b *builder) SizeSymbol(name string) sizeexpr.Expr {
	if e, ok := b.symbols[name]; ok {
		return e
	}
	order := len(b.symbols)
	if strings.HasPrefix(name, "?") {
		order = unknownExtentOrder
	}
	e := sizeexpr.Sym(name, order)
	b.symbols[name] = e
	return e
}

// HasSizeSymbol implements ir.ParserHost.
func (b *builder) HasSizeSymbol(name string) bool { _, ok := b.symbols[name]; return ok }

// LookupSymbol implements ir.ParserHost.
func (b *builder) LookupSymbol(name string) *ir.Operation { return b.mod.Lookup(name) }

// File implements ir.ParserHost.
func (b *builder) File() string { return b.file }

// ---- operations ----

func (b *builder) operation(ctx tirparser.IOperationContext) (*ir.Operation, error) {
	type resultName struct {
		name string
		n    int
		loc  ir.Location
	}
	var names []resultName
	total := 0
	for _, r := range ctx.AllOpResult() {
		n := 1
		if r.INT() != nil {
			fmt.Sscan(r.INT().GetText(), &n)
			if n < 1 {
				return nil, ir.Errorf(b.loc(r.INT().GetSymbol()), "result count must be positive")
			}
		}
		names = append(names, resultName{r.VALUE_ID().GetText()[1:], n, b.loc(r.VALUE_ID().GetSymbol())})
		total += n
	}
	var op *ir.Operation
	var err error
	// An op's location is its first token (the first result name if any).
	start := b.locOf(ctx)
	if g := ctx.GenericOp(); g != nil {
		op, err = b.genericOp(g, total, start)
	} else {
		// Ops in the regions of this one set their own names while they
		// are read.
		outer := b.resultNames
		b.resultNames = nil
		for _, rn := range names {
			for i := 0; i < rn.n; i++ {
				b.resultNames = append(b.resultNames, rn.name)
			}
		}
		op, err = b.customOp(ctx.CustomOp(), total, start)
		b.resultNames = outer
	}
	if err != nil {
		return nil, err
	}
	if len(names) > 0 && total != len(op.Results) {
		return nil, ir.Errorf(names[0].loc, "'%s' has %d results but %d are named", op.Name, len(op.Results), total)
	}
	k := 0
	for _, rn := range names {
		for i := 0; i < rn.n; i++ {
			name := rn.name
			if rn.n > 1 {
				name = fmt.Sprintf("%s#%d", rn.name, i)
			}
			v := op.Results[k]
			k++
			if err := b.define(name, v, rn.loc); err != nil {
				return nil, err
			}
			if rn.n > 1 {
				v.NameHint = ""
				if i == 0 {
					v.NameHint = rn.name
				}
			}
		}
	}
	return op, nil
}

func (b *builder) customOp(ctx tirparser.ICustomOpContext, numResults int, loc ir.Location) (*ir.Operation, error) {
	nameTok := ctx.OpName().GetStart()
	nameLoc := b.loc(nameTok)
	name := nameTok.GetText()
	switch name {
	case "module":
		name = "builtin.module"
	case "return", "call":
		d := "builtin"
		if n := len(b.dialects); n > 0 {
			d = b.dialects[n-1]
		}
		if ir.LookupOp(d+"."+name) == nil {
			return nil, ir.Errorf(nameLoc, "custom op '%s' is unknown (tried '%s.%s' as well)", name, d, name)
		}
		name = d + "." + name
	}
	b.dialects = append(b.dialects, defaultDialects[name])
	defer func() { b.dialects = b.dialects[:len(b.dialects)-1] }()
	def := ir.LookupOp(name)
	if def == nil {
		if near := ir.ClosestOp(name); near != "" {
			return nil, ir.Errorf(nameLoc, "unknown operation '%s'; did you mean '%s'?", name, near)
		}
		return nil, ir.Errorf(nameLoc, "unknown operation '%s' (ops of unregistered dialects must use the generic form \"%s\"(...))", name, name)
	}
	if def.Parse == nil {
		return nil, ir.Errorf(nameLoc, "'%s' has no custom form; write it in the generic form", name)
	}
	var items []ir.Item
	if s := ctx.STRING(); s != nil {
		text, err := unquote(s.GetText())
		if err != nil {
			return nil, ir.Errorf(b.loc(s.GetSymbol()), "%v", err)
		}
		items = append(items, ir.Item{Kind: ir.ItemString, Loc: b.loc(s.GetSymbol()), Text: text})
		after := ctx.AfterString()
		aloc := b.locOf(after)
		if sym := after.SYMBOL_REF(); sym != nil {
			path, err := symbolPath(sym.GetText())
			if err != nil {
				return nil, ir.Errorf(aloc, "%v", err)
			}
			items = append(items, ir.Item{Kind: ir.ItemSymbol, Loc: aloc, Text: path[0], Attr: ir.SymbolRef(path...)})
		} else {
			items = append(items, ir.Item{Kind: ir.ItemWord, Loc: aloc, Text: after.GetText()})
		}
	}
	if a := ctx.AngleWord(); a != nil {
		items = append(items, ir.Item{Kind: ir.ItemAngleWord, Loc: b.locOf(a), Text: a.Identifier().GetText()})
	}
	for _, c := range ctx.AllCustomItem() {
		its, err := b.items(c)
		if err != nil {
			return nil, err
		}
		items = append(items, its...)
	}
	st := &ir.OpState{Name: name, Loc: loc, NumResults: numResults}
	if err := def.Parse(ir.NewOpParser(b, nameLoc, items), st); err != nil {
		return nil, err
	}
	return b.finish(def, st)
}

// finish creates the op from the parsed state, infers missing result types
// and checks given ones against the inferred ones.
func (b *builder) finish(def *ir.OpDef, st *ir.OpState) (*ir.Operation, error) {
	n := def.NumResults
	if n < 0 {
		n = len(st.ResultTypes)
		if n == 0 {
			n = st.NumResults
		}
	}
	given := make([]ir.Type, n)
	if len(st.ResultTypes) > 0 {
		if len(st.ResultTypes) != n {
			return nil, ir.Errorf(st.Loc, "'%s' has %d results but %d result types are given", st.Name, n, len(st.ResultTypes))
		}
		copy(given, st.ResultTypes)
	}
	op := ir.NewOp(st.Name, st.Loc, st.Operands, given, st.Attrs)
	for _, r := range st.Regions {
		op.AdoptRegion(r)
	}
	op.Successors = st.Successors
	if def.Infer != nil {
		inferred, err := def.Infer(op)
		if err != nil {
			return nil, err
		}
		if inferred != nil {
			if len(inferred) != len(op.Results) {
				return nil, ir.Errorf(st.Loc, "'%s' infers %d results but has %d", st.Name, len(inferred), len(op.Results))
			}
			for i, t := range inferred {
				if given[i] != nil && !ir.TypeEqual(given[i], t) {
					return nil, ir.Errorf(st.Loc, "'%s' result type %s does not match the inferred type %s", st.Name, given[i], t)
				}
				op.Results[i].Type = t
			}
		}
	}
	for i, r := range op.Results {
		if r.Type == nil {
			return nil, ir.Errorf(st.Loc, "'%s' result #%d needs a type", st.Name, i)
		}
	}
	// An inferred type whose sizes overflow is an error here, at the op
	// that introduces it, before a later op reads it.
	if err := ir.CheckResultSizes(op); err != nil {
		return nil, err
	}
	return op, nil
}

func (b *builder) genericOp(ctx tirparser.IGenericOpContext, numResults int, loc ir.Location) (*ir.Operation, error) {
	name, err := unquote(ctx.STRING().GetText())
	if err != nil {
		return nil, ir.Errorf(loc, "%v", err)
	}
	var succs []*ir.Block
	if sl := ctx.SuccessorList(); sl != nil {
		for _, c := range sl.AllCARET_ID() {
			blk, err := b.ResolveBlock(c.GetText()[1:], b.loc(c.GetSymbol()))
			if err != nil {
				return nil, err
			}
			succs = append(succs, blk)
		}
	}
	var operands []*ir.Value
	if ul := ctx.ValueUseList(); ul != nil {
		for _, v := range ul.AllVALUE_ID() {
			val, err := b.ResolveValue(v.GetText()[1:], b.loc(v.GetSymbol()))
			if err != nil {
				return nil, err
			}
			operands = append(operands, val)
		}
	}
	ftCtx := ctx.FunctionType()
	ft, err := b.functionType(ftCtx)
	if err != nil {
		return nil, err
	}
	if len(ft.Inputs) != len(operands) {
		return nil, ir.Errorf(b.locOf(ftCtx), "'%s' has %d operands but its type lists %d", name, len(operands), len(ft.Inputs))
	}
	for i, v := range operands {
		if !ir.TypeEqual(v.Type, ft.Inputs[i]) {
			return nil, ir.Errorf(b.locOf(ftCtx), "operand #%d of '%s' has type %s, but the op's type says %s", i, name, v.Type, ft.Inputs[i])
		}
	}
	var attrs ir.DictAttr
	if d := ctx.DictAttr(); d != nil {
		b.declared = ft.Results
		a, err := b.dict(d)
		b.declared = nil
		if err != nil {
			return nil, err
		}
		attrs = a
	}
	st := &ir.OpState{Name: name, Loc: loc, Operands: operands, ResultTypes: ft.Results, NumResults: numResults, Attrs: attrs}
	for _, r := range ctx.AllRegion() {
		it := &ir.Item{Kind: ir.ItemRegion, Loc: b.locOf(r), Raw: r}
		reg, err := b.buildRegion(it, nil, nil, true)
		if err != nil {
			return nil, err
		}
		st.Regions = append(st.Regions, reg)
	}
	def := ir.LookupOp(name)
	if def == nil {
		if name == "" {
			return nil, ir.Errorf(loc, "an operation needs a name")
		}
		// A name without a dialect prefix ("foo") is an op of no
		// dialect, as mlir-opt --allow-unregistered-dialect reads it.
		op := ir.NewOp(name, loc, operands, ft.Results, attrs)
		for _, r := range st.Regions {
			op.AdoptRegion(r)
		}
		op.Successors = succs
		return op, nil
	}
	if def.NumResults >= 0 && len(ft.Results) != def.NumResults {
		return nil, ir.Errorf(loc, "'%s' has %d results, but its type lists %d", name, def.NumResults, len(ft.Results))
	}
	st.Successors = succs
	return b.finish(def, st)
}

// BuildRegion implements ir.ParserHost.
func (b *builder) BuildRegion(it *ir.Item, args []ir.RegionArg, labelTypes []ir.Type) (*ir.Region, error) {
	return b.buildRegion(it, args, labelTypes, false)
}

// buildRegion reads a region. A generic op's `{ }` is a region without
// blocks (generic is set); a custom op's always has an entry block. A
// region whose arguments the op declares may still start with an entry
// label without arguments (`^bb0:`), as MLIR prints a function whose entry
// block is a branch target.
func (b *builder) buildRegion(it *ir.Item, args []ir.RegionArg, labelTypes []ir.Type, generic bool) (*ir.Region, error) {
	ctx, ok := it.Raw.(tirparser.IRegionContext)
	if !ok {
		return nil, ir.Errorf(it.Loc, "expected a region")
	}
	b.scopes = append(b.scopes, map[string]*ir.Value{})
	defer func() { b.scopes = b.scopes[:len(b.scopes)-1] }()
	reg := &ir.Region{}
	blocks := ctx.AllBlock()
	entryOps := ctx.AllOperation()
	// Every labelled block exists before any op is read, so that branches
	// may refer to blocks further down.
	labels := map[string]*ir.Block{}
	b.blocks = append(b.blocks, labels)
	defer func() { b.blocks = b.blocks[:len(b.blocks)-1] }()
	var pre []*ir.Block
	for _, bc := range blocks {
		name := bc.BlockLabel().CARET_ID().GetText()[1:]
		if _, dup := labels[name]; dup {
			return nil, ir.Errorf(b.locOf(bc), "redefinition of block '^%s'", name)
		}
		blk := &ir.Block{}
		labels[name] = blk
		pre = append(pre, blk)
	}
	if args != nil && len(entryOps) == 0 && len(blocks) > 0 && len(blocks[0].BlockLabel().AllBlockArg()) == 0 {
		// `{ ^bb0: ops }`: the label names the entry block the op declared.
		entry := pre[0]
		reg.AdoptBlock(entry)
		for _, a := range args {
			v := entry.AddArg(a.Type, a.Name)
			if err := b.define(a.Name, v, a.Loc); err != nil {
				return nil, err
			}
		}
		if err := b.blockOps(entry, blocks[0].AllOperation()); err != nil {
			return nil, err
		}
		blocks, pre = blocks[1:], pre[1:]
	} else if args != nil || len(entryOps) > 0 || (len(blocks) == 0 && !generic) {
		if args != nil && len(entryOps) == 0 && len(blocks) > 0 {
			return nil, ir.Errorf(b.locOf(blocks[0]), "this region's arguments are declared by the operation; it cannot start with a block label")
		}
		entry := reg.AddBlock()
		for _, a := range args {
			v := entry.AddArg(a.Type, a.Name)
			if err := b.define(a.Name, v, a.Loc); err != nil {
				return nil, err
			}
		}
		if err := b.blockOps(entry, entryOps); err != nil {
			return nil, err
		}
	}
	for bi, bc := range blocks {
		blk := pre[bi]
		reg.AdoptBlock(blk)
		lab := bc.BlockLabel()
		for i, a := range lab.AllBlockArg() {
			name := a.VALUE_ID().GetText()[1:]
			var t ir.Type
			if a.Type_() != nil {
				var err error
				if t, err = b.typ(a.Type_()); err != nil {
					return nil, err
				}
			} else if bi == 0 && len(reg.Blocks) == 1 && i < len(labelTypes) && labelTypes[i] != nil {
				t = labelTypes[i]
			} else {
				return nil, ir.Errorf(b.loc(a.VALUE_ID().GetSymbol()), "the type of block argument '%%%s' cannot be inferred; write it", name)
			}
			if bi == 0 && len(reg.Blocks) == 1 && i < len(labelTypes) && labelTypes[i] != nil && !ir.TypeEqual(t, labelTypes[i]) {
				return nil, ir.Errorf(b.loc(a.VALUE_ID().GetSymbol()), "block argument '%%%s' has type %s, expected %s", name, t, labelTypes[i])
			}
			v := blk.AddArg(t, name)
			if err := b.define(name, v, b.loc(a.VALUE_ID().GetSymbol())); err != nil {
				return nil, err
			}
		}
		if bi == 0 && len(reg.Blocks) == 1 && labelTypes != nil && len(lab.AllBlockArg()) != len(labelTypes) {
			return nil, ir.Errorf(b.locOf(lab), "the region expects %d block arguments, got %d", len(labelTypes), len(lab.AllBlockArg()))
		}
		if err := b.blockOps(blk, bc.AllOperation()); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

func (b *builder) blockOps(blk *ir.Block, ops []tirparser.IOperationContext) error {
	for _, oc := range ops {
		op, err := b.operation(oc)
		if err != nil {
			return err
		}
		blk.Append(op)
	}
	return nil
}
