package sizeexpr

import (
	"fmt"
	"sort"
)

// This file holds the constructors. Each one takes canonical operands and
// returns a canonical result, so canonical form is an invariant of every
// Expr value and Equal can be structural.

func atomExpr(a *atom) Expr { return Expr{&sum{terms: []term{{a: a, k: 1}}}} }

func mkSum(terms []term, c int64) Expr {
	if len(terms) == 0 && c == 0 {
		return Expr{}
	}
	return Expr{&sum{terms: terms, c: c}}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpAtom is the canonical order of atoms: variables first, by cmpVar; then
// non-linear atoms by canonical text, ties (only possible between distinct
// variables sharing a name) broken structurally so the order is total.
func cmpAtom(a, b *atom) int {
	if a == b {
		return 0
	}
	av, bv := a.op == OpVar, b.op == OpVar
	switch {
	case av && bv:
		return cmpVar(a.v, b.v)
	case av:
		return -1
	case bv:
		return 1
	}
	if a.key != b.key {
		if a.key < b.key {
			return -1
		}
		return 1
	}
	if c := cmpInt(int64(a.op), int64(b.op)); c != 0 {
		return c
	}
	if c := cmpInt(a.d, b.d); c != 0 {
		return c
	}
	if c := cmpExpr(a.x, b.x); c != 0 {
		return c
	}
	if c := cmpInt(int64(len(a.args)), int64(len(b.args))); c != 0 {
		return c
	}
	for i := range a.args {
		if c := cmpExpr(a.args[i], b.args[i]); c != 0 {
			return c
		}
	}
	return 0
}

// cmpExpr is a total order on canonical expressions, used to sort min/max
// arguments: the term lists are compared lexicographically (atom by
// cmpAtom, then coefficient), an expression whose terms run out first sorts
// after (as the constant comes last in a sum), then constants are compared.
// So min(N, M) keeps declaration order and max(N - 1, 0) puts 0 last.
func cmpExpr(a, b Expr) int {
	if a.s == b.s {
		return 0
	}
	at, bt := a.terms(), b.terms()
	for i := 0; i < len(at) || i < len(bt); i++ {
		switch {
		case i >= len(at):
			return 1
		case i >= len(bt):
			return -1
		}
		if c := cmpAtom(at[i].a, bt[i].a); c != 0 {
			return c
		}
		if c := cmpInt(at[i].k, bt[i].k); c != 0 {
			return c
		}
	}
	return cmpInt(a.constant(), b.constant())
}

// Add returns a + b.
func Add(a, b Expr) Expr {
	if a.Overflowed() || b.Overflowed() {
		return overflowed()
	}
	at, bt := a.terms(), b.terms()
	c, ok := addOK(a.constant(), b.constant())
	if !ok {
		return overflowed()
	}
	if len(bt) == 0 {
		return mkSum(at, c)
	}
	if len(at) == 0 {
		return mkSum(bt, c)
	}
	out := make([]term, 0, len(at)+len(bt))
	i, j := 0, 0
	for i < len(at) && j < len(bt) {
		switch cmpAtom(at[i].a, bt[j].a) {
		case -1:
			out = append(out, at[i])
			i++
		case 1:
			out = append(out, bt[j])
			j++
		default:
			k, ok := addOK(at[i].k, bt[j].k)
			if !ok {
				return overflowed()
			}
			if k != 0 {
				out = append(out, term{a: at[i].a, k: k})
			}
			i++
			j++
		}
	}
	out = append(out, at[i:]...)
	out = append(out, bt[j:]...)
	return mkSum(out, c)
}

// Sub returns a - b.
func Sub(a, b Expr) Expr { return Add(a, Neg(b)) }

// Neg returns -a.
func Neg(a Expr) Expr { return Mul(a, -1) }

// Mul returns c*a. Only products with a constant exist (spec 2.5).
func Mul(a Expr, c int64) Expr {
	if a.Overflowed() {
		return a
	}
	if c == 0 || a.s == nil {
		return Expr{}
	}
	if c == 1 {
		return a
	}
	at := a.terms()
	out := make([]term, len(at))
	for i, t := range at {
		k, ok := mulOK(t.k, c)
		if !ok {
			return overflowed()
		}
		out[i] = term{a: t.a, k: k}
	}
	k, ok := mulOK(a.constant(), c)
	if !ok {
		return overflowed()
	}
	return mkSum(out, k)
}

// divideTerms returns the terms of a (without its constant) divided by c; every
// coefficient must be a multiple of c.
func divideTerms(a Expr, c int64) Expr {
	at := a.terms()
	out := make([]term, len(at))
	for i, t := range at {
		out[i] = term{a: t.a, k: t.k / c}
	}
	return mkSum(out, 0)
}

// splitConst returns the non-constant part of a, and the quotient q and
// remainder r in [0, c) of a's constant by c. Division atoms keep their
// constant in [0, c) so that equal divisions have one form: (N + 3)
// floordiv 2 = (N + 1) floordiv 2 + 1, and the TC range (I - 1) floordiv 2 +
// 1 prints as (I + 1) floordiv 2.
func splitConst(a Expr, c int64) (vars Expr, q, r int64) {
	k := a.constant()
	q = floorDivInt(k, c)
	return mkSum(a.terms(), 0), q, k - q*c
}

// termGCD returns the gcd of c and of all term coefficients of a.
func termGCD(a Expr, c int64) int64 {
	g := c
	for _, t := range a.terms() {
		g = gcd(g, t.k)
	}
	return g
}

func divisorError(op string, c int64) error {
	return fmt.Errorf("%s by %d: the divisor must be a positive constant", op, c)
}

// FloorDiv returns a floordiv c (rounding toward negative infinity).
// c must be positive.
func FloorDiv(a Expr, c int64) (Expr, error) {
	if c <= 0 {
		return Expr{}, divisorError("floordiv", c)
	}
	return floorDiv(a, c), nil
}

// CeilDiv returns a ceildiv c (rounding toward positive infinity).
// c must be positive.
func CeilDiv(a Expr, c int64) (Expr, error) {
	if c <= 0 {
		return Expr{}, divisorError("ceildiv", c)
	}
	return ceilDiv(a, c), nil
}

// Mod returns a mod c, in [0, c). c must be positive.
func Mod(a Expr, c int64) (Expr, error) {
	if c <= 0 {
		return Expr{}, divisorError("mod", c)
	}
	return mod(a, c), nil
}

func floorDiv(a Expr, c int64) Expr {
	if c == 1 || a.Overflowed() {
		return a
	}
	if k, ok := a.Const(); ok {
		return Const(floorDivInt(k, c))
	}
	// (x floordiv d + k) floordiv c = (x + k*d) floordiv (d*c).
	if n, ok := nestedDiv(a, OpFloorDiv, c); ok {
		return n
	}
	vars, q, r := splitConst(a, c)
	g := termGCD(vars, c)
	switch {
	case g == c:
		// (c*y + r) floordiv c = y + r floordiv c, and 0 <= r < c.
		return Add(divideTerms(vars, c), Const(q))
	case g > 1:
		// (g*y + r) floordiv c = (y + r floordiv g) floordiv (c/g).
		return Add(floorDiv(Add(divideTerms(vars, g), Const(r/g)), c/g), Const(q))
	}
	return Add(atomExpr(newDivAtom(OpFloorDiv, Add(vars, Const(r)), c)), Const(q))
}

func ceilDiv(a Expr, c int64) Expr {
	if c == 1 || a.Overflowed() {
		return a
	}
	if k, ok := a.Const(); ok {
		return Const(ceilDivInt(k, c))
	}
	// (x ceildiv d + k) ceildiv c = (x + k*d) ceildiv (d*c).
	if n, ok := nestedDiv(a, OpCeilDiv, c); ok {
		return n
	}
	vars, q, r := splitConst(a, c)
	g := termGCD(vars, c)
	switch {
	case g == c:
		// (c*y + r) ceildiv c = y + r ceildiv c.
		return Add(divideTerms(vars, c), Const(q+ceilDivInt(r, c)))
	case g > 1:
		// (g*y + r) ceildiv c = (y + r ceildiv g) ceildiv (c/g).
		return Add(ceilDiv(Add(divideTerms(vars, g), Const(ceilDivInt(r, g))), c/g), Const(q))
	}
	return Add(atomExpr(newDivAtom(OpCeilDiv, Add(vars, Const(r)), c)), Const(q))
}

// nestedDiv folds a = (x op d) + k divided again by c into one division by
// d*c, when d*c does not overflow.
func nestedDiv(a Expr, op Op, c int64) (Expr, bool) {
	at := a.terms()
	if len(at) != 1 || at[0].k != 1 || at[0].a.op != op {
		return Expr{}, false
	}
	inner := at[0].a
	dc, ok1 := mulOK(inner.d, c)
	kd, ok2 := mulOK(a.constant(), inner.d)
	if !ok1 || !ok2 {
		return Expr{}, false
	}
	x := Add(inner.x, Const(kd))
	if op == OpFloorDiv {
		return floorDiv(x, dc), true
	}
	return ceilDiv(x, dc), true
}

func mod(a Expr, c int64) Expr {
	if a.Overflowed() {
		return a
	}
	if c == 1 {
		return Expr{}
	}
	if k, ok := a.Const(); ok {
		return Const(floorModInt(k, c))
	}
	// x mod d = x (modulo c) when c divides d: (x mod 4 + y) mod 2 =
	// (x + y) mod 2.
	for changed := true; changed; {
		changed = false
		for _, t := range a.terms() {
			if t.a.op == OpMod && t.a.d%c == 0 {
				a = Add(Sub(a, Mul(atomExpr(t.a), t.k)), Mul(t.a.x, t.k))
				changed = true
				break
			}
		}
	}
	if a.Overflowed() {
		return a
	}
	vars, _, r := splitConst(a, c)
	g := termGCD(vars, c)
	switch {
	case g == c:
		// (c*y + r) mod c = r.
		return Const(r)
	case g > 1:
		// (g*y + r) mod c = g*((y + r floordiv g) mod (c/g)) + r mod g.
		inner := mod(Add(divideTerms(vars, g), Const(r/g)), c/g)
		return Add(Mul(inner, g), Const(r%g))
	}
	return atomExpr(newDivAtom(OpMod, Add(vars, Const(r)), c))
}

func newDivAtom(op Op, x Expr, d int64) *atom {
	a := &atom{op: op, x: x, d: d}
	a.key = formatAtom(a, nil)
	return a
}

// Min returns min(a, b).
func Min(a, b Expr) Expr { return minMax(OpMin, []Expr{a, b}) }

// Max returns max(a, b).
func Max(a, b Expr) Expr { return minMax(OpMax, []Expr{a, b}) }

// MinOf returns the minimum of one or more expressions.
func MinOf(es ...Expr) Expr { return minMax(OpMin, es) }

// MaxOf returns the maximum of one or more expressions.
func MaxOf(es ...Expr) Expr { return minMax(OpMax, es) }

// minMax builds a canonical min or max: nested ones of the same kind are
// flattened, arguments sorted by cmpExpr and deduplicated, constants folded
// into one, and an argument dropped whenever another one is provably at
// least as good (ProveLE for min, ProveGE for max): this is what makes
// [0:N] ∩ [1:N+1] = [1:N] while [0:N] ∩ [0:M] = [0:min(N, M)]. Among
// provably equal arguments the first in sorted order is kept. A single
// remaining argument is returned as is.
func minMax(op Op, es []Expr) Expr {
	if len(es) == 0 {
		panic("sizeexpr: " + op.String() + " of no arguments")
	}
	var args []Expr
	for _, e := range es {
		if e.Overflowed() {
			return e
		}
		if a, ok := e.soleAtom(); ok && a.op == op {
			args = append(args, a.args...)
		} else {
			args = append(args, e)
		}
	}
	sort.SliceStable(args, func(i, j int) bool { return cmpExpr(args[i], args[j]) < 0 })
	better := ProveLE
	if op == OpMax {
		better = ProveGE
	}
	var kept []Expr
	for _, x := range args {
		dominated := false
		for _, k := range kept {
			if better(k, x) {
				dominated = true
				break
			}
		}
		if dominated {
			continue
		}
		n := 0
		for _, k := range kept {
			if !better(x, k) {
				kept[n] = k
				n++
			}
		}
		kept = append(kept[:n], x)
	}
	if len(kept) == 1 {
		return kept[0]
	}
	a := &atom{op: op, args: kept}
	a.key = formatAtom(a, nil)
	return atomExpr(a)
}
