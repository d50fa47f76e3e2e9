package sizeexpr

import "math/big"

// The decision procedure. Every question reduces to "is d >= 0 for all
// non-negative symbols and all dims?" for an integer-valued d, proved by
// bounding d from below:
//
//   - a floordiv, ceildiv or mod atom is replaced by a linear bound (x/c -
//     (c-1)/c <= x floordiv c <= x/c, x/c <= x ceildiv c <= x/c + (c-1)/c,
//     0 <= x mod c <= c-1), the lower one where its coefficient is positive
//     and the upper one where it is negative, with rational coefficients;
//   - k*min(a, b) with k > 0 is min(k*a, k*b): both cases must be proved;
//     with k < 0 it is a max: proving either case is enough (and dually for
//     max). The "either" rule is where the procedure is incomplete;
//   - a remaining linear form is >= its constant when no dim is left and
//     every symbol has a non-negative coefficient.
//
// Because d is an integer, a rational lower bound L > -1 proves d >= 0: this
// recovers the precision lost by the division bounds, so N ceildiv 2 <= N
// is proved although the bound only gives N - (N+1)/2 >= -1/2.

// maxCases bounds the number of min/max case splits of one proof, which
// could otherwise grow exponentially with the number of min/max atoms.
const maxCases = 256

// rterm is an atom with a rational coefficient.
type rterm struct {
	a *atom
	k *big.Rat
}

// rform is a linear form over atoms with rational coefficients. Forms are
// copied on case splits, so the *big.Rat values in them are never mutated.
type rform struct {
	terms []rterm
	c     *big.Rat
}

// addExpr returns f + k*e.
func (f rform) addExpr(e Expr, k *big.Rat) rform {
	for _, t := range e.terms() {
		f = f.addAtom(t.a, new(big.Rat).Mul(k, big.NewRat(t.k, 1)))
	}
	return f.addConst(new(big.Rat).Mul(k, big.NewRat(e.constant(), 1)))
}

func (f rform) addConst(c *big.Rat) rform {
	return rform{terms: f.terms, c: new(big.Rat).Add(f.c, c)}
}

func (f rform) addAtom(a *atom, k *big.Rat) rform {
	out := make([]rterm, 0, len(f.terms)+1)
	merged := false
	for _, t := range f.terms {
		if !merged && cmpAtom(t.a, a) == 0 {
			merged = true
			if s := new(big.Rat).Add(t.k, k); s.Sign() != 0 {
				out = append(out, rterm{a: t.a, k: s})
			}
			continue
		}
		out = append(out, t)
	}
	if !merged && k.Sign() != 0 {
		out = append(out, rterm{a: a, k: k})
	}
	return rform{terms: out, c: f.c}
}

// without returns f without its i-th term.
func (f rform) without(i int) rform {
	out := make([]rterm, 0, len(f.terms)-1)
	out = append(out, f.terms[:i]...)
	out = append(out, f.terms[i+1:]...)
	return rform{terms: out, c: f.c}
}

var minusOne = big.NewRat(-1, 1)

// nonNeg reports whether the integer-valued e is provably >= 0.
func nonNeg(e Expr) bool {
	if e.Overflowed() {
		return false
	}
	if c, ok := e.Const(); ok {
		return c >= 0
	}
	if ts, c, ok := e.Linear(); ok {
		for _, t := range ts {
			if t.Var.Kind == DimVar || t.Coef < 0 {
				return false
			}
		}
		return c >= 0
	}
	budget := maxCases
	f := rform{c: new(big.Rat)}.addExpr(e, big.NewRat(1, 1))
	return aboveMinusOne(f, &budget)
}

// aboveMinusOne reports whether f > -1 is provable (see the file comment).
func aboveMinusOne(f rform, budget *int) bool {
	// Replace division atoms by their bounds until none is left; bounds
	// of nested divisions and min/max inside dividends surface as new terms.
	for {
		i := indexOf(f, func(a *atom) bool { return a.op == OpFloorDiv || a.op == OpCeilDiv || a.op == OpMod })
		if i < 0 {
			break
		}
		t := f.terms[i]
		f = f.without(i)
		pos := t.k.Sign() > 0
		d := big.NewRat(t.a.d, 1)
		slack := big.NewRat(t.a.d-1, t.a.d) // (c-1)/c
		switch t.a.op {
		case OpMod:
			if !pos {
				f = f.addConst(new(big.Rat).Mul(t.k, new(big.Rat).Sub(d, big.NewRat(1, 1))))
			}
		case OpFloorDiv:
			f = f.addExpr(t.a.x, new(big.Rat).Quo(t.k, d))
			if pos {
				f = f.addConst(new(big.Rat).Neg(new(big.Rat).Mul(t.k, slack)))
			}
		case OpCeilDiv:
			f = f.addExpr(t.a.x, new(big.Rat).Quo(t.k, d))
			if !pos {
				f = f.addConst(new(big.Rat).Mul(t.k, slack))
			}
		}
	}
	// Split "all" atoms before "any" atoms: proving, for every case of the
	// former, some case of the latter is sound (at each point take the
	// case the min/max actually selects) and strictly stronger than the
	// other nesting. It proves min(N, M) - 1 >= min(N - 1, M - 1).
	i := indexOfTerm(f, func(t rterm) bool { return isAll(t) })
	if i < 0 {
		i = indexOfTerm(f, func(t rterm) bool { return t.a.op == OpMin || t.a.op == OpMax })
	}
	if i >= 0 {
		t := f.terms[i]
		rest := f.without(i)
		all := isAll(t)
		for _, x := range t.a.args {
			*budget--
			if *budget < 0 {
				return false
			}
			ok := aboveMinusOne(rest.addExpr(x, t.k), budget)
			if all && !ok {
				return false
			}
			if !all && ok {
				return true
			}
		}
		return all
	}
	for _, t := range f.terms {
		if t.a.v.Kind == DimVar || t.k.Sign() < 0 {
			return false
		}
	}
	return f.c.Cmp(minusOne) > 0
}

func indexOf(f rform, pred func(*atom) bool) int {
	return indexOfTerm(f, func(t rterm) bool { return pred(t.a) })
}

func indexOfTerm(f rform, pred func(rterm) bool) int {
	for i, t := range f.terms {
		if pred(t) {
			return i
		}
	}
	return -1
}

// isAll reports whether t is a min/max term whose cases must all be proved:
// k*min(a, b) with k > 0 is min(k*a, k*b), and k*max(a, b) with k < 0 too.
func isAll(t rterm) bool {
	return (t.a.op == OpMin && t.k.Sign() > 0) || (t.a.op == OpMax && t.k.Sign() < 0)
}

// ProveGE reports whether a >= b is provable.
func ProveGE(a, b Expr) bool { return nonNeg(Sub(a, b)) }

// ProveLE reports whether a <= b is provable.
func ProveLE(a, b Expr) bool { return nonNeg(Sub(b, a)) }

// ProveGT reports whether a > b is provable (a - b - 1 >= 0 over integers).
func ProveGT(a, b Expr) bool { return nonNeg(Add(Sub(a, b), Const(-1))) }

// ProveLT reports whether a < b is provable.
func ProveLT(a, b Expr) bool { return ProveGT(b, a) }

// ProveEQ reports whether a = b is provable: equal canonical forms, or both
// a <= b and a >= b (e.g. min(N, M) - 1 and min(N - 1, M - 1)).
func ProveEQ(a, b Expr) bool {
	return a.Equal(b) || (ProveLE(a, b) && ProveGE(a, b))
}

// Compare decides the sign of a - b: cmp is -1, 0 or +1 and ok is true when
// a < b, a = b or a > b is provable for all values of the variables. It is
// undecided (ok false) when only a non-strict comparison is provable, e.g.
// N vs 0 (N >= 0, but N = 0 is possible): use ProveLE/ProveGE for those.
func Compare(a, b Expr) (cmp int, ok bool) {
	d := Sub(a, b)
	if d.Overflowed() {
		return 0, false
	}
	if c, isConst := d.Const(); isConst {
		return cmpInt(c, 0), true
	}
	ge, le := nonNeg(d), nonNeg(Neg(d))
	switch {
	case ge && le:
		return 0, true
	case ge && nonNeg(Add(d, Const(-1))):
		return 1, true
	case le && nonNeg(Sub(Const(-1), d)):
		return -1, true
	}
	return 0, false
}
