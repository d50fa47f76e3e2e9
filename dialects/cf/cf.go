// Package cf holds the one op of MLIR's cf dialect that TIR uses:
// cf.assert, the run-time checks the tir lowering places at function entry
// (conditions on sizes it could not prove at compile time). The LLVM
// lowering turns a failed assert into the function's error code.
package cf

import "tir/dialects/ir"

// NewAssert builds `cf.assert %ok, "msg"`.
func NewAssert(loc ir.Location, ok *ir.Value, msg string) *ir.Operation {
	return ir.NewOpOf(Assert, loc, []*ir.Value{ok}, nil, ir.DictAttr{}.With("msg", ir.StringAttr(msg)))
}

// directives are cf's pieces of syntax for its formats (ir.Format):
//
//	msg    the message string: attribute msg, set after the attr-dict's
//	       (the order MLIR's parser gives them)
var directives = ir.Directives{
	"msg": {
		Attrs: func(string) []string { return []string{AttrMsg} },
		Parse: func(c *ir.FormatParser, _ string) error {
			it := c.Next()
			if it == nil || it.Kind != ir.ItemString {
				return c.Errorf("expected the message string")
			}
			c.Defer(func() error {
				c.St.Attrs = c.St.Attrs.With(AttrMsg, ir.StringAttr(it.Text))
				return nil
			})
			return nil
		},
		Print: func(c *ir.FormatPrinter, _ string) {
			c.Space()
			msg, _ := c.Op.Attr(AttrMsg).(ir.StringAttr)
			c.Write(msg.String())
		},
	},
}

// Assert is cf.assert.
var Assert = &ir.OpDef{
	Name:        "cf.assert",
	Summary:     "check a run-time condition; the compiled function fails with the message when it is false",
	Syntax:      `cf.assert %ok, "message" {attributes}?`,
	NumOperands: 1, NumResults: 0, NumRegions: 0,
	// Other attributes follow as MLIR's attr-dict (the tir lowering's
	// tir.format and tir.values).
	Format: ir.NewFormat("$arg , msg attr-dict", directives, false),
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if !ir.TypeEqual(op.Operands[0].Type, ir.I1) {
			return ir.Errorf(op.Loc, "'cf.assert' condition must be i1, got %s", op.Operands[0].Type)
		}
		if _, ok := op.Attr("msg").(ir.StringAttr); !ok {
			return ir.Errorf(op.Loc, "'cf.assert' needs a msg string attribute")
		}
		return nil
	},
}
