package sizeexpr

// Limits: what an expression becomes when some symbols grow without bound.
// Shape inference uses them to ask what an argument's unknown extent must
// at least be for its uses not to depend on it: the bound of the points a
// function reads of x, min(?_x_I, N + 1), tends to N + 1 as ?_x_I grows.

// Growth says how an expression behaves in a limit.
type Growth int8

const (
	// Finite: the limit is an expression of the other symbols.
	Finite Growth = iota
	// PlusInf and MinusInf: the expression grows without bound.
	PlusInf
	MinusInf
	// Undetermined: the expression neither settles nor diverges in one
	// direction (a mod of a growing value, ∞ - ∞).
	Undetermined
)

// Limit is the limit of e when every symbol for which grows reports true
// goes to +∞ (together, at any relative speed). With Finite, lim is an
// expression free of those symbols; otherwise lim is the zero Expr.
func Limit(e Expr, grows func(Var) bool) (lim Expr, g Growth) {
	if e.Overflowed() {
		return Expr{}, Undetermined
	}
	lim = Const(e.constant())
	for _, t := range e.terms() {
		l, tg := t.a.limit(grows)
		if tg == Finite {
			lim = Add(lim, Mul(l, t.k))
			continue
		}
		if t.k < 0 {
			tg = flip(tg)
		}
		g = combine(g, tg)
	}
	if g != Finite {
		return Expr{}, g
	}
	if lim.Overflowed() {
		return Expr{}, Undetermined
	}
	return lim, Finite
}

func flip(g Growth) Growth {
	switch g {
	case PlusInf:
		return MinusInf
	case MinusInf:
		return PlusInf
	}
	return g
}

// combine is the growth of a sum of two parts.
func combine(a, b Growth) Growth {
	switch {
	case a == Finite:
		return b
	case b == Finite || a == b:
		return a
	}
	return Undetermined
}

func (a *atom) limit(grows func(Var) bool) (Expr, Growth) {
	switch a.op {
	case OpVar:
		if a.v.Kind == SymbolVar && grows(a.v) {
			return Expr{}, PlusInf
		}
		return atomExpr(a), Finite
	case OpMin, OpMax:
		// min drops arguments that tend to +∞ and is -∞ when one does;
		// max the other way round.
		drop, absorb := PlusInf, MinusInf
		if a.op == OpMax {
			drop, absorb = MinusInf, PlusInf
		}
		var finite []Expr
		dropped := false
		for _, x := range a.args {
			l, g := Limit(x, grows)
			switch g {
			case Finite:
				finite = append(finite, l)
			case drop:
				dropped = true
			case absorb:
				return Expr{}, absorb
			default:
				return Expr{}, Undetermined
			}
		}
		if len(finite) == 0 {
			if dropped {
				return Expr{}, drop
			}
			return Expr{}, Undetermined
		}
		return minMax(a.op, finite), Finite
	case OpFloorDiv, OpCeilDiv, OpMod:
		l, g := Limit(a.x, grows)
		if g != Finite {
			if a.op == OpMod {
				return Expr{}, Undetermined
			}
			return Expr{}, g
		}
		var out Expr
		var err error
		switch a.op {
		case OpFloorDiv:
			out, err = FloorDiv(l, a.d)
		case OpCeilDiv:
			out, err = CeilDiv(l, a.d)
		default:
			out, err = Mod(l, a.d)
		}
		if err != nil {
			return Expr{}, Undetermined
		}
		return out, Finite
	}
	return Expr{}, Undetermined
}

// Mentions reports whether e has a symbol for which pred is true.
func Mentions(e Expr, pred func(Var) bool) bool {
	for _, v := range e.Vars() {
		if pred(v) {
			return true
		}
	}
	return false
}

// Nondecreasing reports whether e provably does not decrease when v
// grows: every occurrence of v has a positive coefficient, through sums,
// min, max, floordiv and ceildiv (never inside mod).
func Nondecreasing(e Expr, v Var) bool {
	e.mustNotOverflow("Nondecreasing")
	for _, t := range e.terms() {
		if !t.a.mentions(v) {
			continue
		}
		if t.k < 0 || !t.a.nondecreasing(v) {
			return false
		}
	}
	return true
}

func (a *atom) mentions(v Var) bool {
	for _, w := range atomExpr(a).Vars() {
		if w == v {
			return true
		}
	}
	return false
}

func (a *atom) nondecreasing(v Var) bool {
	switch a.op {
	case OpVar:
		return true
	case OpMin, OpMax:
		for _, x := range a.args {
			if !Nondecreasing(x, v) {
				return false
			}
		}
		return true
	case OpFloorDiv, OpCeilDiv:
		return Nondecreasing(a.x, v)
	}
	return false
}
