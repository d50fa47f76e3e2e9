package tc

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Preconditions: the access arguments that did not resolve a variable
// must still read inside their tensor. An affine one is proven, or
// provably violated (an error), or else a warning stating the condition;
// its access then reads through a tir.subset to the interval it needs,
// which tir checks at function entry when the condition involves only
// sizes (tir.RuntimeChecks). A data-dependent or non-affine one is read
// through tir.gather, which masks what falls outside; it gets a warning
// unless the bounds of its values are known to be inside (clamping with
// max(min(C(i), J - 1), 0) is).

func (b *body) preconditions(info *stmtInfo, rs ranges) error {
	for _, a := range info.accesses {
		if a.lhs {
			continue
		}
		dims := a.tensor.typ().Dims
		name := a.call.Fn.Name
		for k, arg := range a.call.Args {
			if a.used[k] {
				continue
			}
			d := dims[k]
			if !a.affine[k] {
				if _, err := b.indexType(arg); err != nil {
					return err
				}
				if a.exists || b.within(arg, d.Interval, rs) {
					continue
				}
				what := arg.Text()
				if c, ok := arg.(*CallExpr); ok {
					if _, isTensor := b.vals[c.Fn.Name]; isTensor {
						what = c.Fn.Name
					}
				}
				b.im.warn(ir.Warningf(arg.Pos(), "unchecked precondition: values of %s must lie in [%s, %s)", what, d.Lo, d.Hi))
				continue
			}
			img := rs.image(a.lin[k])
			inside, decided := d.Contains(img)
			if inside {
				continue
			}
			if decided {
				e := errorf(arg.Pos(), "out of bounds: index %s of %s (dimension %d) takes %s, outside %s", arg.Text(), name, k, img, d.Interval)
				explainVars(e, info.why, rs, resolvedVars(a.lin[k], rs, ""))
				return e
			}
			how := "checked at run time"
			if a.exists {
				how = "not checked: exists does not read"
			} else {
				a.subset[k] = img
			}
			b.im.warn(ir.Warningf(arg.Pos(), "precondition on the size of %s: index %s of dimension %d takes %s, which must lie inside %s (%s)", name, arg.Text(), k, img, d.Interval, how))
		}
	}
	return nil
}

// vbounds are inclusive bounds of an integer expression's values; a
// missing bound is unknown.
type vbounds struct {
	lo, hi       sizeexpr.Expr
	hasLo, hasHi bool
}

func exact(e sizeexpr.Expr) vbounds { return vbounds{e, e, true, true} }

// within reports whether the values of e provably lie in iv, assuming iv
// is not empty (if it is, nothing can be read and the gather masks
// everything, which is why a clamp to [0, J - 1] counts as inside).
func (b *body) within(e Expr, iv sizeexpr.Interval, rs ranges) bool {
	vb := b.valueBounds(e, rs)
	last := sizeexpr.Sub(iv.Hi, sizeexpr.Const(1))
	return vb.hasLo && vb.hasHi && atLeast(vb.lo, iv.Lo, last) && atMost(vb.hi, iv.Lo, last)
}

// atLeast reports x >= lo, where x == lo or x == last also count (they are
// inside a non-empty [lo, last]), and so does a min or max of such.
func atLeast(x, lo, last sizeexpr.Expr) bool {
	if x.Equal(lo) || x.Equal(last) || sizeexpr.ProveGE(x, lo) {
		return true
	}
	return allArgs(x, func(a sizeexpr.Expr) bool { return atLeast(a, lo, last) })
}

// atMost reports x <= last, in the same sense.
func atMost(x, lo, last sizeexpr.Expr) bool {
	if x.Equal(lo) || x.Equal(last) || sizeexpr.ProveLE(x, last) {
		return true
	}
	return allArgs(x, func(a sizeexpr.Expr) bool { return atMost(a, lo, last) })
}

// allArgs applies f to every argument of x when x is exactly a min or max.
func allArgs(x sizeexpr.Expr, f func(sizeexpr.Expr) bool) bool {
	terms, c := x.Terms()
	if len(terms) != 1 || terms[0].Coef != 1 || c != 0 {
		return false
	}
	if op := terms[0].Atom.Op(); op != sizeexpr.OpMin && op != sizeexpr.OpMax {
		return false
	}
	for _, a := range terms[0].Atom.Args() {
		if !f(a) {
			return false
		}
	}
	return true
}

// valueBounds bounds the values of an integer index expression: literals,
// sizes and index variables exactly, + - and products, quotients and
// remainders by constants, min, max and ?:. A tensor read is unbounded.
func (b *body) valueBounds(e Expr, rs ranges) vbounds {
	switch e := e.(type) {
	case *Num:
		if !e.Float {
			return exact(sizeexpr.Const(e.Int))
		}
	case *Name:
		if s, ok := b.sizes[e.ID]; ok {
			return exact(s)
		}
		if r, ok := rs[e.ID]; ok {
			return vbounds{r.Lo, sizeexpr.Sub(r.Hi, sizeexpr.Const(1)), true, true}
		}
	case *DimSize:
		if x, err := b.dimSize(e); err == nil {
			return exact(x)
		}
	case *Unary:
		x := b.valueBounds(e.X, rs)
		switch e.Op {
		case "+":
			return x
		case "-":
			return vbounds{sizeexpr.Neg(x.hi), sizeexpr.Neg(x.lo), x.hasHi, x.hasLo}
		}
	case *Binary:
		return b.binaryBounds(e, rs)
	case *Cond:
		t, f := b.valueBounds(e.T, rs), b.valueBounds(e.F, rs)
		return vbounds{sizeexpr.Min(t.lo, f.lo), sizeexpr.Max(t.hi, f.hi), t.hasLo && f.hasLo, t.hasHi && f.hasHi}
	case *CallExpr:
		if x, ok := b.indexCast(e); ok {
			return b.valueBounds(x, rs)
		}
		if _, isTensor := b.vals[e.Fn.Name]; !isTensor && (e.Fn.Name == "min" || e.Fn.Name == "max") {
			return b.minMaxBounds(e, rs)
		}
	}
	return vbounds{}
}

func (b *body) binaryBounds(e *Binary, rs ranges) vbounds {
	x, y := b.valueBounds(e.X, rs), b.valueBounds(e.Y, rs)
	switch e.Op {
	case "+":
		return vbounds{sizeexpr.Add(x.lo, y.lo), sizeexpr.Add(x.hi, y.hi), x.hasLo && y.hasLo, x.hasHi && y.hasHi}
	case "-":
		return vbounds{sizeexpr.Sub(x.lo, y.hi), sizeexpr.Sub(x.hi, y.lo), x.hasLo && y.hasHi, x.hasHi && y.hasLo}
	}
	c, ok := constOf(y)
	if !ok {
		if cx, okx := constOf(x); okx && e.Op == "*" {
			x, c, ok = y, cx, true
		}
	}
	if !ok {
		return vbounds{}
	}
	switch {
	case e.Op == "*" && c >= 0:
		return vbounds{sizeexpr.Mul(x.lo, c), sizeexpr.Mul(x.hi, c), x.hasLo, x.hasHi}
	case e.Op == "*":
		return vbounds{sizeexpr.Mul(x.hi, c), sizeexpr.Mul(x.lo, c), x.hasHi, x.hasLo}
	case e.Op == "/" && c > 0:
		lo, _ := sizeexpr.FloorDiv(x.lo, c)
		hi, _ := sizeexpr.FloorDiv(x.hi, c)
		return vbounds{lo, hi, x.hasLo, x.hasHi}
	case e.Op == "%" && c > 0:
		return vbounds{sizeexpr.Const(0), sizeexpr.Const(c - 1), true, true}
	}
	return vbounds{}
}

func constOf(v vbounds) (int64, bool) {
	if !v.hasLo || !v.hasHi || !v.lo.Equal(v.hi) {
		return 0, false
	}
	return v.lo.Const()
}

// minMaxBounds: min's upper bound needs one known argument, its lower
// bound all of them (and dually for max).
func (b *body) minMaxBounds(e *CallExpr, rs ranges) vbounds {
	isMin := e.Fn.Name == "min"
	var out vbounds
	allLo, allHi := true, true
	var los, his []sizeexpr.Expr
	for _, a := range e.Args {
		v := b.valueBounds(a, rs)
		if v.hasLo {
			los = append(los, v.lo)
		} else {
			allLo = false
		}
		if v.hasHi {
			his = append(his, v.hi)
		} else {
			allHi = false
		}
	}
	if isMin {
		out.hasLo, out.hasHi = allLo && len(los) > 0, len(his) > 0
	} else {
		out.hasLo, out.hasHi = len(los) > 0, allHi && len(his) > 0
	}
	if out.hasLo {
		if isMin {
			out.lo = sizeexpr.MinOf(los...)
		} else {
			out.lo = sizeexpr.MaxOf(los...)
		}
	}
	if out.hasHi {
		if isMin {
			out.hi = sizeexpr.MinOf(his...)
		} else {
			out.hi = sizeexpr.MaxOf(his...)
		}
	}
	return out
}
