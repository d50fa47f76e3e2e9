// Package limits bounds what the parsers accept, so that no input (tc-opt
// is specified for inputs up to 1 MB) makes them hang, exhaust memory or
// overflow the stack: input nested deeper than MaxNesting, or an
// expression with more than MaxExprTerms terms, is refused with a located
// diagnostic.
//
// Nesting is measured on the tokens, before the parse: ANTLR's adaptive
// prediction may look ahead over a whole nested construct (to tell
// `(...) = x` from `(...)`), simulating every level on its own stack, so
// its time grows with the square of the depth (8,000 unary minus signs in
// a type took minutes, 100,000 `:` items hours). Every later recursive
// walk (builder, verifier, passes, printer) follows the same depth.
package limits

import (
	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/ir"
)

// MaxNesting is the deepest nesting the parsers accept: brackets of every
// kind, regions, and chains of prefix operators or bindings, each link a
// level (see Tokens). The deepest file of the tests and of the upstream
// MLIR corpus needs fewer than 20.
const MaxNesting = 256

// MaxExprTerms is the largest number of terms (operands and operators)
// of one expression of a .tc file (a right-hand side, a where clause).
const MaxExprTerms = 50000

// MaxSizeExprTerms is the largest number of terms (operands and
// operators) of one size or affine expression of a .tir file: simplifying
// a sum takes time that grows with the square of its number of distinct
// symbols.
const MaxSizeExprTerms = 2000

// NestingError is the diagnostic of an input nested too deeply.
func NestingError(loc ir.Location) *ir.Diagnostic {
	return ir.Errorf(loc, "nesting too deep: more than %d levels of brackets, regions, prefix operators or bindings (a limit of the parser)", MaxNesting)
}

// ExprError is the diagnostic of an expression with more than max terms.
func ExprError(loc ir.Location, max int) *ir.Diagnostic {
	return ir.Errorf(loc, "expression too large: more than %d terms (operands and operators; a limit of the parser)", max)
}

// Tokens classifies the token types of a grammar for Nesting.
type Tokens struct {
	// Open and Close are brackets: ( [ { < and their closers.
	Open, Close map[int]bool
	// Prefix tokens nest what follows them when they follow an operator
	// or an opening bracket (unary minus, `: : x`, `, , x`); after an
	// operand they are binary and start a sibling operand (`a - b`,
	// `%a, %b`).
	Prefix map[int]bool
	// Infix tokens nest what follows them one level below the operand
	// they follow (`%a = %b = %c`, `() -> () -> ()`, `a ? b : c ? d : e`).
	Infix map[int]bool
	// Separators (`,`) after an operand start the next element of a list
	// at the bracket's own level (`{a = 1, b = 2}`, `f(x ? y : z, w)`);
	// after an operator they nest like prefix tokens (`, , x`).
	Separator map[int]bool
}

// Nesting measures the nesting of a token sequence and returns the
// diagnostic of the first token nested deeper than MaxNesting, or nil.
//
// Each bracket level holds a chain depth: operands follow each other at
// depth 0; a prefix token after an operator, or an infix token, takes the
// next operand one level deeper; a prefix token after an operand starts a
// sibling at the operand's depth, a separator one at depth 0; an operand
// right after an operand
// starts over at 0 (the next item of an op, the next statement), a
// bracket right after one belongs to it (a call, `A(i)`). A bracket adds
// one level plus the chain depth where it opens. This
// bounds, up to a small factor, every recursion of the grammars' rules.
func Nesting(file string, toks []antlr.Token, k Tokens) *ir.Diagnostic {
	_, d := nesting(file, toks, k)
	return d
}

// Depth is the deepest nesting of a token sequence, as Nesting measures
// it.
func Depth(toks []antlr.Token, k Tokens) int {
	max, _ := nesting("", toks, k)
	return max
}

func nesting(file string, toks []antlr.Token, k Tokens) (int, *ir.Diagnostic) {
	// Per bracket level: chain, the current depth; item, the depth of the
	// last operand; expr, the depth of the expression it ends (before its
	// prefix operators), where a binary operator continues; opStart, the
	// depth where the next operand's prefix operators start.
	type level struct{ chain, item, expr, opStart, base int }
	var stack []level
	var cur level
	const (
		start = iota
		operator
		operand
	)
	prev, max := start, 0
	for _, t := range toks {
		tt := t.GetTokenType()
		switch {
		case tt == antlr.TokenEOF:
			return max, nil
		case k.Close[tt]:
			if n := len(stack); n > 0 {
				cur = stack[n-1]
				stack = stack[:n-1]
			}
			prev = operand
			continue
		case k.Separator[tt]:
			if prev == operand {
				cur.chain, cur.opStart = 0, 0
			} else {
				cur.chain++
			}
			prev = operator
		case k.Prefix[tt]:
			if prev == operand {
				cur.chain = cur.expr
				cur.opStart = cur.chain
			} else {
				cur.chain++
			}
			prev = operator
		case k.Infix[tt]:
			if prev == operand {
				cur.chain = cur.item + 1
				cur.opStart = cur.chain
			} else {
				cur.chain++
			}
			prev = operator
		default: // an operand, or an opening bracket
			switch {
			case prev != operand:
				cur.item, cur.expr = cur.chain, cur.opStart
			case !k.Open[tt]: // the next item, statement, ...
				cur = level{base: cur.base}
			} // else a call: `A(i)` belongs to A
			prev = operand
			if k.Open[tt] {
				stack = append(stack, cur)
				cur = level{base: cur.base + cur.chain + 1}
				prev = start
			}
		}
		if d := cur.base + cur.chain; d > max {
			max = d
			if d > MaxNesting && file != "" {
				return max, NestingError(ir.Location{File: file, Line: t.GetLine(), Col: t.GetColumn() + 1})
			}
		}
	}
	return max, nil
}

// Set makes a token set.
func Set(types ...int) map[int]bool {
	m := map[int]bool{}
	for _, t := range types {
		m[t] = true
	}
	return m
}
