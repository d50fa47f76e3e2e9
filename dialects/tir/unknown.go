package tir

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Shape inference of unknown argument extents (`?`). The points a function
// reads of each argument follow from its outputs, backwards through every
// op's access rule: shifts move them, views map them, reductions read
// their whole reduced interval, calls read what the callee reads around
// its own output. The hull of those reads along a dimension written `?` is
// what the argument must cover; the function checks it once at entry
// (RuntimeChecks) and the descriptor still gives the extent. A hull that
// grows with the extent itself (the outputs follow the argument) does not
// constrain it; one that grows with it only until it meets a known bound
// (x + y with y on I[0:N]) is taken at its limit: the argument must cover
// what the known bound lets the function read.
//
// The analysis is a union of intervals over a DAG, visited once in reverse
// program order, so it neither depends on the order of independent ops nor
// iterates; calls are followed to a fixed depth.

// InferredExtent is what shape inference concluded about one unknown
// extent of an argument.
type InferredExtent struct {
	Arg     int    // the argument's position
	ArgName string // its name, without '%'
	ArgLoc  ir.Location
	Dim     string
	// Unknown is the extent's symbol (?_x_I), Declared the argument's
	// interval [lo:?_x_I].
	Unknown  sizeexpr.Var
	Declared sizeexpr.Interval
	// Needs is the hull of the points the function reads along Dim: the
	// argument must cover it.
	Needs sizeexpr.Interval
	// AtLimit is set when the reads grew with the extent until a known
	// bound stopped them; Needs is then where they stop.
	AtLimit bool
}

// Conditions are the affine conditions (each >= 0) of Needs ⊆ Declared,
// those proven statically left out; ok is false when one is not affine.
func (x InferredExtent) Conditions() ([]sizeexpr.Expr, bool) {
	return inside(x.Needs, x.Declared)
}

// String is the remark tc-opt prints.
func (x InferredExtent) String() string {
	how := "inferred from its uses"
	if x.AtLimit {
		how = "inferred from its uses, where they meet known bounds"
	}
	return fmt.Sprintf("argument '%s' dimension %s must cover %s (%s); checked once at entry, the extent %s still comes from the descriptor",
		x.ArgName, x.Dim, x.Needs, how, x.Unknown.Name)
}

// readDim is the hull of the points read along one dimension; whole means
// any point may be read (a gather's indices, an op without an access
// rule).
type readDim struct {
	iv    sizeexpr.Interval
	whole bool
}

type readBox map[string]readDim

func (a readDim) union(b readDim) readDim {
	if a.whole || b.whole {
		return readDim{whole: true}
	}
	return readDim{iv: sizeexpr.Span(sizeexpr.Min(a.iv.Lo, b.iv.Lo), sizeexpr.Max(a.iv.Hi, b.iv.Hi))}
}

// maxCallDepth bounds how deep the analysis follows calls (recursion
// reads everything beyond it).
const maxInferCallDepth = 8

// readAnalysis computes, for every value of a function, the hull of the
// points its readers need.
type readAnalysis struct {
	reads  map[*ir.Value]readBox
	lookup func(name string) *ir.Operation
	depth  int
	// callees memoizes what a callee reads of its parameters relative to
	// its outputs.
	callees map[*ir.Operation]*calleeReads
}

type calleeReads struct {
	params []readBox // in callee coordinates and symbols
	out    readBox   // the bounding box of the callee's output domains
}

func newReadAnalysis(fn *ir.Operation, depth int, memo map[*ir.Operation]*calleeReads) *readAnalysis {
	mod := moduleOf(fn)
	return &readAnalysis{
		reads:   map[*ir.Value]readBox{},
		lookup:  func(name string) *ir.Operation { return lookupIn(mod, name) },
		depth:   depth,
		callees: memo,
	}
}

// need records that box is read of v; dimensions v lacks are dropped.
func (a *readAnalysis) need(v *ir.Value, box readBox) {
	t, ok := AsTensor(v.Type)
	if !ok {
		return
	}
	cur, seen := a.reads[v]
	if !seen {
		cur = readBox{}
		a.reads[v] = cur
	}
	for _, d := range t.Dims {
		r, ok := box[d.Name]
		if !ok {
			r = readDim{iv: d.Interval}
		}
		if old, ok := cur[d.Name]; ok {
			r = old.union(r)
		}
		cur[d.Name] = r
	}
}

// function seeds the outputs (the declared result types, or the returned
// values' own types when outs is nil) and propagates to the arguments.
func (a *readAnalysis) function(fn *ir.Operation, outs []ir.Type) {
	entry := fn.Regions[0].Entry()
	if entry == nil {
		return
	}
	ret := entry.Terminator()
	if ret == nil || ret.Name != "tir.return" {
		return
	}
	for i, v := range ret.Operands {
		t := v.Type
		if i < len(outs) {
			t = outs[i]
		}
		if tt, ok := AsTensor(t); ok {
			a.need(v, boxOf(tt))
		}
	}
	for i := len(entry.Ops) - 1; i >= 0; i-- {
		a.op(entry.Ops[i])
	}
}

func boxOf(t TensorType) readBox {
	b := readBox{}
	for _, d := range t.Dims {
		b[d.Name] = readDim{iv: d.Interval}
	}
	return b
}

// resultReads is the union of what is read of op's results, by dimension
// name; ok is false when no result is read.
func (a *readAnalysis) resultReads(op *ir.Operation) (readBox, bool) {
	var out readBox
	for _, r := range op.Results {
		b, ok := a.reads[r]
		if !ok {
			continue
		}
		if out == nil {
			out = readBox{}
		}
		for d, x := range b {
			if old, ok := out[d]; ok {
				x = old.union(x)
			}
			out[d] = x
		}
	}
	return out, out != nil
}

func (a *readAnalysis) whole(v *ir.Value) {
	t, ok := AsTensor(v.Type)
	if !ok {
		return
	}
	b := readBox{}
	for _, d := range t.Dims {
		b[d.Name] = readDim{whole: true}
	}
	a.need(v, b)
}

func (a *readAnalysis) op(op *ir.Operation) {
	if op.Name == "tir.return" || op.Name == "tir.yield" {
		return
	}
	rb, ok := a.resultReads(op)
	if !ok {
		return // nothing reads it
	}
	switch op.Name {
	case "tir.call":
		a.call(op, rb)
		return
	case "tir.scan":
		a.scan(op, rb)
		return
	}
	acc, ok := AccessOf(op)
	if !ok {
		for _, v := range op.Operands {
			a.whole(v)
		}
		return
	}
	for _, r := range acc {
		a.read(op, r, rb)
	}
}

// read propagates rb, what is read of op's result, to the operand r reads.
func (a *readAnalysis) read(op *ir.Operation, r Read, rb readBox) {
	v := op.Operands[r.Operand]
	x, ok := AsTensor(v.Type)
	if !ok {
		return
	}
	if r.Along != "" {
		if along, ok := rb[r.Along]; ok && !along.whole {
			iv := along.iv.Intersect(r.Within)
			if iv.ProvablyEmpty() {
				return // this piece of the concat is not read
			}
			rb = cloneBox(rb)
			rb[r.Along] = readDim{iv: iv}
		}
	}
	over := TensorType{}
	for d, rd := range rb {
		if !rd.whole {
			over.Dims = append(over.Dims, Dim{Name: d, Interval: rd.iv})
		}
	}
	box := readBox{}
	for _, d := range x.Dims {
		switch {
		case d.Name == r.Gathered:
			box[d.Name] = readDim{whole: true}
			continue
		case r.ranges(d.Name):
			box[d.Name] = readDim{iv: ReducedInterval(op, d.Name)}
			continue
		}
		if off, ok := r.Offset(d.Name); ok {
			if rd, has := rb[d.Name]; has {
				if rd.whole {
					box[d.Name] = rd
				} else {
					box[d.Name] = readDim{iv: rd.iv.Translate(off)}
				}
				continue
			}
		}
		img, ok := ImageInterval(r.At[d.Name], over)
		if !ok {
			box[d.Name] = readDim{whole: true}
			continue
		}
		box[d.Name] = readDim{iv: img}
	}
	a.need(v, box)
}

func cloneBox(b readBox) readBox {
	c := readBox{}
	for k, v := range b {
		c[k] = v
	}
	return c
}

// scan: the state at a step depends on every earlier step, so operands
// are read from the start of the scan up to the last point needed
// (forward), or from the first point needed to the end (backward).
func (a *readAnalysis) scan(op *ir.Operation, rb readBox) {
	dim := DimAttr(op)
	full, _ := ScanInterval(op)
	along := readDim{iv: full}
	if r, ok := rb[dim]; ok && !r.whole {
		if ScanDirection(op) == "backward" {
			along.iv = sizeexpr.Span(r.iv.Lo, full.Hi)
		} else {
			along.iv = sizeexpr.Span(full.Lo, r.iv.Hi)
		}
	}
	for _, v := range op.Operands {
		b := cloneBox(rb)
		b[dim] = along
		a.need(v, b)
	}
}

// call: the callee reads its parameters around its outputs; what the
// caller reads of the call's results moves those reads by the same
// amounts (a stencil applied to a part of its grid reads that part and
// its halo). A parameter dimension the outputs lack is read as the callee
// reads it.
func (a *readAnalysis) call(op *ir.Operation, rb readBox) {
	callee := a.lookup(Callee(op))
	var cr *calleeReads
	if callee != nil && callee.Name == "tir.func" && a.depth < maxInferCallDepth {
		cr = a.calleeReads(callee)
	}
	if cr == nil {
		for _, v := range op.Operands {
			a.whole(v)
		}
		return
	}
	bind, err := Unify(op, callee, op.Operands)
	if err != nil {
		for _, v := range op.Operands {
			a.whole(v)
		}
		return
	}
	ft, _ := FuncType(callee)
	for i, v := range op.Operands {
		pt, ok := AsTensor(ft.Inputs[i])
		if !ok || i >= len(cr.params) {
			a.whole(v)
			continue
		}
		pr, read := cr.params[i], cr.params[i] != nil
		if !read {
			continue // the callee does not read it
		}
		box := readBox{}
		for _, d := range pt.Dims {
			p, ok := pr[d.Name]
			if !ok || p.whole {
				box[d.Name] = readDim{whole: true}
				continue
			}
			o, inOut := cr.out[d.Name]
			want, wanted := rb[d.Name]
			if inOut && wanted && !o.whole {
				if want.whole {
					box[d.Name] = want
					continue
				}
				below := bind.Subst(sizeexpr.Sub(p.iv.Lo, o.iv.Lo))
				above := bind.Subst(sizeexpr.Sub(p.iv.Hi, o.iv.Hi))
				box[d.Name] = readDim{iv: sizeexpr.Span(sizeexpr.Add(want.iv.Lo, below), sizeexpr.Add(want.iv.Hi, above))}
				continue
			}
			sh := bind.Shift[d.Name]
			box[d.Name] = readDim{iv: sizeexpr.Span(sizeexpr.Add(bind.Subst(p.iv.Lo), sh), sizeexpr.Add(bind.Subst(p.iv.Hi), sh))}
		}
		a.need(v, box)
	}
}

func (a *readAnalysis) calleeReads(callee *ir.Operation) *calleeReads {
	if cr, ok := a.callees[callee]; ok {
		return cr // nil while it is being analysed: a recursive call
	}
	a.callees[callee] = nil
	sub := newReadAnalysis(callee, a.depth+1, a.callees)
	sub.lookup = a.lookup
	ft, _ := FuncType(callee)
	sub.function(callee, ft.Results)
	cr := &calleeReads{out: readBox{}}
	for _, r := range ft.Results {
		t, _ := AsTensor(r)
		for _, d := range t.Dims {
			x := readDim{iv: d.Interval}
			if old, ok := cr.out[d.Name]; ok {
				x = old.union(x)
			}
			cr.out[d.Name] = x
		}
	}
	for _, arg := range callee.Regions[0].Entry().Args {
		cr.params = append(cr.params, sub.reads[arg])
	}
	a.callees[callee] = cr
	return cr
}

// ArgReads returns, for each argument of fn, the hull of the points read
// along each of its dimensions to compute its outputs (outs, or the
// declared results when outs is nil); whole marks a dimension read
// through data or an op without an access rule; a missing argument is
// not read.
func argReads(fn *ir.Operation, outs []ir.Type) []readBox {
	a := newReadAnalysis(fn, 0, map[*ir.Operation]*calleeReads{})
	if outs == nil {
		ft, _ := FuncType(fn)
		outs = ft.Results
	}
	a.function(fn, outs)
	var out []readBox
	for _, arg := range fn.Regions[0].Entry().Args {
		out = append(out, a.reads[arg])
	}
	return out
}

// unknownDims lists the argument dimensions whose upper bound is an
// unknown extent.
func unknownDims(fn *ir.Operation) []InferredExtent {
	var out []InferredExtent
	ft, ok := FuncType(fn)
	if !ok || len(fn.Regions) == 0 || fn.Regions[0].Entry() == nil {
		return nil
	}
	args := fn.Regions[0].Entry().Args
	for i, t := range ft.Inputs {
		tt, _ := AsTensor(t)
		for _, d := range tt.Dims {
			u, isVar := d.Hi.AsVar()
			if !isVar || !IsUnknownExtent(u) {
				continue
			}
			x := InferredExtent{Arg: i, Dim: d.Name, Unknown: u, Declared: d.Interval}
			if i < len(args) {
				x.ArgName, x.ArgLoc = args[i].NameHint, args[i].Loc
			}
			out = append(out, x)
		}
	}
	return out
}

// InferExtents infers what each unknown extent of fn's arguments must
// cover (see the comment at the top of this file), for the declared
// outputs or, when outs is not nil, for those output types. Extents that
// no use constrains are left out. The result is in argument order.
func InferExtents(fn *ir.Operation, outs []ir.Type) []InferredExtent {
	unk := unknownDims(fn)
	if len(unk) == 0 {
		return nil
	}
	isUnknown := func(v sizeexpr.Var) bool { return IsUnknownExtent(v) }
	reads := argReads(fn, outs)
	var out []InferredExtent
	for _, x := range unk {
		if x.Arg >= len(reads) || reads[x.Arg] == nil {
			continue
		}
		r, ok := reads[x.Arg][x.Dim]
		if !ok || r.whole {
			continue
		}
		self := func(v sizeexpr.Var) bool { return v == x.Unknown }
		lo, hi := r.iv.Lo, r.iv.Hi
		if sizeexpr.Mentions(lo, self) || sizeexpr.Mentions(hi, self) {
			// The reads grow with the extent: where do they stop when
			// every unknown extent grows?
			var glo, ghi sizeexpr.Growth
			lo, glo = sizeexpr.Limit(lo, isUnknown)
			hi, ghi = sizeexpr.Limit(hi, isUnknown)
			if glo != sizeexpr.Finite || ghi != sizeexpr.Finite {
				continue
			}
			x.AtLimit = true
		}
		x.Needs = sizeexpr.Span(lo, hi)
		if x.Needs.ProvablyEmpty() || sizeexpr.ProveLE(hi, x.Declared.Lo) {
			continue
		}
		if sizeexpr.ProveLE(hi, x.Unknown.Expr()) && sizeexpr.ProveGE(lo, x.Declared.Lo) {
			continue // nothing to check
		}
		out = append(out, x)
	}
	return out
}

// checkInferred reports unknown extents whose requirements contradict
// each other: x must cover what y's extent gives and y more than x's
// (x needs [0:?_y_I + 1], y needs [0:?_x_I]). Each requirement u >= H(v)
// is followed through the others, as many times as there are unknowns,
// so the check ends; a chain back to u that asks for more than u is an
// error.
func checkInferred(fn *ir.Operation, xs []InferredExtent) error {
	by := map[sizeexpr.Var]InferredExtent{}
	for _, x := range xs {
		by[x.Unknown] = x
	}
	for _, x := range xs {
		e := x.Needs.Hi
		chain := []InferredExtent{x}
		for step := 0; step < len(xs); step++ {
			if sizeexpr.Mentions(e, func(v sizeexpr.Var) bool { return v == x.Unknown }) {
				break
			}
			var next *InferredExtent
			for _, v := range e.Vars() {
				if y, ok := by[v]; ok && v != x.Unknown && sizeexpr.Nondecreasing(e, v) {
					next = &y
					break
				}
			}
			if next == nil {
				break
			}
			v := next.Unknown
			e = e.Subst(func(w sizeexpr.Var) (sizeexpr.Expr, bool) {
				if w == v {
					return next.Needs.Hi, true
				}
				return sizeexpr.Expr{}, false
			})
			chain = append(chain, *next)
		}
		u := x.Unknown.Expr()
		if len(chain) > 1 && sizeexpr.ProveGT(e, u) {
			var parts []string
			for _, c := range chain {
				parts = append(parts, fmt.Sprintf("'%s' dimension %s must cover %s", c.ArgName, c.Dim, c.Needs))
			}
			d := ir.Errorf(fn.Loc, "contradictory extents: %s, so %s would have to exceed itself (%s > %s)",
				strings.Join(parts, ", "), x.Unknown.Name, e, u)
			for _, c := range chain {
				d.AddNote(c.ArgLoc, "argument '%s' is declared here with %s[%s:%s]", c.ArgName, c.Dim, c.Declared.Lo, "?")
			}
			return d
		}
	}
	return nil
}

// assumeInferred rewrites an expression under the inferred requirements:
// each inferred extent u is at least its needs' upper bound H, so u is
// written H + δ with a fresh δ >= 0, and the canonical form decides what
// no longer depends on δ (min(?_x_I - 1, N) with ?_x_I >= N + 1 is N).
// ok is false when the result still depends on some δ (then e is
// returned unchanged).
func assumeInferred(e sizeexpr.Expr, xs []InferredExtent) (sizeexpr.Expr, bool) {
	if len(xs) == 0 {
		return e, false
	}
	deltas := map[sizeexpr.Var]sizeexpr.Expr{}
	isDelta := map[sizeexpr.Var]bool{}
	for k, x := range xs {
		d := sizeexpr.Var{Name: "?δ" + x.Unknown.Name, Order: 1<<30 + k, Kind: sizeexpr.SymbolVar}
		deltas[x.Unknown] = sizeexpr.Add(x.Needs.Hi, d.Expr())
		isDelta[d] = true
	}
	r := e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
		x, ok := deltas[v]
		return x, ok
	})
	if sizeexpr.Mentions(r, func(v sizeexpr.Var) bool { return isDelta[v] }) {
		return e, false
	}
	return r, true
}

// AssumeInferred is e under the requirements xs (what InferExtents
// returns), where that removes its dependence on an unknown extent: the
// points a function reads, min(?_x_I, 10), are [0:10] when the argument
// must cover [0:10].
func AssumeInferred(e sizeexpr.Expr, xs []InferredExtent) sizeexpr.Expr {
	r, _ := assumeInferred(e, xs)
	return r
}

// simplifyInferred rewrites the intervals of a type under the inferred
// requirements where that removes the dependence on an unknown extent.
func simplifyInferred(t ir.Type, xs []InferredExtent) ir.Type {
	tt, ok := AsTensor(t)
	if !ok || len(xs) == 0 {
		return t
	}
	out := TensorType{Elem: tt.Elem}
	for _, d := range tt.Dims {
		lo, hi := d.Lo, d.Hi
		if l, ok := assumeInferred(lo, xs); ok {
			lo = l
		}
		if h, ok := assumeInferred(hi, xs); ok {
			hi = h
		}
		out.Dims = append(out.Dims, Dim{Name: d.Name, Interval: sizeexpr.Span(lo, hi)})
	}
	return out
}

// inferredChecks are the entry checks of the inferred extents: the
// argument covers what the function reads of it.
//
//	argument 'x' dimension I: needs [0:N] = [0:10], got [0:8]
func inferredChecks(fn *ir.Operation, warn func(*ir.Diagnostic)) []RuntimeCheck {
	var out []RuntimeCheck
	for _, x := range InferExtents(fn, nil) {
		conds, ok := x.Conditions()
		var m message
		m.text("argument '%s' dimension %s: needs ", x.ArgName, x.Dim)
		m.interval(x.Needs)
		m.text(", got ")
		m.actual(x.Declared)
		loc := x.ArgLoc
		if !loc.Known() {
			loc = fn.Loc
		}
		c := m.check(loc, conds)
		if !ok && warn != nil {
			warn(ir.Warningf(x.ArgLoc, "%s cannot be checked at run time (the condition is not affine)", c.Msg))
		}
		if len(conds) > 0 {
			out = append(out, c)
		}
	}
	return out
}

// actual writes an interval by its run-time values only ("[1:5]"), and
// as written in the message without values.
func (m *message) actual(iv sizeexpr.Interval) {
	m.cur.WriteString("[")
	m.value(iv.Lo, false, "")
	m.cur.WriteString(":")
	m.value(iv.Hi, false, "")
	m.cur.WriteString("]")
	m.static.WriteString(iv.String())
}

// impliedBy reports whether every condition of a follows from one of b's
// (a >= b' >= 0).
func impliedBy(a, b []sizeexpr.Expr) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			if sizeexpr.ProveGE(x, y) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// mergeChecks puts the inferred argument checks first and drops what is
// checked twice: a later check that the argument checks imply (the output
// domain of a stencil on I[?] is the argument's requirement seen from the
// other end), and an argument check that a stronger later one implies (a
// reduction that needs the extent to be equal, not only to cover).
func mergeChecks(args, body []RuntimeCheck) []RuntimeCheck {
	if len(args) == 0 {
		return body
	}
	var all []sizeexpr.Expr
	for _, c := range args {
		all = append(all, c.NonNeg...)
	}
	var kept []RuntimeCheck
	for _, c := range body {
		if !impliedBy(c.NonNeg, all) {
			kept = append(kept, c)
		}
	}
	var out []RuntimeCheck
	for _, c := range args {
		stronger := false
		for _, k := range kept {
			if impliedBy(c.NonNeg, k.NonNeg) {
				stronger = true
				break
			}
		}
		if !stronger {
			out = append(out, c)
		}
	}
	return append(out, kept...)
}
