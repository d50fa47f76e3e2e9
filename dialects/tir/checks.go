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
	// Msg is the message without run-time values (for a warning, or when
	// the values are not known).
	Msg string
	// Texts and Values give the message of a failure with the run-time
	// values (spec 5.1: the argument, the dimension, the expected and the
	// actual extents): Texts[0], Values[0], Texts[1], ..., Texts[n], each
	// value an expression of the size symbols printed as a decimal
	// integer. Texts is nil when the message has no values (then it is
	// Msg).
	Texts  []string
	Values []sizeexpr.Expr
}

// Message is the failure message with the values of the symbols env gives
// (the interpreter's; compiled code prints the same with Format).
func (c RuntimeCheck) Message(env func(sizeexpr.Var) (int64, bool)) string {
	if c.Texts == nil {
		return c.Msg
	}
	var b strings.Builder
	for i, t := range c.Texts {
		b.WriteString(t)
		if i < len(c.Values) {
			v, err := c.Values[i].Eval(env)
			if err != nil {
				return c.Msg
			}
			fmt.Fprintf(&b, "%d", v)
		}
	}
	return b.String()
}

// Format is the message as a printf format whose conversions (verb, for
// example "%lld") take the values in order; '%' in the text is escaped.
func (c RuntimeCheck) Format(verb string) string {
	if c.Texts == nil {
		return strings.ReplaceAll(c.Msg, "%", "%%")
	}
	parts := make([]string, len(c.Texts))
	for i, t := range c.Texts {
		parts[i] = strings.ReplaceAll(t, "%", "%%")
	}
	return strings.Join(parts, verb)
}

// message builds a RuntimeCheck's texts and values along with its static
// form.
type message struct {
	static, cur strings.Builder
	texts       []string
	values      []sizeexpr.Expr
}

func (m *message) text(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	m.static.WriteString(s)
	m.cur.WriteString(s)
}

// value writes e's run-time value (never below zero when clamp is set: an
// extent, spec 2.6's empty inverted interval); static is what the message
// without values says instead.
func (m *message) value(e sizeexpr.Expr, clamp bool, static string) {
	m.static.WriteString(static)
	if clamp {
		e = sizeexpr.Max(e, sizeexpr.Const(0))
	}
	if c, ok := e.Const(); ok {
		fmt.Fprintf(&m.cur, "%d", c)
		return
	}
	m.texts = append(m.texts, m.cur.String())
	m.cur.Reset()
	m.values = append(m.values, e)
}

// expr writes e, followed by " = value" when e is not a constant.
func (m *message) expr(e sizeexpr.Expr, clamp bool) {
	m.text("%s", e)
	if _, ok := e.Const(); !ok {
		m.cur.WriteString(" = ")
		m.value(e, clamp, "")
	}
}

// interval writes [lo:hi], followed by " = [v:w]" when it is symbolic.
func (m *message) interval(iv sizeexpr.Interval) {
	m.text("%s", iv)
	_, lc := iv.Lo.Const()
	_, hc := iv.Hi.Const()
	if lc && hc {
		return
	}
	m.cur.WriteString(" = [")
	m.value(iv.Lo, false, "")
	m.cur.WriteString(":")
	m.value(iv.Hi, false, "")
	m.cur.WriteString("]")
}

func (m *message) check(loc ir.Location, conds []sizeexpr.Expr) RuntimeCheck {
	c := RuntimeCheck{Loc: loc, NonNeg: conds, Msg: m.static.String()}
	if len(m.values) > 0 {
		c.Texts, c.Values = append(m.texts, m.cur.String()), m.values
	}
	return c
}

// valueName names the value a check is about for its message: an argument
// of the function ("argument 'inp'"), also through tir.assume_shape (which
// only restates its operand's type), else the value's name.
func valueName(fn *ir.Operation, v *ir.Value) string {
	for {
		d := v.DefiningOp()
		if d == nil || d.Name != "tir.assume_shape" || len(d.Operands) == 0 {
			break
		}
		v = d.Operands[0]
	}
	if v.DefiningOp() == nil {
		for _, a := range fn.Regions[0].Entry().Args {
			if a == v {
				return fmt.Sprintf("argument '%s'", a.NameHint)
			}
		}
	}
	if v.NameHint != "" {
		return fmt.Sprintf("value '%s'", v.NameHint)
	}
	return "the operand"
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

// checkList collects an function's run-time checks; warn, when set, hears
// about conditions that cannot be expressed (non-affine).
type checkList struct {
	out  []RuntimeCheck
	warn func(*ir.Diagnostic)
}

func (l *checkList) add(loc ir.Location, conds []sizeexpr.Expr, ok bool, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !ok && l.warn != nil {
		l.warn(ir.Warningf(loc, "%s cannot be checked at run time (the condition is not affine)", msg))
	}
	if len(conds) > 0 {
		l.out = append(l.out, RuntimeCheck{Loc: loc, NonNeg: conds, Msg: msg})
	}
}

// addMsg is add for a message with run-time values.
func (l *checkList) addMsg(loc ir.Location, conds []sizeexpr.Expr, ok bool, m *message) {
	c := m.check(loc, conds)
	if !ok && l.warn != nil {
		l.warn(ir.Warningf(loc, "%s cannot be checked at run time (the condition is not affine)", c.Msg))
	}
	if len(conds) > 0 {
		l.out = append(l.out, c)
	}
}

// checkRule adds the run-time checks one op of fn needs (an op value's
// facet; nil: none).
type checkRule func(l *checkList, fn, op *ir.Operation)

// RuntimeChecks lists the checks of a tir.func, in program order. Warnings
// for conditions that cannot be expressed (non-affine) go to warn.
func RuntimeChecks(fn *ir.Operation, warn func(*ir.Diagnostic)) []RuntimeCheck {
	l := &checkList{warn: warn}
	fn.Walk(func(op *ir.Operation) bool {
		if o := OpOf(op); o != nil && o.checks != nil {
			o.checks(l, fn, op)
		}
		return true
	})
	return withoutDataValues(fn, mergeChecks(inferredChecks(fn, warn), l.out))
}

func returnChecks(l *checkList, fn, op *ir.Operation) {
	ft, ok := FuncType(fn)
	if !ok {
		return
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
					l.add(op.Loc, c, cok, "output domain of @%s: result #%d dimension %s is declared %s but computed only on %s",
						ir.SymbolName(fn), i, wd.Name, wd.Interval, gd.Interval)
				}
			}
		}
	}
}

func viewChecks(l *checkList, fn, op *ir.Operation) {
	x, _ := AsTensor(op.Operands[0].Type)
	y, _ := AsTensor(op.Results[0].Type)
	m, _ := op.Attr("map").(ViewAttr)
	for i, d := range m.Dims {
		xd, _ := x.Dim(d)
		img, ok := ImageInterval(m.Exprs[i], y)
		if !ok {
			l.add(op.Loc, nil, false, "view precondition %s = %s inside %s", d, m.Exprs[i], xd.Interval)
			continue
		}
		if in, decided := xd.Contains(img); !in && !decided {
			// view precondition failed: argument 'a' dimension X:
			// X = 2*i + 1 takes [1:2*M] = [1:22], outside its [0:N] = [0:20]
			c, cok := inside(img, xd.Interval)
			var msg message
			msg.text("view precondition failed: %s dimension %s: %s = %s takes ", valueName(fn, op.Operands[0]), d, d, m.Exprs[i])
			msg.interval(img)
			msg.text(", outside its ")
			msg.interval(xd.Interval)
			l.addMsg(op.Loc, c, cok, &msg)
		}
	}
}

func subsetChecks(l *checkList, fn, op *ir.Operation) {
	x, _ := AsTensor(op.Operands[0].Type)
	bounds, _ := op.Attr("bounds").(DomainAttr)
	for _, b := range bounds {
		xd, _ := x.Dim(b.Name)
		if in, decided := xd.Contains(b.Interval); !in && !decided {
			// subset C[0:I + J - 1] = [0:6] is not inside the operand's
			// C[0:K] = [0:5]: the values say which bound failed.
			c, cok := inside(b.Interval, xd.Interval)
			var msg message
			msg.text("subset %s", b.Name)
			msg.interval(b.Interval)
			msg.text(" is not inside the operand's %s", xd.Name)
			msg.interval(xd.Interval)
			l.addMsg(op.Loc, c, cok, &msg)
		}
	}
}

func assumeShapeChecks(l *checkList, fn, op *ir.Operation) {
	x, _ := AsTensor(op.Operands[0].Type)
	y, _ := AsTensor(op.Results[0].Type)
	// An assume_shape that tir-inline put at a call boundary
	// reports the call, as the call itself does before inlining.
	prefix := "assume_shape"
	if callee, ok := op.Attr(CallBoundaryAttr).(ir.StringAttr); ok {
		prefix = "call to @" + string(callee)
	}
	for _, d := range y.Dims {
		xd, _ := x.Dim(d.Name)
		if c, ok, any := shapeCheck(prefix, valueName(fn, op.Operands[0]), d.Name, xd.Interval, d.Interval); any {
			l.addMsg(op.Loc, c.NonNeg, ok, c.msg)
		}
	}
}

func callOpChecks(l *checkList, fn, op *ir.Operation) {
	for _, c := range callChecks(fn, op) {
		l.addMsg(op.Loc, c.NonNeg, c.ok, c.msg)
	}
}

func compressChecks(l *checkList, fn, op *ir.Operation) {
	// The mask and the values must be on one interval.
	dim := DimAttr(op)
	x, _ := AsTensor(op.Operands[0].Type)
	m, _ := AsTensor(op.Operands[1].Type)
	xd, xok := x.Dim(dim)
	md, mok := m.Dim(dim)
	if xok && mok && !(sizeexpr.ProveEQ(xd.Lo, md.Lo) && sizeexpr.ProveEQ(xd.Hi, md.Hi)) {
		var conds []sizeexpr.Expr
		for _, p := range [][2]sizeexpr.Expr{{xd.Lo, md.Lo}, {xd.Hi, md.Hi}} {
			if !sizeexpr.ProveEQ(p[0], p[1]) {
				conds = append(conds, sizeexpr.Sub(p[0], p[1]), sizeexpr.Sub(p[1], p[0]))
			}
		}
		var msg message
		msg.text("tir.compress along %s: the mask is on ", dim)
		msg.interval(md.Interval)
		msg.text(" but %s on ", valueName(fn, op.Operands[0]))
		msg.interval(xd.Interval)
		l.addMsg(op.Loc, conds, true, &msg)
	}
}

func reduceChecks(l *checkList, fn, op *ir.Operation) {
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
			l.add(op.Loc, conds, true, "reduction over %s: %s must be equal (an unknown extent is never narrowed)", d, unknownBounds(fn, args))
		}
		for i, v := range ins {
			t, _ := AsTensor(v.Type)
			x, ok := t.Dim(d)
			if !ok || !hasUnknownExtent(x.Interval) || x.Interval.Equal(full) {
				continue
			}
			a, aok := inside(x.Interval, full)
			l.add(op.Loc, a, aok, "reduction over %s: operand #%d has %s, but the reduction runs over %s", d, i, x.Interval, full)
		}
	}
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
			} else if op := DataSymbols(fn)[v.Name]; op != nil {
				text = fmt.Sprintf("the extent of %s along %s (%s, from data)", valueName(fn, op.Results[0]), DimAttr(op), v.Name)
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
