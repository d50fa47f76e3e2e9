package affine

import (
	"tir/dialects/ir"
)

// Inside parentheses (affine.parallel bounds) the grammar hands custom forms
// flat items rather than expression trees; this reads them back into
// ir.ExprNode trees with MLIR's affine precedence: `*`, floordiv, ceildiv and
// mod bind tighter than `+` and `-`, and a prefix `-` applies to the operand
// right after it.

func itemExpr(p *ir.OpParser) (*ir.ExprNode, error) {
	lhs, err := itemTerm(p)
	if err != nil {
		return nil, err
	}
	for p.IsPunct("+") || p.IsPunct("-") {
		op := p.Next()
		rhs, err := itemTerm(p)
		if err != nil {
			return nil, err
		}
		kind := ir.ExprAdd
		if op.Text == "-" {
			kind = ir.ExprSub
		}
		lhs = &ir.ExprNode{Kind: kind, Loc: op.Loc, Args: []*ir.ExprNode{lhs, rhs}}
	}
	return lhs, nil
}

var mulOps = map[string]ir.ExprKind{"floordiv": ir.ExprFloorDiv, "ceildiv": ir.ExprCeilDiv, "mod": ir.ExprMod}

func itemTerm(p *ir.OpParser) (*ir.ExprNode, error) {
	lhs, err := itemUnary(p)
	if err != nil {
		return nil, err
	}
	for {
		it := p.Peek()
		var kind ir.ExprKind
		switch {
		case p.IsPunct("*"):
			kind = ir.ExprMul
		case it != nil && it.Kind == ir.ItemWord && mulOps[it.Text] != 0:
			kind = mulOps[it.Text]
		default:
			return lhs, nil
		}
		p.Next()
		rhs, err := itemUnary(p)
		if err != nil {
			return nil, err
		}
		lhs = &ir.ExprNode{Kind: kind, Loc: it.Loc, Args: []*ir.ExprNode{lhs, rhs}}
	}
}

func itemUnary(p *ir.OpParser) (*ir.ExprNode, error) {
	if p.IsPunct("-") {
		loc := p.Next().Loc
		x, err := itemUnary(p)
		if err != nil {
			return nil, err
		}
		if x.Kind == ir.ExprInt {
			return &ir.ExprNode{Kind: ir.ExprInt, Int: -x.Int, Loc: loc}, nil
		}
		return &ir.ExprNode{Kind: ir.ExprNeg, Loc: loc, Args: []*ir.ExprNode{x}}, nil
	}
	it := p.Peek()
	if it == nil {
		return nil, p.Errorf("expected an affine expression")
	}
	switch it.Kind {
	case ir.ItemInt:
		p.Next()
		return &ir.ExprNode{Kind: ir.ExprInt, Int: it.Int, Loc: it.Loc}, nil
	case ir.ItemValue:
		p.Next()
		return &ir.ExprNode{Kind: ir.ExprValue, Name: it.Text, Loc: it.Loc}, nil
	case ir.ItemParens:
		p.Next()
		sub := p.Sub(it)
		x, err := itemExpr(sub)
		if err != nil {
			return nil, err
		}
		return x, sub.ExpectEnd()
	case ir.ItemWord:
		if g := p.PeekAt(1); g != nil && g.Kind == ir.ItemParens {
			p.Next()
			p.Next()
			args, err := itemExprList(p.Sub(g))
			if err != nil {
				return nil, err
			}
			return &ir.ExprNode{Kind: ir.ExprCall, Name: it.Text, Loc: it.Loc, Args: args}, nil
		}
	}
	return nil, p.Errorf("expected an affine expression")
}

// itemExprList reads `e, e, ...` up to the end of the cursor.
func itemExprList(p *ir.OpParser) ([]*ir.ExprNode, error) {
	var out []*ir.ExprNode
	for !p.AtEnd() {
		x, err := itemExpr(p)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
		if !p.Punct(",") {
			break
		}
	}
	return out, p.ExpectEnd()
}
