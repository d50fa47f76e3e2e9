package emit

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Extent analysis: which points of each value a function's outputs need,
// computed backwards from the declared output domains. It follows the
// lowering's evaluation model (tiraffine fuses every value into its
// readers and computes each output on its output domain), so the points it
// finds are the points the compiled code reads: a distributed driver that
// owns a part of the output knows from it which ghost points of each input
// it must receive.

// Read is the set of points of one dimension of a value that are read.
type Read struct {
	// Interval holds every point read. When Unbounded is set it is the
	// whole interval of the value along the dimension, as far as it can
	// be read at all.
	Interval sizeexpr.Interval
	// Unbounded says why the points read cannot be bounded statically:
	// "gather" (indices come from a neighbor table at run time) or "call"
	// (the analysis does not look into callees; inline them first with
	// --tir-inline). Empty for a static bound.
	Unbounded string
	// Frame is the output dimension these points move with: reading the
	// output on [a:b] along Frame reads [a + lo : b + hi] here, for fixed
	// offsets lo and hi. It is the dimension's own name along shifts and
	// elementwise ops, and the output index a view maps it from (a TC
	// access A(i + k) reads A's dimension A_0 along i). Empty when unknown
	// or when readers disagree.
	Frame string
}

// box is what is read of a value: one Read per dimension name.
type box map[string]Read

func unionRead(a, b Read) Read {
	r := Read{Interval: sizeexpr.Span(sizeexpr.Min(a.Interval.Lo, b.Interval.Lo), sizeexpr.Max(a.Interval.Hi, b.Interval.Hi))}
	if a.Frame == b.Frame {
		r.Frame = a.Frame
	}
	// A data-dependent read is reported as such whatever else reads the
	// dimension; "gather" wins over "call" because it cannot be fixed.
	switch {
	case a.Unbounded == "gather" || b.Unbounded == "gather":
		r.Unbounded = "gather"
	case a.Unbounded != "":
		r.Unbounded = a.Unbounded
	default:
		r.Unbounded = b.Unbounded
	}
	return r
}

// covers reports whether a provably contains b.
func (r Read) covers(b Read) bool {
	if b.Unbounded != "" && r.Unbounded == "" {
		return false
	}
	return sizeexpr.ProveLE(r.Interval.Lo, b.Interval.Lo) && sizeexpr.ProveLE(b.Interval.Hi, r.Interval.Hi)
}

// fullBox is every point of a tensor type.
func fullBox(t tir.TensorType, why string) box {
	b := box{}
	for _, d := range t.Dims {
		b[d.Name] = Read{Interval: d.Interval, Unbounded: why}
	}
	return b
}

func (b box) clone() box {
	c := box{}
	for k, v := range b {
		c[k] = v
	}
	return c
}

func (b box) without(dim string) box {
	c := b.clone()
	delete(c, dim)
	return c
}

// analysis accumulates, for every value, the union of what its readers
// need.
type analysis struct {
	reads map[*ir.Value]box
}

// need records that b is read of v. Dimensions of b that v lacks are
// dropped (v is broadcast along them); a dimension of v that b lacks is
// read whole, which is conservative and happens only for ops whose rule is
// not known here.
func (a *analysis) need(v *ir.Value, b box) {
	t, ok := tir.AsTensor(v.Type)
	if !ok {
		return
	}
	cur, seen := a.reads[v]
	if !seen {
		cur = box{}
		a.reads[v] = cur
	}
	for _, d := range t.Dims {
		r, ok := b[d.Name]
		if !ok {
			r = Read{Interval: d.Interval}
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

// block propagates reads through a block, last op first: every reader of a
// value comes after it, so its reads are complete when it is reached.
func (a *analysis) block(b *ir.Block) {
	for i := len(b.Ops) - 1; i >= 0; i-- {
		op := b.Ops[i]
		if op.Name == "tir.return" || op.Name == "tir.yield" {
			continue
		}
		a.op(op)
	}
}

// op propagates the reads of op's result to its operands.
func (a *analysis) op(op *ir.Operation) {
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
			t, _ := tir.AsTensor(v.Type)
			a.need(v, fullBox(t, "call"))
		}
	default:
		// Every other op reads its operands as its access rule says
		// (constant and pos read no element).
		acc, _ := tir.AccessOf(op)
		for _, r := range acc {
			a.through(op, r, rb)
		}
	}
}

// through propagates the box read of op's result to the operand of read r:
// an offset coordinate moves the interval, an affine one maps it to its
// image, a gathered one reads the whole interval (through data), and a
// piece of a concat only sees the part of the box it holds.
func (a *analysis) through(op *ir.Operation, r tir.Read, rb box) {
	v := op.Operands[r.Operand]
	x, _ := tir.AsTensor(v.Type)
	if r.Along != "" {
		along := rb[r.Along]
		if along.Unbounded == "" {
			iv := along.Interval.Intersect(r.Within)
			if iv.ProvablyEmpty() {
				return // this piece is not read
			}
			rb = rb.clone()
			rb[r.Along] = Read{Interval: iv}
		} else {
			rb = rb.clone()
			rb[r.Along] = Read{Interval: r.Within, Unbounded: along.Unbounded, Frame: along.Frame}
		}
	}
	over := tir.TensorType{}
	why := map[string]string{}
	for d, rd := range rb {
		over.Dims = append(over.Dims, tir.Dim{Name: d, Interval: rd.Interval})
		why[d] = rd.Unbounded
	}
	b := box{}
	for _, d := range x.Dims {
		if d.Name == r.Gathered {
			b[d.Name] = Read{Interval: d.Interval, Unbounded: "gather"}
			continue
		}
		if off, ok := r.Offset(d.Name); ok {
			if rd, has := rb[d.Name]; has {
				// y(i) = x(i + off): reading y on [a:b] reads x on [a+off:b+off].
				b[d.Name] = Read{Interval: rd.Interval.Translate(off), Unbounded: rd.Unbounded, Frame: rd.Frame}
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
		img, ok := tir.ImageInterval(e, over)
		if !ok || reason != "" {
			// Not linear, or indexed by an unbounded dimension: any point
			// of the operand may be read (a view is checked to stay
			// inside it).
			b[d.Name] = Read{Interval: d.Interval, Unbounded: reason}
			continue
		}
		b[d.Name] = Read{Interval: img, Frame: frameOf(e, rb)}
	}
	a.need(v, b)
}

// frameOf is the frame of a coordinate computed as e from the result's
// coordinates: that of the one variable of e that has a frame, when it
// appears with coefficient 1 (i + k with k reduced follows i); none when
// several have one, or one is scaled (2*i) or under a division.
func frameOf(e sizeexpr.Expr, rb box) string {
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
func (a *analysis) reduce(op *ir.Operation, rb box) {
	ins, init := tir.ReduceOperands(op)
	full := rb.clone()
	for _, d := range tir.ReduceDims(op) {
		full[d] = Read{Interval: tir.ReducedInterval(op, d)}
	}
	argReads := a.body(op, rb)
	for i, v := range ins {
		b := full
		if argReads != nil && argReads[i+1] != nil {
			b = mergeBoxes(full, argReads[i+1])
		}
		a.need(v, b)
	}
	if init != nil {
		b := rb
		if argReads != nil && argReads[0] != nil {
			b = mergeBoxes(rb, argReads[0])
		}
		a.need(init, b)
	}
}

// scan: the state at step k depends on every earlier step, so an operand
// is read from the start of the scan interval up to the last point needed
// (forward), or from the first point needed to its end (backward).
func (a *analysis) scan(op *ir.Operation, rb box) {
	dim := tir.DimAttr(op)
	full, _ := tir.ScanInterval(op)
	r, ok := rb[dim]
	var along Read
	switch {
	case !ok:
		along = Read{Interval: full}
	case r.Unbounded != "":
		along = Read{Interval: full, Unbounded: r.Unbounded}
	case tir.ScanDirection(op) == "backward":
		along = Read{Interval: sizeexpr.Span(r.Interval.Lo, full.Hi), Frame: r.Frame}
	default:
		along = Read{Interval: sizeexpr.Span(full.Lo, r.Interval.Hi), Frame: r.Frame}
	}
	state := rb.without(dim)
	argReads := a.body(op, state)
	for i, v := range op.Operands[1:] {
		b := state.clone()
		if argReads != nil && argReads[i+1] != nil {
			b = mergeBoxes(b, argReads[i+1])
		}
		b[dim] = along
		a.need(v, b)
	}
	b := state
	if argReads != nil && argReads[0] != nil {
		b = mergeBoxes(state, argReads[0])
	}
	a.need(op.Operands[0], b)
}

// body analyses the region of a reduce or scan whose yielded state is read
// on yield, and returns what is read of each block argument (nil for a
// simple reduction). The state argument is the previous state: if the body
// reads it beyond yield, the state is needed there too, so the body is
// analysed again with the larger box until nothing grows.
func (a *analysis) body(op *ir.Operation, yield box) []box {
	if len(op.Regions) == 0 || op.Regions[0].Entry() == nil {
		return nil
	}
	blk := op.Regions[0].Entry()
	y := blk.Terminator()
	if y == nil || len(y.Operands) != 1 || len(blk.Args) == 0 {
		return nil
	}
	for round := 0; round < maxBodyRounds; round++ {
		a.need(y.Operands[0], yield)
		a.block(blk)
		st, ok := a.reads[blk.Args[0]]
		if !ok || boxCovers(yield, st) {
			break
		}
		yield = mergeBoxes(yield, st)
	}
	out := make([]box, len(blk.Args))
	for i, arg := range blk.Args {
		out[i] = a.reads[arg]
	}
	return out
}

func mergeBoxes(a, b box) box {
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
func boxCovers(a, b box) bool {
	for d, r := range b {
		if ar, ok := a[d]; !ok || !ar.covers(r) {
			return false
		}
	}
	return true
}

// DimExtent is how one dimension of an argument is read, relative to the
// output domain.
type DimExtent struct {
	Name string
	Read
	// InOutput is false when the dimension does not move with a dimension
	// of the output domain (a reduced or local dimension): it is not
	// decomposed, Read.Interval is all there is.
	InOutput bool
	// Along is the output dimension the halo is measured against: Name
	// itself, or the output index it is read at when the names differ
	// (Read.Frame; TC arguments, renaming views).
	Along string
	// Output is the output domain's interval along Along: the union
	// (bounding box) over the results that have it.
	Output sizeexpr.Interval
	// Below and Above are Read.Lo - Output.Lo and Read.Hi - Output.Hi:
	// -1 and +1 for a stencil that reads one ghost point on each side.
	Below, Above sizeexpr.Expr
}

// ArgExtents is how one argument of a function is read.
type ArgExtents struct {
	Name string
	Type tir.TensorType
	// IsRead is false when no point of the argument is read (an unused
	// argument, or one whose only reader is tir.pos).
	IsRead bool
	Dims   []DimExtent
}

// FuncExtents is the extent analysis of one tir.func.
type FuncExtents struct {
	Name string
	// Output is the bounding box of the results' declared domains, one
	// dimension per name, in order of first appearance.
	Output []tir.Dim
	Args   []ArgExtents
}

// Analyze computes, for every argument of fn, the points read to compute
// the declared output domains.
func Analyze(fn *ir.Operation) (*FuncExtents, error) {
	sig, err := readSignature(fn)
	if err != nil {
		return nil, err
	}
	entry := fn.Regions[0].Entry()
	ret := entry.Terminator()
	if ret == nil || ret.Name != "tir.return" || len(ret.Operands) != len(sig.outs) {
		return nil, ir.Errorf(fn.Loc, "@%s must end with a tir.return of its %d results", sig.name, len(sig.outs))
	}
	a := &analysis{reads: map[*ir.Value]box{}}
	fe := &FuncExtents{Name: sig.name}
	index := map[string]int{}
	for i, v := range ret.Operands {
		out := fullBox(sig.outs[i], "")
		for name, r := range out {
			r.Frame = name
			out[name] = r
		}
		a.need(v, out)
		for _, d := range sig.outs[i].Dims {
			if k, ok := index[d.Name]; ok {
				o := fe.Output[k]
				fe.Output[k].Interval = sizeexpr.Span(sizeexpr.Min(o.Lo, d.Lo), sizeexpr.Max(o.Hi, d.Hi))
				continue
			}
			index[d.Name] = len(fe.Output)
			fe.Output = append(fe.Output, d)
		}
	}
	a.block(entry)
	for i, t := range sig.ins {
		ae := ArgExtents{Name: sig.argNames[i], Type: t}
		rb, read := a.reads[entry.Args[i]]
		ae.IsRead = read
		if read {
			for _, d := range t.Dims {
				de := DimExtent{Name: d.Name, Read: rb[d.Name]}
				along := de.Frame
				if along == "" {
					along = d.Name
				}
				if k, ok := index[along]; ok {
					de.InOutput = true
					de.Along = along
					de.Output = fe.Output[k].Interval
					de.Below = sizeexpr.Simplify(sizeexpr.Sub(de.Interval.Lo, de.Output.Lo))
					de.Above = sizeexpr.Simplify(sizeexpr.Sub(de.Interval.Hi, de.Output.Hi))
				}
				// Printed expressions are simplified (no -N + max(N, 1)),
				// after the offsets above, where the output's own bounds
				// cancel exactly.
				de.Interval = sizeexpr.Span(sizeexpr.Simplify(de.Interval.Lo), sizeexpr.Simplify(de.Interval.Hi))
				ae.Dims = append(ae.Dims, de)
			}
		}
		fe.Args = append(fe.Args, ae)
	}
	return fe, nil
}

// Extents prints the extent analysis of every tir.func of the module, in
// the format of docs/tools.md:
//
//	@laplacian  output I[0:5] J[0:7] K[0:9]
//	  inp  I: -1 +1   J: -1 +1   K: 0 +0   reads I[-1:6] J[-1:8] K[0:9]
func Extents(m *ir.Module) (string, error) {
	fns, err := tirFuncs(m)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, fn := range fns {
		fe, err := Analyze(fn)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fe.write(&b)
	}
	return b.String(), nil
}

func (fe *FuncExtents) write(b *strings.Builder) {
	fmt.Fprintf(b, "@%s  output", fe.Name)
	if len(fe.Output) == 0 {
		b.WriteString(" scalar")
	}
	for _, d := range fe.Output {
		b.WriteString(" " + d.String())
	}
	b.WriteString("\n")
	// Columns: the name, one column per dimension position, the reads.
	nameW := 0
	var colW []int
	entries := make([][]string, len(fe.Args))
	for i, ae := range fe.Args {
		nameW = max(nameW, len(ae.Name))
		entries[i] = ae.haloEntries()
		for k, e := range entries[i] {
			if k == len(colW) {
				colW = append(colW, 0)
			}
			colW[k] = max(colW[k], len(e))
		}
	}
	for i, ae := range fe.Args {
		line := fmt.Sprintf("  %-*s", nameW, ae.Name)
		for k, w := range colW {
			e := ""
			if k < len(entries[i]) {
				e = entries[i][k]
			}
			sep := "  "
			if k > 0 {
				sep = "   "
			}
			line += fmt.Sprintf("%s%-*s", sep, w, e)
		}
		if ae.IsRead && len(ae.Dims) > 0 {
			line += "   reads " + ae.readsText()
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// haloEntries are the halo columns of an argument's line: `I: -1 +1`,
// one per dimension, or one entry `not read` / `scalar`.
func (ae ArgExtents) haloEntries() []string {
	if !ae.IsRead {
		return []string{"not read"}
	}
	if len(ae.Dims) == 0 {
		return []string{"scalar"}
	}
	parts := make([]string, len(ae.Dims))
	for i, d := range ae.Dims {
		switch {
		case d.Unbounded != "":
			parts[i] = d.Name + ": unbounded (" + d.Unbounded + ")"
		case !d.InOutput:
			parts[i] = d.Name + ": " + d.Interval.String()
		case d.Along != d.Name:
			parts[i] = d.Name + " (" + d.Along + "): " + signedOffset(d.Below, false) + " " + signedOffset(d.Above, true)
		default:
			parts[i] = d.Name + ": " + signedOffset(d.Below, false) + " " + signedOffset(d.Above, true)
		}
	}
	return parts
}

// readsText is `I[-1:6] J[-1:8]`: the points read, per dimension.
func (ae ArgExtents) readsText() string {
	parts := make([]string, len(ae.Dims))
	for i, d := range ae.Dims {
		parts[i] = d.Name + d.Interval.String()
	}
	return strings.Join(parts, " ")
}

// signedOffset prints an offset with its sign: -1, +2, +(N - 1), -M,
// -max(N - 1, 0). A zero lower offset prints "0" and a zero upper one "+0",
// so that a column reads "0 +0" like "-1 +1". An offset that is not
// provably non-negative and starts with a negative term prints negated:
// -(KH - 1) rather than +(-KH + 1). Parentheses enclose a sum of several
// terms.
func signedOffset(e sizeexpr.Expr, upper bool) string {
	if c, ok := e.Const(); ok {
		if c == 0 && !upper {
			return "0"
		}
		return fmt.Sprintf("%+d", c)
	}
	sign, mag := "+", e
	terms, c := e.Terms()
	if sizeexpr.ProveLE(e, sizeexpr.Const(0)) || !sizeexpr.ProveGE(e, sizeexpr.Const(0)) && len(terms) > 0 && terms[0].Coef < 0 {
		sign, mag = "-", sizeexpr.Simplify(sizeexpr.Neg(e))
		terms, c = mag.Terms()
	}
	s := mag.String()
	if len(terms) > 1 || c != 0 {
		s = "(" + s + ")"
	}
	return sign + s
}
