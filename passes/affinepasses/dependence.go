package affinepasses

import (
	"strconv"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// dist is one component of a dependence distance vector: a known constant
// or unknown (any value may occur).
type dist struct {
	known bool
	d     int64
}

// depSide is one access's view of a dependence question: ivs are the
// induction variables of the loops the question pairs up (the distance is
// measured along them), scope is the op inside which values differ from
// one instance to the other (the loop nest being transformed: values
// defined in it, such as inner induction variables, are free).
type depSide struct {
	ivs   []*ir.Value
	scope *ir.Operation
}

// distance asks whether an instance of a and an instance of b can touch
// the same element. If they may (indep false), d[l] is the distance along
// paired loop l, (b's iteration) - (a's iteration), when it is the same
// for every such pair of instances. Values defined outside both scopes are
// the same for both instances; everything else is free. The tests are
// classic and cheap: a subscript difference that is a non-zero constant
// (ZIV), or whose coefficients' gcd does not divide its constant (GCD),
// proves independence; a difference k*x_l - k*y_l + c gives the distance
// c/k along loop l (strong SIV). Anything else gives no information, so
// the answer errs towards "dependent, unknown distance".
func distance(x *valueExprs, a, b access, sa, sb depSide) (indep bool, d []dist) {
	n := len(sa.ivs)
	d = make([]dist, n)
	if !mayAlias(a.mem, b.mem) {
		return true, nil
	}
	if a.mem != b.mem || a.subs == nil || b.subs == nil || len(a.subs) != len(b.subs) {
		return false, d
	}
	fresh := 0
	side := func(acc access, s depSide, tag string) []sizeexpr.Expr {
		priv := map[*ir.Value]sizeexpr.Expr{}
		for l, iv := range s.ivs {
			priv[iv] = sizeexpr.Dim(tag+strconv.Itoa(l), 1<<20+l)
		}
		out := make([]sizeexpr.Expr, len(acc.subs))
		for i, e := range acc.subs {
			out[i] = x.renameValues(e, func(v *ir.Value) (sizeexpr.Expr, bool) {
				if r, ok := priv[v]; ok {
					return r, true
				}
				if s.scope != nil && ir.DefinedInside(v, s.scope) {
					fresh++
					r := sizeexpr.Dim("#"+strconv.Itoa(fresh), 1<<21+fresh)
					priv[v] = r
					return r, true
				}
				return sizeexpr.Expr{}, false
			})
		}
		if k := len(out); k > 0 && acc.lanes > 1 {
			fresh++
			out[k-1] = sizeexpr.Add(out[k-1], sizeexpr.Dim("#"+strconv.Itoa(fresh), 1<<21+fresh))
		}
		return out
	}
	as, bs := side(a, sa, "x"), side(b, sb, "y")
	for i := range as {
		e := sizeexpr.Sub(as[i], bs[i])
		if c, ok := e.Const(); ok {
			if c != 0 {
				return true, nil
			}
			continue
		}
		terms, c, ok := e.Linear()
		if !ok {
			continue
		}
		g := int64(0)
		for _, t := range terms {
			g = gcd(g, t.Coef)
		}
		if g != 0 && c%g != 0 {
			return true, nil
		}
		if len(terms) != 2 || terms[0].Coef != -terms[1].Coef {
			continue
		}
		lx, okx := pairedLoop(terms[0].Var, "x")
		ly, oky := pairedLoop(terms[1].Var, "y")
		k := terms[0].Coef
		if !okx || !oky {
			lx, okx = pairedLoop(terms[1].Var, "x")
			ly, oky = pairedLoop(terms[0].Var, "y")
			k = terms[1].Coef
		}
		if !okx || !oky || lx != ly {
			continue
		}
		// k*x - k*y + c = 0, so y - x = c/k.
		v := c / k
		if d[lx].known && d[lx].d != v {
			return true, nil
		}
		d[lx] = dist{known: true, d: v}
	}
	return false, d
}

// pairedLoop returns l when w is the variable of paired loop l on the side
// tagged tag.
func pairedLoop(w sizeexpr.Var, tag string) (int, bool) {
	if len(w.Name) < 2 || w.Name[:1] != tag || w.Order < 1<<20 || w.Order >= 1<<21 {
		return 0, false
	}
	l, err := strconv.Atoi(w.Name[1:])
	return l, err == nil
}

func gcd(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// conflicts lists the pairs of accesses (one from as, one from bs, at
// least one a write, on memrefs that may alias) that a dependence test has
// to look at. With same set, each unordered pair is listed once and a
// write is paired with itself.
func conflicts(as, bs []access, same bool) [][2]access {
	var out [][2]access
	for i, a := range as {
		start := 0
		if same {
			start = i
		}
		for _, b := range bs[start:] {
			if (a.write || b.write) && mayAlias(a.mem, b.mem) {
				out = append(out, [2]access{a, b})
			}
		}
	}
	return out
}
