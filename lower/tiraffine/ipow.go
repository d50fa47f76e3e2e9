package tiraffine

import (
	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// intPow is integer x**y (spec 2.7 is silent; docs/decisions.md): square
// and multiply with wrapping multiplication over the bits of |y|, in an
// affine.for with a constant trip count (width - 1 steps: the bits below
// the sign). A negative exponent is the integer part of 1 / x**-y: 1 for
// x = 1, ±1 for x = -1 (the parity of y), and 0 for every other x — zero
// included, as a division by zero gives 0. The interpreter (ipow) computes
// the same.
func intPow(b builder, x, y *ir.Value, t ir.Type) *ir.Value {
	it := t.(ir.IntegerType)
	c := func(v int64) *ir.Value { return b.constant(ir.IntegerAttr{Value: v, Type: t}, t) }
	if it.Width == 1 {
		// i1 exponents are 0 or 1 (a bit): x**1 = x, x**0 = 1.
		return b.value(arith.Select, []*ir.Value{y, x, c(1)}, t, nil)
	}
	neg := cmpi(b, cmpiSLT, y, c(0))
	// |y|, wrapping: the most negative exponent has no bit below the sign
	// set, and is even, as its parity says.
	e := b.value(arith.Select, []*ir.Value{neg, b.value(arith.SubI, []*ir.Value{c(0), y}, t, nil), y}, t, nil)
	steps := ir.AffineMap{Results: []sizeexpr.Expr{sizeexpr.Const(int64(it.Width - 1))}}
	loop, body := b.affineForIter(ir.AffineMap{Results: []sizeexpr.Expr{sizeexpr.Const(0)}}, nil, steps, nil, []*ir.Value{c(1), x})
	args := loop.Regions[0].Entry().Args
	k, r, base := args[0], args[1], args[2]
	kt := body.value(arith.IndexCast, []*ir.Value{k}, t, nil)
	shifted := body.value(arith.ShRSI, []*ir.Value{e, kt}, t, nil)
	one := body.constant(ir.IntegerAttr{Value: 1, Type: t}, t)
	bit := body.value(arith.AndI, []*ir.Value{shifted, one}, t, nil)
	set := cmpi(body, cmpiNE, bit, body.constant(ir.IntegerAttr{Value: 0, Type: t}, t))
	rm := body.value(arith.MulI, []*ir.Value{r, base}, t, nil)
	r2 := body.value(arith.Select, []*ir.Value{set, rm, r}, t, nil)
	b2 := body.value(arith.MulI, []*ir.Value{base, base}, t, nil)
	body.op(affine.Yield, []*ir.Value{r2, b2}, nil, nil)
	p := loop.Results[0]
	// A negative exponent keeps x**|y| only for x = ±1.
	unit := b.value(arith.OrI, []*ir.Value{cmpi(b, cmpiEQ, x, c(1)), cmpi(b, cmpiEQ, x, c(-1))}, ir.I1, nil)
	zeroOut := b.value(arith.AndI, []*ir.Value{neg, b.value(arith.XOrI, []*ir.Value{unit, b.constant(ir.IntegerAttr{Value: 1, Type: ir.I1}, ir.I1)}, ir.I1, nil)}, ir.I1, nil)
	return b.value(arith.Select, []*ir.Value{zeroOut, c(0), p}, t, nil)
}
