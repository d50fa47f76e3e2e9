package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Extent analysis: which points of each value a function's outputs need,
// computed backwards from the declared output domains through every op's
// access rule. It follows the lowering's evaluation model (each output is
// computed on its output domain, every other value where it is read), so
// the points it finds are the points the compiled code reads: the lowering
// computes temporaries and scans on exactly them, and a distributed driver
// that owns a part of the output learns from it (--emit=extents) which
// ghost points of each input it must receive.

// DimNeed is the set of points of one dimension of a value that are read.
type DimNeed struct {
	// Interval holds every point read. When Unbounded is set it is the
	// whole interval of the value along the dimension, as far as it can
	// be read at all.
	Interval sizeexpr.Interval
	// Unbounded says why the points read cannot be bounded statically:
	// "gather" (indices come from a neighbor table at run time), "compress"
	// (which points tir.compress moves where depends on its mask) or
	// "call" (the analysis does not look into callees: --emit=extents
	// analyzes a copy with calls inlined, InlineAll). Empty for a static
	// bound.
	Unbounded string
	// Frame is the output dimension these points move with: reading the
	// output on [a:b] along Frame reads [a + lo : b + hi] here, for fixed
	// offsets lo and hi. It is the dimension's own name along shifts and
	// elementwise ops, and the output index a view maps it from (a TC
	// access A(i + k) reads A's dimension A_0 along i). Empty when unknown
	// or when readers disagree.
	Frame string
}

// Need is what is read of a value: one DimNeed per dimension name.
type Need map[string]DimNeed

func unionRead(a, b DimNeed) DimNeed {
	r := DimNeed{Interval: sizeexpr.Span(sizeexpr.Min(a.Interval.Lo, b.Interval.Lo), sizeexpr.Max(a.Interval.Hi, b.Interval.Hi))}
	if a.Frame == b.Frame {
		r.Frame = a.Frame
	}
	// A data-dependent read is reported as such whatever else reads the
	// dimension; "gather" and "compress" win over "call" because they
	// cannot be fixed.
	switch {
	case a.Unbounded == "gather" || b.Unbounded == "gather":
		r.Unbounded = "gather"
	case a.Unbounded == "compress" || b.Unbounded == "compress":
		r.Unbounded = "compress"
	case a.Unbounded != "":
		r.Unbounded = a.Unbounded
	default:
		r.Unbounded = b.Unbounded
	}
	return r
}

// covers reports whether a provably contains b.
func (r DimNeed) covers(b DimNeed) bool {
	if b.Unbounded != "" && r.Unbounded == "" {
		return false
	}
	return sizeexpr.ProveLE(r.Interval.Lo, b.Interval.Lo) && sizeexpr.ProveLE(b.Interval.Hi, r.Interval.Hi)
}

// FullNeed is every point of a tensor type; why says why it cannot be
// bounded better (see DimNeed.Unbounded), empty when it is the bound.
func FullNeed(t TensorType, why string) Need {
	b := Need{}
	for _, d := range t.Dims {
		b[d.Name] = DimNeed{Interval: d.Interval, Unbounded: why}
	}
	return b
}

func (b Need) clone() Need {
	c := Need{}
	for k, v := range b {
		c[k] = v
	}
	return c
}

func (b Need) without(dim string) Need {
	c := b.clone()
	delete(c, dim)
	return c
}

// Needs accumulates, for every value, the union of what its readers need.
type Needs struct {
	reads map[*ir.Value]Need
}

// Need records that b is read of v. Dimensions of b that v lacks are
// dropped (v is broadcast along them); a dimension of v that b lacks is
// read whole, which is conservative and happens only for ops whose rule is
// not known here.
func (a *Needs) Need(v *ir.Value, b Need) {
	t, ok := AsTensor(v.Type)
	if !ok {
		return
	}
	cur, seen := a.reads[v]
	if !seen {
		cur = Need{}
		a.reads[v] = cur
	}
	for _, d := range t.Dims {
		r, ok := b[d.Name]
		if !ok {
			r = DimNeed{Interval: d.Interval}
		}
		if old, ok := cur[d.Name]; ok {
			r = unionRead(old, r)
		}
		cur[d.Name] = r
	}
}

// maxBodyRounds bounds the fixed point over a reduce or scan body whose
// state is read beyond what the op yields (a body that shifts its state).
const maxBodyRounds = 8

// Block propagates reads through a block, last op first: every reader of a
// value comes after it, so its reads are complete when it is reached.
func (a *Needs) Block(b *ir.Block) {
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		if op.Name == "tir.return" || op.Name == "tir.yield" {
			continue
		}
		a.op(op)
	}
}

// op propagates the reads of op's result to its operands.
func (a *Needs) op(op *ir.Operation) {
	if len(op.Results) == 0 {
		return
	}
	rb, ok := a.reads[op.Results[0]]
	if !ok {
		// Nothing reads the result: the lowering does not compute it.
		return
	}
	switch op.Name {
	case "tir.reduce":
		a.reduce(op, rb)
	case "tir.scan":
		a.scan(op, rb)
	case "tir.call":
		for _, v := range op.Operands {
			t, _ := AsTensor(v.Type)
			a.Need(v, FullNeed(t, "call"))
		}
	default:
		// Every other op reads its operands as its access rule says
		// (constant and pos read no element).
		acc, _ := AccessOf(op)
		for _, r := range acc {
			a.through(op, r, rb)
		}
	}
}

// through propagates the Need read of op's result to the operand of read r:
// an offset coordinate moves the interval, an affine one maps it to its
// image, a gathered one reads the whole interval (through data), and a
// piece of a concat only sees the part of the Need it holds.
func (a *Needs) through(op *ir.Operation, r Read, rb Need) {
	v := op.Operands[r.Operand]
	x, _ := AsTensor(v.Type)
	if r.Along != "" {
		along := rb[r.Along]
		if along.Unbounded == "" {
			iv := along.Interval.Intersect(r.Within)
			if iv.ProvablyEmpty() {
				return // this piece is not read
			}
			rb = rb.clone()
			rb[r.Along] = DimNeed{Interval: iv}
		} else {
			rb = rb.clone()
			rb[r.Along] = DimNeed{Interval: r.Within, Unbounded: along.Unbounded, Frame: along.Frame}
		}
	}
	over := TensorType{}
	why := map[string]string{}
	for d, rd := range rb {
		over.Dims = append(over.Dims, Dim{Name: d, Interval: rd.Interval})
		why[d] = rd.Unbounded
	}
	b := Need{}
	for _, d := range x.Dims {
		if d.Name == r.Gathered {
			b[d.Name] = DimNeed{Interval: d.Interval, Unbounded: "gather"}
			continue
		}
		if r.ranges(d.Name) {
			// Every point of the interval tir.compress compacts: which
			// of them a point of the result reads depends on the mask.
			b[d.Name] = DimNeed{Interval: ReducedInterval(op, d.Name), Unbounded: "compress"}
			continue
		}
		if off, ok := r.Offset(d.Name); ok {
			if rd, has := rb[d.Name]; has {
				// y(i) = x(i + off): reading y on [a:b] reads x on [a+off:b+off].
				b[d.Name] = DimNeed{Interval: rd.Interval.Translate(off), Unbounded: rd.Unbounded, Frame: rd.Frame}
				continue
			}
		}
		e := r.At[d.Name]
		reason := ""
		for _, w := range e.Vars() {
			if w.Kind == sizeexpr.DimVar && why[w.Name] != "" {
				reason = why[w.Name]
			}
		}
		img, ok := ImageInterval(e, over)
		if !ok || reason != "" {
			// Not linear, or indexed by an unbounded dimension: any point
			// of the operand may be read (a view is checked to stay
			// inside it).
			b[d.Name] = DimNeed{Interval: d.Interval, Unbounded: reason}
			continue
		}
		b[d.Name] = DimNeed{Interval: img, Frame: frameOf(e, rb)}
	}
	a.Need(v, b)
}

// frameOf is the frame of a coordinate computed as e from the result's
// coordinates: that of the one variable of e that has a frame, when it
// appears with coefficient 1 (i + k with k reduced follows i); none when
// several have one, or one is scaled (2*i) or under a division.
func frameOf(e sizeexpr.Expr, rb Need) string {
	frame := ""
	terms, _ := e.Terms()
	for _, t := range terms {
		for _, w := range t.Atom.Expr().Vars() {
			f := rb[w.Name].Frame
			if w.Kind != sizeexpr.DimVar || f == "" {
				continue
			}
			if frame != "" || t.Coef != 1 || t.Atom.Op() != sizeexpr.OpVar {
				return ""
			}
			frame = f
		}
	}
	return frame
}

// reduce: each input is read at the result's points times the whole
// reduced interval; the init at the result's points.
func (a *Needs) reduce(op *ir.Operation, rb Need) {
	ins, init := ReduceOperands(op)
	full := rb.clone()
	for _, d := range ReduceDims(op) {
		full[d] = DimNeed{Interval: ReducedInterval(op, d)}
	}
	argReads := a.body(op, rb)
	for i, v := range ins {
		b := full
		if argReads != nil && argReads[i+1] != nil {
			b = mergeBoxes(full, argReads[i+1])
		}
		a.Need(v, b)
	}
	if init != nil {
		b := rb
		if argReads != nil && argReads[0] != nil {
			b = mergeBoxes(rb, argReads[0])
		}
		a.Need(init, b)
	}
}

// scan: the state at step k depends on every earlier step, so an operand
// is read from the start of the scan interval up to the last point needed
// (forward), or from the first point needed to its end (backward).
func (a *Needs) scan(op *ir.Operation, rb Need) {
	dim := DimAttr(op)
	full, _ := ScanInterval(op)
	r, ok := rb[dim]
	var along DimNeed
	switch {
	case !ok:
		along = DimNeed{Interval: full}
	case r.Unbounded != "":
		along = DimNeed{Interval: full, Unbounded: r.Unbounded}
	case ScanDirection(op) == "backward":
		along = DimNeed{Interval: sizeexpr.Span(r.Interval.Lo, full.Hi), Frame: r.Frame}
	default:
		along = DimNeed{Interval: sizeexpr.Span(full.Lo, r.Interval.Hi), Frame: r.Frame}
	}
	state := rb.without(dim)
	argReads := a.body(op, state)
	for i, v := range op.Operands[1:] {
		b := state.clone()
		if argReads != nil && argReads[i+1] != nil {
			b = mergeBoxes(b, argReads[i+1])
		}
		b[dim] = along
		a.Need(v, b)
	}
	b := state
	if argReads != nil && argReads[0] != nil {
		b = mergeBoxes(state, argReads[0])
	}
	a.Need(op.Operands[0], b)
}

// body analyses the region of a reduce or scan whose yielded state is read
// on yield, and returns what is read of each block argument (nil for a
// simple reduction). The state argument is the previous state: if the body
// reads it beyond yield, the state is needed there too, so the body is
// analysed again with the larger Need until nothing grows.
func (a *Needs) body(op *ir.Operation, yield Need) []Need {
	if len(op.Regions) == 0 || op.Regions[0].Entry() == nil {
		return nil
	}
	blk := op.Regions[0].Entry()
	y := blk.Terminator()
	if y == nil || len(y.Operands) != 1 || len(blk.Args) == 0 {
		return nil
	}
	for round := 0; round < maxBodyRounds; round++ {
		a.Need(y.Operands[0], yield)
		a.Block(blk)
		st, ok := a.reads[blk.Args[0]]
		if !ok || boxCovers(yield, st) {
			break
		}
		yield = mergeBoxes(yield, st)
	}
	out := make([]Need, len(blk.Args))
	for i, arg := range blk.Args {
		out[i] = a.reads[arg]
	}
	return out
}

func mergeBoxes(a, b Need) Need {
	c := a.clone()
	for d, r := range b {
		if old, ok := c[d]; ok {
			c[d] = unionRead(old, r)
		} else {
			c[d] = r
		}
	}
	return c
}

// boxCovers reports whether a provably contains b in every dimension b
// has.
func boxCovers(a, b Need) bool {
	for d, r := range b {
		if ar, ok := a[d]; !ok || !ar.covers(r) {
			return false
		}
	}
	return true
}

// NewNeeds starts an analysis with nothing needed yet.
func NewNeeds() *Needs { return &Needs{reads: map[*ir.Value]Need{}} }

// Of is what is needed of v, and whether anything is.
func (a *Needs) Of(v *ir.Value) (Need, bool) {
	n, ok := a.reads[v]
	return n, ok
}
