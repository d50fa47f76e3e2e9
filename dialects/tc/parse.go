package tc

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/internal/limits"
	"tir/dialects/ir"
	"tir/grammar/tcparser"
)

// Parse reads TC source into a syntax tree. Syntax errors come back as
// located diagnostics (the first one only: later ones are mostly
// consequences of ANTLR's recovery); it never panics on bad input.
func Parse(file, src string) (*Module, ir.DiagList) {
	listener := &syntaxErrors{file: file}
	input := antlr.NewInputStream(src)
	lexer := tcparser.NewTCLexer(input)
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(listener)
	tokens := antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel)
	// Input nested too deeply is refused before the parse, whose time
	// would grow with the square of the depth (limits.MaxNesting).
	tokens.Fill()
	if d := limits.Nesting(file, tokens.GetAllTokens(), tcTokens()); d != nil {
		if len(listener.diags) > 0 && listener.diags[0].Loc.Line < d.Loc.Line {
			return nil, listener.diags[:1]
		}
		return nil, ir.DiagList{d}
	}
	p := tcparser.NewTCParser(tokens)
	p.RemoveErrorListeners()
	p.AddErrorListener(listener)
	tree := p.Module_()
	if len(listener.diags) > 0 {
		return nil, listener.diags[:1]
	}
	c := &converter{file: file, input: input}
	m := &Module{}
	for _, f := range tree.AllFunc_() {
		m.Funcs = append(m.Funcs, c.fn(f))
	}
	if len(c.diags) > 0 {
		return nil, c.diags
	}
	return m, nil
}

var (
	tcTokenOnce sync.Once
	tcTokenSets limits.Tokens
)

// tcTokens are the brackets and operators of the grammar for
// limits.Nesting, found by their spelling (the grammar's literal tokens
// have no names).
func tcTokens() limits.Tokens {
	tcTokenOnce.Do(func() {
		byText := map[string]int{}
		for i, n := range tcparser.NewTCParser(nil).GetLiteralNames() {
			if n != "" {
				byText[strings.Trim(n, "'")] = i
			}
		}
		set := func(texts ...string) map[int]bool {
			m := map[int]bool{}
			for _, t := range texts {
				if i, ok := byText[t]; ok {
					m[i] = true
				}
			}
			return m
		}
		tcTokenSets = limits.Tokens{
			Open:      set("(", "{"),
			Close:     set(")", "}"),
			Prefix:    set("-", "+", "!", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||"),
			Infix:     set("?", ":", "=", "+=", "*=", "min=", "max=", "+=!", "*=!", "min=!", "max=!", "->", "<=>"),
			Separator: set(","),
		}
	})
	return tcTokenSets
}

type syntaxErrors struct {
	*antlr.DefaultErrorListener
	file  string
	diags ir.DiagList
}

func (l *syntaxErrors) SyntaxError(_ antlr.Recognizer, _ interface{}, line, column int, msg string, _ antlr.RecognitionException) {
	l.diags = append(l.diags, ir.Errorf(ir.Location{File: l.file, Line: line, Col: column + 1}, "syntax error: %s", msg))
}

// converter turns the ANTLR parse tree into the syntax tree. Errors it can
// find without name resolution (a literal out of range) are collected.
type converter struct {
	file  string
	input *antlr.InputStream
	diags ir.DiagList
	// expDepth, expTerms and expRoot follow the expression being
	// converted (limits.MaxExprTerms).
	expDepth, expTerms int
	expRoot            ir.Location
}

func (c *converter) loc(t antlr.Token) ir.Location {
	return ir.Location{File: c.file, Line: t.GetLine(), Col: t.GetColumn() + 1}
}

func (c *converter) ident(t antlr.Token) Ident { return Ident{Name: t.GetText(), Loc: c.loc(t)} }

func (c *converter) idents(l tcparser.IIdListContext) []Ident {
	if l == nil {
		return nil
	}
	var out []Ident
	for _, id := range l.AllID() {
		out = append(out, c.ident(id.GetSymbol()))
	}
	return out
}

func (c *converter) node(ctx antlr.ParserRuleContext) node {
	start, stop := ctx.GetStart(), ctx.GetStop()
	if start == stop {
		return node{Loc: c.loc(start), Src: start.GetText()}
	}
	return node{Loc: c.loc(start), src: &span{c.input, start.GetStart(), stop.GetStop()}}
}

func (c *converter) fn(f tcparser.IFunc_Context) *Func {
	out := &Func{Name: c.ident(f.GetName())}
	if pl := f.ParamList(); pl != nil {
		for _, p := range pl.AllParam() {
			out.Params = append(out.Params, &Param{Name: c.ident(p.GetName()), Type: c.typeSpec(p.TypeSpec())})
		}
	}
	if rl := f.ReturnList(); rl != nil {
		for _, r := range rl.AllReturnItem() {
			p := &Param{Name: c.ident(r.GetName())}
			if ts := r.TypeSpec(); ts != nil {
				p.Type = c.typeSpec(ts)
			}
			out.Returns = append(out.Returns, p)
		}
	}
	for _, s := range f.AllStmt() {
		out.Stmts = append(out.Stmts, c.stmt(s))
	}
	return out
}

func (c *converter) typeSpec(ts tcparser.ITypeSpecContext) *TypeSpec {
	// A '(' after the scalar type makes a tensor, even with no sizes.
	out := &TypeSpec{Scalar: c.ident(ts.GetScalarType()), Tensor: ts.GetChildCount() > 1}
	if l := ts.GetSizes(); l != nil {
		for _, sz := range l.AllSize() {
			if id := sz.ID(); id != nil {
				out.Sizes = append(out.Sizes, Size{Ident: c.ident(id.GetSymbol())})
				continue
			}
			tok := sz.INT().GetSymbol()
			n, _ := c.number(node{Loc: c.loc(tok), Src: tok.GetText()}).(*Num)
			out.Sizes = append(out.Sizes, Size{Ident: c.ident(tok), Const: true, Value: n.Int})
		}
	}
	return out
}

func (c *converter) stmt(s tcparser.IStmtContext) Stmt {
	switch s := s.(type) {
	case *tcparser.CallStmtContext:
		st := &Call{Callee: c.ident(s.GetCallee()), Args: c.idents(s.GetArgs())}
		for _, o := range s.GetOuts() {
			st.Outs = append(st.Outs, c.ident(o))
		}
		return st
	case *tcparser.AssignStmtContext:
		op := s.AssignOp().GetStart()
		_, bare := s.GetChild(1).(tcparser.IAssignOpContext)
		st := &Assign{LHS: c.ident(s.GetLhs()), Indices: c.idents(s.GetIndices()), Bare: bare, OpLoc: c.loc(op), RHS: c.exp(s.GetRhs())}
		text := op.GetText()
		st.Init = strings.HasSuffix(text, "!")
		st.Op = strings.TrimSuffix(strings.TrimSuffix(text, "!"), "=")
		if st.Op == "" {
			st.Op = "="
		}
		if w := s.WhereClause(); w != nil {
			for _, it := range w.AllWhereItem() {
				st.Where = append(st.Where, c.whereItem(it))
			}
		}
		return st
	}
	panic(fmt.Sprintf("tc: unexpected statement %T", s))
}

func (c *converter) whereItem(it tcparser.IWhereItemContext) *WhereItem {
	switch it := it.(type) {
	case *tcparser.RangeItemContext:
		return &WhereItem{Var: c.ident(it.GetVar_()), Lo: c.exp(it.GetLo()), Hi: c.exp(it.GetHi()), Loc: c.loc(it.GetStart())}
	case *tcparser.ExistsItemContext:
		return &WhereItem{Exists: c.exp(it.Exp()), Loc: c.loc(it.GetStart())}
	case *tcparser.LetItemContext:
		return &WhereItem{Var: c.ident(it.GetName()), Let: c.exp(it.Exp()), Loc: c.loc(it.GetStart())}
	}
	panic(fmt.Sprintf("tc: unexpected where item %T", it))
}

// binaryCtx is what the labelled binary alternatives have in common.
type binaryCtx interface {
	antlr.ParserRuleContext
	Exp(int) tcparser.IExpContext
	GetOp() antlr.Token
}

// exp converts an expression of at most limits.MaxExprTerms terms; a
// larger one is reported once and replaced by 0.
func (c *converter) exp(e tcparser.IExpContext) Expr {
	if c.expDepth == 0 {
		c.expTerms = 0
	}
	if c.expTerms++; c.expTerms > limits.MaxExprTerms {
		if c.expTerms == limits.MaxExprTerms+1 {
			c.diags = append(c.diags, limits.ExprError(c.expRoot, limits.MaxExprTerms))
		}
		return &Num{node: node{Loc: c.loc(e.GetStart()), Src: "0"}}
	}
	if c.expDepth == 0 {
		c.expRoot = c.loc(e.GetStart())
	}
	c.expDepth++
	defer func() { c.expDepth-- }()
	return c.expNode(e)
}

func (c *converter) expNode(e tcparser.IExpContext) Expr {
	n := c.node(e)
	switch e := e.(type) {
	case *tcparser.ParenExpContext:
		return c.exp(e.Exp())
	case *tcparser.CallExpContext:
		x := &CallExpr{node: n, Fn: c.ident(e.GetName())}
		for _, a := range e.AllExp() {
			x.Args = append(x.Args, c.exp(a))
		}
		return x
	case *tcparser.DimExpContext:
		k, err := strconv.Atoi(e.DOT_INT().GetText()[1:])
		if err != nil {
			c.diags = append(c.diags, ir.Errorf(c.loc(e.DOT_INT().GetSymbol()), "dimension index %s is too large", e.DOT_INT().GetText()[1:]))
		}
		return &DimSize{node: n, Tensor: c.ident(e.GetName()), Index: k}
	case *tcparser.IdExpContext:
		return &Name{node: n, ID: e.GetText()}
	case *tcparser.NumExpContext:
		return c.number(n)
	case *tcparser.UnaryExpContext:
		return &Unary{node: n, Op: e.GetOp().GetText(), X: c.exp(e.Exp())}
	case *tcparser.CondExpContext:
		return &Cond{node: n, C: c.exp(e.Exp(0)), T: c.exp(e.Exp(1)), F: c.exp(e.Exp(2))}
	case binaryCtx:
		return &Binary{node: n, Op: e.GetOp().GetText(), X: c.exp(e.Exp(0)), Y: c.exp(e.Exp(1))}
	}
	panic(fmt.Sprintf("tc: unexpected expression %T", e))
}

// number reads a C literal: decimal, octal (leading 0) or hexadecimal
// integers with u/l suffixes, floats with an f/l suffix (the suffix does
// not change the type: a literal takes the type its context needs).
func (c *converter) number(n node) Expr {
	text := n.Text()
	if isFloatLiteral(text) {
		f, err := strconv.ParseFloat(strings.TrimRight(text, "fFlL"), 64)
		if err != nil || math.IsInf(f, 0) {
			c.diags = append(c.diags, ir.Errorf(n.Loc, "floating-point literal %s is out of range", text))
		}
		return &Num{node: n, Float: true, F: f}
	}
	v, err := strconv.ParseInt(strings.TrimRight(text, "uUlL"), 0, 64)
	if err != nil {
		c.diags = append(c.diags, ir.Errorf(n.Loc, "integer literal %s does not fit in 64 bits", text))
	}
	return &Num{node: n, Int: v}
}

func isFloatLiteral(s string) bool {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return false
	}
	return strings.ContainsAny(s, ".eEfF")
}
