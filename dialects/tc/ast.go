package tc

import (
	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/ir"
)

// The syntax tree of a TC file. The ANTLR parse tree is converted into it
// once (parse.go) so that name resolution, range inference and IR
// construction work on small typed nodes with locations, and so that the
// importer can be tested without going through the grammar.

// Module is a TC file: its functions in source order.
type Module struct {
	Funcs []*Func
}

// Ident is a name with the place it is written.
type Ident struct {
	Name string
	Loc  ir.Location
}

// Func is `def name(params) -> (returns) { stmts }`.
type Func struct {
	Name    Ident
	Params  []*Param
	Returns []*Param // Type is nil for an untyped output
	Stmts   []Stmt
}

// Param is an argument `float(M, K) A` or `float c`, or an output.
type Param struct {
	Name Ident
	Type *TypeSpec
}

// TypeSpec is `float(M, K)` (Tensor true), `float()` (a 0-d tensor) or
// `float` (a scalar argument, read without parentheses).
type TypeSpec struct {
	Scalar Ident
	Tensor bool
	Sizes  []Size
}

// Size is one size of a tensor type: a size variable (`M`) or, when Const,
// an integer constant (`256`, whose text is Name).
type Size struct {
	Ident
	Const bool
	Value int64
}

// Stmt is an *Assign or a *Call.
type Stmt interface{ Pos() ir.Location }

// Assign is `T(i, j) op rhs where ...`. Op is "=", "+", "*", "min" or
// "max"; Init is the `!` of a reduction operator. Bare is true for a left
// side without parentheses (`S +=! A(i)`, `O = f(A)`).
type Assign struct {
	LHS     Ident
	Indices []Ident
	Bare    bool
	Op      string
	Init    bool
	OpLoc   ir.Location
	RHS     Expr
	Where   []*WhereItem
}

// Pos implements Stmt.
func (s *Assign) Pos() ir.Location { return s.LHS.Loc }

// Call is the TC function call `O1, O2 = f(A, B)`.
type Call struct {
	Outs   []Ident
	Callee Ident
	Args   []Ident
}

// Pos implements Stmt.
func (s *Call) Pos() ir.Location { return s.Outs[0].Loc }

// WhereItem is `v in lo:hi` (Lo and Hi set), `exists e` (Exists set) or
// the named expression `v = e` (Let set).
type WhereItem struct {
	Var    Ident
	Lo, Hi Expr
	Exists Expr
	Let    Expr
	Loc    ir.Location
}

// Expr is an expression node. Src is its source text, for messages.
type Expr interface {
	Pos() ir.Location
	Text() string
}

type node struct {
	Loc ir.Location
	Src string
	// src, when set, holds the source text instead of Src, read on demand:
	// the nodes of a chain `a + b + c + ...` each span the rest of it, so
	// copying every span would take time and memory quadratic in its
	// length.
	src *span
}

// span is a range of source characters.
type span struct {
	input       *antlr.InputStream
	start, stop int
}

func (n node) Pos() ir.Location { return n.Loc }

// Text is the node's source text.
func (n node) Text() string {
	if n.src != nil {
		return n.src.input.GetText(n.src.start, n.src.stop)
	}
	return n.Src
}

// Num is a literal; Float tells which of Int and F is meaningful.
type Num struct {
	node
	Float bool
	Int   int64
	F     float64
}

// Name is an identifier: an index variable, a size, a scalar argument or
// a 0-d tensor, decided by the importer.
type Name struct {
	node
	ID string
}

// DimSize is `T.k`, the size of dimension k of T.
type DimSize struct {
	node
	Tensor Ident
	Index  int
}

// CallExpr is `f(args)`: a tensor access or a builtin.
type CallExpr struct {
	node
	Fn   Ident
	Args []Expr
}

// Unary is `-x`, `+x` or `!x`.
type Unary struct {
	node
	Op string
	X  Expr
}

// Binary is `x op y` for the C binary operators.
type Binary struct {
	node
	Op   string
	X, Y Expr
}

// Cond is `c ? t : f`.
type Cond struct {
	node
	C, T, F Expr
}

// walk calls f on e and every sub-expression, pre-order; returning false
// skips the children.
func walk(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch e := e.(type) {
	case *CallExpr:
		for _, a := range e.Args {
			walk(a, f)
		}
	case *Unary:
		walk(e.X, f)
	case *Binary:
		walk(e.X, f)
		walk(e.Y, f)
	case *Cond:
		walk(e.C, f)
		walk(e.T, f)
		walk(e.F, f)
	}
}
