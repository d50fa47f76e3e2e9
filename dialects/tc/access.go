package tc

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// read lowers an access once per statement.
func (sc *stmtCtx) read(a *access) (*ir.Value, error) {
	key := fmt.Sprintf("%p", a.tensor)
	for k, arg := range a.call.Args {
		if a.affine[k] {
			key += "|" + a.lin[k].String()
		} else {
			key += "|?" + arg.Text()
		}
	}
	if v, ok := sc.reads[key]; ok {
		return v, nil
	}
	v, err := sc.access(a)
	if err == nil {
		sc.reads[key] = v
	}
	return v, err
}

// access lowers a tensor access T(e0, ..., en): a tir.view whose result
// dimensions are the index variables of the affine arguments with their
// inferred ranges (nothing when that is the identity), preceded by a
// tir.subset for the preconditions that could not be proven, and followed
// by one tir.gather per data-dependent argument. The view keeps a
// data-dependent dimension under a placeholder name; the gather then
// replaces it by the dimensions of the index table.
func (sc *stmtCtx) access(a *access) (*ir.Value, error) {
	b := sc.b
	loc := a.call.Loc
	x := a.tensor.v
	xt := a.tensor.typ()
	if len(a.subset) > 0 {
		var bounds tir.DomainAttr
		for k, d := range xt.Dims {
			if iv, ok := a.subset[k]; ok {
				bounds = append(bounds, tir.Dim{Name: d.Name, Interval: iv})
			}
		}
		var err error
		if x, err = b.build("tir.subset", loc, []*ir.Value{x}, ir.DictAttr{}.With("bounds", bounds), nil); err != nil {
			return nil, err
		}
		xt, _ = tir.AsTensor(x.Type)
	}
	var names []string
	var exprs []sizeexpr.Expr
	var out []tir.Dim
	seen := map[string]bool{}
	type gather struct {
		dim string
		arg Expr
	}
	var gathers []gather
	identity := true
	for k, d := range xt.Dims {
		names = append(names, d.Name)
		if !a.affine[k] {
			p := sc.placeholder(d.Name, seen)
			exprs = append(exprs, tir.DimVar(p))
			out = append(out, tir.Dim{Name: p, Interval: d.Interval})
			gathers = append(gathers, gather{p, a.call.Args[k]})
			identity = identity && p == d.Name
			continue
		}
		e := a.lin[k]
		exprs = append(exprs, e)
		if v, ok := e.AsVar(); !ok || v.Kind != sizeexpr.DimVar || v.Name != d.Name || seen[v.Name] || !sc.rs[v.Name].Equal(d.Interval) {
			identity = false
		}
		for _, v := range e.Vars() {
			if v.Kind == sizeexpr.DimVar && !seen[v.Name] {
				seen[v.Name] = true
				out = append(out, tir.Dim{Name: v.Name, Interval: sc.rs[v.Name]})
			}
		}
	}
	if !identity {
		var err error
		if x, err = b.view(x, names, exprs, out, loc); err != nil {
			return nil, err
		}
	}
	for _, g := range gathers {
		table, err := sc.indexTable(g.arg)
		if err != nil {
			return nil, err
		}
		if x, err = b.build("tir.gather", g.arg.Pos(), []*ir.Value{x, table}, ir.DictAttr{}.With("dim", ir.StringAttr(g.dim)), nil); err != nil {
			return nil, err
		}
	}
	return x, nil
}

// placeholder names a data-dependent dimension in a view: the tensor's own
// dimension name, unless an index variable of the statement has it.
func (sc *stmtCtx) placeholder(name string, seen map[string]bool) string {
	p := name
	for {
		if _, isVar := sc.info.varLoc[p]; !isVar && !seen[p] {
			seen[p] = true
			return p
		}
		p += "_"
	}
}

// existing reads the tensor a statement accumulates into (an operator
// without `!`), shaped as its left-hand side: its current value, or for
// an output not defined yet its incoming contents. The tensor must be
// defined on the statement's ranges (proven, else a precondition).
func (sc *stmtCtx) existing(lhs []tir.Dim, elem ir.Type) (*ir.Value, error) {
	b := sc.b
	s := sc.info.s
	var x *ir.Value
	if cur, ok := b.vals[s.LHS.Name]; ok {
		x = cur.v
	} else {
		var want []sizeexpr.Interval
		for _, d := range lhs {
			want = append(want, d.Interval)
		}
		v, err := b.incoming(s.LHS.Name, want, elem, s.OpLoc)
		if err != nil {
			return nil, err
		}
		x = v
	}
	xt, _ := tir.AsTensor(x.Type)
	if len(xt.Dims) != len(lhs) {
		return nil, errorf(s.LHS.Loc, "'%s' has %d dimensions but is written with %d indices", s.LHS.Name, len(xt.Dims), len(lhs))
	}
	var bounds tir.DomainAttr
	for k, d := range xt.Dims {
		inside, decided := d.Contains(lhs[k].Interval)
		switch {
		case inside:
		case decided:
			return nil, errorf(s.OpLoc, "'%s' is defined on %s in dimension %d, but this statement accumulates into it on %s", s.LHS.Name, d.Interval, k, lhs[k].Interval)
		default:
			b.im.warn(ir.Warningf(s.OpLoc, "precondition on the size of %s: this statement accumulates into dimension %d on %s, which must lie inside %s (checked at run time)", s.LHS.Name, k, lhs[k].Interval, d.Interval))
			bounds = append(bounds, tir.Dim{Name: d.Name, Interval: lhs[k].Interval})
		}
	}
	if len(bounds) > 0 {
		var err error
		if x, err = b.build("tir.subset", s.OpLoc, []*ir.Value{x}, ir.DictAttr{}.With("bounds", bounds), nil); err != nil {
			return nil, err
		}
		xt, _ = tir.AsTensor(x.Type)
	}
	same := true
	var names []string
	var exprs []sizeexpr.Expr
	for k, d := range xt.Dims {
		names = append(names, d.Name)
		exprs = append(exprs, tir.DimVar(lhs[k].Name))
		same = same && d.Name == lhs[k].Name && d.Interval.Equal(lhs[k].Interval)
	}
	if !same {
		var err error
		if x, err = b.view(x, names, exprs, lhs, s.OpLoc); err != nil {
			return nil, err
		}
	}
	return b.cast(x, elem, s.OpLoc)
}
