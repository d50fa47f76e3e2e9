// Package tiraffine lowers the tir dialect to affine loops over memrefs
// (convert-tir-to-affine). Each tir.func becomes a func.func in
// destination-passing style: inputs, then one memref per result, then one
// index argument per size symbol. Every result is computed by one loop nest
// over its output domain in storage order; every other value is fused into
// its consumers by evaluating its expression tree at the point being
// computed (a shift adds an offset to the point, a constant is hoisted).
package tiraffine

import (
	"fmt"
	"strings"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
	"tir/lower/abi"
)

// Options select between lowerings that suit different targets.
type Options struct {
	// ScanColumns lets a scan read only by later scans of its column keep
	// its result in a column-sized buffer (scan.go). The loops inside the
	// outermost one of such a group are then not parallel, which GPU
	// targets, mapping every parallel loop to threads, must avoid.
	ScanColumns bool
	// ScanLanes > 1 computes the scans of a nest with one or more outer
	// dimensions for that many neighbouring columns in one loop
	// (interleavedScans).
	ScanLanes int
	// ScanRows sweeps the scans of a nest whose innermost other dimension
	// is stored after the scanned one in rows over it (slab.go).
	ScanRows bool
	// SplitPieces splits the loops of a nest whose points pick among the
	// pieces of a concat (a cotangent padded with zeros) at the pieces'
	// bounds, so that the inner range picks without a test (split.go).
	SplitPieces bool
	// AtomicScatters computes scatter-adds (scatter.go) with a parallel
	// sweep over the table's entries whose updates are atomic adds
	// (memref.atomic_rmw), for GPU targets, instead of one sequential
	// sweep; the order of each point's terms is then not fixed.
	AtomicScatters bool
	// SweepRiders computes the results over a scatter-add's table in its
	// sequential sweep when they need nothing else still to compute
	// (sweepRiders), instead of a parallel nest of their own: what both
	// read is read once. Off under --threads.
	SweepRiders bool
}

// DefaultOptions are the options for CPU targets.
var DefaultOptions = Options{ScanColumns: true, ScanLanes: 1}

// Convert replaces every tir.func of the module by its lowered func.func,
// with the default options.
func Convert(m *ir.Module) error { return ConvertWith(m, DefaultOptions) }

// ConvertWith replaces every tir.func of the module by its lowered
// func.func.
func ConvertWith(m *ir.Module, opts Options) error {
	body := m.Body()
	for _, op := range append([]*ir.Operation(nil), body.Ops...) {
		if !op.Is(tir.Func) {
			continue
		}
		fn, err := lowerFunc(op, opts)
		if err != nil {
			return err
		}
		var shape *ir.Operation
		if NeedsShapeFunc(op) {
			// f_result_shape_data (dataextent.go), right after f.
			if shape, err = lowerShapeFunc(op); err != nil {
				return err
			}
		}
		at := body.IndexOf(op)
		body.Remove(op)
		body.InsertAt(at, fn)
		if shape != nil {
			body.InsertAt(at+1, shape)
		}
	}
	return nil
}

// funcLowering is the per-function state.
type funcLowering struct {
	src *ir.Operation
	// top is the function's entry block, where constants and hoisted
	// expressions go; entry is where the next nest goes: top, or an arm
	// of the versions' scf.if (version.go).
	top   *ir.Block
	entry builder
	// recomputed holds the materialized ops the version being lowered
	// fuses into their readers instead (version.go).
	recomputed map[*ir.Operation]bool
	// buffers holds every value that lives in memory (arguments,
	// materialized scans): one memref per leaf of its element type.
	buffers map[*ir.Value][]*ir.Value
	// masks holds, for a materialized value that may be masked, the i1
	// buffer of its mask (true where an element is masked): masks survive
	// temporaries.
	masks map[*ir.Value]*ir.Value
	// storage holds, for a value whose buffer covers less than its type,
	// the type of what the buffer holds: the points its readers need
	// (needs), or one column of a scan in a column group (the scanned
	// dimension only, read at the outer point of the nest that computes
	// its readers).
	storage map[*ir.Value]tir.TensorType
	// intoOrder holds, for a scan computed straight into result buffers,
	// the type of those results (dimension order included).
	intoOrder map[*ir.Operation]tir.TensorType
	// leafStorage overrides storage for single components of a scan's
	// state (a slab for a component computed into no result, slab.go).
	leafStorage map[*ir.Value]map[int]tir.TensorType
	// dimRank and defOrder are the function's orders of dimensions and
	// of definitions (order.go), made when first needed.
	dimRank  map[string]int
	defOrder map[*ir.Value]int
	// needs are the points of each value the outputs need.
	needs *tir.Needs
	// uses are the uses of the source function's values; maskMemo
	// remembers tir.MayBeMasked's answers.
	uses     ir.UseLists
	maskMemo map[*ir.Value]bool
	// padded marks the temporaries allocated with at least one element
	// (allocIn).
	padded map[*ir.Value]bool
	syms   map[string]*ir.Value // size symbol name -> index argument
	consts map[string]*ir.Value // hoisted constants by printed value and type
	allocs []*ir.Value          // temporaries to free before returning
	// hoisted holds the symbols-only expressions computed at entry so
	// that subscripts stay affine (hoist.go), by printed expression;
	// hoistAfter is the entry op they follow (nil: the leading constants).
	hoisted    map[string]hoisted
	hoistAfter *ir.Operation
	// iotas holds the start and step of each tir.iota, computed at entry
	// with its extent (dataextent.go).
	iotas map[*ir.Operation]iotaParts
	// scanLanes, scanRows, splitPieces and atomicScatters are
	// Options.ScanLanes, ScanRows, SplitPieces and AtomicScatters.
	scanLanes      int
	scanRows       bool
	splitPieces    bool
	atomicScatters bool
	sweepRidersOn  bool
	// results are the function's results still to compute, and rode
	// marks (by buffer) those computed in a temporary's nest (riders.go).
	results []rider
	rode    map[*ir.Value]bool
	// sweeps are the scatter-adds whose sweeps compute results
	// (sweepRiders).
	sweeps []tir.ScatterAdd
	// held are the temporaries that could live in a result's buffer
	// (inplace.go).
	held []heldTemporary
}

// MemRefType is the buffer type of a tensor type: the domain's extents,
// '?' where symbolic.
func MemRefType(t tir.TensorType) ir.MemRefType {
	shape := make([]int64, len(t.Dims))
	for i, d := range t.Dims {
		if c, ok := d.Extent().Const(); ok {
			shape[i] = c
		} else {
			shape[i] = ir.Dynamic
		}
	}
	return ir.MemRefType{Shape: shape, Elem: t.Elem}
}

func lowerFunc(src *ir.Operation, opts Options) (*ir.Operation, error) {
	ft, ok := tir.FuncType(src)
	if !ok {
		return nil, ir.Errorf(src.Loc, "tir.func without a signature")
	}
	if err := checkBodyReads(src); err != nil {
		return nil, err
	}
	entryBlock := src.Regions[0].Entry()
	syms := tir.Symbols(src)
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
	for i, t := range ft.Results {
		name := "result"
		if len(ft.Results) > 1 {
			name = fmt.Sprintf("result%d", i)
		}
		if err := sig.addTensor(t, name); err != nil {
			return nil, err
		}
	}
	sig.addSyms()
	f := ir.NewOpOf(fn.Func, src.Loc, nil, nil, sig.attrs(ir.SymbolName(src), len(ft.Results)))
	entry := f.AddRegion().AddBlock()
	fl := newFuncLowering(src, entry)
	fl.scanLanes, fl.scanRows, fl.splitPieces, fl.atomicScatters = opts.ScanLanes, opts.ScanRows, opts.SplitPieces, opts.AtomicScatters
	fl.sweepRidersOn = opts.SweepRiders && !opts.AtomicScatters
	for i, t := range sig.ins {
		hint := string(sig.names[i].(ir.StringAttr))
		a := entry.AddArg(t, hint)
		if i < len(ft.Inputs) {
			fl.buffers[entryBlock.Args[i]] = []*ir.Value{a}
		}
	}
	for i, s := range syms {
		fl.syms[s.Name] = entry.Args[len(ft.Inputs)+len(ft.Results)+i]
	}
	ret := entryBlock.Terminator()
	if ret == nil || !ret.Is(tir.Return) {
		return nil, ir.Errorf(src.Loc, "tir.func must end with tir.return")
	}
	if err := fl.bindUnknown(ft, entry.Args); err != nil {
		return nil, err
	}
	entryChecks, dataChecks := tir.SplitDataChecks(src, tir.RuntimeChecks(src, nil))
	fl.emitChecks(entryChecks)
	fl.needs = tir.NewNeeds()
	for i, v := range ret.Operands {
		outT, _ := tir.AsTensor(ft.Results[i])
		fl.needs.Need(v, tir.FullNeed(outT, ""))
	}
	fl.needs.Block(entryBlock)
	if ops := entry.Ops; len(ops) > 0 {
		fl.hoistAfter = ops[len(ops)-1]
	}
	// Extents computed from data, then what needs them checked, then the
	// compressions no extent reads (dataextent.go): a failed check
	// leaves as little allocated as it can.
	early := readByDataExtents(src)
	if err := fl.dataPhase(func(op *ir.Operation) bool { return early[op] }); err != nil {
		return nil, err
	}
	fl.emitChecks(dataChecks)
	fl.checkDataResults(ft, entry.Args)
	if err := fl.fillRest(early); err != nil {
		return nil, err
	}
	// Scans are computed first, into temporaries — or straight into the
	// result buffer when the scan is returned as is, or into one result
	// buffer per component when every reader of a tuple state is a
	// tir.tuple_get returned as is (leafResults).
	direct := map[int]bool{}
	into := map[*ir.Operation][]*ir.Value{}
	sweeps := scanGroups(fl.uses, entryBlock, opts.ScanColumns, func(pos int, v *ir.Value) bool {
		return ir.TypeEqual(v.Type, ft.Results[pos]) && !tir.MayBeMaskedMemo(v, fl.maskMemo)
	})
	for _, g := range sweeps {
		// Results computed in a group's nest from its columns.
		for i := range g.outputs {
			o := &g.outputs[i]
			o.out = entry.Args[len(ft.Inputs)+o.pos]
			direct[o.pos] = true
		}
	}
	for _, g := range sweeps {
		for _, op := range g.scans {
			// A scan that may be masked goes through materialize,
			// which writes 0 at its masked points.
			if g.column[op] || tir.MayBeMaskedMemo(op.Operands[0], fl.maskMemo) {
				continue
			}
			for i, v := range ret.Operands {
				if v == op.Results[0] && sameUpToOrder(v.Type, ft.Results[i]) && !direct[i] && into[op] == nil {
					into[op] = []*ir.Value{entry.Args[len(ft.Inputs)+i]}
					fl.intoOrder[op], _ = tir.AsTensor(ft.Results[i])
					direct[i] = true
				}
			}
			if into[op] == nil && !levelStep(op) {
				if bufs := fl.leafResults(op, ret, ft, direct, entry.Args[len(ft.Inputs):]); bufs != nil {
					into[op] = bufs
				}
			}
		}
	}
	for _, g := range sweeps {
		if err := fl.materializeScans(g, into); err != nil {
			return nil, err
		}
	}
	// The other results, one nest per distinct domain.
	var domains []tir.TensorType
	groups := map[string][]output{}
	for i, v := range ret.Operands {
		if direct[i] {
			continue
		}
		outT, _ := tir.AsTensor(ft.Results[i])
		key := domainKey(outT)
		if _, seen := groups[key]; !seen {
			domains = append(domains, outT)
		}
		groups[key] = append(groups[key], output{v: v, out: entry.Args[len(ft.Inputs)+i]})
	}
	compute := func() error {
		fl.results = nil
		for _, d := range domains {
			for _, o := range groups[domainKey(d)] {
				fl.results = append(fl.results, rider{output: o, t: d})
			}
		}
		fl.rode = map[*ir.Value]bool{}
		if err := fl.materializeTemporaries(entryBlock); err != nil {
			return err
		}
		for _, d := range domains {
			var outs []output
			for _, o := range groups[domainKey(d)] {
				if !fl.rode[o.out] {
					outs = append(outs, o)
				}
			}
			if len(outs) == 0 {
				continue
			}
			if err := fl.materialize(outs, d, ret.Loc); err != nil {
				return err
			}
		}
		return nil
	}
	if err := fl.inVersions(entryBlock, compute); err != nil {
		return nil, err
	}
	for _, a := range fl.allocs {
		fl.entry.op(memref.Dealloc, []*ir.Value{a}, nil, nil)
	}
	fl.entry.op(fn.Return, nil, nil, nil)
	removeDeadCode(f)
	if fl.keepInResults(f, entry.Args[len(ft.Inputs):len(ft.Inputs)+len(ft.Results)], ft.Results) {
		removeDeadCode(f)
	}
	return f, nil
}

// leafResults returns, for a scan with a tuple state whose result is read
// only by tir.tuple_get ops of leaves (components that are not tuples)
// that the function returns as they are, once each, one buffer per leaf:
// the result buffer it is returned in, or nil for a leaf nothing reads,
// which is not stored at all (an adjoint scan carries its state's
// cotangent beside the inputs' and returns only the latter). It marks
// those results direct; nil when the scan does not qualify.
func (fl *funcLowering) leafResults(op *ir.Operation, ret *ir.Operation, ft ir.FunctionType, direct map[int]bool, outs []*ir.Value) []*ir.Value {
	rt, _ := tir.AsTensor(op.Results[0].Type)
	tt, ok := rt.Elem.(ir.TupleType)
	if !ok {
		return nil
	}
	first := make([]int, len(tt.Elems))
	n := 0
	for i, e := range tt.Elems {
		first[i] = n
		n += len(leaves(e))
	}
	bufs := make([]*ir.Value, n)
	at := map[int]int{}
	for _, u := range fl.uses.Users(op.Results[0]) {
		if !u.Is(tir.TupleGet) || u.ParentBlock() != ret.ParentBlock() {
			return nil
		}
		idx := tir.TupleIndex(u)
		if idx < 0 || idx >= len(tt.Elems) || len(leaves(tt.Elems[idx])) != 1 {
			return nil
		}
		users := fl.uses.Users(u.Results[0])
		if len(users) != 1 || users[0] != ret {
			return nil
		}
		pos := -1
		for i, v := range ret.Operands {
			if v != u.Results[0] {
				continue
			}
			if pos >= 0 {
				return nil
			}
			pos = i
		}
		if pos < 0 || direct[pos] || !sameUpToOrder(u.Results[0].Type, ft.Results[pos]) || bufs[first[idx]] != nil {
			return nil
		}
		// The leaves are stored at the same subscripts: in the order of
		// their results, which must agree.
		rt, _ := tir.AsTensor(ft.Results[pos])
		if len(at) == 0 {
			fl.intoOrder[op] = rt
		} else if !ir.TypeEqual(rt.WithElem(ir.I64), fl.intoOrder[op].WithElem(ir.I64)) {
			delete(fl.intoOrder, op)
			return nil
		}
		bufs[first[idx]] = outs[pos]
		at[pos] = first[idx]
	}
	if len(at) == 0 {
		return nil
	}
	for pos := range at {
		direct[pos] = true
	}
	return bufs
}

// sigBuilder collects the arguments of a lowered func.func and the ABI
// attributes that describe them (package abi).
type sigBuilder struct {
	src                      *ir.Operation
	syms                     []sizeexpr.Var
	ins                      []ir.Type
	names, dimNames, extents ir.ArrayAttr
}

func newSigBuilder(src *ir.Operation, syms []sizeexpr.Var) *sigBuilder {
	return &sigBuilder{src: src, syms: syms}
}

// symMap writes extents as an affine map over the size symbols.
func (s *sigBuilder) symMap(e []sizeexpr.Expr) ir.AffineMap {
	m := ir.AffineMap{NumSyms: len(s.syms)}
	for _, x := range e {
		m.Results = append(m.Results, x.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			for i, sym := range s.syms {
				if sym.Name == v.Name {
					return ir.MapSym(i), true
				}
			}
			return sizeexpr.Expr{}, false
		}))
	}
	return m
}

// addTensor adds a memref argument for a tensor type.
func (s *sigBuilder) addTensor(t ir.Type, name string) error {
	tt, ok := tir.AsTensor(t)
	if !ok {
		return ir.Errorf(s.src.Loc, "argument %s is not a tensor", name)
	}
	s.ins = append(s.ins, MemRefType(tt))
	s.names = append(s.names, ir.StringAttr(name))
	var dn ir.ArrayAttr
	var ext []sizeexpr.Expr
	for _, d := range tt.Dims {
		dn = append(dn, ir.StringAttr(d.Name))
		ext = append(ext, d.Extent())
	}
	if dn == nil {
		dn = ir.ArrayAttr{}
	}
	s.dimNames = append(s.dimNames, dn)
	if usesUnknownExtent(tt) {
		// Checked in the body against the descriptors (bindUnknown,
		// checkDataResults).
		s.extents = append(s.extents, ir.UnitAttr{})
	} else {
		s.extents = append(s.extents, abi.ExtentsAttr(s.symMap(ext)))
	}
	return nil
}

// addSyms adds one index argument per size symbol.
func (s *sigBuilder) addSyms() {
	for _, sym := range s.syms {
		s.ins = append(s.ins, ir.Index)
		s.names = append(s.names, ir.StringAttr(sym.Name))
		s.dimNames = append(s.dimNames, ir.ArrayAttr{})
		s.extents = append(s.extents, ir.AffineMapAttr{Map: ir.AffineMap{NumSyms: len(s.syms)}})
	}
}

// attrs are the func.func's attributes: its name, type and ABI.
func (s *sigBuilder) attrs(name string, results int) ir.DictAttr {
	return ir.DictAttr{}.
		With(ir.AttrSymName, ir.StringAttr(name)).
		With(fn.AttrFunctionType, ir.TypeAttr{Type: ir.FunctionType{Inputs: s.ins}}).
		With(abi.AttrArgNames, s.names).
		With(abi.AttrDimNames, s.dimNames).
		With(abi.AttrExtents, s.extents).
		With(abi.AttrNumResults, ir.IntegerAttr{Value: int64(results), Type: ir.I64})
}

func newFuncLowering(src *ir.Operation, entry *ir.Block) *funcLowering {
	return &funcLowering{src: src, top: entry, entry: builder{block: entry, loc: src.Loc}, buffers: map[*ir.Value][]*ir.Value{}, masks: map[*ir.Value]*ir.Value{},
		storage: map[*ir.Value]tir.TensorType{}, intoOrder: map[*ir.Operation]tir.TensorType{}, leafStorage: map[*ir.Value]map[int]tir.TensorType{}, uses: ir.UsesIn(src), maskMemo: map[*ir.Value]bool{}, padded: map[*ir.Value]bool{},
		syms: map[string]*ir.Value{}, consts: map[string]*ir.Value{}, hoisted: map[string]hoisted{}, iotas: map[*ir.Operation]iotaParts{}}
}

// point maps each dimension name to its index expression: loop variables
// (sizeexpr Dim vars named after the loop) and size symbols.
type point map[string]sizeexpr.Expr

// nest is the loop nest being filled: it knows the induction variables.
type nest struct {
	ivs map[string]*ir.Value // loop variable name -> induction variable
	// dynamic marks coordinates read from data (gather): they are not
	// affine dims, so subscripts using them are computed with arith.
	dynamic map[string]bool
	// ranges holds each loop variable's interval, by name; cuts, when not
	// nil, collects the tests of concat pieces the ranges left undecided
	// (split.go).
	ranges map[string]sizeexpr.Interval
	cuts   map[string][]sizeexpr.Expr
	fl     *funcLowering
}

func newNest(fl *funcLowering) *nest {
	return &nest{ivs: map[string]*ir.Value{}, dynamic: map[string]bool{}, ranges: map[string]sizeexpr.Interval{}, fl: fl}
}

func (n *nest) lookup(v sizeexpr.Var) *ir.Value {
	if v.Kind == sizeexpr.DimVar {
		return n.ivs[v.Name]
	}
	if h, ok := n.fl.hoisted[v.Name]; ok {
		return h.val
	}
	return n.fl.syms[v.Name]
}

// output is one value to compute: the value, its buffer, and the buffer
// of its mask when it may be masked (nil otherwise).
type output struct {
	v    *ir.Value
	out  *ir.Value
	mask *ir.Value
	// dom, when not nil, is the output's domain inside the nest's larger
	// one: a result computed in a temporary's nest (riders.go) is stored
	// only at the points of its own domain.
	dom *tir.TensorType
}

// materialize computes values on the domain of outT into their memrefs:
// one loop nest in storage order, the last dimension innermost. Results
// with the same domain share the nest, so what they have in common is
// computed once per point.
func (fl *funcLowering) materialize(outs []output, outT tir.TensorType, loc ir.Location) error {
	n := newNest(fl)
	b := fl.entry
	b.loc = loc
	if fl.splitPieces && len(outT.Dims) > 0 {
		n.cuts = map[string][]sizeexpr.Expr{}
	}
	pt, bodies, err := fl.loopNest(n, b, outT.Dims)
	if err != nil {
		return err
	}
	if err := fl.computeAt(outs, outT, n, bodies[len(bodies)-1], pt, loc); err != nil {
		return err
	}
	closeNest(bodies)
	if len(n.cuts) == 0 {
		return nil
	}
	// Some points of the nest pick among concat pieces: again, with
	// the loops split so that the inner range picks statically.
	loop := bodies[1].block.ParentOp()
	b.block.Remove(loop)
	return fl.splitNest(outs, outT, newNest(fl), b, n.cuts, point{}, 0, 1, loc)
}

// computeAt computes the outputs at pt, the point of the innermost body of
// a nest over outT's domain, and stores them.
func (fl *funcLowering) computeAt(outs []output, outT tir.TensorType, n *nest, inner builder, pt point, loc ir.Location) error {
	top := fl.newEvaluator(n, inner)
	var vs []*ir.Value
	for _, o := range outs {
		if o.dom == nil {
			vs = append(vs, o.v)
		}
	}
	if err := top.fuseSiblingReductions(vs, pt); err != nil {
		return err
	}
	for _, o := range outs {
		ev, subs, done := top, outT, func() {}
		if o.dom != nil {
			var inside bool
			if ev, inside, done = top.within(*o.dom, pt); !inside {
				continue
			}
			subs = *o.dom
			// A rider's reductions are siblings too (an adjoint's
			// cotangent of a divisor reads every reduced quotient).
			if err := ev.fuseSiblingReductions([]*ir.Value{o.v}, pt); err != nil {
				return err
			}
		}
		if err := ev.store(o, subs, pt, loc); err != nil {
			return err
		}
		done()
	}
	return nil
}

// store computes o's value at pt and stores it (and its mask) at pt in
// o's buffers, which hold t.
func (ev *evaluator) store(o output, t tir.TensorType, pt point, loc ir.Location) error {
	subs, _ := subscripts(t, pt)
	val, err := ev.at(o.v, pt)
	if err != nil {
		return err
	}
	if len(val.parts) != 1 {
		return ir.Errorf(loc, "cannot store a tuple result")
	}
	x := val.parts[0]
	if want := o.out.Type.(ir.MemRefType).Elem; !ir.TypeEqual(x.Type, want) {
		return ir.Errorf(loc, "result element type %s does not match %s", x.Type, want)
	}
	if o.mask == nil && val.mask != nil {
		// A result has no mask buffer: a masked point is defined as 0
		// (docs/tir.md), not what the clamped read happened to find.
		// Only values with a gather in their history have a mask, so
		// the others are stored as they are.
		zero := ev.fl.constant(ir.IntegerAttr{Value: 0, Type: x.Type}, x.Type)
		x = ev.b.value(arith.Select, []*ir.Value{val.mask, zero, x}, x.Type, nil)
	}
	ev.storeAt(x, o.out, subs)
	if o.mask != nil {
		masked := val.mask
		if masked == nil {
			masked = ev.falseConst()
		}
		ev.storeAt(masked, o.mask, subs)
	}
	return nil
}

// loopNest opens one affine.for per dimension (storage order) and returns
// the point of the innermost body; bodies[0] is the builder the nest was
// started in, the last one the innermost body.
func (fl *funcLowering) loopNest(n *nest, b builder, dims []tir.Dim) (point, []builder, error) {
	return fl.loopNestFrom(n, b, dims, point{}, 0)
}

// loopNestFrom continues a nest whose first `depth` loops are open and
// define pt: it opens one loop per dimension of dims inside b.
func (fl *funcLowering) loopNestFrom(n *nest, b builder, dims []tir.Dim, pt point, depth int) (point, []builder, error) {
	pt = pt.with("", sizeexpr.Expr{})
	delete(pt, "")
	bodies := []builder{b}
	for i, d := range dims {
		body, err := fl.openLoop(n, b, d, d.Interval, pt, depth+i)
		if err != nil {
			return nil, nil, err
		}
		bodies = append(bodies, body)
		b = body
	}
	return pt, bodies, nil
}

// openLoop opens the loop of nest level k over dimension d, ranging over
// iv (d's interval, or part of it), and binds d in pt to its variable.
func (fl *funcLowering) openLoop(n *nest, b builder, d tir.Dim, iv sizeexpr.Interval, pt point, k int) (builder, error) {
	lb, lbOps, err := boundMap(iv.Lo, true, n)
	if err != nil {
		return builder{}, ir.Errorf(b.loc, "%v", err)
	}
	ub, ubOps, err := boundMap(iv.Hi, false, n)
	if err != nil {
		return builder{}, ir.Errorf(b.loc, "%v", err)
	}
	loop, body := b.affineFor(lb, lbOps, ub, ubOps)
	// Every point of a materialized value is computed independently.
	loop.SetAttr(affine.ParallelAttr, ir.UnitAttr{})
	name := ivName(k, d.Name)
	v := loop.Regions[0].Entry().Args[0]
	v.NameHint = ivHint(d.Name)
	n.ivs[name] = v
	n.ranges[name] = iv
	pt[d.Name] = sizeexpr.Dim(name, k)
	return body, nil
}

// closeNest terminates the loop bodies opened by loopNest.
func closeNest(bodies []builder) {
	for i := len(bodies) - 1; i >= 1; i-- {
		bodies[i].yield()
	}
}

func ivHint(dim string) string {
	if len(dim) == 1 && dim[0] >= 'A' && dim[0] <= 'Z' {
		return string(dim[0] + 'a' - 'A')
	}
	if len(dim) == 1 && dim[0] >= 'a' && dim[0] <= 'z' {
		return dim
	}
	return "iv_" + dim
}

// boundMap builds a loop bound map over size symbols; a lower bound may be
// a max and an upper bound a min of several expressions (one map result
// each, as affine.for takes them).
func boundMap(e sizeexpr.Expr, lower bool, n *nest) (ir.AffineMap, []*ir.Value, error) {
	parts := []sizeexpr.Expr{e}
	terms, c := e.Terms()
	if len(terms) == 1 && terms[0].Coef == 1 && c == 0 {
		a := terms[0].Atom
		if lower && a.Op() == sizeexpr.OpMax || !lower && a.Op() == sizeexpr.OpMin {
			parts = a.Args()
		}
	}
	for i, p := range parts {
		// A symbols-only min or max inside a bound (max(A, B) + 1) is
		// computed at entry.
		p = n.fl.affinize(p)
		parts[i] = p
		if !p.IsAffine() {
			which := "upper"
			if lower {
				which = "lower"
			}
			return ir.AffineMap{}, nil, fmt.Errorf("loop %s bound %s is not affine", which, e)
		}
	}
	m, ops := affineMap(parts, n.lookup)
	return m, ops, nil
}

// domainKey identifies a domain (dimensions in order with their intervals).
func domainKey(t tir.TensorType) string {
	var b strings.Builder
	for _, d := range t.Dims {
		b.WriteString(d.String())
		b.WriteString(" ")
	}
	return b.String()
}

// materializeTemporaries computes the marked values, in program order;
// consecutive marked values over the same domain share one loop nest.
func (fl *funcLowering) materializeTemporaries(body *ir.Block) error {
	fl.sweeps = nil
	if fl.sweepRidersOn {
		for _, op := range body.Ops {
			if sa, ok := fl.scatterAdd(op); ok {
				fl.sweeps = append(fl.sweeps, sa)
			}
		}
	}
	var group []output
	var dom tir.TensorType
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		if err := fl.materialize(append(group, fl.riders(group, dom)...), dom, group[0].v.DefiningOp().Loc); err != nil {
			return err
		}
		for _, o := range group {
			fl.buffers[o.v] = []*ir.Value{o.out}
			if o.mask != nil {
				fl.masks[o.v] = o.mask
			}
		}
		group = nil
		return nil
	}
	for _, op := range body.Ops {
		if sa, ok := fl.scatterAdd(op); ok {
			// Always computed into a temporary, by a sweep over the
			// table (scatter.go), whatever tir-temporaries chose.
			if _, read := fl.needs.Of(op.Results[0]); !read || fl.buffers[op.Results[0]] != nil {
				// Not read, or computed by an earlier one's sweep.
				continue
			}
			if err := flush(); err != nil {
				return err
			}
			if err := fl.materializeScatters(fl.scatterGroup(body, sa)); err != nil {
				return err
			}
			continue
		}
		if op.Attr(tir.MaterializeAttr) == nil || len(op.Results) != 1 || fl.recomputed[op] {
			continue
		}
		v := op.Results[0]
		t, _ := tir.AsTensor(v.Type)
		if _, tuple := t.Elem.(ir.TupleType); tuple {
			return ir.Errorf(op.Loc, "a tuple value cannot be materialized")
		}
		if _, read := fl.needs.Of(v); !read {
			// No reader needs a point of it (its only readers are dead or
			// read coordinates, as tir.pos does): computing it would
			// evaluate scans that are not computed either.
			continue
		}
		// Only the points the readers need are computed and stored, in
		// the function's order of dimensions (order.go).
		t = fl.storageOrder(fl.needed(v, t))
		fl.storage[v] = t
		if len(group) > 0 && domainKey(t) != domainKey(dom) {
			if err := flush(); err != nil {
				return err
			}
		}
		dom = t
		pad := tir.Gathered(fl.uses, v)
		if pad {
			fl.padded[v] = true
		}
		// The buffer takes the value's name, which is also what an
		// allocation failure's message calls the temporary (docs/abi.md).
		name := "tmp"
		if v.NameHint != "" {
			name = v.NameHint
		}
		buf := fl.allocIn(fl.entry, t, op.Loc, name, pad)
		fl.allocs = append(fl.allocs, buf)
		o := output{v: v, out: buf}
		if tir.MayBeMaskedMemo(v, fl.maskMemo) {
			o.mask = fl.allocIn(fl.entry, t.WithElem(ir.I1), op.Loc, name+"_mask", pad)
			fl.allocs = append(fl.allocs, o.mask)
		} else if !pad {
			fl.hold(buf, t)
		}
		group = append(group, o)
	}
	return flush()
}

// alloc allocates a temporary for a tensor type (freed before returning).
func (fl *funcLowering) alloc(t tir.TensorType, loc ir.Location, hint string) (*ir.Value, error) {
	a := fl.allocIn(fl.entry, t, loc, hint, false)
	fl.allocs = append(fl.allocs, a)
	return a, nil
}

// needed narrows t, the type of v, to the points of v its readers need:
// along each dimension whose reads are bounded statically, the hull of
// the reads (inside t's interval). A dimension read through a gather or
// a call keeps its whole interval.
func (fl *funcLowering) needed(v *ir.Value, t tir.TensorType) tir.TensorType {
	need, ok := fl.needs.Of(v)
	if !ok {
		return t
	}
	out := tir.TensorType{Elem: t.Elem}
	for _, d := range t.Dims {
		if r, ok := need[d.Name]; ok && r.Unbounded == "" {
			iv := r.Interval.Intersect(d.Interval)
			d.Interval = sizeexpr.Span(sizeexpr.Simplify(iv.Lo), sizeexpr.Simplify(iv.Hi))
		}
		out.Dims = append(out.Dims, d)
	}
	return out
}

// ownsNonEmpty reports whether v lives in a buffer this lowering
// allocated with at least one element in every dimension (allocIn), so
// that a read clamped to the lower corner stays inside it even when v is
// empty.
func (fl *funcLowering) ownsNonEmpty(v *ir.Value) bool {
	if !fl.padded[v] {
		return false
	}
	t, _ := tir.AsTensor(v.Type)
	for _, n := range MemRefType(t).Shape {
		if n == 0 {
			return false
		}
	}
	return true
}

// allocIn allocates a buffer for a tensor type in the block of b; the
// caller frees it. A padded buffer has at least one element in every
// dynamic dimension: a gather from a temporary that happens to be empty
// then reads (and masks) an element that exists, without a branch per
// read (ownsNonEmpty).
func (fl *funcLowering) allocIn(b builder, t tir.TensorType, loc ir.Location, hint string, pad bool) *ir.Value {
	mt := MemRefType(t)
	ev := fl.newEvaluator(newNest(fl), b)
	var dyn []*ir.Value
	for i, d := range t.Dims {
		if mt.Shape[i] == ir.Dynamic {
			size := d.Size()
			if pad {
				size = sizeexpr.Max(size, sizeexpr.Const(1))
			}
			dyn = append(dyn, ev.index(size))
		}
	}
	b.loc = loc
	a := b.value(memref.Alloc, dyn, mt, ir.DictAttr{}.With(ir.AttrOperandSegmentSizes, ir.SegmentSizes(len(dyn), 0)))
	a.NameHint = hint
	return a
}
