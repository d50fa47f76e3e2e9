package tiraffine

import (
	"fmt"
	"strings"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/cf"
	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
	"tir/lower/abi"
)

// Extents computed from data (tir.iota, tir.compress; tir/dataextent.go).
// The function computes them first, in program order, at its top level,
// after the checks on sizes and before any other loop nest: tir.iota from
// its three 0-d operands (evaluated once at entry), tir.compress by
// counting where its mask holds. The value is an index at the top level of
// the function, so it is an affine symbol like a size parameter: every
// domain that uses it (a loop bound, a buffer size) reads it. The checks
// that involve these extents come next, then those of the result
// descriptors whose sizes depend on them: all before anything is written
// to a result. A compress is then filled into a temporary in a second
// sequential loop (its elements move, so it cannot be fused; one whose
// elements a later extent reads is filled as soon as its extent is
// known); an iota is fused into its readers, start + i*step.
//
// The same code, without the fills nothing needs, makes the ABI's shape
// function f_result_shape_data (ShapeFuncAttr), which writes the extents
// of f's results from its inputs (docs/abi.md).

// The attributes of the ABI (abi.AttrDataExtent, abi.AttrShapeOf).
const (
	DataExtentAttr  = abi.AttrDataExtent
	ShapeFuncAttr   = abi.AttrShapeOf
	ShapeFuncSuffix = abi.ShapeDataSuffix
)

// iotaParts are the start and step of a tir.iota, computed at entry.
type iotaParts struct{ start, step *ir.Value }

// dataPhase computes the data-dependent extents of the function in
// program order and binds their symbols (fl.syms); fill says which
// compress results are stored into temporaries (nil: all).
func (fl *funcLowering) dataPhase(fill func(op *ir.Operation) bool) error {
	body := fl.src.Regions[0].Entry()
	for _, x := range tir.DataExtents(fl.src) {
		if err := fl.checkDataCone(body, x.Op); err != nil {
			return err
		}
		if ops := fl.entry.block.Ops; len(ops) > 0 {
			fl.hoistAfter = ops[len(ops)-1]
		}
		var n *ir.Value
		var err error
		switch tir.OpOf(x.Op) {
		case tir.Iota:
			n, err = fl.iotaExtent(x.Op)
		default:
			n, err = fl.compressCount(x.Op)
		}
		if err != nil {
			return err
		}
		n.NameHint = strings.TrimPrefix(x.Sym.Name, "?_")
		fl.syms[x.Sym.Name] = n
		if x.Op.Is(tir.Compress) && (fill == nil || fill(x.Op)) {
			if err := fl.compressFill(x.Op); err != nil {
				return err
			}
		}
	}
	if ops := fl.entry.block.Ops; len(ops) > 0 {
		fl.hoistAfter = ops[len(ops)-1]
	}
	return nil
}

// checkDataCone refuses what the data phase cannot evaluate yet: a value
// computed by a scan (scans are computed after it).
func (fl *funcLowering) checkDataCone(body *ir.Block, op *ir.Operation) error {
	seen := map[*ir.Operation]bool{}
	var visit func(o *ir.Operation) error
	visit = func(o *ir.Operation) error {
		if seen[o] {
			return nil
		}
		seen[o] = true
		if o.Is(tir.Scan) {
			return ir.Errorf(op.Loc, "convert-tir-to-affine: '%s' reads a value computed by tir.scan, which is not supported yet (extents computed from data come first)", op.Name).
				AddNote(o.Loc, "the scan is here")
		}
		var err error
		o.Walk(func(w *ir.Operation) bool {
			for _, v := range w.Operands {
				d := v.DefiningOp()
				if d == nil || d.ParentBlock() != body || fl.buffers[v] != nil {
					continue
				}
				if err = visit(d); err != nil {
					return false
				}
			}
			return err == nil
		})
		return err
	}
	return visit(op)
}

// entryValue evaluates a 0-d value once at the top level of the function.
func (fl *funcLowering) entryValue(v *ir.Value) (*ir.Value, error) {
	ev := fl.newEvaluator(newNest(fl), fl.entry)
	x, _, err := ev.single(v, point{})
	return x, err
}

func (fl *funcLowering) i64Const(v int64) *ir.Value {
	return fl.constant(ir.IntegerAttr{Value: v, Type: ir.I64}, ir.I64)
}

// More of MLIR's cmpi predicate numbers (scalar.go).
const (
	cmpiSGT = 4
	cmpiSGE = 5
)

// iotaExtent computes the number of elements of a tir.iota (tir.IotaExtent)
// in 64-bit arithmetic, with the two failures checked: a step of 0, and a
// count beyond int64 (the difference is taken unsigned, so no operand
// overflows it).
func (fl *funcLowering) iotaExtent(op *ir.Operation) (*ir.Value, error) {
	var xs [3]*ir.Value
	for i, v := range op.Operands {
		x, err := fl.entryValue(v)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	fl.iotas[op] = iotaParts{start: xs[0], step: xs[2]}
	b := fl.entry
	b.loc = op.Loc
	var w [3]*ir.Value
	for i, x := range xs {
		w[i] = x
		if it := x.Type.(ir.IntegerType); it.Width < 64 {
			w[i] = b.value(arith.ExtSI, []*ir.Value{x}, ir.I64, nil)
		}
	}
	start, stop, step := w[0], w[1], w[2]
	zero, one := fl.i64Const(0), fl.i64Const(1)
	stepZero, tooLarge := tir.IotaMessages(fl.src, op)
	b.block.Append(cf.NewAssert(op.Loc, cmpi(b, cmpiNE, step, zero), stepZero))
	up := cmpi(b, cmpiSGT, step, zero)
	sel := func(c, x, y *ir.Value) *ir.Value { return b.value(arith.Select, []*ir.Value{c, x, y}, ir.I64, nil) }
	diff := sel(up, b.value(arith.SubI, []*ir.Value{stop, start}, ir.I64, nil), b.value(arith.SubI, []*ir.Value{start, stop}, ir.I64, nil))
	nonEmpty := b.value(arith.Select, []*ir.Value{up, cmpi(b, cmpiSGT, stop, start), cmpi(b, cmpiSGT, start, stop)}, ir.I1, nil)
	by := sel(up, step, b.value(arith.SubI, []*ir.Value{zero, step}, ir.I64, nil))
	q := b.value(arith.DivUI, []*ir.Value{b.value(arith.SubI, []*ir.Value{diff, one}, ir.I64, nil), by}, ir.I64, nil)
	count := b.value(arith.AddI, []*ir.Value{q, one}, ir.I64, nil)
	// Empty, or a count that is a non-negative int64.
	fits := b.value(arith.OrI, []*ir.Value{b.value(arith.XOrI, []*ir.Value{nonEmpty, fl.constant(ir.IntegerAttr{Value: 1, Type: ir.I1}, ir.I1)}, ir.I1, nil), cmpi(b, cmpiSGE, count, zero)}, ir.I1, nil)
	b.block.Append(cf.NewAssert(op.Loc, fits, tooLarge))
	n := sel(nonEmpty, count, zero)
	a := b.op(arith.IndexCast, []*ir.Value{n}, []ir.Type{ir.Index}, ir.DictAttr{})
	x, _ := tir.DataExtentSym(op)
	a.SetAttr(DataExtentAttr, ir.StringAttr(x.Name))
	return a.Results[0], nil
}

// lowerIota is tir.iota at a point: start + i*step in the element type
// (start and step were computed at entry).
func lowerIota(ev *evaluator, op *ir.Operation, t tir.TensorType, pt point) (scalar, error) {
	parts, ok := ev.fl.iotas[op]
	if !ok {
		return scalar{}, ir.Errorf(op.Loc, "convert-tir-to-affine: internal error: tir.iota read before its extent was computed")
	}
	i := ev.b.value(arith.IndexCast, []*ir.Value{ev.index(pt[tir.DimAttr(op)])}, t.Elem, nil)
	x := ev.b.value(arith.AddI, []*ir.Value{parts.start, ev.b.value(arith.MulI, []*ir.Value{i, parts.step}, t.Elem, nil)}, t.Elem, nil)
	return scalar{parts: []*ir.Value{x}}, nil
}

// lowerCompressed reads a compress result from its temporary; reaching
// here means it has none.
func lowerCompressed(_ *evaluator, op *ir.Operation, _ tir.TensorType, _ point) (scalar, error) {
	return scalar{}, ir.Errorf(op.Loc, "convert-tir-to-affine: internal error: tir.compress read before it was computed")
}

// compressLoop emits a sequential loop over the interval a compress
// compacts, carrying k (an index, from 0): body gets the point of the
// operands, k and the mask there, and returns the next k.
func (fl *funcLowering) compressLoop(op *ir.Operation, body func(ev *evaluator, pt point, k, m *ir.Value) (*ir.Value, error)) (*ir.Value, error) {
	dim := tir.DimAttr(op)
	n := newNest(fl)
	b := fl.entry
	b.loc = op.Loc
	ev := fl.newEvaluator(n, b)
	loop, lb, err := ev.loop(tir.CompressedInterval(op), []*ir.Value{fl.indexConst(0)})
	if err != nil {
		return nil, ir.Errorf(op.Loc, "%v", err)
	}
	blk := loop.Regions[0].Entry()
	name := n.fresh(dim, blk.Args[0])
	blk.Args[0].NameHint = ivHint(dim)
	pt := point{dim: sizeexpr.Dim(name, 0)}
	c := fl.newEvaluator(n, lb)
	m, _, err := c.single(op.Operands[1], pt)
	if err != nil {
		return nil, err
	}
	next, err := body(c, pt, blk.Args[1], m)
	if err != nil {
		return nil, err
	}
	lb.op(affine.Yield, []*ir.Value{next}, nil, nil)
	return loop.Results[0], nil
}

// compressCount counts the points where the mask holds.
func (fl *funcLowering) compressCount(op *ir.Operation) (*ir.Value, error) {
	count, err := fl.compressLoop(op, func(ev *evaluator, _ point, k, m *ir.Value) (*ir.Value, error) {
		return ev.b.value(arith.AddI, []*ir.Value{k, ev.b.value(arith.Select, []*ir.Value{m, fl.indexConst(1), fl.indexConst(0)}, ir.Index, nil)}, ir.Index, nil), nil
	})
	if err != nil {
		return nil, err
	}
	x, _ := tir.DataExtentSym(op)
	count.DefiningOp().SetAttr(DataExtentAttr, ir.StringAttr(x.Name))
	return count, nil
}

// compressFill stores the compacted elements into temporaries (one per
// leaf of the element type): where the mask holds, the slice of x at the
// loop's point goes to row k.
func (fl *funcLowering) compressFill(op *ir.Operation) error {
	v := op.Results[0]
	t, _ := tir.AsTensor(v.Type)
	dim := tir.DimAttr(op)
	var bufs []*ir.Value
	for _, leaf := range leaves(t.Elem) {
		buf := fl.allocIn(fl.entry, t.WithElem(leaf), op.Loc, "compressed", false)
		fl.allocs = append(fl.allocs, buf)
		bufs = append(bufs, buf)
	}
	var others []tir.Dim
	for _, d := range t.Dims {
		if d.Name != dim {
			others = append(others, d)
		}
	}
	sym, _ := tir.DataExtentSym(op)
	count := fl.syms[sym.Name]
	_, err := fl.compressLoop(op, func(ev *evaluator, pt point, k, m *ir.Value) (*ir.Value, error) {
		// Row k exists (k < count) whenever the mask holds, as it did when
		// it was counted; the test keeps every store inside the buffer
		// even if a float mask were computed differently the second time.
		inside := cmpi(ev.b, cmpiSLT, k, count)
		ifOp := ev.b.op(scf.If, []*ir.Value{ev.b.value(arith.AndI, []*ir.Value{m, inside}, ir.I1, nil)}, nil, nil)
		then := builder{block: ifOp.AddRegion().AddBlock(), loc: ev.b.loc}
		ifOp.AddRegion()
		kname := "compress_k" + fmt.Sprint(len(ev.nest.ivs))
		ev.nest.ivs[kname] = k
		ev.nest.dynamic[kname] = true
		inner, bodies, err := fl.loopNestFrom(ev.nest, then, others, pt, 1)
		if err != nil {
			return nil, err
		}
		for _, l := range bodies[1:] {
			// Rows are filled in order: the loops are not parallel.
			l.block.ParentOp().Attrs = l.block.ParentOp().Attrs.Without(affine.ParallelAttr)
		}
		c := ev.child(bodies[len(bodies)-1])
		x, err := c.at(op.Operands[0], inner)
		if err != nil {
			return nil, err
		}
		out := inner.with(dim, sizeexpr.Dim(kname, 1))
		subs, err := subscripts(t, out)
		if err != nil {
			return nil, ir.Errorf(op.Loc, "%v", err)
		}
		for i, buf := range bufs {
			c.storeAt(x.parts[i], buf, subs)
		}
		closeNest(bodies)
		then.op(scf.Yield, nil, nil, nil)
		return ev.b.value(arith.AddI, []*ir.Value{k, ev.b.value(arith.Select, []*ir.Value{m, fl.indexConst(1), fl.indexConst(0)}, ir.Index, nil)}, ir.Index, nil), nil
	})
	if err != nil {
		return err
	}
	fl.buffers[v] = bufs
	return nil
}

// checkDataResults checks, once the extents computed from data are known,
// the sizes of the result descriptors that depend on them (the caller
// allocates the results: f_result_shape_data gives their sizes).
func (fl *funcLowering) checkDataResults(ft ir.FunctionType, args []*ir.Value) {
	data := tir.DataSymbols(fl.src)
	if len(data) == 0 {
		return
	}
	names := fl.argNames(ft)
	ev := fl.newEvaluator(newNest(fl), fl.entry)
	j := 0
	for _, t := range ft.Inputs {
		tt, _ := tir.AsTensor(t)
		j += len(tt.Dims)
	}
	for i, t := range ft.Results {
		tt, _ := tir.AsTensor(t)
		for k, d := range tt.Dims {
			if !tir.MentionsData(d.Lo, data) && !tir.MentionsData(d.Hi, data) {
				j++
				continue
			}
			arg := len(ft.Inputs) + i
			size := fl.entry.value(memref.Dim, []*ir.Value{args[arg], fl.indexConst(int64(k))}, ir.Index, nil)
			want := ev.index(sizeexpr.Max(d.Extent(), sizeexpr.Const(0)))
			ok := cmpi(fl.entry, cmpiEQ, size, want)
			what := fmt.Sprintf("argument '%s' dimension %s: expected extent %s (computed from the inputs: %s gives it)", names[arg], d.Name, d.Extent(), ir.SymbolName(fl.src)+ShapeFuncSuffix)
			a := cf.NewAssert(fl.src.Loc, ok, what)
			a.Attrs = a.Attrs.With(abi.AttrAssertFormat, ir.StringAttr(strings.ReplaceAll(what, "%", "%%")+", got %lld")).
				With(abi.AttrAssertValues, abi.AssertValuesAttr([]sizeexpr.Expr{ir.MapDim(j)}))
			fl.entry.block.Append(a)
			j++
		}
	}
}

// NeedsShapeFunc reports whether a tir.func gets a shape function: some
// result extent depends on data.
func NeedsShapeFunc(src *ir.Operation) bool {
	data := tir.DataSymbols(src)
	if len(data) == 0 {
		return false
	}
	ft, _ := tir.FuncType(src)
	for _, r := range ft.Results {
		if tir.TypeMentionsData(r, data) {
			return true
		}
	}
	return false
}

// lowerShapeFunc builds f_result_shape_data for a tir.func: a func.func
// (ShapeFuncAttr) with f's inputs, one memref<K x i64> result (the K
// extents of f's results, result by result) and f's size parameters. It
// makes f's checks on its inputs, computes the extents that come from data
// (filling only the compress results that later extents read) and writes
// every result extent.
func lowerShapeFunc(src *ir.Operation) (*ir.Operation, error) {
	ft, _ := tir.FuncType(src)
	entryBlock := src.Regions[0].Entry()
	syms := tir.Symbols(src)
	total := 0
	for _, r := range ft.Results {
		t, _ := tir.AsTensor(r)
		total += len(t.Dims)
	}
	sizesT := tir.TensorType{Elem: ir.I64, Dims: []tir.Dim{{Name: "k", Interval: sizeexpr.Span(sizeexpr.Const(0), sizeexpr.Const(int64(total)))}}}
	sig := newSigBuilder(src, syms)
	for i, t := range ft.Inputs {
		name := entryBlock.Args[i].NameHint
		if name == "" {
			name = fmt.Sprintf("arg%d", i)
		}
		if err := sig.addTensor(t, name); err != nil {
			return nil, err
		}
	}
	if err := sig.addTensor(sizesT, "sizes"); err != nil {
		return nil, err
	}
	sig.addSyms()
	name := ir.SymbolName(src)
	f := ir.NewOpOf(fn.Func, src.Loc, nil, nil, sig.attrs(name+ShapeFuncSuffix, 1).With(ShapeFuncAttr, ir.StringAttr(name)))
	entry := f.AddRegion().AddBlock()
	fl := newFuncLowering(src, entry)
	for i, t := range sig.ins {
		a := entry.AddArg(t, string(sig.names[i].(ir.StringAttr)))
		if i < len(ft.Inputs) {
			fl.buffers[entryBlock.Args[i]] = []*ir.Value{a}
		}
	}
	sizes := entry.Args[len(ft.Inputs)]
	for i, s := range syms {
		fl.syms[s.Name] = entry.Args[len(ft.Inputs)+1+i]
	}
	if err := fl.bindUnknown(ir.FunctionType{Inputs: ft.Inputs}, entry.Args); err != nil {
		return nil, err
	}
	entryChecks, dataChecks := tir.SplitDataChecks(src, tir.RuntimeChecks(src, nil))
	fl.emitChecks(entryChecks)
	fl.needs = tir.NewNeeds()
	if ops := entry.Ops; len(ops) > 0 {
		fl.hoistAfter = ops[len(ops)-1]
	}
	// A compress result is filled only when a later extent reads it.
	read := readByDataExtents(src)
	if err := fl.dataPhase(func(op *ir.Operation) bool { return read[op] }); err != nil {
		return nil, err
	}
	fl.emitChecks(dataChecks)
	ev := fl.newEvaluator(newNest(fl), fl.entry)
	k := int64(0)
	for _, r := range ft.Results {
		t, _ := tir.AsTensor(r)
		for _, d := range t.Dims {
			n := ev.index(sizeexpr.Max(d.Extent(), sizeexpr.Const(0)))
			x := fl.entry.value(arith.IndexCast, []*ir.Value{n}, ir.I64, nil)
			ev.storeAt(x, sizes, []sizeexpr.Expr{sizeexpr.Const(k)})
			k++
		}
	}
	for _, a := range fl.allocs {
		fl.entry.op(memref.Dealloc, []*ir.Value{a}, nil, nil)
	}
	fl.entry.op(fn.Return, nil, nil, nil)
	return f, nil
}

// readByDataExtents marks the tir.compress ops whose results the
// computation of a later extent reads: they are filled as soon as their
// extent is known, the others after the checks.
func readByDataExtents(src *ir.Operation) map[*ir.Operation]bool {
	body := src.Regions[0].Entry()
	read := map[*ir.Operation]bool{}
	for _, x := range tir.DataExtents(src) {
		x.Op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				markCone(v, body, read, map[*ir.Operation]bool{})
			}
			return true
		})
	}
	return read
}

// fillRest fills the compress results dataPhase left (those not in
// filled), in program order.
func (fl *funcLowering) fillRest(filled map[*ir.Operation]bool) error {
	for _, x := range tir.DataExtents(fl.src) {
		if !x.Op.Is(tir.Compress) || filled[x.Op] {
			continue
		}
		if err := fl.compressFill(x.Op); err != nil {
			return err
		}
	}
	if ops := fl.entry.block.Ops; len(ops) > 0 {
		fl.hoistAfter = ops[len(ops)-1]
	}
	return nil
}

// markCone marks the data-dependent ops whose results v is computed from.
func markCone(v *ir.Value, body *ir.Block, marks, seen map[*ir.Operation]bool) {
	d := v.DefiningOp()
	if d == nil || d.ParentBlock() != body || seen[d] {
		return
	}
	seen[d] = true
	if tir.IsDataExtentOp(d) {
		marks[d] = true
	}
	d.Walk(func(o *ir.Operation) bool {
		for _, w := range o.Operands {
			markCone(w, body, marks, seen)
		}
		return true
	})
}
