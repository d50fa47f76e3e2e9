package sizeexpr

import (
	"strconv"
	"strings"
)

// Printing is part of the canonical form: golden files show it, and Parse
// (and the dialect parser) read it back with the MLIR affine precedence:
// `*`, floordiv, ceildiv and mod bind tighter than `+` and `-`, are left
// associative, and a prefix `-` applies to the operand right after it. So
// a division with a non-atomic dividend is parenthesised, `(N + 1) floordiv
// 2`, a multiple of a division is `3*(N floordiv 2)`, and a leading negated
// division is `-(N floordiv 2)` (`-N floordiv 2` would be (-N) floordiv 2).

// String returns the canonical text of e, e.g. `2*N + M - 1`.
func (e Expr) String() string { return e.Format(nil) }

// Format returns the canonical text of e with each variable printed as
// name(v) (its own name when name is nil). The term order is that of the
// canonical form, independent of the printed names: Format is how affine
// maps print their dims and symbols as d0, s0.
func (e Expr) Format(name func(Var) string) string {
	if e.Overflowed() {
		return overflowText
	}
	var b strings.Builder
	writeSum(&b, e, name)
	return b.String()
}

func writeSum(b *strings.Builder, e Expr, name func(Var) string) {
	ts := e.terms()
	for i, t := range ts {
		k := t.k
		if i > 0 {
			if k < 0 {
				b.WriteString(" - ")
			} else {
				b.WriteString(" + ")
			}
		} else if k < 0 {
			b.WriteString("-")
		}
		div := t.a.op == OpFloorDiv || t.a.op == OpCeilDiv || t.a.op == OpMod
		if k != 1 && k != -1 {
			b.WriteString(absString(k))
			b.WriteString("*")
		}
		// `3*(N floordiv 2)` and a leading `-(N floordiv 2)` need
		// parentheses; ` - N floordiv 2` in the middle does not.
		paren := div && (k != 1 && k != -1 || (i == 0 && k < 0))
		if paren {
			b.WriteString("(")
		}
		writeAtom(b, t.a, name)
		if paren {
			b.WriteString(")")
		}
	}
	c := e.constant()
	switch {
	case len(ts) == 0:
		b.WriteString(strconv.FormatInt(c, 10))
	case c > 0:
		b.WriteString(" + ")
		b.WriteString(strconv.FormatInt(c, 10))
	case c < 0:
		b.WriteString(" - ")
		b.WriteString(absString(c))
	}
}

// overflowText is how an overflowed expression prints, in messages only
// (it never reaches printed IR: the verifier refuses it).
const overflowText = "<int64 overflow>"

// absString prints |k|, including for math.MinInt64.
func absString(k int64) string {
	return strings.TrimPrefix(strconv.FormatInt(k, 10), "-")
}

func formatAtom(a *atom, name func(Var) string) string {
	var b strings.Builder
	writeAtom(&b, a, name)
	return b.String()
}

func writeAtom(b *strings.Builder, a *atom, name func(Var) string) {
	switch a.op {
	case OpVar:
		if name != nil {
			b.WriteString(name(a.v))
		} else {
			b.WriteString(a.v.Name)
		}
	case OpMin, OpMax:
		b.WriteString(a.op.String())
		b.WriteString("(")
		for i, x := range a.args {
			if i > 0 {
				b.WriteString(", ")
			}
			writeSum(b, x, name)
		}
		b.WriteString(")")
	default:
		paren := !simpleOperand(a.x)
		if paren {
			b.WriteString("(")
		}
		writeSum(b, a.x, name)
		if paren {
			b.WriteString(")")
		}
		b.WriteString(" ")
		b.WriteString(a.op.String())
		b.WriteString(" ")
		b.WriteString(strconv.FormatInt(a.d, 10))
	}
}

// simpleOperand reports whether x prints as a primary expression (a
// variable or a min/max call) that needs no parentheses as a dividend.
func simpleOperand(x Expr) bool {
	a, ok := x.soleAtom()
	return ok && (a.op == OpVar || a.op == OpMin || a.op == OpMax)
}
