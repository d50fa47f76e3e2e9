package sizeexpr

// Interval is the half-open integer interval Lo <= x < Hi of a named
// dimension (spec 2.1), printed [Lo:Hi].
type Interval struct{ Lo, Hi Expr }

// Span returns [lo:hi].
func Span(lo, hi Expr) Interval { return Interval{Lo: lo, Hi: hi} }

// Intersect returns [max(a, c) : min(b, d)] for [a:b] ∩ [c:d], the
// broadcasting rule of spec 2.2. The min/max fold whatever the prover
// decides, so [0:N] ∩ [1:N+1] = [1:N] and [0:N] ∩ [0:M] = [0:min(N, M)].
// The result may be empty; check ProvablyEmpty.
func (iv Interval) Intersect(o Interval) Interval {
	return Interval{Lo: Max(iv.Lo, o.Lo), Hi: Min(iv.Hi, o.Hi)}
}

// Translate returns [Lo+d : Hi+d].
func (iv Interval) Translate(d Expr) Interval {
	return Interval{Lo: Add(iv.Lo, d), Hi: Add(iv.Hi, d)}
}

// Shift returns the interval of tir.shift with offset off, which reads at
// an offset (y(i) = x(i + off)): the domain moves by -off, so a shift of +1
// turns [a:b] into [a-1:b-1]. It is Translate(-off).
func (iv Interval) Shift(off Expr) Interval { return iv.Translate(Neg(off)) }

// Extent returns Hi - Lo, negative for an inverted (empty) interval; Size
// is the number of points.
func (iv Interval) Extent() Expr { return Sub(iv.Hi, iv.Lo) }

// Size is the number of points, max(Hi - Lo, 0): an interval whose upper
// bound is below its lower bound is empty, never of negative size. (Max
// folds away when Hi >= Lo is provable.)
func (iv Interval) Size() Expr { return Max(iv.Extent(), Const(0)) }

// ProvablyEmpty reports whether Hi <= Lo is provable: an empty broadcast
// intersection is an error (spec 2.2).
func (iv Interval) ProvablyEmpty() bool { return ProveLE(iv.Hi, iv.Lo) }

// ProvablyNonEmpty reports whether Lo < Hi is provable.
func (iv Interval) ProvablyNonEmpty() bool { return ProveLT(iv.Lo, iv.Hi) }

// Contains decides whether o ⊆ iv, as the bound comparison iv.Lo <= o.Lo
// and o.Hi <= iv.Hi (the condition that becomes a run-time check when it is
// not provable, spec 2.6; an empty o with bounds outside iv is not
// contained). decided is false when neither the inclusion nor a violated
// bound is provable; yes is meaningful only when decided.
func (iv Interval) Contains(o Interval) (yes bool, decided bool) {
	if ProveLE(iv.Lo, o.Lo) && ProveLE(o.Hi, iv.Hi) {
		return true, true
	}
	if ProveLT(o.Lo, iv.Lo) || ProveGT(o.Hi, iv.Hi) {
		return false, true
	}
	return false, false
}

// Equal reports whether both bounds have equal canonical forms.
func (iv Interval) Equal(o Interval) bool { return iv.Lo.Equal(o.Lo) && iv.Hi.Equal(o.Hi) }

// Subst substitutes variables in both bounds (see Expr.Subst).
func (iv Interval) Subst(f func(Var) (Expr, bool)) Interval {
	return Interval{Lo: iv.Lo.Subst(f), Hi: iv.Hi.Subst(f)}
}

// String prints [Lo:Hi].
func (iv Interval) String() string { return "[" + iv.Lo.String() + ":" + iv.Hi.String() + "]" }
