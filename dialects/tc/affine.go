package tc

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Index and bound expressions as size expressions. An access argument is
// affine when it is a sum of constant multiples of index variables and
// sizes plus a constant (spec 03: `a*v + b`); only such arguments resolve
// variables and become tir.view expressions. Anything else (a tensor read,
// a division, a product of two variables) is data-dependent or non-affine:
// it is read through tir.gather.

// linear returns the affine form of an index argument, index variables as
// tir.DimVar; ok is false when it is not affine.
func (b *body) linear(e Expr, isIndex func(string) bool) (sizeexpr.Expr, bool) {
	switch e := e.(type) {
	case *Num:
		return sizeexpr.Const(e.Int), !e.Float
	case *Name:
		if s, ok := b.sizes[e.ID]; ok {
			return s, isLinear(s)
		}
		if isIndex(e.ID) {
			return tir.DimVar(e.ID), true
		}
	case *DimSize:
		x, err := b.dimSize(e)
		return x, err == nil && isLinear(x)
	case *Unary:
		x, ok := b.linear(e.X, isIndex)
		switch e.Op {
		case "-":
			return sizeexpr.Neg(x), ok
		case "+":
			return x, ok
		}
	case *CallExpr:
		if x, ok := b.indexCast(e); ok {
			return b.linear(x, isIndex)
		}
	case *Binary:
		x, okx := b.linear(e.X, isIndex)
		y, oky := b.linear(e.Y, isIndex)
		if !okx || !oky {
			return sizeexpr.Expr{}, false
		}
		switch e.Op {
		case "+":
			return sizeexpr.Add(x, y), true
		case "-":
			return sizeexpr.Sub(x, y), true
		case "*":
			p, err := sizeexpr.MulExpr(x, y)
			return p, err == nil
		}
	}
	return sizeexpr.Expr{}, false
}

// indexCast returns the operand of a cast to a 32- or 64-bit integer type
// (`int32(i + 1)`): such a cast of an index expression changes no value
// an index can take, so the index is as affine as its operand.
func (b *body) indexCast(e *CallExpr) (Expr, bool) {
	if _, isTensor := b.vals[e.Fn.Name]; isTensor || len(e.Args) != 1 {
		return nil, false
	}
	t, ok := isCast(e)
	if it, isInt := t.(ir.IntegerType); !ok || !isInt || it.Width < 32 {
		return nil, false
	}
	return e.Args[0], true
}

func isLinear(e sizeexpr.Expr) bool {
	_, _, ok := e.Linear()
	return ok
}

// bound converts a `where` bound to a size expression: integers, sizes,
// T.k, + - * / % (by constants; / rounds toward negative infinity), and
// min/max. A tensor read is not allowed there (TC's own message), nor is
// an index variable (ranges are rectangular).
func (b *body) bound(e Expr, owner string) (sizeexpr.Expr, error) {
	switch e := e.(type) {
	case *Num:
		if e.Float {
			return sizeexpr.Expr{}, errorf(e.Loc, "a range bound must be an integer, not %s", e.Text())
		}
		return sizeexpr.Const(e.Int), nil
	case *Name:
		if s, ok := b.sizes[e.ID]; ok {
			return s, nil
		}
		if t, ok := b.vals[e.ID]; ok && len(t.typ().Dims) == 0 {
			return sizeexpr.Expr{}, errorf(e.Loc, "tensor accesses cannot be used in this context")
		}
		if _, ok := b.vals[e.ID]; ok || !b.isIndex(e.ID) {
			return sizeexpr.Expr{}, errorf(e.Loc, "'%s' in the range of '%s' is not a size of this function", e.ID, owner)
		}
		return sizeexpr.Expr{}, errorf(e.Loc, "the range of '%s' cannot depend on '%s': bounds are sizes and constants (ranges are rectangular)", owner, e.ID)
	case *DimSize:
		return b.dimSize(e)
	case *CallExpr:
		if _, ok := b.vals[e.Fn.Name]; ok {
			return sizeexpr.Expr{}, errorf(e.Loc, "tensor accesses cannot be used in this context")
		}
		if x, ok := b.indexCast(e); ok {
			return b.bound(x, owner)
		}
		if e.Fn.Name == "min" || e.Fn.Name == "max" {
			var args []sizeexpr.Expr
			for _, a := range e.Args {
				x, err := b.bound(a, owner)
				if err != nil {
					return x, err
				}
				args = append(args, x)
			}
			if len(args) < 2 {
				return sizeexpr.Expr{}, errorf(e.Loc, "builtin '%s' takes 2 or more arguments, got %d", e.Fn.Name, len(args))
			}
			if e.Fn.Name == "min" {
				return sizeexpr.MinOf(args...), nil
			}
			return sizeexpr.MaxOf(args...), nil
		}
	case *Unary:
		x, err := b.bound(e.X, owner)
		if err != nil {
			return x, err
		}
		switch e.Op {
		case "-":
			return sizeexpr.Neg(x), nil
		case "+":
			return x, nil
		}
	case *Binary:
		return b.boundBinary(e, owner)
	}
	return sizeexpr.Expr{}, errorf(e.Pos(), "%s is not a size expression (integers, sizes, T.k, + - * / %% by constants, min, max)", e.Text())
}

func (b *body) boundBinary(e *Binary, owner string) (sizeexpr.Expr, error) {
	x, err := b.bound(e.X, owner)
	if err != nil {
		return x, err
	}
	y, err := b.bound(e.Y, owner)
	if err != nil {
		return y, err
	}
	c, isConst := y.Const()
	var r sizeexpr.Expr
	switch e.Op {
	case "+":
		return sizeexpr.Add(x, y), nil
	case "-":
		return sizeexpr.Sub(x, y), nil
	case "*":
		r, err = sizeexpr.MulExpr(x, y)
	case "/":
		if !isConst {
			return r, errorf(e.Loc, "%s: a bound can only be divided by a constant", e.Text())
		}
		r, err = sizeexpr.FloorDiv(x, c)
	case "%":
		if !isConst {
			return r, errorf(e.Loc, "%s: a bound can only be taken modulo a constant", e.Text())
		}
		r, err = sizeexpr.Mod(x, c)
	default:
		return r, errorf(e.Loc, "%s is not a size expression", e.Text())
	}
	if err != nil {
		return r, errorf(e.Loc, "%s: %v", e.Text(), err)
	}
	return r, nil
}
