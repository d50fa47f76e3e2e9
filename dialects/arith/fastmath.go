package arith

import (
	"strings"

	"tir/dialects/ir"
)

// FastMathAttr is MLIR's #arith.fastmath<...> flag set. Float ops of arith
// and math always carry one (`none` by default), as in MLIR's generic form.
type FastMathAttr uint8

// The flags, in MLIR's bit order.
const (
	FastReassoc FastMathAttr = 1 << iota
	FastNNaN
	FastNInf
	FastNSZ
	FastARCP
	FastContract
	FastAFN
	FastNone FastMathAttr = 0
	FastAll               = FastReassoc | FastNNaN | FastNInf | FastNSZ | FastARCP | FastContract | FastAFN
)

var fastNames = []string{"reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"}

// Flags prints the flags as MLIR does: none, fast, or names joined by ','.
func (a FastMathAttr) Flags() string {
	switch a {
	case FastNone:
		return "none"
	case FastAll:
		return "fast"
	}
	var parts []string
	for i, n := range fastNames {
		if a&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, ",")
}

func (a FastMathAttr) String() string { return "#arith.fastmath<" + a.Flags() + ">" }

func parseFastMath(p *ir.OpParser) (ir.Attribute, error) {
	var a FastMathAttr
	for {
		w, loc, err := p.Keyword("a fastmath flag")
		if err != nil {
			return nil, err
		}
		switch w {
		case "none":
		case "fast":
			a |= FastAll
		default:
			i := indexOf(fastNames, w)
			if i < 0 {
				return nil, ir.Errorf(loc, "unknown fastmath flag '%s' (expected none, fast, %s)", w, strings.Join(fastNames, ", "))
			}
			a |= 1 << i
		}
		if !p.Punct(",") {
			break
		}
	}
	return a, p.ExpectEnd()
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func init() { ir.RegisterAttr("arith.fastmath", parseFastMath) }

var fastmathOps = map[string]bool{}

// HasFastMath reports whether the op (full name) carries a fastmath
// attribute.
func HasFastMath(name string) bool { return fastmathOps[name] }

// defaultFastMath adds `fastmath = none` when the (generic) input left it
// out, so both spellings give the same IR.
func defaultFastMath(op *ir.Operation) {
	if op.Attr("fastmath") == nil {
		op.SetAttr("fastmath", FastNone)
	}
}

// ParseFastMathFlags reads MLIR's custom spelling `fastmath<nnan,ninf>`
// if present (none otherwise).
func ParseFastMathFlags(p *ir.OpParser) (FastMathAttr, error) {
	it := p.Peek()
	if it == nil || it.Kind != ir.ItemAttr {
		return FastNone, nil
	}
	o, ok := it.Attr.(ir.OpaqueAttr)
	if !ok || o.Name != "fastmath" {
		return FastNone, nil
	}
	p.Next()
	var a FastMathAttr
	for _, w := range strings.Split(o.Body, ",") {
		switch w = strings.TrimSpace(w); w {
		case "none":
		case "fast":
			a |= FastAll
		default:
			i := indexOf(fastNames, w)
			if i < 0 {
				return a, ir.Errorf(it.Loc, "unknown fastmath flag '%s' (expected none, fast, %s)", w, strings.Join(fastNames, ", "))
			}
			a |= 1 << i
		}
	}
	return a, nil
}

// PrintFastMathFlags writes ` fastmath<...>` unless the flags are none.
func PrintFastMathFlags(p ir.OpPrinter, op *ir.Operation) {
	if a, ok := op.Attr("fastmath").(FastMathAttr); ok && a != FastNone {
		p.Write(" fastmath<" + a.Flags() + ">")
	}
}

func verifyFastMath(op *ir.Operation) error {
	if _, ok := op.Attr("fastmath").(FastMathAttr); !ok {
		return Errf(op, "needs a fastmath attribute (#arith.fastmath<none>)")
	}
	return nil
}
