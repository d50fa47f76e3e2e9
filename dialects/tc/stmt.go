package tc

import (
	"tir/dialects/ir"
)

// A statement T(i, j) op rhs defines a new value of T: the right-hand side
// over all index variables, reduced over the reduction variables with
// tir.reduce (op's combiner; `!` starts from the identity, no `!` from T's
// existing value, passed as the reduction's init), then given the
// left-hand side's variables in order as dimensions, with their inferred
// ranges. Later statements read that value; the tensor's previous value
// is what the right-hand side itself reads (values are immutable).

var reduceKinds = map[string]string{"+": "add", "*": "mul", "min": "min", "max": "max"}
var combineOps = map[string]string{"+": "tir.add", "*": "tir.mul", "min": "tir.min", "max": "tir.max"}

func (b *body) stmt(s Stmt) (err error) {
	defer overflowGuard(s.Pos(), &err)
	switch s := s.(type) {
	case *Call:
		return b.call(s)
	case *Assign:
		if c, ok := b.asCall(s); ok {
			return b.call(c)
		}
		return b.assign(s)
	}
	return errorf(s.Pos(), "unsupported statement")
}

// asCall recognises the single-output function call `O = f(A, B)`, which
// the grammar reads as an assignment.
func (b *body) asCall(s *Assign) (*Call, bool) {
	c, ok := s.RHS.(*CallExpr)
	if !ok || !s.Bare || s.Op != "=" || s.Init || len(s.Where) > 0 {
		return nil, false
	}
	if _, isFunc := b.im.funcs[c.Fn.Name]; !isFunc {
		return nil, false
	}
	if _, isTensor := b.vals[c.Fn.Name]; isTensor {
		return nil, false
	}
	call := &Call{Outs: []Ident{s.LHS}, Callee: c.Fn}
	for _, a := range c.Args {
		n, ok := a.(*Name)
		if !ok {
			return nil, false
		}
		call.Args = append(call.Args, Ident{Name: n.ID, Loc: n.Loc})
	}
	return call, true
}

func (b *body) assign(s *Assign) error {
	s, err := b.expandLets(s)
	if err != nil {
		return err
	}
	info, err := b.analyze(s)
	if err != nil {
		return err
	}
	rs, err := b.inferRanges(info)
	if err != nil {
		return err
	}
	if b.im.inferred != nil {
		b.im.inferred(s, info.vars, rs)
	}
	if err := b.preconditions(info, rs); err != nil {
		return err
	}
	b.narrowedReductions(info, rs)
	sc := &stmtCtx{b: b, info: info, rs: rs, acc: map[*CallExpr]*access{}, pos: map[string]*ir.Value{}, reads: map[string]*ir.Value{}}
	for _, a := range info.accesses {
		sc.acc[a.call] = a
	}
	elem := b.outputElem(s.LHS.Name)
	if elem == nil {
		elem = sc.typeOf(s.RHS).concrete(nil)
	}
	v, err := sc.emit(s.RHS, elem)
	if err != nil {
		return err
	}
	var lhsNames []string
	for _, id := range s.Indices {
		lhsNames = append(lhsNames, id.Name)
	}
	lhs := rs.dims(lhsNames)
	loc := s.LHS.Loc
	var old *ir.Value
	if s.Op != "=" && !s.Init {
		if old, err = sc.existing(lhs, elem); err != nil {
			return err
		}
	}
	switch {
	case len(info.red) > 0:
		// Every reduction variable is reduced over its whole range, even
		// one the right-hand side does not vary along.
		if v, err = b.broadcastTo(v, rs.dims(info.red), loc); err != nil {
			return err
		}
		var dims ir.ArrayAttr
		for _, r := range info.red {
			dims = append(dims, ir.StringAttr(r))
		}
		operands := []*ir.Value{v}
		if old != nil {
			operands = append(operands, old)
		}
		attrs := ir.DictAttr{}.With("dims", dims).With("kind", ir.StringAttr(reduceKinds[s.Op]))
		if v, err = b.build("tir.reduce", s.OpLoc, operands, attrs, nil); err != nil {
			return err
		}
	case old != nil:
		if v, err = b.build(combineOps[s.Op], s.OpLoc, []*ir.Value{old, v}, nil, nil); err != nil {
			return err
		}
	}
	if v, err = b.broadcastTo(v, lhs, loc); err != nil {
		return err
	}
	if v, err = b.reorder(v, lhs, loc); err != nil {
		return err
	}
	b.define(s.LHS.Name, v)
	return nil
}

// outputElem is the element type a statement must produce for T: a typed
// output's, else that of T's previous value; nil when T is new (the
// right-hand side decides).
func (b *body) outputElem(name string) ir.Type {
	if out, ok := b.outputs[name]; ok && out.Type != nil {
		return scalarTypes[out.Type.Scalar.Name]
	}
	if cur, ok := b.vals[name]; ok {
		return cur.typ().Elem
	}
	return nil
}

// define makes v the current value of name, named after it in the IR
// (unless v is already a named value, such as an argument).
func (b *body) define(name string, v *ir.Value) {
	if v.NameHint == "" {
		v.NameHint = b.names.fresh(name)
	}
	b.vals[name] = &tensor{v: v}
	b.types = nil
}
