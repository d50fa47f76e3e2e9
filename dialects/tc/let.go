package tc

import "tir/dialects/ir"

// `where v = e` binds a name to an expression for one statement. As in TC
// (which inlines the bindings into the statement), the name stands for the
// expression wherever the statement uses it: its right-hand side, its
// exists clauses, its range bounds and the bindings after it. The
// expression's tensor accesses and index variables are the statement's:
// they take part in range inference like any other, and an index
// variable used only in a binding is a reduction variable. A binding is
// substituted once per statement; its accesses are read once.

// expandLets returns the statement with its bindings substituted and
// removed (s itself when it has none).
func (b *body) expandLets(s *Assign) (*Assign, error) {
	hasLet := false
	for _, w := range s.Where {
		hasLet = hasLet || w.Let != nil
	}
	if !hasLet {
		return s, nil
	}
	lhs := map[string]bool{}
	for _, id := range s.Indices {
		lhs[id.Name] = true
	}
	ranged := map[string]bool{}
	for _, w := range s.Where {
		if w.Lo != nil {
			ranged[w.Var.Name] = true
		}
	}
	lets := map[string]Expr{}
	letLoc := map[string]ir.Location{}
	used := map[string]bool{}
	var order []string
	out := *s
	out.Where = nil
	for _, w := range s.Where {
		if w.Let == nil {
			continue
		}
		name := w.Var.Name
		if err := b.letName(w.Var, lhs, ranged); err != nil {
			return nil, err
		}
		if prev, dup := letLoc[name]; dup {
			return nil, errorf(w.Var.Loc, "'%s' is bound twice by where", name).AddNote(prev, "the first binding is here")
		}
		lets[name] = substLets(w.Let, lets, used)
		letLoc[name] = w.Var.Loc
		order = append(order, name)
	}
	out.RHS = substLets(s.RHS, lets, used)
	for _, w := range s.Where {
		switch {
		case w.Exists != nil:
			c := *w
			c.Exists = substLets(w.Exists, lets, used)
			out.Where = append(out.Where, &c)
		case w.Lo != nil:
			c := *w
			c.Lo, c.Hi = substLets(w.Lo, lets, used), substLets(w.Hi, lets, used)
			out.Where = append(out.Where, &c)
		}
	}
	for _, name := range order {
		if !used[name] {
			b.im.warn(ir.Warningf(letLoc[name], "'%s' is bound by where but never used", name))
		}
	}
	return &out, nil
}

// letName rejects a binding of a name that already means something in the
// statement.
func (b *body) letName(id Ident, lhs, ranged map[string]bool) error {
	n := id.Name
	switch {
	case lhs[n]:
		return errorf(id.Loc, "'%s' is an index variable of the left-hand side and cannot be bound by where", n)
	case ranged[n]:
		return errorf(id.Loc, "'%s' has a range in this where clause and cannot also be bound to an expression", n)
	}
	if _, ok := b.vals[n]; ok {
		return errorf(id.Loc, "'%s' is a tensor and cannot be bound by where", n)
	}
	if _, ok := b.outputs[n]; ok {
		return errorf(id.Loc, "'%s' is a tensor and cannot be bound by where", n)
	}
	if _, ok := b.sizes[n]; ok {
		return errorf(id.Loc, "'%s' is a size and cannot be bound by where", n)
	}
	if _, ok := b.im.funcs[n]; ok {
		return errorf(id.Loc, "'%s' is a function and cannot be bound by where", n)
	}
	return nil
}

// substLets replaces the names bound in lets by their expressions (shared,
// not copied: resolve records each access once), copying only the nodes
// above a replacement.
func substLets(e Expr, lets map[string]Expr, used map[string]bool) Expr {
	if len(lets) == 0 {
		return e
	}
	sub := func(x Expr) Expr { return substLets(x, lets, used) }
	switch e := e.(type) {
	case *Name:
		if v, ok := lets[e.ID]; ok {
			used[e.ID] = true
			return v
		}
	case *CallExpr:
		c := *e
		c.Args = make([]Expr, len(e.Args))
		changed := false
		for i, a := range e.Args {
			c.Args[i] = sub(a)
			changed = changed || c.Args[i] != a
		}
		if changed {
			return &c
		}
	case *Unary:
		if x := sub(e.X); x != e.X {
			c := *e
			c.X = x
			return &c
		}
	case *Binary:
		x, y := sub(e.X), sub(e.Y)
		if x != e.X || y != e.Y {
			c := *e
			c.X, c.Y = x, y
			return &c
		}
	case *Cond:
		cc, t, f := sub(e.C), sub(e.T), sub(e.F)
		if cc != e.C || t != e.T || f != e.F {
			c := *e
			c.C, c.T, c.F = cc, t, f
			return &c
		}
	}
	return e
}
