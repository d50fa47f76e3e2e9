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

// Assert is cf.assert.
var Assert = &ir.OpDef{
	Name:        "cf.assert",
	Summary:     "check a run-time condition; the compiled function fails with the message when it is false",
	Syntax:      `cf.assert %ok, "message" {attributes}?`,
	NumOperands: 1, NumResults: 0, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		v, err := p.Operand()
		if err != nil {
			return err
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		it := p.Next()
		if it == nil || it.Kind != ir.ItemString {
			return p.Errorf("expected the message string")
		}
		st.Operands = []*ir.Value{v}
		// Other attributes follow as MLIR's attr-dict (the tir
		// lowering's tir.format and tir.values).
		extra, err := p.OptionalTrailingAttrDict()
		if err != nil {
			return err
		}
		st.Attrs = append(st.Attrs, extra...).With("msg", ir.StringAttr(it.Text))
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" ")
		p.Value(op.Operands[0])
		msg, _ := op.Attr("msg").(ir.StringAttr)
		p.Write(", " + msg.String())
		if extra := op.Attrs.Without("msg"); len(extra) > 0 {
			p.Write(" ")
			p.Attr(extra)
		}
	},
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
