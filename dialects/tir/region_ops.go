package tir

import (
	"fmt"
	"slices"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Reductions and scans. A simple reduction names its combiner (add, mul,
// min, max, and, or); the region form and scans carry a body of ordinary
// tir ops run once per point of the reduced (scanned) dimension.

// ReduceKinds are the combiners of the simple reduce form.
var ReduceKinds = []string{"add", "mul", "min", "max", "and", "or"}

func isReduceKind(s string) bool {
	for _, k := range ReduceKinds {
		if k == s {
			return true
		}
	}
	return false
}

// ReduceDims returns the reduced dimensions of a tir.reduce.
func ReduceDims(op *ir.Operation) []string {
	var out []string
	if a, ok := op.Attr("dims").(ir.ArrayAttr); ok {
		for _, e := range a {
			if s, ok := e.(ir.StringAttr); ok {
				out = append(out, string(s))
			}
		}
	}
	return out
}

// ReduceKind is the combiner of a simple reduction, "" for the region form.
func ReduceKind(op *ir.Operation) string {
	s, _ := op.Attr("kind").(ir.StringAttr)
	return string(s)
}

// ReduceOperands splits a reduce's operands into the reduced inputs and the
// init value (nil when the identity is used).
func ReduceOperands(op *ir.Operation) (ins []*ir.Value, init *ir.Value) {
	if len(op.Regions) > 0 {
		if len(op.Operands) == 0 {
			return nil, nil
		}
		return op.Operands[1:], op.Operands[0]
	}
	if len(op.Operands) > 1 {
		return op.Operands[:1], op.Operands[1]
	}
	return op.Operands, nil
}

func parseReduce(p *ir.OpParser, st *ir.OpState) error {
	kind := ""
	if !p.IsWord("over") {
		k, loc, err := p.Keyword("a combiner (add, mul, min, max, and, or) or 'over'")
		if err != nil {
			return err
		}
		if !isReduceKind(k) {
			return ir.Errorf(loc, "unknown reduction '%s' (expected add, mul, min, max, and, or)", k)
		}
		kind = k
		x, err := p.Operand()
		if err != nil {
			return err
		}
		st.Operands = []*ir.Value{x}
	}
	if err := p.ExpectWord("over"); err != nil {
		return err
	}
	entries, loc, err := p.Brackets()
	if err != nil {
		return err
	}
	var dims ir.ArrayAttr
	for _, e := range entries {
		if e.Form != ir.EntryExpr || e.E.Kind != ir.ExprName {
			return ir.Errorf(e.Loc, "expected a dimension name")
		}
		dims = append(dims, ir.StringAttr(e.E.Name))
	}
	if len(dims) == 0 {
		return ir.Errorf(loc, "a reduction needs at least one dimension")
	}
	st.Attrs = st.Attrs.With("dims", dims)
	var init *ir.Value
	var initLoc ir.Location
	if p.Word("init") {
		if it := p.Peek(); it != nil {
			initLoc = it.Loc
		}
		if init, err = p.Operand(); err != nil {
			return err
		}
	}
	if kind != "" {
		st.Attrs = st.Attrs.With("kind", ir.StringAttr(kind))
		if init != nil {
			st.Operands = append(st.Operands, init)
		}
		return parseOptionalResultType(p, st)
	}
	// Region form.
	if init == nil {
		return p.Errorf("the region form of tir.reduce needs 'init %%value'")
	}
	ins, err := parseIns(p)
	if err != nil {
		return err
	}
	st.Operands = append([]*ir.Value{init}, ins...)
	probe := ir.NewOp("tir.reduce", st.Loc, st.Operands, []ir.Type{nil}, st.Attrs)
	probe.AddRegion()
	rt, err := reduceResultType(probe)
	if err != nil {
		return err
	}
	labelTypes := []ir.Type{rt}
	for _, v := range ins {
		t, _ := AsTensor(v.Type)
		labelTypes = append(labelTypes, without(t, stringsOf(dims)))
	}
	body, err := parseStateBody(p, "tir.reduce", init, initLoc, labelTypes)
	if err != nil {
		return err
	}
	st.Regions = append(st.Regions, body)
	return parseOptionalResultType(p, st)
}

func stringsOf(a ir.ArrayAttr) []string {
	var out []string
	for _, e := range a {
		if s, ok := e.(ir.StringAttr); ok {
			out = append(out, string(s))
		}
	}
	return out
}

// parseIns reads `ins(%a, %b)`.
func parseIns(p *ir.OpParser) ([]*ir.Value, error) {
	if err := p.ExpectWord("ins"); err != nil {
		return nil, err
	}
	g, err := p.Group()
	if err != nil {
		return nil, err
	}
	if g.AtEnd() {
		return nil, nil
	}
	vs, err := g.OperandList()
	if err != nil {
		return nil, err
	}
	return vs, g.ExpectEnd()
}

func printReduce(p ir.OpPrinter, op *ir.Operation) {
	ins, init := ReduceOperands(op)
	if k := ReduceKind(op); k != "" {
		p.Write(" " + k + " ")
		p.Value(ins[0])
	}
	p.Write(" over [" + strings.Join(ReduceDims(op), ", ") + "]")
	if init != nil {
		p.Write(" init ")
		p.Value(init)
	}
	if len(op.Regions) > 0 {
		p.Write(" ins(")
		p.Values(ins)
		p.Write(") ")
		p.Region(op.Regions[0], true)
	}
	printResultType(p, op)
}

// reduceResultType: the broadcast of the inputs without the reduced
// dimensions, broadcast with init; the element type is the input's (simple
// form) or init's (region form).
func reduceResultType(op *ir.Operation) (TensorType, error) {
	ins, init := ReduceOperands(op)
	dims := ReduceDims(op)
	if len(ins) == 0 {
		return TensorType{}, ir.Errorf(op.Loc, "'tir.reduce' needs at least one input")
	}
	var ts []TensorType
	var srcs []*ir.Value
	for _, d := range dims {
		found := false
		for _, v := range ins {
			t, err := tensorOf(op, v, "operand")
			if err != nil {
				return TensorType{}, err
			}
			if t.Find(d) >= 0 {
				found = true
			}
		}
		if !found {
			return TensorType{}, ir.Errorf(op.Loc, "unknown dimension %s in reduce: no operand has it", d)
		}
	}
	for i, d := range dims {
		for _, e := range dims[:i] {
			if e == d {
				return TensorType{}, ir.Errorf(op.Loc, "duplicate dimension %s in reduce", d)
			}
		}
	}
	for _, v := range ins {
		t, _ := AsTensor(v.Type)
		ts = append(ts, without(t, dims))
		srcs = append(srcs, v)
	}
	var elem ir.Type
	if init != nil {
		it, err := tensorOf(op, init, "init")
		if err != nil {
			return TensorType{}, err
		}
		ts = append(ts, it)
		srcs = append(srcs, init)
		elem = it.Elem
	}
	if k := ReduceKind(op); k != "" {
		x, _ := AsTensor(ins[0].Type)
		if (k == "and" || k == "or") && !ir.IsInteger(x.Elem) {
			return TensorType{}, ir.Errorf(op.Loc, "reduction '%s' needs i1 or integer elements, got %s", k, x.Elem)
		}
		if !isNumeric(x.Elem) {
			return TensorType{}, ir.Errorf(op.Loc, "reduction '%s' needs integer or float elements, got %s", k, x.Elem)
		}
		if elem != nil && !ir.TypeEqual(elem, x.Elem) && !(ir.IsFloat(elem) && isConvertibleConstant(init)) {
			return TensorType{}, ir.Errorf(op.Loc, "init has element type %s but the reduced input has %s", elem, x.Elem)
		}
		elem = x.Elem
	}
	out, err := broadcastTypes(op, ts, srcs)
	if err != nil {
		return TensorType{}, err
	}
	return TensorType{Elem: elem, Dims: out}, nil
}

// ReducedInterval is the interval a reduction runs over for dimension d:
// the intersection over the inputs that have it. For a tir.compress, the
// interval it compacts (CompressedInterval).
func ReducedInterval(op *ir.Operation, d string) sizeexpr.Interval {
	if op.Name == "tir.compress" {
		return CompressedInterval(op)
	}
	ins, _ := ReduceOperands(op)
	var iv *sizeexpr.Interval
	for _, v := range ins {
		t, _ := AsTensor(v.Type)
		if x, ok := t.Dim(d); ok {
			if iv == nil {
				c := x.Interval
				iv = &c
			} else {
				c := iv.Intersect(x.Interval)
				iv = &c
			}
		}
	}
	if iv == nil {
		return sizeexpr.Span(sizeexpr.Const(0), sizeexpr.Const(0))
	}
	return *iv
}

var Reduce = &Op{OpDef: ir.OpDef{
	Name:        "tir.reduce",
	Summary:     "reduction over named dimensions (masked points skipped; empty interval gives init)",
	Syntax:      "%r = tir.reduce add %x over [K] [init %c] : T | tir.reduce over [K] init %c ins(%a, ...) { ^bb0(%acc, %a1, ...): ... tir.yield %s } : T",
	Traits:      ir.TraitPure,
	NumOperands: -1, NumResults: 1, NumRegions: -1,
	Parse: parseReduce,
	Print: printReduce,
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		t, err := reduceResultType(op)
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	},
	Verify: func(op *ir.Operation, warn func(*ir.Diagnostic)) error {
		ins, _ := ReduceOperands(op)
		for _, d := range ReduceDims(op) {
			full := ReducedInterval(op, d)
			for i, v := range ins {
				t, _ := AsTensor(v.Type)
				x, ok := t.Dim(d)
				if !ok || x.Interval.Equal(full) {
					continue
				}
				// An unknown extent meeting a known interval is taken to
				// equal it and checked at run time (RuntimeChecks).
				if hasUnknownExtent(x.Interval) {
					continue
				}
				if warn != nil {
					w := ir.Warningf(op.Loc, "reduction over %s truncates operand #%d from %s to %s", d, i, x.Interval, full)
					// Where the two intervals come from: the truncated
					// operand's and those of the operands that are shorter.
					AddTrail(w, fmt.Sprintf("operand #%d", i), v, d)
					for j, u := range ins {
						if ut, _ := AsTensor(u.Type); j != i {
							if ud, ok := ut.Dim(d); ok && !ud.Interval.Equal(x.Interval) {
								AddTrail(w, fmt.Sprintf("operand #%d", j), u, d)
							}
						}
					}
					warn(w)
				}
			}
		}
		if len(op.Regions) == 0 {
			return nil
		}
		rt, _ := AsTensor(op.Results[0].Type)
		return verifyBody(op, rt, ins, ReduceDims(op))
	},
},
	syntaxAttrs: []string{"dims", "kind"},
	reads:       reduceReads,
	masked:      reduceMasks,
	checks:      reduceChecks,
	trail:       reduceTrail,
	Detail:      reduceDetail,
	Cost:        CostLoop,
}

// parseStateBody reads the body of a scan or a region reduction, whose
// block arguments are the state (labelTypes[0], the init's element type)
// and the inputs. When the body does not type-check with that state (an op
// of the body mixes element types), or yields another element type, but
// does with the element type of one of the inputs and then yields it, the
// init is what is wrong: the error is reported at the init operand (initLoc),
// with a note at the body's error and one at the init's definition (issue
// 24: `init %z` with %z an i32 constant, over f64 inputs, used to be
// reported as "'tir.add' element types differ" inside the body). Otherwise
// the body's own error stands.
func parseStateBody(p *ir.OpParser, opName string, init *ir.Value, initLoc ir.Location, labelTypes []ir.Type) (*ir.Region, error) {
	it := p.Peek()
	body, err := p.Region(nil, labelTypes)
	state, ok := AsTensor(labelTypes[0])
	var cause *ir.Diagnostic
	switch {
	case !ok:
		return body, err
	case err != nil:
		d, ok := err.(*ir.Diagnostic)
		if !ok {
			return nil, err
		}
		cause = ir.Errorf(d.Loc, "with the state in %s, the body fails here: %s", state.Elem, d.Msg)
	case yieldedElem(body) != nil && !ir.TypeEqual(yieldedElem(body), state.Elem):
		y := body.Blocks[0].Terminator()
		cause = ir.Errorf(y.Loc, "the body yields %s", yieldedElem(body))
	default:
		return body, nil
	}
	if !initLoc.Known() || it == nil {
		return nil, err
	}
	tried := []ir.Type{state.Elem}
	for _, lt := range labelTypes[1:] {
		in, _ := AsTensor(lt)
		if in.Elem == nil || slices.ContainsFunc(tried, func(t ir.Type) bool { return ir.TypeEqual(t, in.Elem) }) {
			continue
		}
		tried = append(tried, in.Elem)
		alt := slices.Clone(labelTypes)
		alt[0] = TensorType{Elem: in.Elem, Dims: state.Dims}
		r, rerr := p.Host.BuildRegion(it, nil, alt)
		if rerr != nil || !ir.TypeEqual(yieldedElem(r), in.Elem) {
			continue
		}
		name := "the init"
		if init.NameHint != "" {
			name += " %" + init.NameHint
		}
		d := ir.Errorf(initLoc, "%s of this %s has element type %s, but its body computes the state in %s: make the init %s (tir.cast, or a constant of that type)",
			name, opName, state.Elem, in.Elem, in.Elem)
		d.AddNote(cause.Loc, "%s", cause.Msg)
		if dl := DefLoc(init); dl.Known() {
			d.AddNote(dl, "the init (%s) is defined here", init.Type)
		}
		return nil, d
	}
	if err != nil {
		return nil, err
	}
	return body, nil
}

// yieldedElem is the element type a body's tir.yield yields, or nil.
func yieldedElem(r *ir.Region) ir.Type {
	if r == nil || len(r.Blocks) != 1 {
		return nil
	}
	y := r.Blocks[0].Terminator()
	if y == nil || y.Name != "tir.yield" || len(y.Operands) != 1 {
		return nil
	}
	t, ok := AsTensor(y.Operands[0].Type)
	if !ok {
		return nil
	}
	return t.Elem
}

// verifyBody checks a reduce/scan region: arguments (state, then each input
// without the iterated dimensions) and a yield of the state's type.
func verifyBody(op *ir.Operation, state TensorType, ins []*ir.Value, drop []string) error {
	r := op.Regions[0]
	if len(r.Blocks) != 1 {
		return ir.Errorf(op.Loc, "'%s' body must be a single block", op.Name)
	}
	b := r.Blocks[0]
	if len(b.Args) != len(ins)+1 {
		return ir.Errorf(op.Loc, "'%s' body must take %d arguments (the state and one per input), got %d", op.Name, len(ins)+1, len(b.Args))
	}
	if !ir.TypeEqual(b.Args[0].Type, state) {
		return ir.Errorf(op.Loc, "'%s' body: the state argument has type %s, expected %s", op.Name, b.Args[0].Type, state)
	}
	for i, v := range ins {
		t, _ := AsTensor(v.Type)
		want := without(t, drop)
		if !ir.TypeEqual(b.Args[i+1].Type, want) {
			return ir.Errorf(op.Loc, "'%s' body: argument #%d has type %s, expected %s", op.Name, i+1, b.Args[i+1].Type, want)
		}
	}
	y := b.Terminator()
	if y == nil || y.Name != "tir.yield" || len(y.Operands) != 1 {
		return ir.Errorf(op.Loc, "'%s' body must end with tir.yield of one value", op.Name)
	}
	yt, ok := AsTensor(y.Operands[0].Type)
	if !ok || !ir.TypeEqual(yt.Elem, state.Elem) {
		return ir.Errorf(y.Loc, "tir.yield must yield element type %s, got %s", state.Elem, y.Operands[0].Type)
	}
	for _, d := range yt.Dims {
		if state.Find(d.Name) < 0 {
			return ir.Errorf(y.Loc, "tir.yield value varies along %s, which the state %s lacks", d.Name, state)
		}
	}
	for _, d := range state.Dims {
		if yd, ok := yt.Dim(d.Name); ok {
			if inside, decided := yd.Contains(d.Interval); !inside && decided {
				return ir.Errorf(y.Loc, "tir.yield value is only defined on %s, but the state needs %s", yd, d)
			}
		}
	}
	return nil
}

var Yield = &Op{OpDef: ir.OpDef{
	Name:        "tir.yield",
	Summary:     "terminator of reduce and scan bodies",
	Syntax:      "tir.yield %x : T",
	Traits:      ir.TraitTerminator,
	NumOperands: 1, NumResults: 0,
	Format: syntax("$x value-types($x)"),
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if parent := op.ParentOp(); parent == nil || (parent.Name != "tir.reduce" && parent.Name != "tir.scan") {
			return ir.Errorf(op.Loc, "'tir.yield' must end a tir.reduce or tir.scan body")
		}
		return nil
	},
}}

// ScanDirection is "forward" or "backward".
func ScanDirection(op *ir.Operation) string {
	s, _ := op.Attr("direction").(ir.StringAttr)
	return string(s)
}

// ScanInterval is the interval the scan runs over.
func ScanInterval(op *ir.Operation) (sizeexpr.Interval, bool) {
	t, ok := AsTensor(op.Results[0].Type)
	if !ok {
		return sizeexpr.Interval{}, false
	}
	d, ok := t.Dim(DimAttr(op))
	return d.Interval, ok
}

func parseScan(p *ir.OpParser, st *ir.OpState) error {
	dir, loc, err := p.Keyword("'forward' or 'backward'")
	if err != nil {
		return err
	}
	if dir != "forward" && dir != "backward" {
		return ir.Errorf(loc, "expected 'forward' or 'backward', found '%s'", dir)
	}
	if err := p.ExpectWord("along"); err != nil {
		return err
	}
	dim, _, err := p.Keyword("a dimension name")
	if err != nil {
		return err
	}
	st.Attrs = st.Attrs.With("dim", ir.StringAttr(dim)).With("direction", ir.StringAttr(dir))
	if p.IsBrackets() {
		entries, bloc, err := p.Brackets()
		if err != nil {
			return err
		}
		if len(entries) != 1 || entries[0].Form != ir.EntryInterval {
			return ir.Errorf(bloc, "expected [lo:hi]")
		}
		d, err := parseDomain(p.Host, []ir.BracketEntry{{Form: ir.EntryNamedInterval, Loc: entries[0].Loc, Name: dim, Lo: entries[0].Lo, Hi: entries[0].Hi}})
		if err != nil {
			return err
		}
		st.Attrs = st.Attrs.With("interval", d)
	}
	if err := p.ExpectWord("init"); err != nil {
		return err
	}
	var initLoc ir.Location
	if it := p.Peek(); it != nil {
		initLoc = it.Loc
	}
	init, err := p.Operand()
	if err != nil {
		return err
	}
	ins, err := parseIns(p)
	if err != nil {
		return err
	}
	st.Operands = append([]*ir.Value{init}, ins...)
	probe := ir.NewOp("tir.scan", st.Loc, st.Operands, []ir.Type{nil}, st.Attrs)
	rt, err := scanResultType(probe)
	if err != nil {
		return err
	}
	labelTypes := []ir.Type{without(rt, []string{dim})}
	for _, v := range ins {
		t, _ := AsTensor(v.Type)
		labelTypes = append(labelTypes, without(t, []string{dim}))
	}
	body, err := parseStateBody(p, "tir.scan", init, initLoc, labelTypes)
	if err != nil {
		return err
	}
	st.Regions = append(st.Regions, body)
	return parseOptionalResultType(p, st)
}

func printScan(p ir.OpPrinter, op *ir.Operation) {
	p.Write(" " + ScanDirection(op) + " along " + DimAttr(op))
	if d, ok := op.Attr("interval").(DomainAttr); ok && len(d) == 1 {
		p.Write("[" + d[0].Lo.String() + ":" + d[0].Hi.String() + "]")
	}
	p.Write(" init ")
	p.Value(op.Operands[0])
	p.Write(" ins(")
	p.Values(op.Operands[1:])
	p.Write(") ")
	p.Region(op.Regions[0], true)
	printResultType(p, op)
}

// scanResultType: the broadcast of the inputs (including the scanned
// dimension, or the named interval when no input has it), then init; the
// element type is the state's. The inputs come first so that the result's
// dimension order (its storage order) is the inputs', as for a reduction:
// an init that varies along an input's dimension does not move it ahead.
func scanResultType(op *ir.Operation) (TensorType, error) {
	if len(op.Operands) == 0 {
		return TensorType{}, ir.Errorf(op.Loc, "'tir.scan' needs an init value")
	}
	init, err := tensorOf(op, op.Operands[0], "init")
	if err != nil {
		return TensorType{}, err
	}
	dim := DimAttr(op)
	if init.Find(dim) >= 0 {
		return TensorType{}, ir.Errorf(op.Loc, "the init of a scan along %s cannot vary along %s", dim, dim)
	}
	var ts []TensorType
	var srcs []*ir.Value
	has := false
	for _, v := range op.Operands[1:] {
		t, err := tensorOf(op, v, "operand")
		if err != nil {
			return TensorType{}, err
		}
		if t.Find(dim) >= 0 {
			has = true
		}
		ts = append(ts, t)
		srcs = append(srcs, v)
	}
	named, hasNamed := op.Attr("interval").(DomainAttr)
	if hasNamed {
		ts = append(ts, TensorType{Dims: []Dim(named)})
		srcs = append(srcs, op.Operands[0])
	} else if !has {
		return TensorType{}, ir.Errorf(op.Loc, "scan along %s without an interval: no operand has %s; write 'along %s[lo:hi]'", dim, dim, dim)
	}
	ts = append(ts, init)
	srcs = append(srcs, op.Operands[0])
	dims, err := broadcastTypes(op, ts, srcs)
	if err != nil {
		return TensorType{}, err
	}
	return TensorType{Elem: init.Elem, Dims: dims}, nil
}

var Scan = &Op{OpDef: ir.OpDef{
	Name:        "tir.scan",
	Summary:     "sequential scan along a dimension with a state (r(k) is the state after step k)",
	Syntax:      "%r = tir.scan forward along K[lo:hi]? init %s0 ins(%a, ...) { ^bb0(%state, %a1, ...): ... tir.yield %next } : R",
	Traits:      ir.TraitPure,
	NumOperands: -1, NumResults: 1, NumRegions: 1,
	Parse: parseScan,
	Print: printScan,
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		t, err := scanResultType(op)
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		dir := ScanDirection(op)
		if dir != "forward" && dir != "backward" {
			return ir.Errorf(op.Loc, "scan direction must be forward or backward")
		}
		rt, _ := AsTensor(op.Results[0].Type)
		return verifyBody(op, without(rt, []string{DimAttr(op)}), op.Operands[1:], []string{DimAttr(op)})
	},
},
	syntaxAttrs: []string{"dim", "direction", "interval"},
	reads:       readsAtResultPoint,
	masked:      scanMasks,
	trail:       scanTrail,
	Detail:      scanDetail,
}
