package sizeexpr

import (
	"fmt"
	"strconv"
)

// Parse reads an expression of the spec 2.5 grammar, with the precedence
// the printer assumes (see print.go): `+` `-` lowest, then `*` floordiv
// ceildiv mod (left associative), then prefix `-`. Names are resolved by
// lookup, which decides whether a name is a size symbol or a dim; an
// unknown name is an error. It is meant for tests and tools: the dialect
// parser reads expressions with its own lexer.
func Parse(src string, lookup func(name string) (Expr, bool)) (Expr, error) {
	p := &parser{src: src, lookup: lookup}
	p.next()
	e, err := p.expr()
	if err != nil {
		return Expr{}, err
	}
	if p.tok != "" {
		return Expr{}, p.errorf("unexpected %q", p.tok)
	}
	if err := e.CheckOverflow(); err != nil {
		return Expr{}, err
	}
	return e, nil
}

type parser struct {
	src    string
	pos    int    // offset after tok
	tok    string // current token, "" at the end
	start  int    // offset of tok
	lookup func(string) (Expr, bool)
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("expression %q, column %d: %s", p.src, p.start+1, fmt.Sprintf(format, args...))
}

func isIdent(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

func (p *parser) next() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n') {
		p.pos++
	}
	p.start = p.pos
	if p.pos == len(p.src) {
		p.tok = ""
		return
	}
	c := p.src[p.pos]
	switch {
	case c >= '0' && c <= '9':
		for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
			p.pos++
		}
	case isIdent(c, true):
		for p.pos < len(p.src) && isIdent(p.src[p.pos], false) {
			p.pos++
		}
	default:
		p.pos++
	}
	p.tok = p.src[p.start:p.pos]
}

func (p *parser) expect(tok string) error {
	if p.tok != tok {
		return p.errorf("expected %q, found %q", tok, p.tok)
	}
	p.next()
	return nil
}

func (p *parser) expr() (Expr, error) {
	e, err := p.term()
	if err != nil {
		return Expr{}, err
	}
	for p.tok == "+" || p.tok == "-" {
		op := p.tok
		p.next()
		r, err := p.term()
		if err != nil {
			return Expr{}, err
		}
		if op == "+" {
			e = Add(e, r)
		} else {
			e = Sub(e, r)
		}
	}
	return e, nil
}

func (p *parser) term() (Expr, error) {
	e, err := p.unary()
	if err != nil {
		return Expr{}, err
	}
	for {
		op := p.tok
		switch op {
		case "*", "floordiv", "ceildiv", "mod":
		default:
			return e, nil
		}
		at := p.start
		p.next()
		r, err := p.unary()
		if err != nil {
			return Expr{}, err
		}
		if op == "*" {
			e, err = MulExpr(e, r)
		} else if r.Overflowed() {
			return Expr{}, p.errorf("integer overflow in the divisor of %s", op)
		} else {
			c, ok := r.Const()
			if !ok {
				p.start = at
				return Expr{}, p.errorf("the divisor of %s must be a constant", op)
			}
			switch op {
			case "floordiv":
				e, err = FloorDiv(e, c)
			case "ceildiv":
				e, err = CeilDiv(e, c)
			default:
				e, err = Mod(e, c)
			}
		}
		if err != nil {
			p.start = at
			return Expr{}, p.errorf("%v", err)
		}
	}
}

func (p *parser) unary() (Expr, error) {
	if p.tok == "-" {
		p.next()
		e, err := p.unary()
		return Neg(e), err
	}
	return p.primary()
}

func (p *parser) primary() (Expr, error) {
	tok := p.tok
	switch {
	case tok == "":
		return Expr{}, p.errorf("unexpected end of expression")
	case tok == "(":
		p.next()
		e, err := p.expr()
		if err != nil {
			return Expr{}, err
		}
		return e, p.expect(")")
	case tok[0] >= '0' && tok[0] <= '9':
		c, err := strconv.ParseInt(tok, 10, 64)
		if err != nil {
			return Expr{}, p.errorf("bad integer %q", tok)
		}
		p.next()
		return Const(c), nil
	case (tok == "min" || tok == "max") && p.pos < len(p.src) && p.peekParen():
		p.next()
		if err := p.expect("("); err != nil {
			return Expr{}, err
		}
		var args []Expr
		for {
			e, err := p.expr()
			if err != nil {
				return Expr{}, err
			}
			args = append(args, e)
			if p.tok != "," {
				break
			}
			p.next()
		}
		if err := p.expect(")"); err != nil {
			return Expr{}, err
		}
		if tok == "min" {
			return MinOf(args...), nil
		}
		return MaxOf(args...), nil
	case isIdent(tok[0], true):
		var e Expr
		ok := false
		if p.lookup != nil {
			e, ok = p.lookup(tok)
		}
		if !ok {
			return Expr{}, p.errorf("unknown name %q", tok)
		}
		p.next()
		return e, nil
	}
	return Expr{}, p.errorf("unexpected %q", tok)
}

// peekParen reports whether the next non-blank character is '('.
func (p *parser) peekParen() bool {
	for i := p.pos; i < len(p.src); i++ {
		switch p.src[i] {
		case ' ', '\t', '\n':
			continue
		case '(':
			return true
		}
		return false
	}
	return false
}
