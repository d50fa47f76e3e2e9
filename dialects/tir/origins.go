package tir

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Origin trails: where a value's interval along a dimension came from.
// A domain conflict names the intervals that do not fit; the trail of each
// says which argument type, constant interval or op fixed it, then which
// shifts moved it and which ops narrowed it on the way, one located note
// per step, in program order:
//
//	note: operand #1: J[0:4] fixed by the type of argument 'a'
//	note: operand #1 has J[-4:0], moved by tir.shift [J + 4] from [0:4]
//
// Long trails keep their first step and their last ones and say how many
// steps they leave out in between.

// TrailStep is one step of an origin trail.
type TrailStep struct {
	Loc ir.Location
	// Value is the value that has Interval after this step.
	Value    *ir.Value
	Interval sizeexpr.Interval
	// What says how the step fixed or changed the interval, in words:
	// "fixed by the type of argument 'a'", "moved by tir.shift [I + 1]
	// from [0:8]".
	What string
}

// maxTrailWalk bounds how far back a trail is followed; maxTrailNotes how
// many notes one trail becomes.
const (
	maxTrailWalk  = 64
	maxTrailNotes = 6
)

// Trail follows the interval of v along dim back to where it was fixed.
// The steps come in program order: origins first, v's own step last.
// Where an op takes its lower bound from one operand and its upper bound
// from another, both are followed, in operand order. Ops that pass
// the interval through unchanged (elementwise ops whose other operands
// are wider, casts, reductions over other dimensions) are not steps.
func Trail(v *ir.Value, dim string) []TrailStep {
	var out []TrailStep
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value)
	walk = func(v *ir.Value) {
		if v == nil || seen[v] || len(seen) >= maxTrailWalk {
			return
		}
		seen[v] = true
		t, ok := AsTensor(v.Type)
		if !ok {
			return
		}
		d, ok := t.Dim(dim)
		if !ok {
			return
		}
		step, next := trailStep(v, dim, d.Interval)
		for _, n := range next {
			walk(n)
		}
		if step.What != "" {
			step.Value, step.Interval = v, d.Interval
			if !step.Loc.Known() {
				step.Loc = DefLoc(v)
			}
			out = append(out, step)
		}
	}
	walk(v)
	return out
}

// trailStep explains v's interval iv along dim by its defining op, and
// returns the operands to follow further (none at an origin).
func trailStep(v *ir.Value, dim string, iv sizeexpr.Interval) (TrailStep, []*ir.Value) {
	op := v.DefiningOp()
	if op == nil {
		b := v.OwnerBlock()
		// While a function is parsed its body has no parent yet.
		if b == nil || b.ParentOp() == nil || b.ParentOp().Name == "tir.func" {
			return TrailStep{Loc: DefLoc(v), What: fmt.Sprintf("fixed by the type of argument '%s'", v.NameHint)}, nil
		}
		owner := "its region"
		if b != nil && b.ParentOp() != nil {
			owner = b.ParentOp().Name
		}
		return TrailStep{Loc: DefLoc(v), What: "fixed by the body argument of " + owner}, nil
	}
	step := TrailStep{Loc: op.Loc}
	if o := OpOf(op); o != nil && o.trail != nil {
		if what, next, done := o.trail(op, v, dim); done {
			step.What = what
			return step, next
		}
	}
	// Elementwise ops, reductions, gathers, scans and concats along other
	// dimensions: the interval is the intersection of the operands'.
	// Follow the operand that has it whole; an op where none has is a
	// step that narrows.
	ins := withDim(op.Operands, dim)
	if len(ins) == 0 {
		step.What = "given by " + op.Name
		return step, nil
	}
	for _, o := range ins {
		t, _ := AsTensor(o.Type)
		od, _ := t.Dim(dim)
		if od.Interval.Equal(iv) || (sizeexpr.ProveEQ(od.Lo, iv.Lo) && sizeexpr.ProveEQ(od.Hi, iv.Hi)) {
			return TrailStep{}, one(o)
		}
	}
	// The lower bound comes from one operand, the upper one from another
	// (or from none alone): follow those that give one, and name the
	// others.
	var follow []*ir.Value
	var others []string
	for _, o := range ins {
		t, _ := AsTensor(o.Type)
		od, _ := t.Dim(dim)
		if sizeexpr.ProveEQ(od.Lo, iv.Lo) || sizeexpr.ProveEQ(od.Hi, iv.Hi) {
			follow = append(follow, o)
			continue
		}
		others = append(others, od.Interval.String())
	}
	if len(follow) == 0 {
		follow = ins[:1]
	}
	var from []string
	for _, o := range follow {
		t, _ := AsTensor(o.Type)
		od, _ := t.Dim(dim)
		from = append(from, od.Interval.String())
	}
	step.What = fmt.Sprintf("narrowed by %s (intersection of %s)", op.Name, strings.Join(append(from, others...), " and "))
	return step, follow
}

func one(v *ir.Value) []*ir.Value { return []*ir.Value{v} }

// withDim keeps the values that have dimension dim.
func withDim(vs []*ir.Value, dim string) []*ir.Value {
	var out []*ir.Value
	for _, o := range vs {
		if t, ok := AsTensor(o.Type); ok && t.Find(dim) >= 0 {
			out = append(out, o)
		}
	}
	return out
}

// trailRule explains the interval along dim of v, a result of op, when op
// fixes or moves it (an op value's facet): what the step did in words
// (empty: not a step) and the values to follow further. done is false
// when the op passes the interval on as elementwise ops do: the operands'
// intersection, which Trail works out.
type trailRule func(op *ir.Operation, v *ir.Value, dim string) (what string, next []*ir.Value, done bool)

func shiftTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	offs, _ := op.Attr("offsets").(OffsetsAttr)
	x, _ := AsTensor(op.Operands[0].Type)
	xd, _ := x.Dim(dim)
	what := ""
	if off := offs.Offset(dim); !off.IsConst() || mustConst(off) != 0 {
		what = fmt.Sprintf("moved by tir.shift %s from %s", offs.Text(), xd.Interval)
	}
	return what, one(op.Operands[0]), true
}

func viewTrail(op *ir.Operation, _ *ir.Value, _ string) (string, []*ir.Value, bool) {
	return "fixed by the result type of tir.view " + viewText(op), nil, true
}

func subsetTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	bounds, _ := op.Attr("bounds").(DomainAttr)
	for _, b := range bounds {
		if b.Name == dim {
			x, _ := AsTensor(op.Operands[0].Type)
			xd, _ := x.Dim(dim)
			return fmt.Sprintf("narrowed by tir.subset %s from %s", bounds.Text(), xd.Interval), nil, true
		}
	}
	return "", one(op.Operands[0]), true
}

func broadcastTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	if x, _ := AsTensor(op.Operands[0].Type); x.Find(dim) < 0 {
		return "added by tir.broadcast", nil, true
	}
	return "", one(op.Operands[0]), true
}

func assumeShapeTrail(op *ir.Operation, _ *ir.Value, _ string) (string, []*ir.Value, bool) {
	if c, ok := op.Attr(CallBoundaryAttr).(ir.StringAttr); ok {
		return fmt.Sprintf("as @%s's parameter type requires", string(c)), nil, true
	}
	return "asserted by tir.assume_shape", nil, true
}

func callTrail(op *ir.Operation, v *ir.Value, dim string) (string, []*ir.Value, bool) {
	callee := lookupIn(moduleOf(op), Callee(op))
	what := fmt.Sprintf("given by @%s's result type", Callee(op))
	if callee != nil {
		if ft, ok := FuncType(callee); ok && v.ResultIndex() < len(ft.Results) {
			if rt, ok := AsTensor(ft.Results[v.ResultIndex()]); ok {
				if rd, ok := rt.Dim(dim); ok {
					what = fmt.Sprintf("given by @%s's result type %s", Callee(op), rd)
				}
			}
		}
	}
	if args := withDim(op.Operands, dim); len(args) > 0 {
		return what, one(args[0]), true
	}
	return what, nil, true
}

func concatTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	return "joined by tir.concat", nil, DimAttr(op) == dim
}

func posTrail(op *ir.Operation, _ *ir.Value, _ string) (string, []*ir.Value, bool) {
	return "", one(op.Operands[0]), true
}

// dataExtentTrail: iota and compress compute their interval from data.
func dataExtentTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	return fmt.Sprintf("computed from data by %s", op.Name), nil, DimAttr(op) == dim
}

func scanTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	if DimAttr(op) == dim && len(withDim(op.Operands[1:], dim)) == 0 {
		return "fixed by the interval of tir.scan", nil, true
	}
	return "", nil, false
}

func constantTrail(*ir.Operation, *ir.Value, string) (string, []*ir.Value, bool) {
	return "", nil, true
}

func reduceTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	return "fixed by tir.reduce", nil, containsName(ReduceDims(op), dim)
}

func containsName(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func mustConst(e sizeexpr.Expr) int64 {
	c, _ := e.Const()
	return c
}

func viewText(op *ir.Operation) string {
	if m, ok := op.Attr("map").(ViewAttr); ok {
		return m.Text()
	}
	return ""
}

// AddTrail appends the notes of v's trail along dim to d, each step
// prefixed by who ("operand #1"); the last says "WHO has DIM[lo:hi]".
// A trail longer than maxTrailNotes keeps its origin and its last steps
// and says how many it leaves out.
func AddTrail(d *ir.Diagnostic, who string, v *ir.Value, dim string) *ir.Diagnostic {
	steps := Trail(v, dim)
	if len(steps) == 0 {
		if t, ok := AsTensor(v.Type); ok {
			if dd, ok := t.Dim(dim); ok {
				d.AddNote(DefLoc(v), "%s has %s", who, dd)
			}
		}
		return d
	}
	keepTail := maxTrailNotes - 2
	// v's own note is at its definition; when ops that change nothing
	// (a neg, a cast) lie between v and the last step, it is a note of
	// its own.
	final := steps[len(steps)-1].Value == v
	for i, s := range steps {
		last := final && i == len(steps)-1
		if len(steps) > maxTrailNotes && i > 0 && i < len(steps)-keepTail {
			if i == 1 {
				skipped := steps[1 : len(steps)-keepTail]
				d.AddNote(s.Loc, "%s: %d more steps (%s) take it to %s", who, len(skipped), stepKinds(skipped), Dim{Name: dim, Interval: skipped[len(skipped)-1].Interval})
			}
			continue
		}
		if last {
			d.AddNote(s.Loc, "%s has %s, %s", who, Dim{Name: dim, Interval: s.Interval}, s.What)
		} else {
			d.AddNote(s.Loc, "%s: %s %s", who, Dim{Name: dim, Interval: s.Interval}, s.What)
		}
	}
	if !final {
		if t, ok := AsTensor(v.Type); ok {
			if dd, ok := t.Dim(dim); ok {
				d.AddNote(DefLoc(v), "%s has %s", who, dd)
			}
		}
	}
	return d
}

// stepKinds summarizes skipped steps: "7 shifts, 1 subset".
func stepKinds(steps []TrailStep) string {
	var order []string
	count := map[string]int{}
	for _, s := range steps {
		k := "other"
		if op := s.Value.DefiningOp(); op != nil {
			k = strings.TrimPrefix(op.Name, "tir.")
		}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
	}
	var parts []string
	for _, k := range order {
		n := count[k]
		if n == 1 {
			parts = append(parts, "1 "+k)
		} else {
			parts = append(parts, fmt.Sprintf("%d %ss", n, k))
		}
	}
	return strings.Join(parts, ", ")
}
