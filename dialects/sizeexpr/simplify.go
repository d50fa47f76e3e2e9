package sizeexpr

// Simplify returns an expression equal to e for every value of its
// variables, written as simply as the rewrites below allow. The canonical
// form keeps a sum's terms apart from its min/max atoms (so that equal
// bounds stay structurally equal); for display, where an expression like
// -N + max(N, 2*N - 1) or -min(N - 1, 0) is hard to read, Simplify moves the
// other terms of a sum into a min or max and folds what the prover then
// orders:
//
//	r + min(a, b)  = min(a + r, b + r)     r + max(a, b)  = max(a + r, b + r)
//	r - min(a, b)  = max(r - a, r - b)     r - max(a, b)  = min(r - a, r - b)
//
// so -N + max(N, 2*N - 1) = max(0, N - 1) prints max(N - 1, 0), and
// -min(N - 1, 0) prints max(-N + 1, 0). A rewrite is kept when it prints
// shorter, counting a negated min or max as four characters more (a reader
// has to flip it) and each term of a sum after the first as one more (a
// sum needs parentheses where a single term does not); the arguments of
// min, max and divisions are simplified first. The result is canonical (built by the constructors).
func Simplify(e Expr) Expr { return simplify(e, simplifyDepth) }

// simplifyDepth bounds the nesting of rewrites (a distribution copies the
// rest of a sum into every argument, which may distribute again).
const simplifyDepth = 6

func simplify(e Expr, budget int) Expr {
	if budget == 0 || e.Overflowed() {
		return e
	}
	out := Const(e.constant())
	for _, t := range e.terms() {
		out = Add(out, Mul(simplifyAtom(t.a, budget-1), t.k))
	}
	if out.Overflowed() {
		return e
	}
	best, cost := out, simplifyCost(out)
	for _, t := range out.terms() {
		if (t.a.op != OpMin && t.a.op != OpMax) || (t.k != 1 && t.k != -1) {
			continue
		}
		rest := Sub(out, Mul(atomExpr(t.a), t.k))
		if rest.s == nil && t.k == 1 {
			continue // nothing to move in
		}
		op := t.a.op
		if t.k == -1 {
			op = OpMin + OpMax - op
		}
		args := make([]Expr, len(t.a.args))
		for i, a := range t.a.args {
			args[i] = Add(Mul(a, t.k), rest)
		}
		cand := simplify(minMax(op, args), budget-1)
		// Moving terms into a min or max may overflow where the sum did
		// not: keep the form that fits.
		if cand.Overflowed() {
			continue
		}
		if c := simplifyCost(cand); c < cost {
			best, cost = cand, c
		}
	}
	return best
}

// simplifyAtom rebuilds an atom from simplified operands.
func simplifyAtom(a *atom, budget int) Expr {
	switch a.op {
	case OpMin, OpMax:
		args := make([]Expr, len(a.args))
		for i, x := range a.args {
			args[i] = simplify(x, budget)
		}
		return minMax(a.op, args)
	case OpFloorDiv:
		return floorDiv(simplify(a.x, budget), a.d)
	case OpCeilDiv:
		return ceilDiv(simplify(a.x, budget), a.d)
	case OpMod:
		return mod(simplify(a.x, budget), a.d)
	}
	return atomExpr(a)
}

// simplifyCost is the printed length, plus 4 for each min or max that is
// negated (anywhere in the expression), plus 1 for each top-level term
// after the first (a sum needs parentheses where one term does not).
func simplifyCost(e Expr) int {
	cost := len(e.String()) + max(len(e.terms())-1, 0)
	if len(e.terms()) > 0 && e.constant() != 0 {
		cost++
	}
	var walk func(Expr)
	walk = func(x Expr) {
		for _, t := range x.terms() {
			switch t.a.op {
			case OpMin, OpMax:
				if t.k < 0 {
					cost += 4
				}
				for _, y := range t.a.args {
					walk(y)
				}
			case OpFloorDiv, OpCeilDiv, OpMod:
				walk(t.a.x)
			}
		}
	}
	walk(e)
	return cost
}
