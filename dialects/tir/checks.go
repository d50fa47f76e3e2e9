package tir

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// RuntimeCheck is a condition on size symbols that a function needs and the
// compiler could not prove (spec 2.6): an output domain inside a symbolic
// computed one, a view or subset inside its operand, an assume_shape. The
// compiled function evaluates it once at entry, before any write; the
// interpreter evaluates it before running.
type RuntimeCheck struct {
	Loc ir.Location
	// NonNeg lists affine expressions of the size symbols that must all be
	// >= 0.
	NonNeg []sizeexpr.Expr
	Msg    string
}

// topArgs returns the arguments when e is exactly min(...) or max(...).
func topArgs(e sizeexpr.Expr, op sizeexpr.Op) ([]sizeexpr.Expr, bool) {
	terms, c := e.Terms()
	if len(terms) == 1 && terms[0].Coef == 1 && c == 0 && terms[0].Atom.Op() == op {
		return terms[0].Atom.Args(), true
	}
	return nil, false
}

// atLeast expresses e >= f as affine conditions (each >= 0), splitting
// min on the left and max on the right; those proven statically are left
// out. ok is false when some condition is not affine.
func atLeast(e, f sizeexpr.Expr) (out []sizeexpr.Expr, ok bool) {
	if sizeexpr.ProveGE(e, f) {
		return nil, true
	}
	if args, isMin := topArgs(e, sizeexpr.OpMin); isMin {
		ok = true
		for _, a := range args {
			c, aok := atLeast(a, f)
			out, ok = append(out, c...), ok && aok
		}
		return out, ok
	}
	if args, isMax := topArgs(f, sizeexpr.OpMax); isMax {
		ok = true
		for _, b := range args {
			c, bok := atLeast(e, b)
			out, ok = append(out, c...), ok && bok
		}
		return out, ok
	}
	d := sizeexpr.Sub(e, f)
	if !d.IsAffine() {
		return nil, false
	}
	return []sizeexpr.Expr{d}, true
}

// inside is the condition inner ⊆ outer.
func inside(inner, outer sizeexpr.Interval) ([]sizeexpr.Expr, bool) {
	a, aok := atLeast(inner.Lo, outer.Lo)
	b, bok := atLeast(outer.Hi, inner.Hi)
	return append(a, b...), aok && bok
}

// RuntimeChecks lists the checks of a tir.func, in program order. Warnings
// for conditions that cannot be expressed (non-affine) go to warn.
func RuntimeChecks(fn *ir.Operation, warn func(*ir.Diagnostic)) []RuntimeCheck {
	var out []RuntimeCheck
	add := func(loc ir.Location, conds []sizeexpr.Expr, ok bool, format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if !ok && warn != nil {
			warn(ir.Warningf(loc, "%s cannot be checked at run time (the condition is not affine)", msg))
		}
		if len(conds) > 0 {
			out = append(out, RuntimeCheck{Loc: loc, NonNeg: conds, Msg: msg})
		}
	}
	fn.Walk(func(op *ir.Operation) bool {
		switch op.Name {
		case "tir.return":
			ft, ok := FuncType(fn)
			if !ok {
				return true
			}
			for i, v := range op.Operands {
				got, _ := AsTensor(v.Type)
				want, ok := AsTensor(ft.Results[i])
				if !ok || i >= len(ft.Results) {
					continue
				}
				for _, wd := range want.Dims {
					if gd, ok := got.Dim(wd.Name); ok {
						if in, decided := gd.Contains(wd.Interval); !in && !decided {
							c, cok := inside(wd.Interval, gd.Interval)
							add(op.Loc, c, cok, "output domain of @%s: result #%d dimension %s is declared %s but computed only on %s",
								ir.SymbolName(fn), i, wd.Name, wd.Interval, gd.Interval)
						}
					}
				}
			}
		case "tir.view":
			x, _ := AsTensor(op.Operands[0].Type)
			y, _ := AsTensor(op.Results[0].Type)
			m, _ := op.Attr("map").(ViewAttr)
			for i, d := range m.Dims {
				xd, _ := x.Dim(d)
				img, ok := ImageInterval(m.Exprs[i], y)
				if !ok {
					add(op.Loc, nil, false, "view precondition %s = %s inside %s", d, m.Exprs[i], xd.Interval)
					continue
				}
				if in, decided := xd.Contains(img); !in && !decided {
					c, cok := inside(img, xd.Interval)
					add(op.Loc, c, cok, "view precondition failed: %s = %s takes %s, outside the operand's %s", d, m.Exprs[i], img, xd.Interval)
				}
			}
		case "tir.subset":
			x, _ := AsTensor(op.Operands[0].Type)
			bounds, _ := op.Attr("bounds").(DomainAttr)
			for _, b := range bounds {
				xd, _ := x.Dim(b.Name)
				if in, decided := xd.Contains(b.Interval); !in && !decided {
					c, cok := inside(b.Interval, xd.Interval)
					add(op.Loc, c, cok, "subset %s is not inside the operand's %s", b, xd)
				}
			}
		case "tir.assume_shape":
			x, _ := AsTensor(op.Operands[0].Type)
			y, _ := AsTensor(op.Results[0].Type)
			for _, d := range y.Dims {
				xd, _ := x.Dim(d.Name)
				if !sizeexpr.ProveEQ(xd.Lo, d.Lo) || !sizeexpr.ProveEQ(xd.Hi, d.Hi) {
					a, aok := inside(xd.Interval, d.Interval)
					b, bok := inside(d.Interval, xd.Interval)
					add(op.Loc, append(a, b...), aok && bok, "assume_shape: dimension %s is %s, not %s", d.Name, xd.Interval, d.Interval)
				}
			}
		case "tir.reduce":
			ins, _ := ReduceOperands(op)
			for _, d := range ReduceDims(op) {
				full := ReducedInterval(op, d)
				// An unknown extent that met a known bound before the
				// reduction (x * w with x on I[?]) shows as min or max in
				// the interval: it must equal the bound, never be narrowed
				// silently (spec 2.6).
				for _, b := range []struct {
					e  sizeexpr.Expr
					op sizeexpr.Op
				}{{full.Hi, sizeexpr.OpMin}, {full.Lo, sizeexpr.OpMax}} {
					args, ok := topArgs(b.e, b.op)
					if !ok || !anyUnknownExtent(args) {
						continue
					}
					var conds []sizeexpr.Expr
					for _, a := range args[1:] {
						conds = append(conds, sizeexpr.Sub(a, args[0]), sizeexpr.Sub(args[0], a))
					}
					add(op.Loc, conds, true, "reduction over %s: %s must be equal (an unknown extent is never narrowed)", d, unknownBounds(fn, args))
				}
				for i, v := range ins {
					t, _ := AsTensor(v.Type)
					x, ok := t.Dim(d)
					if !ok || !hasUnknownExtent(x.Interval) || x.Interval.Equal(full) {
						continue
					}
					a, aok := inside(x.Interval, full)
					add(op.Loc, a, aok, "reduction over %s: operand #%d has %s, but the reduction runs over %s", d, i, x.Interval, full)
				}
			}
		}
		return true
	})
	return out
}

func hasUnknownExtent(iv sizeexpr.Interval) bool {
	for _, e := range []sizeexpr.Expr{iv.Lo, iv.Hi} {
		for _, v := range e.Vars() {
			if IsUnknownExtent(v) {
				return true
			}
		}
	}
	return false
}

func anyUnknownExtent(es []sizeexpr.Expr) bool {
	for _, e := range es {
		if hasUnknownExtent(sizeexpr.Span(e, e)) {
			return true
		}
	}
	return false
}

// unknownBounds names the bounds that must agree; an unknown extent as
// "the extent of argument 'x' dimension I (?_x_I)".
func unknownBounds(fn *ir.Operation, es []sizeexpr.Expr) string {
	var parts []string
	for _, e := range es {
		text := e.String()
		if v, ok := e.AsVar(); ok && IsUnknownExtent(v) {
			if arg, dim, ok := unknownOwner(fn, v); ok {
				text = fmt.Sprintf("the extent of argument '%s' dimension %s (%s)", arg, dim, v.Name)
			}
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " and ")
}

// unknownOwner finds the argument and dimension whose upper bound is the
// unknown extent v.
func unknownOwner(fn *ir.Operation, v sizeexpr.Var) (arg, dim string, ok bool) {
	for _, a := range fn.Regions[0].Entry().Args {
		t, _ := AsTensor(a.Type)
		for _, d := range t.Dims {
			if w, isVar := d.Hi.AsVar(); isVar && w == v {
				return a.NameHint, d.Name, true
			}
		}
	}
	return "", "", false
}
