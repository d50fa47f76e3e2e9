package emit

import (
	"fmt"
	"strings"

	"tir/dialects/sizeexpr"
)

// cExpr prints a size expression as a C expression of int64_t values whose
// variables are named by name; floordiv, ceildiv and mod (by positive
// constants) call the helpers of cHelpers, min and max too.
func cExpr(e sizeexpr.Expr, name func(sizeexpr.Var) string) string {
	if c, ok := e.Const(); ok {
		return cInt(c)
	}
	terms, c := e.Terms()
	var parts []string
	for i, t := range terms {
		a := cAtom(t.Atom, name)
		switch {
		case t.Coef == 1 && i == 0:
			parts = append(parts, a)
		case t.Coef == 1:
			parts = append(parts, "+ "+a)
		case t.Coef == -1 && i == 0:
			parts = append(parts, "-"+a)
		case t.Coef == -1:
			parts = append(parts, "- "+a)
		case t.Coef < 0 && i > 0:
			parts = append(parts, fmt.Sprintf("- %s * %s", cInt(-t.Coef), a))
		case i == 0:
			parts = append(parts, fmt.Sprintf("%s * %s", cInt(t.Coef), a))
		default:
			parts = append(parts, fmt.Sprintf("+ %s * %s", cInt(t.Coef), a))
		}
	}
	switch {
	case c > 0:
		parts = append(parts, "+ "+cInt(c))
	case c < 0:
		parts = append(parts, "- "+cInt(-c))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, " ") + ")"
}

func cAtom(a sizeexpr.Atom, name func(sizeexpr.Var) string) string {
	switch a.Op() {
	case sizeexpr.OpVar:
		return name(a.Var())
	case sizeexpr.OpMin, sizeexpr.OpMax:
		f := "tir_min"
		if a.Op() == sizeexpr.OpMax {
			f = "tir_max"
		}
		args := a.Args()
		acc := cExpr(args[0], name)
		for _, x := range args[1:] {
			acc = fmt.Sprintf("%s(%s, %s)", f, acc, cExpr(x, name))
		}
		return acc
	}
	f := map[sizeexpr.Op]string{sizeexpr.OpFloorDiv: "tir_floordiv", sizeexpr.OpCeilDiv: "tir_ceildiv", sizeexpr.OpMod: "tir_mod"}[a.Op()]
	return fmt.Sprintf("%s(%s, %s)", f, cExpr(a.Operand(), name), cInt(a.Divisor()))
}

// cInt prints an int64_t constant (INT64_MIN has no literal).
func cInt(c int64) string {
	if c == -1<<63 {
		return "INT64_MIN"
	}
	return fmt.Sprintf("%dLL", c)
}

// cHelpers are the integer helpers cExpr and the host code use: division
// rounding toward negative (floordiv) or positive (ceildiv) infinity and a
// non-negative remainder, as affine maps and MLIR's arith define them.
const cHelpers = `static inline int64_t tir_floordiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline int64_t tir_ceildiv(int64_t a, int64_t b) { int64_t q = a / b; return (a % b != 0 && ((a < 0) == (b < 0))) ? q + 1 : q; }
static inline int64_t tir_mod(int64_t a, int64_t b) { int64_t r = a % b; return r < 0 ? r + b : r; }
static inline int64_t tir_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t tir_max(int64_t a, int64_t b) { return a > b ? a : b; }
`

// cString quotes s as a C string literal.
func cString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			// Octal escapes take at most three digits, so a following
			// digit is never swallowed.
			fmt.Fprintf(&b, `\%03o`, c)
		case c == '?':
			// Avoid trigraphs (??=).
			b.WriteString(`\?`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
