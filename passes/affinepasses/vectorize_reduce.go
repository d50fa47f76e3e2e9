package affinepasses

import (
	"math"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/vector"
)

// Reductions in affine-vectorize. An iter_arg %acc of the loop is a
// reduction the vector loop can carry as a vector of N partial results when
// the body uses it only to compute the value it yields, in one of the
// forms
//
//	%n = COMB %acc, %e          (or COMB %e, %acc)
//	%m = arith.select %c, %n, %acc   (or %c, %acc, %n: a masked element)
//
// with %e and %c computed from the iteration alone (the body's other ops;
// no other iter_arg reaches them, since every iter_arg's uses are these),
// and COMB one of
//
//   - arith.addi, muli, andi, ori, xori, minsi, maxsi, minui, maxui on
//     integers (wrap-around arithmetic: any order gives the same bits), and
//     arith.subi as %acc - %e (an add of -%e);
//   - arith.maxf and arith.minf (IEEE maximum and minimum: NaN propagates,
//     -0 < +0, so they are associative and commutative as well);
//   - arith.addf, mulf, and subf as %acc - %e, only with reassociate:
//     their rounding depends on the order, and the vector loop sums each
//     lane apart, then the lanes.
//
// Lane k of the accumulator starts at the kind's neutral element and
// combines the iterations i with i mod N = k; after the vector loop one
// vector.reduction folds the lanes and the initial value, and the
// remainder loop continues from there. Any other use of an iter_arg (a
// store of the running value, a compare, a second accumulator computed
// from it) leaves the loop scalar.

// reduction is one iter_arg of a loop being vectorized.
type reduction struct {
	arg  *ir.Value // the iter_arg (a block argument of the body)
	init *ir.Value // its initial value
	kind vector.CombiningKind
}

// combiners maps the ops that may combine an accumulator with an element
// to their kind; reassoc marks the float ones whose result depends on the
// order, subtract the ones that only take the accumulator first.
var combiners = map[*ir.OpDef]struct {
	kind              vector.CombiningKind
	reassoc, subtract bool
}{
	arith.AddI:  {kind: vector.KindAdd},
	arith.SubI:  {kind: vector.KindAdd, subtract: true},
	arith.MulI:  {kind: vector.KindMul},
	arith.AndI:  {kind: vector.KindAnd},
	arith.OrI:   {kind: vector.KindOr},
	arith.XOrI:  {kind: vector.KindXor},
	arith.MinSI: {kind: vector.KindMinSI},
	arith.MaxSI: {kind: vector.KindMaxSI},
	arith.MinUI: {kind: vector.KindMinUI},
	arith.MaxUI: {kind: vector.KindMaxUI},
	arith.MinF:  {kind: vector.KindMinF},
	arith.MaxF:  {kind: vector.KindMaxF},
	arith.AddF:  {kind: vector.KindAdd, reassoc: true},
	arith.SubF:  {kind: vector.KindAdd, reassoc: true, subtract: true},
	arith.MulF:  {kind: vector.KindMul, reassoc: true},
}

// reductions matches every iter_arg of loop as a reduction; false when one
// does not match (the loop then stays scalar).
func (v *vectorizer) reductions(loop *ir.Operation) ([]reduction, bool) {
	body := affine.ForBody(loop)
	yield := body.Terminator()
	inits := iterInits(loop)
	var out []reduction
	for j, a := range affine.IterArgs(loop) {
		if yield == nil || j >= len(yield.Operands) || !vectorElem(a.Type, false) {
			return nil, false
		}
		k, ok := v.matchReduction(body, a, yield.Operands[j])
		if !ok {
			return nil, false
		}
		out = append(out, reduction{arg: a, init: inits[j], kind: k})
	}
	return out, true
}

// matchReduction checks the forms of the comment above for the iter_arg a
// and the value y the body yields for it.
func (v *vectorizer) matchReduction(body *ir.Block, a, y *ir.Value) (vector.CombiningKind, bool) {
	d := y.DefiningOp()
	if d == nil || d.ParentBlock() != body || countUses(body, y) != 1 {
		return 0, false
	}
	comb := d
	if d.Is(arith.Select) {
		// A masked element: the select keeps the accumulator or takes the
		// combined value. a is used by both ops, once each.
		c, t, f := d.Operands[0], d.Operands[1], d.Operands[2]
		n := t
		if t == a {
			n = f
		} else if f != a {
			return 0, false
		}
		comb = n.DefiningOp()
		if c == a || n == a || comb == nil || comb.ParentBlock() != body || countUses(body, n) != 1 || countUses(body, a) != 2 {
			return 0, false
		}
	} else if countUses(body, a) != 1 {
		return 0, false
	}
	spec, ok := combiners[comb.Def]
	if !ok || len(comb.Operands) != 2 || len(comb.Results) != 1 || (spec.reassoc && !v.reassoc) {
		return 0, false
	}
	x, e := comb.Operands[0], comb.Operands[1]
	if x != a {
		if spec.subtract {
			return 0, false
		}
		x, e = e, x
	}
	if x != a || e == a {
		return 0, false
	}
	return spec.kind, true
}

// countUses counts the operands of the ops of b (nested ones included)
// that are v.
func countUses(b *ir.Block, v *ir.Value) int {
	n := 0
	for _, o := range b.Ops {
		o.Walk(func(w *ir.Operation) bool {
			for _, x := range w.Operands {
				if x == v {
					n++
				}
			}
			return true
		})
	}
	return n
}

// neutral is the value of type t that the kind leaves every element
// unchanged with: 0 for add, or, xor and maxui, 1 for mul, all ones for
// and and minui, the extreme signed values for minsi and maxsi, -0.0 for
// a float add, the infinities for maxf and minf.
func neutral(kind vector.CombiningKind, t ir.Type) ir.Attribute {
	if ir.IsFloat(t) {
		f := map[vector.CombiningKind]float64{vector.KindAdd: math.Copysign(0, -1), vector.KindMul: 1,
			vector.KindMaxF: math.Inf(-1), vector.KindMinF: math.Inf(1)}[kind]
		return ir.FloatAttr{Value: f, Type: t}
	}
	w := uint(t.(ir.IntegerType).Width)
	maxS := int64(uint64(1)<<(w-1) - 1) // 2^(w-1) - 1: 0 for i1
	var i int64
	switch kind {
	case vector.KindMul:
		i = 1
	case vector.KindAnd, vector.KindMinUI:
		i = -1
	case vector.KindMinSI:
		i = maxS
	case vector.KindMaxSI:
		i = -maxS - 1
	}
	if w == 1 {
		i &= 1 // i1 constants are 0 or 1 (false, true)
	}
	return ir.IntegerAttr{Value: i, Type: t}
}

// vectorConstant makes a vector of N copies of the scalar constant c
// (emit places the ops): a dense splat, or a vector.broadcast of a scalar
// constant for an infinity or a NaN, whose dense form the IR parser does
// not read back (docs/decisions.md).
func vectorConstant(loc ir.Location, c ir.Attribute, t ir.VectorType, emit func(*ir.Operation)) *ir.Value {
	if f, ok := c.(ir.FloatAttr); ok && (math.IsInf(f.Value, 0) || math.IsNaN(f.Value)) {
		s := arith.NewConstant(loc, c, t.Elem)
		emit(s)
		b := vector.NewBroadcast(loc, s.Results[0], t.Shape[0])
		emit(b)
		return b.Results[0]
	}
	op := arith.NewConstant(loc, ir.DenseElementsAttr{Type: t, Values: []ir.Attribute{c}}, t)
	emit(op)
	return op.Results[0]
}
