package tc

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Name resolution of a statement. An identifier is, in this order: a
// tensor or scalar argument or a tensor defined by an earlier statement
// (its current value), a size variable, and otherwise an index variable of
// the statement (a `where` let binding was substituted before, let.go). A
// call f(...) is a tensor access when f is a tensor, else a builtin or a
// cast to a scalar type (builtins.go).

// stmtInfo is what name resolution finds in a statement.
type stmtInfo struct {
	s *Assign
	// vars are the index variables, left-hand side first, then in order
	// of first appearance; varLoc is that appearance.
	vars   []string
	varLoc map[string]ir.Location
	lhs    map[string]bool
	red    []string // reduction variables (not on the left)
	// ranges are the `where v in lo:hi` items by variable.
	ranges map[string]*WhereItem
	// accesses are the tensor accesses of the right-hand side and of the
	// exists clauses (nested ones included), in source order.
	accesses []*access
	// why records where each variable's range comes from (rangewhy.go).
	why map[string][]rangeWhy
}

// access is one tensor access T(args) and what range inference and the
// precondition checks find about each argument.
type access struct {
	call   *CallExpr
	tensor *tensor
	exists bool // in an exists clause: constrains ranges, is not read
	// lhs marks the left-hand side of an in-place update (`O(i) += e`
	// after O is defined): the existing value is read there, so its
	// domain constrains the ranges, as TC's own reads do; existing()
	// reads it and checks what inference did not resolve.
	lhs bool
	// Per argument: the affine form over index variables (tir.DimVar) and
	// sizes when affine[k]; used[k] when it resolved a variable; subset[k]
	// the interval it reads when that is not provably inside the tensor
	// (a tir.subset makes the precondition explicit and checked).
	lin    []sizeexpr.Expr
	affine []bool
	used   []bool
	subset map[int]sizeexpr.Interval
}

// analyze resolves the names of a statement and checks what can be
// checked before range inference: assignable left-hand side, fresh and
// distinct index variables, known tensors and builtins, arities, and a
// reduction operator when there are reduction variables.
func (b *body) analyze(s *Assign) (*stmtInfo, error) {
	info := &stmtInfo{s: s, varLoc: map[string]ir.Location{}, lhs: map[string]bool{}, ranges: map[string]*WhereItem{}}
	if t, ok := b.vals[s.LHS.Name]; ok && t.input {
		return nil, errorf(s.LHS.Loc, "cannot assign to argument '%s' (arguments are inputs)", s.LHS.Name)
	}
	if _, ok := b.sizes[s.LHS.Name]; ok {
		return nil, errorf(s.LHS.Loc, "'%s' is a size, not a tensor", s.LHS.Name)
	}
	if _, ok := b.im.funcs[s.LHS.Name]; ok {
		return nil, errorf(s.LHS.Loc, "'%s' is a function, not a tensor", s.LHS.Name)
	}
	for _, id := range s.Indices {
		if info.lhs[id.Name] {
			return nil, errorf(id.Loc, "index variable '%s' appears twice on the left-hand side", id.Name)
		}
		if err := b.checkIndexName(id); err != nil {
			return nil, err
		}
		info.lhs[id.Name] = true
		info.addVar(id.Name, id.Loc)
	}
	if err := b.resolve(info, s.RHS, false); err != nil {
		return nil, err
	}
	for _, w := range s.Where {
		if w.Exists != nil {
			if err := b.resolve(info, w.Exists, true); err != nil {
				return nil, err
			}
			continue
		}
		if err := b.checkIndexName(w.Var); err != nil {
			return nil, err
		}
		if prev, dup := info.ranges[w.Var.Name]; dup {
			return nil, errorf(w.Var.Loc, "'%s' has two ranges", w.Var.Name).AddNote(prev.Loc, "the other range is here")
		}
		info.ranges[w.Var.Name] = w
		info.addVar(w.Var.Name, w.Var.Loc)
	}
	if s.Op != "=" && !s.Init && len(s.Indices) > 0 {
		if cur, ok := b.vals[s.LHS.Name]; ok {
			if r := len(cur.typ().Dims); r != len(s.Indices) {
				return nil, errorf(s.LHS.Loc, "'%s' has %d dimensions but is written with %d indices", s.LHS.Name, r, len(s.Indices))
			}
			info.accesses = append(info.accesses, lhsAccess(s, cur))
		}
	}
	for _, v := range info.vars {
		if err := tirName(Ident{Name: v, Loc: info.varLoc[v]}, "a dimension", true); err != nil {
			return nil, err
		}
		if !info.lhs[v] {
			info.red = append(info.red, v)
		}
	}
	if len(info.red) > 0 && s.Op == "=" {
		v := info.red[0]
		return nil, errorf(info.varLoc[v], "'%s' is not on the left-hand side, so it is a reduction variable: use a reduction operator (+=!, *=!, min=!, max=!) or add it to the left", v)
	}
	return info, nil
}

// lhsAccess is the read of the existing value of an in-place update,
// O(i, j) for `O(i, j) += e`.
func lhsAccess(s *Assign, cur *tensor) *access {
	c := &CallExpr{node: node{Loc: s.LHS.Loc, Src: s.LHS.Name + "(...)"}, Fn: s.LHS}
	var names []string
	for _, id := range s.Indices {
		c.Args = append(c.Args, &Name{node: node{Loc: id.Loc, Src: id.Name}, ID: id.Name})
		names = append(names, id.Name)
	}
	c.Src = s.LHS.Name + "(" + strings.Join(names, ", ") + ")"
	return &access{call: c, tensor: cur, lhs: true}
}

func (info *stmtInfo) addVar(name string, loc ir.Location) {
	if _, ok := info.varLoc[name]; ok {
		return
	}
	info.vars = append(info.vars, name)
	info.varLoc[name] = loc
}

// tirKeywords are the words the tir grammar reserves where a dimension or
// size name goes.
var tirKeywords = map[string]bool{"true": true, "false": true, "module": true, "attributes": true, "affine_map": true, "affine_set": true}

// tirName rejects a TC name that the printed tir could not spell: TC
// names may start with digits, tir names may not; whole is true when the
// name is used as it is (an index variable, a size), false when it only
// prefixes a dimension name (A in A_0).
func tirName(id Ident, what string, whole bool) error {
	if c := id.Name[0]; c >= '0' && c <= '9' {
		if !whole {
			return errorf(id.Loc, "'%s' cannot name %s: its dimensions would be named %s_0, ..., and tir names start with a letter or '_'", id.Name, what, id.Name)
		}
		return errorf(id.Loc, "'%s' cannot name %s in tir, whose names start with a letter or '_': rename it", id.Name, what)
	}
	if whole && tirKeywords[id.Name] {
		return errorf(id.Loc, "'%s' is a tir keyword and cannot name %s: rename it", id.Name, what)
	}
	return nil
}

// checkIndexName rejects an index variable that is already a name in scope.
func (b *body) checkIndexName(id Ident) error {
	if _, ok := b.sizes[id.Name]; ok {
		return errorf(id.Loc, "'%s' is a size and cannot be an index variable", id.Name)
	}
	if _, ok := b.vals[id.Name]; ok {
		return errorf(id.Loc, "'%s' is a tensor and cannot be an index variable", id.Name)
	}
	return nil
}

// resolve classifies the identifiers of an expression, collecting index
// variables and accesses.
func (b *body) resolve(info *stmtInfo, e Expr, exists bool) error {
	var err error
	walk(e, func(e Expr) bool {
		if err != nil {
			return false
		}
		switch e := e.(type) {
		case *Name:
			err = b.resolveName(info, e)
		case *DimSize:
			_, err = b.dimSize(e)
		case *CallExpr:
			if t, ok := b.vals[e.Fn.Name]; ok {
				if t.scalar {
					err = errorf(e.Fn.Loc, "'%s' is a scalar argument: read it as %s, without parentheses", e.Fn.Name, e.Fn.Name)
					return false
				}
				if r := len(t.typ().Dims); r != len(e.Args) {
					err = errorf(e.Loc, "'%s' has %d dimensions but is accessed with %d indices", e.Fn.Name, r, len(e.Args))
					return false
				}
				// A where binding used twice shares its nodes: one access.
				for _, a := range info.accesses {
					if a.call == e {
						a.exists = a.exists && exists
						return false
					}
				}
				info.accesses = append(info.accesses, &access{call: e, tensor: t, exists: exists})
				return true
			}
			if known, aerr := checkBuiltin(e); known {
				err = aerr
				return err == nil
			}
			err = b.unknownCallee(e.Fn)
			return false
		}
		return true
	})
	return err
}

func (b *body) resolveName(info *stmtInfo, e *Name) error {
	if t, ok := b.vals[e.ID]; ok {
		if len(t.typ().Dims) > 0 {
			return errorf(e.Loc, "'%s' is a tensor with %d dimensions: index it", e.ID, len(t.typ().Dims))
		}
		return nil
	}
	if _, ok := b.sizes[e.ID]; ok {
		return nil
	}
	if _, ok := b.outputs[e.ID]; ok {
		return errorf(e.Loc, "'%s' is read before any statement defines it", e.ID)
	}
	info.addVar(e.ID, e.Loc)
	return nil
}

func (b *body) unknownCallee(fn Ident) error {
	if _, ok := b.im.funcs[fn.Name]; ok {
		return errorf(fn.Loc, "a call of TC function '%s' is a statement of its own: write OUT = %s(ARGS) or OUT1, OUT2 = %s(ARGS)", fn.Name, fn.Name, fn.Name)
	}
	if _, ok := b.outputs[fn.Name]; ok {
		return errorf(fn.Loc, "'%s' is read before any statement defines it", fn.Name)
	}
	if _, ok := b.sizes[fn.Name]; ok {
		return errorf(fn.Loc, "'%s' is a size, not a tensor", fn.Name)
	}
	return errorf(fn.Loc, "unknown tensor or function '%s'", fn.Name)
}

// dimSize is the extent of T.k.
func (b *body) dimSize(e *DimSize) (sizeexpr.Expr, error) {
	t, ok := b.vals[e.Tensor.Name]
	if !ok {
		return sizeexpr.Expr{}, errorf(e.Loc, "'%s' in %s is not a tensor defined here", e.Tensor.Name, e.Text())
	}
	dims := t.typ().Dims
	if e.Index < 0 || e.Index >= len(dims) {
		return sizeexpr.Expr{}, errorf(e.Loc, "'%s' has %d dimensions, so %s does not exist", e.Tensor.Name, len(dims), e.Text())
	}
	return dims[e.Index].Extent(), nil
}
