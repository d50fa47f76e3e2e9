package sizeexpr

import (
	"fmt"
	"sort"
)

// VarKind says what a variable ranges over, which decides what the prover
// may assume about its sign.
type VarKind uint8

const (
	// SymbolVar is a size symbol (N, M): a run-time parameter, assumed >= 0.
	SymbolVar VarKind = iota
	// DimVar is an index variable or affine-map dimension (i, d0): any sign.
	DimVar
)

func (k VarKind) String() string {
	if k == DimVar {
		return "dim"
	}
	return "symbol"
}

// Var is a variable of an expression. Order is the position of its first
// declaration (in the module for size symbols, in the map or loop nest for
// dims); canonical printing sorts terms by it so that `M + 2*N - 1` written
// in a module that declares N before M prints as `2*N + M - 1`.
type Var struct {
	Name  string
	Order int
	Kind  VarKind
}

func (v Var) String() string { return v.Name }

// Expr returns the expression consisting of v alone.
func (v Var) Expr() Expr { return atomExpr(&atom{op: OpVar, v: v, key: v.Name}) }

// cmpVar orders variables by (Order, Name, Kind), the canonical term order.
func cmpVar(a, b Var) int {
	switch {
	case a.Order != b.Order:
		return cmpInt(int64(a.Order), int64(b.Order))
	case a.Name != b.Name:
		if a.Name < b.Name {
			return -1
		}
		return 1
	}
	return cmpInt(int64(a.Kind), int64(b.Kind))
}

// Op is the kind of an atom of the canonical form.
type Op uint8

const (
	OpVar      Op = iota // a variable
	OpFloorDiv           // Operand floordiv Divisor
	OpCeilDiv            // Operand ceildiv Divisor
	OpMod                // Operand mod Divisor
	OpMin                // min(Args...), at least two arguments
	OpMax                // max(Args...), at least two arguments
)

var opNames = [...]string{"var", "floordiv", "ceildiv", "mod", "min", "max"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// Expr is an immutable size or affine expression in canonical form. The zero
// value is the constant 0. Compare values with Equal, not ==.
type Expr struct{ s *sum }

// sum is the canonical form: terms sorted by cmpAtom with distinct atoms and
// non-zero coefficients, plus a constant. A nil *sum is the constant 0.
type sum struct {
	terms []term
	c     int64
}

type term struct {
	a *atom
	k int64
}

// atom is a variable or a non-linear sub-expression. Atoms are never
// mutated after construction, so they are shared freely between Exprs.
type atom struct {
	op   Op
	v    Var    // OpVar
	x    Expr   // operand of OpFloorDiv, OpCeilDiv, OpMod
	d    int64  // divisor (> 1) of OpFloorDiv, OpCeilDiv, OpMod
	args []Expr // arguments of OpMin, OpMax, sorted by cmpExpr
	key  string // canonical text with the variables' own names, for ordering
}

// Term is a variable with its coefficient in a linear expression.
type Term struct {
	Var  Var
	Coef int64
}

// Sym returns the size symbol name declared at position order.
func Sym(name string, order int) Expr {
	return Var{Name: name, Order: order, Kind: SymbolVar}.Expr()
}

// Dim returns the index variable (or map dimension) name at position order.
func Dim(name string, order int) Expr {
	return Var{Name: name, Order: order, Kind: DimVar}.Expr()
}

// Const returns the constant c.
func Const(c int64) Expr {
	if c == 0 {
		return Expr{}
	}
	return Expr{&sum{c: c}}
}

// FromLinear returns sum(Coef*Var) + c, the inverse of Linear.
func FromLinear(terms []Term, c int64) Expr {
	e := Const(c)
	for _, t := range terms {
		e = Add(e, Mul(t.Var.Expr(), t.Coef))
	}
	return e
}

// MulExpr returns a*b. The grammar (spec 2.5) only has products with a
// constant, which keeps expressions affine, so a product of two
// non-constant expressions is an error.
func MulExpr(a, b Expr) (Expr, error) {
	if a.Overflowed() || b.Overflowed() {
		return overflowed(), nil
	}
	if c, ok := b.Const(); ok {
		return Mul(a, c), nil
	}
	if c, ok := a.Const(); ok {
		return Mul(b, c), nil
	}
	return Expr{}, fmt.Errorf("non-affine product '(%s) * (%s)': one operand must be a constant", a, b)
}

// Const returns the value of e if e is a constant.
func (e Expr) Const() (int64, bool) {
	e.mustNotOverflow("Const")
	if e.s == nil {
		return 0, true
	}
	if len(e.s.terms) == 0 {
		return e.s.c, true
	}
	return 0, false
}

// IsConst reports whether e is a constant.
func (e Expr) IsConst() bool {
	_, ok := e.Const()
	return ok
}

// AsVar returns v if e is exactly the variable v.
func (e Expr) AsVar() (Var, bool) {
	e.mustNotOverflow("AsVar")
	if a, ok := e.soleAtom(); ok && a.op == OpVar {
		return a.v, true
	}
	return Var{}, false
}

// soleAtom returns a if e is exactly 1*a + 0.
func (e Expr) soleAtom() (*atom, bool) {
	if e.s == nil || len(e.s.terms) != 1 || e.s.c != 0 || e.s.terms[0].k != 1 {
		return nil, false
	}
	return e.s.terms[0].a, true
}

func (e Expr) terms() []term {
	if e.s == nil {
		return nil
	}
	return e.s.terms
}

func (e Expr) constant() int64 {
	if e.s == nil {
		return 0
	}
	return e.s.c
}

// Equal reports whether e and f have the same canonical form. Equal
// expressions are equal as functions; the converse holds only as far as the
// simplifier goes (use ProveEQ for a semantic check). An overflowed
// expression equals nothing.
func (e Expr) Equal(f Expr) bool {
	return !e.Overflowed() && !f.Overflowed() && cmpExpr(e, f) == 0
}

// Vars returns the distinct variables of e, at any depth, sorted by
// (Order, Name, Kind).
func (e Expr) Vars() []Var {
	e.mustNotOverflow("Vars")
	seen := map[Var]bool{}
	var out []Var
	var walk func(Expr)
	walk = func(e Expr) {
		for _, t := range e.terms() {
			switch t.a.op {
			case OpVar:
				if !seen[t.a.v] {
					seen[t.a.v] = true
					out = append(out, t.a.v)
				}
			case OpMin, OpMax:
				for _, x := range t.a.args {
					walk(x)
				}
			default:
				walk(t.a.x)
			}
		}
	}
	walk(e)
	sort.Slice(out, func(i, j int) bool { return cmpVar(out[i], out[j]) < 0 })
	return out
}

// Linear returns e as sum(terms) + c when e is a pure affine sum of
// variables (no floordiv, ceildiv, mod, min or max). Terms are in canonical
// order with non-zero coefficients.
func (e Expr) Linear() (terms []Term, c int64, ok bool) {
	e.mustNotOverflow("Linear")
	for _, t := range e.terms() {
		if t.a.op != OpVar {
			return nil, 0, false
		}
		terms = append(terms, Term{Var: t.a.v, Coef: t.k})
	}
	return terms, e.constant(), true
}

// IsAffine reports whether e is an MLIR affine expression: no min or max at
// any depth (floordiv, ceildiv and mod by constants are allowed).
func (e Expr) IsAffine() bool {
	e.mustNotOverflow("IsAffine")
	for _, t := range e.terms() {
		switch t.a.op {
		case OpMin, OpMax:
			return false
		case OpFloorDiv, OpCeilDiv, OpMod:
			if !t.a.x.IsAffine() {
				return false
			}
		}
	}
	return true
}

// Eval computes e with the variable values given by env, with exact integer
// semantics: floordiv and mod round toward negative infinity (mod is in
// [0, divisor)), ceildiv toward positive infinity. It fails on a variable
// env has no value for, and on int64 overflow.
func (e Expr) Eval(env func(Var) (int64, bool)) (int64, error) {
	if e.Overflowed() {
		return 0, fmt.Errorf("integer overflow: the expression does not fit in 64 bits")
	}
	acc := e.constant()
	for _, t := range e.terms() {
		v, err := t.a.eval(env)
		if err != nil {
			return 0, err
		}
		p, ok1 := mulOK(t.k, v)
		s, ok2 := addOK(acc, p)
		if !ok1 || !ok2 {
			return 0, fmt.Errorf("integer overflow evaluating %s", e)
		}
		acc = s
	}
	return acc, nil
}

func (a *atom) eval(env func(Var) (int64, bool)) (int64, error) {
	switch a.op {
	case OpVar:
		if env != nil {
			if v, ok := env(a.v); ok {
				return v, nil
			}
		}
		return 0, fmt.Errorf("no value for %s %s", a.v.Kind, a.v.Name)
	case OpMin, OpMax:
		var best int64
		for i, x := range a.args {
			v, err := x.Eval(env)
			if err != nil {
				return 0, err
			}
			if i == 0 || (a.op == OpMin && v < best) || (a.op == OpMax && v > best) {
				best = v
			}
		}
		return best, nil
	}
	x, err := a.x.Eval(env)
	if err != nil {
		return 0, err
	}
	switch a.op {
	case OpFloorDiv:
		return floorDivInt(x, a.d), nil
	case OpCeilDiv:
		return ceilDivInt(x, a.d), nil
	default:
		return floorModInt(x, a.d), nil
	}
}

// Subst replaces every variable v for which f returns (r, true) by r, at any
// depth, and re-canonicalises: substituting can make terms cancel, divisions
// exact and min/max arguments comparable.
func (e Expr) Subst(f func(Var) (Expr, bool)) Expr {
	if e.Overflowed() {
		return e
	}
	out := Const(e.constant())
	for _, t := range e.terms() {
		out = Add(out, Mul(t.a.subst(f), t.k))
	}
	return out
}

func (a *atom) subst(f func(Var) (Expr, bool)) Expr {
	switch a.op {
	case OpVar:
		if r, ok := f(a.v); ok {
			return r
		}
		return atomExpr(a)
	case OpMin, OpMax:
		args := make([]Expr, len(a.args))
		for i, x := range a.args {
			args[i] = x.Subst(f)
		}
		return minMax(a.op, args)
	case OpFloorDiv:
		return floorDiv(a.x.Subst(f), a.d)
	case OpCeilDiv:
		return ceilDiv(a.x.Subst(f), a.d)
	default:
		return mod(a.x.Subst(f), a.d)
	}
}

// Atom is a read-only view of an atom of the canonical form, for passes that
// walk expressions (code generation of bounds, affine map printing).
type Atom struct{ a *atom }

// SumTerm is an atom with its coefficient.
type SumTerm struct {
	Atom Atom
	Coef int64
}

// Terms returns the canonical form of e: e = sum(Coef*Atom) + c.
func (e Expr) Terms() (terms []SumTerm, c int64) {
	e.mustNotOverflow("Terms")
	for _, t := range e.terms() {
		terms = append(terms, SumTerm{Atom: Atom{t.a}, Coef: t.k})
	}
	return terms, e.constant()
}

// Op returns the kind of the atom.
func (a Atom) Op() Op { return a.a.op }

// Var returns the variable of an OpVar atom.
func (a Atom) Var() Var { return a.a.v }

// Operand returns the dividend of an OpFloorDiv, OpCeilDiv or OpMod atom.
func (a Atom) Operand() Expr { return a.a.x }

// Divisor returns the divisor (> 1) of an OpFloorDiv, OpCeilDiv or OpMod atom.
func (a Atom) Divisor() int64 { return a.a.d }

// Args returns the arguments of an OpMin or OpMax atom (a fresh slice).
func (a Atom) Args() []Expr { return append([]Expr(nil), a.a.args...) }

// Expr returns the atom as an expression.
func (a Atom) Expr() Expr { return atomExpr(a.a) }

func (a Atom) String() string { return a.a.key }
