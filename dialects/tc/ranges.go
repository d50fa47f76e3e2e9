package tc

import (
	"fmt"
	"strings"

	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Range inference (spec 03): the largest rectangular ranges that read
// nothing out of bounds, in rounds.
//
//  1. `where v in lo:hi` ranges are resolved first.
//  2. A round looks at every affine access argument (exists clauses
//     included) with exactly one unresolved variable v, and solves
//     lo_T <= a*v + b < hi_T for every value of b over the variables
//     already resolved: with b in [bmin, bmax], a > 0 gives
//     [ceildiv(lo_T - bmin, a), floordiv(hi_T - 1 - bmax, a) + 1) and
//     a < 0 the mirror image. The candidates of one variable in one round
//     are intersected. Ranges resolved in a round are used from the next.
//  3. Rounds repeat until nothing resolves; a variable left over is an
//     error that suggests a where clause.
//
// Every access argument that resolved a variable is marked used; the
// others become preconditions (checks.go).

type ranges map[string]sizeexpr.Interval

func (b *body) inferRanges(info *stmtInfo) (ranges, error) {
	rs := ranges{}
	isIndex := func(n string) bool { _, ok := info.varLoc[n]; return ok }
	info.why = map[string][]rangeWhy{}
	b.isIndex = isIndex
	for _, v := range info.vars {
		w, ok := info.ranges[v]
		if !ok {
			continue
		}
		lo, err := b.bound(w.Lo, v)
		if err != nil {
			return nil, err
		}
		hi, err := b.bound(w.Hi, v)
		if err != nil {
			return nil, err
		}
		iv := sizeexpr.Span(lo, hi)
		if iv.ProvablyEmpty() {
			return nil, errorf(w.Loc, "empty range %s:%s for '%s' (never a negative size)", w.Lo.Text(), w.Hi.Text(), v)
		}
		rs[v] = iv
		info.why[v] = []rangeWhy{{loc: w.Loc, iv: iv, text: fmt.Sprintf("'%s' in %s comes from its where clause", v, iv)}}
	}
	for _, a := range info.accesses {
		n := len(a.call.Args)
		a.lin, a.affine, a.used = make([]sizeexpr.Expr, n), make([]bool, n), make([]bool, n)
		a.subset = map[int]sizeexpr.Interval{}
		for k, arg := range a.call.Args {
			a.lin[k], a.affine[k] = b.linear(arg, isIndex)
		}
	}
	type use struct {
		a  *access
		k  int
		iv sizeexpr.Interval
	}
	for {
		cands := map[string][]sizeexpr.Interval{}
		var uses []use
		for _, a := range info.accesses {
			dims := a.tensor.typ().Dims
			for k := range a.call.Args {
				if !a.affine[k] {
					continue
				}
				u := unresolved(a.lin[k], rs)
				if len(u) != 1 {
					continue
				}
				iv := solve(a.lin[k], u[0], dims[k].Interval, rs)
				cands[u[0]] = append(cands[u[0]], iv)
				uses = append(uses, use{a, k, iv})
				w := rangeWhy{loc: a.call.Args[k].Pos(), iv: iv, deps: resolvedVars(a.lin[k], rs, u[0]), acc: a, arg: k,
					text: fmt.Sprintf("%s keeps '%s' in %s: dimension %d of %s is %s", a.call.Text(), u[0], iv, k, a.call.Fn.Name, dims[k].Interval)}
				if a.lhs {
					w.loc, w.text = a.call.Pos(), fmt.Sprintf("the existing value of %s keeps '%s' in %s", a.call.Fn.Name, u[0], iv)
				}
				info.why[u[0]] = append(info.why[u[0]], w)
			}
		}
		if len(cands) == 0 {
			break
		}
		for _, v := range info.vars {
			ivs, ok := cands[v]
			if !ok {
				continue
			}
			r := ivs[0]
			for _, iv := range ivs[1:] {
				r = r.Intersect(iv)
			}
			rs[v] = r
		}
		for _, u := range uses {
			u.a.used[u.k] = true
		}
	}
	for _, v := range info.vars {
		if _, ok := rs[v]; !ok {
			why := ""
			if b.inNonAffine(info, v) {
				why = " (it appears only in non-affine indices, which cannot resolve a variable)"
			}
			return nil, errorf(info.varLoc[v], "cannot infer the range of '%s'%s; add a where clause: where %s in LO:HI", v, why, v)
		}
	}
	for _, v := range info.vars {
		iv := rs[v]
		if !iv.ProvablyEmpty() {
			continue
		}
		what := fmt.Sprintf("reduction variable '%s': %s", v, iv)
		for k, id := range info.s.Indices {
			if id.Name == v {
				what = fmt.Sprintf("dimension %d of %s: '%s' in %s", k, info.s.LHS.Name, v, iv)
			}
		}
		// Every access that bounded v, which bound each one fixed, and
		// where the ranges of the variables they used come from.
		d := errorf(info.varLoc[v], "empty inferred range for %s (never a negative size)", what)
		explainVars(d, info.why, rs, []string{v})
		return nil, d
	}
	return rs, nil
}

// unresolved lists the index variables of an affine form without a range.
func unresolved(e sizeexpr.Expr, rs ranges) []string {
	var out []string
	for _, v := range e.Vars() {
		if v.Kind == sizeexpr.DimVar {
			if _, ok := rs[v.Name]; !ok {
				out = append(out, v.Name)
			}
		}
	}
	return out
}

// solve is the largest range of v for which lin stays inside t, for all
// values of the other (resolved) variables.
func solve(lin sizeexpr.Expr, v string, t sizeexpr.Interval, rs ranges) sizeexpr.Interval {
	terms, c, _ := lin.Linear()
	var a int64
	bmin, bmax := sizeexpr.Const(c), sizeexpr.Const(c)
	for _, tm := range terms {
		x := tm.Var
		switch {
		case x.Kind == sizeexpr.DimVar && x.Name == v:
			a = tm.Coef
		case x.Kind == sizeexpr.DimVar:
			r := rs[x.Name]
			first, last := r.Lo, sizeexpr.Sub(r.Hi, sizeexpr.Const(1))
			if tm.Coef < 0 {
				first, last = last, first
			}
			bmin = sizeexpr.Add(bmin, sizeexpr.Mul(first, tm.Coef))
			bmax = sizeexpr.Add(bmax, sizeexpr.Mul(last, tm.Coef))
		default:
			s := sizeexpr.Mul(x.Expr(), tm.Coef)
			bmin, bmax = sizeexpr.Add(bmin, s), sizeexpr.Add(bmax, s)
		}
	}
	one := sizeexpr.Const(1)
	if a > 0 {
		lo, _ := sizeexpr.CeilDiv(sizeexpr.Sub(t.Lo, bmin), a)
		hi, _ := sizeexpr.FloorDiv(sizeexpr.Sub(sizeexpr.Sub(t.Hi, one), bmax), a)
		return sizeexpr.Span(lo, sizeexpr.Add(hi, one))
	}
	lo, _ := sizeexpr.CeilDiv(sizeexpr.Add(sizeexpr.Sub(bmax, t.Hi), one), -a)
	hi, _ := sizeexpr.FloorDiv(sizeexpr.Sub(bmin, t.Lo), -a)
	return sizeexpr.Span(lo, sizeexpr.Add(hi, one))
}

// inNonAffine reports whether v occurs in a non-affine access argument.
func (b *body) inNonAffine(info *stmtInfo, v string) bool {
	for _, a := range info.accesses {
		for k, arg := range a.call.Args {
			if a.affine[k] {
				continue
			}
			found := false
			walk(arg, func(e Expr) bool {
				if n, ok := e.(*Name); ok && n.ID == v {
					found = true
				}
				return !found
			})
			if found {
				return true
			}
		}
	}
	return false
}

// dims are the ranges of the named variables as tir dimensions.
func (rs ranges) dims(names []string) []tir.Dim {
	var out []tir.Dim
	for _, n := range names {
		out = append(out, tir.Dim{Name: n, Interval: rs[n]})
	}
	return out
}

// image is the interval of values an affine form takes over the ranges.
func (rs ranges) image(lin sizeexpr.Expr) sizeexpr.Interval {
	var names []string
	for _, v := range lin.Vars() {
		if v.Kind == sizeexpr.DimVar {
			names = append(names, v.Name)
		}
	}
	iv, _ := tir.ImageInterval(lin, tir.TensorType{Dims: rs.dims(names)})
	return iv
}

// String prints the ranges in variable order, for tests and debugging.
func (rs ranges) String(vars []string) string {
	var parts []string
	for _, v := range vars {
		parts = append(parts, v+" in "+rs[v].String())
	}
	return strings.Join(parts, ", ")
}
