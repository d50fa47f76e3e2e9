package arith

import "tir/dialects/ir"

// OptionalBareDict reads the `{...}` dictionary MLIR's custom forms print
// for attributes their syntax does not spell (attr-dict), if present.
func OptionalBareDict(p *ir.OpParser) (ir.DictAttr, error) {
	it := p.Peek()
	if it == nil || !(it.Kind == ir.ItemBareDict || it.Kind == ir.ItemRegion && it.Attr != nil) {
		return nil, nil
	}
	p.Next()
	d, _ := it.Attr.(ir.DictAttr)
	return d, nil
}

// extendedOp defines the two-result integer ops of MLIR 16:
// `%sum, %overflow = arith.addui_extended %a, %b : i64, i1` and
// `%low, %high = arith.mulsi_extended %a, %b : i32`.
func extendedOp(name, summary string, carry bool) *ir.OpDef {
	syntax := "%low, %high = " + name + " %a, %b : T"
	if carry {
		syntax = "%sum, %overflow = " + name + " %a, %b : T, i1"
	}
	second := func(t ir.Type) ir.Type {
		if carry {
			return WithElem(t, ir.I1)
		}
		return t
	}
	return &ir.OpDef{
		Name: name, Summary: summary, Syntax: syntax, Traits: ir.TraitPure,
		NumOperands: 2, NumResults: 2, NumRegions: 0,
		Format:       Format(map[bool]string{false: "$lhs , $rhs attr-dict : pair-of($lhs,$rhs)", true: "$lhs , $rhs attr-dict : carry-of($lhs,$rhs)"}[carry]),
		NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			t := op.Operands[0].Type
			if !IsSignlessInt(t) || !ir.TypeEqual(op.Operands[1].Type, t) || !ir.TypeEqual(op.Results[0].Type, t) || !ir.TypeEqual(op.Results[1].Type, second(t)) {
				return Errf(op, "expects integer operands and results of one type (and %s for the overflow)", second(t))
			}
			return nil
		},
	}
}

// The two-result integer ops (see Ops for the naming rule).
var (
	AddUIExtended = extendedOp("arith.addui_extended", "add with the unsigned carry as a second result", true)
	MulUIExtended = extendedOp("arith.mului_extended", "full unsigned product as low and high halves", false)
	MulSIExtended = extendedOp("arith.mulsi_extended", "full signed product as low and high halves", false)
)
