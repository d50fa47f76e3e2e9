package ir

// Outside brackets (affine.parallel bounds in parentheses, the size
// expression of a tir.constant) the grammar hands custom forms flat items
// rather than expression trees; ItemExpr reads them back into ExprNode
// trees with MLIR's affine precedence: `*`, floordiv, ceildiv and mod bind
// tighter than `+` and `-`, and a prefix `-` applies to the operand right
// after it.

// ItemExpr reads one expression from the items ahead, up to the first item
// that cannot continue it.
func ItemExpr(p *OpParser) (*ExprNode, error) {
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
		kind := ExprAdd
		if op.Text == "-" {
			kind = ExprSub
		}
		lhs = &ExprNode{Kind: kind, Loc: op.Loc, Args: []*ExprNode{lhs, rhs}}
	}
	return lhs, nil
}

var mulOps = map[string]ExprKind{"floordiv": ExprFloorDiv, "ceildiv": ExprCeilDiv, "mod": ExprMod}

func itemTerm(p *OpParser) (*ExprNode, error) {
	lhs, err := itemUnary(p)
	if err != nil {
		return nil, err
	}
	for {
		it := p.Peek()
		var kind ExprKind
		switch {
		case p.IsPunct("*"):
			kind = ExprMul
		case it != nil && it.Kind == ItemWord && mulOps[it.Text] != 0:
			kind = mulOps[it.Text]
		default:
			return lhs, nil
		}
		p.Next()
		rhs, err := itemUnary(p)
		if err != nil {
			return nil, err
		}
		lhs = &ExprNode{Kind: kind, Loc: it.Loc, Args: []*ExprNode{lhs, rhs}}
	}
}

func itemUnary(p *OpParser) (*ExprNode, error) {
	if p.IsPunct("-") {
		loc := p.Next().Loc
		x, err := itemUnary(p)
		if err != nil {
			return nil, err
		}
		if x.Kind == ExprInt {
			return &ExprNode{Kind: ExprInt, Int: -x.Int, Loc: loc}, nil
		}
		return &ExprNode{Kind: ExprNeg, Loc: loc, Args: []*ExprNode{x}}, nil
	}
	it := p.Peek()
	if it == nil {
		return nil, p.Errorf("expected an affine expression")
	}
	switch it.Kind {
	case ItemInt:
		p.Next()
		return &ExprNode{Kind: ExprInt, Int: it.Int, Loc: it.Loc}, nil
	case ItemValue:
		p.Next()
		return &ExprNode{Kind: ExprValue, Name: it.Text, Loc: it.Loc}, nil
	case ItemParens:
		p.Next()
		sub := p.Sub(it)
		x, err := ItemExpr(sub)
		if err != nil {
			return nil, err
		}
		return x, sub.ExpectEnd()
	case ItemWord:
		if g := p.PeekAt(1); g != nil && g.Kind == ItemParens {
			p.Next()
			p.Next()
			args, err := ItemExprList(p.Sub(g))
			if err != nil {
				return nil, err
			}
			return &ExprNode{Kind: ExprCall, Name: it.Text, Loc: it.Loc, Args: args}, nil
		}
		p.Next()
		return &ExprNode{Kind: ExprName, Name: it.Text, Loc: it.Loc}, nil
	}
	return nil, p.Errorf("expected an affine expression")
}

// ItemExprList reads `e, e, ...` up to the end of the cursor.
func ItemExprList(p *OpParser) ([]*ExprNode, error) {
	var out []*ExprNode
	for !p.AtEnd() {
		x, err := ItemExpr(p)
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
