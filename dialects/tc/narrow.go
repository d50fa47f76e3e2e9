package tc

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Narrowed reductions: range inference intersects what every access
// allows, so a guarded read such as
//
//	O(i) +=! (i + k - 1 >= 0 && i + k - 1 < N) ? I(i + k - 1) * Wt(k) : 0 where i in 0:N
//
// gives k only [1:2] (I(i + k - 1) must be in bounds for every i), and the
// reduction silently skips taps of Wt. The guard cannot help: inference
// looks at accesses, not at conditions. When a reduction variable ends up
// provably smaller than a dimension it indexes directly (Wt(k)), the user
// most likely meant the whole dimension, so the import warns at the access
// that narrowed it. A where clause on the variable, or an exists clause
// doing the narrowing, says the range is meant and silences it.

// narrowedReductions warns about each reduction variable whose inferred
// range is provably inside, and not equal to, the interval of a tensor
// dimension it indexes directly.
func (b *body) narrowedReductions(info *stmtInfo, rs ranges) {
	for _, v := range info.red {
		if _, fixed := info.ranges[v]; fixed {
			continue
		}
		r := rs[v]
		seen := map[string]bool{}
		for _, a := range info.accesses {
			dims := a.tensor.typ().Dims
			for k := range a.call.Args {
				if !a.affine[k] {
					continue
				}
				if x, ok := a.lin[k].AsVar(); !ok || x.Kind != sizeexpr.DimVar || x.Name != v {
					continue
				}
				key := fmt.Sprintf("%s/%d", a.call.Fn.Name, k)
				if seen[key] {
					continue
				}
				seen[key] = true
				d := dims[k].Interval
				binders := narrowers(info.why[v], r, d)
				if len(binders) == 0 {
					continue
				}
				var by []string
				for _, w := range binders {
					by = append(by, fmt.Sprintf("%s, which keeps %s in %s", w.acc.call.Text(), v, w.iv))
				}
				diag := ir.Warningf(binders[0].loc,
					"reduction index %s takes %s after range inference, narrower than dimension %d of %s (%s) that %s indexes directly; narrowed by %s: the reduction leaves out the other points of %s (docs/tc.md shows how to write zero padding)",
					v, r, k, a.call.Fn.Name, d, a.call.Text(), strings.Join(by, ", and "), a.call.Fn.Name)
				for _, w := range binders[1:] {
					diag.AddNote(w.loc, "%s also narrows %s", w.acc.call.Text(), v)
				}
				b.im.warn(diag)
			}
		}
	}
}

// narrowers are the accesses that provably cut the final range r of a
// variable below the dimension d: for each side on which r is provably
// inside d, the candidates that fix r's bound there (or, when the
// simplifier cannot show which does, every candidate narrower than d on
// that side). A side that an exists clause narrows is meant: it yields
// nothing. Each access is listed once, lower side first.
func narrowers(why []rangeWhy, r, d sizeexpr.Interval) []rangeWhy {
	var out []rangeWhy
	listed := map[*access]map[int]bool{}
	side := func(narrower func(x, y sizeexpr.Expr) bool, bound func(sizeexpr.Interval) sizeexpr.Expr) {
		if !narrower(bound(r), bound(d)) {
			return
		}
		var cut, fixing []rangeWhy
		for _, w := range why {
			if w.acc == nil || !narrower(bound(w.iv), bound(d)) {
				continue
			}
			if w.acc.exists {
				return
			}
			cut = append(cut, w)
			if sizeexpr.ProveEQ(bound(w.iv), bound(r)) {
				fixing = append(fixing, w)
			}
		}
		if len(fixing) > 0 {
			cut = fixing
		}
		for _, w := range cut {
			if listed[w.acc] == nil {
				listed[w.acc] = map[int]bool{}
			}
			if !listed[w.acc][w.arg] {
				listed[w.acc][w.arg] = true
				out = append(out, w)
			}
		}
	}
	side(sizeexpr.ProveGT, func(iv sizeexpr.Interval) sizeexpr.Expr { return iv.Lo })
	side(sizeexpr.ProveLT, func(iv sizeexpr.Interval) sizeexpr.Expr { return iv.Hi })
	return out
}
