package tollvm

import (
	"fmt"
	"math"
	"strings"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/cf"
	"tir/dialects/fn"
	"tir/dialects/ir"
	memrefd "tir/dialects/memref"
	"tir/dialects/scf"
)

// All cores through GNU OpenMP's runtime (Options.Threads = "omp").
//
// The outermost parallel loop of a nest (an affine.for marked tir.parallel,
// or an affine.parallel without reductions, not inside another parallel
// loop) becomes two internal functions:
//
//	void @f.body.parK.loop(i64 lb, i64 ub, captured values...)
//	    the loop over [lb, ub) with the original body; captured buffer
//	    pointers are noalias parameters, as in @f.body;
//	void @f.body.parK(i8* ctx)
//	    what each thread of the team runs: it reads lb, the trip count and
//	    the captured values from the context struct ctx, takes its share
//	    of the iterations (a static schedule: contiguous blocks, the first
//	    trip % threads threads one iteration more, as OpenMP's
//	    schedule(static)) and calls the loop function on it.
//
// Where the loop was, the body computes the bounds and an estimate of the
// work, and calls GOMP_parallel(@f.body.parK, ctx, threads, 0), threads =
// min(omp_get_max_threads(), trip count, work / ParallelMinWork), or calls
// the loop function directly on the whole range when that is less than
// two: the loop has fewer than two iterations, one thread is available
// (OMP_NUM_THREADS=1) or the nest is estimated to execute fewer than
// ParallelMinWork operations per thread of a team of two. Each thread a
// fork wakes must have enough work to pay for its waking: a few
// microseconds when the threads sleep between forks (OMP_WAIT_POLICY=
// passive, which our tools set), since a thread that spins instead takes
// a core from the others on a machine whose cores are busy (tools/native,
// docs/decisions.md). GOMP_parallel is what gcc emits for `#pragma omp
// parallel`: the calling thread takes part and libgomp keeps its threads
// between calls.
//
// Captured values are what the loop uses from outside: scalars, the
// pieces of memref descriptors that are not constants, and constants
// directly. Temporaries (slots, buffers.go) are acquired before and given
// back after the nest, in the calling thread; buffers allocated inside the
// loop body are allocated by the thread that runs the iteration. A stack
// buffer (memref.alloca) defined outside the loop and written inside it is
// the vectorizer's broadcast scratch, written before it is read in every
// iteration: each thread gets its own. A loop holding a run-time check
// (cf.assert, which returns from the function) or freeing a buffer of the
// caller stays sequential.

// DefaultParallelMinWork is the default Options.ParallelMinWork, the
// least estimated work of each thread of a team: about 20 microseconds of
// vectorized stencil code (hdiff in f32 on AVX-512 executes about 12
// estimated operations per nanosecond), more of scalar code. A fork and
// join of sleeping threads took 5 to 7 microseconds on a 2-core machine
// busy with other programs, where the second thread rarely gains
// anything: with this minimum a forked nest took at most 6% longer than
// on one thread there (16% with half this minimum); where a core is free,
// the second thread takes half of the work off the first.
const DefaultParallelMinWork = 1 << 18

// ompFuncs are the libgomp functions the outlined loops call.
var ompFuncs = []string{"GOMP_parallel", "omp_get_max_threads", "omp_get_num_threads", "omp_get_thread_num"}

// UsesOpenMP reports whether LLVM IR emitted by Emit calls GNU OpenMP's
// runtime: its object must then be linked with libgomp (gcc -fopenmp, or
// -lgomp).
func UsesOpenMP(llvmIR string) bool {
	return strings.Contains(llvmIR, "declare void @GOMP_parallel(")
}

// ThreadModes are the values of Options.Threads (and of convert-to-llvm's
// threads option).
var ThreadModes = []string{"none", "omp"}

func (me *moduleEmitter) setThreads(opts Options) error {
	switch opts.Threads {
	case "", "none":
		return nil
	case "omp":
	default:
		return fmt.Errorf("tollvm: unknown threads mode %q (expected none or omp)", opts.Threads)
	}
	if me.tgt.Kernels {
		return fmt.Errorf("tollvm: threads=omp applies to CPU targets, not %s", me.tgt.Name)
	}
	me.omp = true
	me.minWork = opts.ParallelMinWork
	if me.minWork == 0 {
		me.minWork = DefaultParallelMinWork
	}
	return nil
}

// outlines reports whether op is an outermost parallel loop to run
// through libgomp.
func (fe *fnEmitter) outlines(op *ir.Operation) bool {
	if !fe.me.omp || fe.inParallel || fe.emulatedIDs != nil || len(op.Results) != 0 {
		return false
	}
	switch op.Def {
	case affine.For:
		return affine.IsParallel(op)
	case affine.Parallel:
		return true
	}
	return false
}

// captured is what an outlined loop uses from the enclosing function.
type captured struct {
	scalars []*ir.Value
	mems    []*ir.Value
	// private are the memref.alloca ops whose buffers the loop writes: each
	// thread allocates its own.
	private []*ir.Operation
	written map[*memref]bool
}

// capture collects the values op's body uses from outside, in the order
// they are met; ok is false when op cannot be outlined.
func (fe *fnEmitter) capture(op *ir.Operation) (c *captured, ok bool) {
	c = &captured{written: map[*memref]bool{}}
	var inner []*ir.Operation
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				o.Walk(func(x *ir.Operation) bool {
					inner = append(inner, x)
					return true
				})
			}
		}
	}
	writtenVals := map[*ir.Value]bool{}
	for _, o := range inner {
		switch o.Def {
		case cf.Assert, fn.Return:
			return nil, false
		case memrefd.Store, memrefd.AtomicRMW, affine.Store, affine.VectorStore:
			if len(o.Operands) > 1 {
				writtenVals[o.Operands[1]] = true
			}
		case memrefd.Dealloc:
			if len(o.Operands) == 1 && fe.mems[o.Operands[0]] != nil {
				return nil, false
			}
		}
	}
	uses := make([][]*ir.Value, 0, len(inner)+1)
	if op.Is(affine.Parallel) {
		// The loop function evaluates the bounds of the other dimensions.
		uses = append(uses, op.Operands)
	}
	for _, o := range inner {
		uses = append(uses, o.Operands)
	}
	seen := map[*ir.Value]bool{}
	for _, vs := range uses {
		for _, v := range vs {
			if seen[v] {
				continue
			}
			seen[v] = true
			if _, ok := fe.vals[v]; ok {
				c.scalars = append(c.scalars, v)
				continue
			}
			mr, ok := fe.mems[v]
			if !ok {
				continue // defined inside the loop
			}
			if d := v.DefiningOp(); d != nil && d.Is(memrefd.Alloca) && writtenVals[v] {
				c.private = append(c.private, d)
				continue
			}
			c.mems = append(c.mems, v)
			if writtenVals[v] {
				c.written[mr] = true
			}
		}
	}
	return c, true
}

// loopParams are the parameters of an outlined loop function: the range,
// then every captured LLVM value that is not a constant, once.
type loopParams struct {
	params []*ll.Param
	args   []value.Value // the values in the enclosing function
	index  map[value.Value]int
}

func (lp *loopParams) add(v value.Value, name string, ptr, readonly bool) {
	if _, isConst := v.(constant.Constant); isConst {
		return
	}
	if k, ok := lp.index[v]; ok {
		if !readonly {
			lp.params[k].Attrs = removeReadOnly(lp.params[k].Attrs)
		}
		return
	}
	p := ll.NewParam(name, v.Type())
	if ptr {
		p.Attrs = append(p.Attrs, enum.ParamAttrNoAlias)
		if readonly {
			p.Attrs = append(p.Attrs, enum.ParamAttrReadOnly)
		}
	}
	lp.index[v] = len(lp.params)
	lp.params = append(lp.params, p)
	lp.args = append(lp.args, v)
}

func removeReadOnly(as []ll.ParamAttribute) []ll.ParamAttribute {
	var out []ll.ParamAttribute
	for _, a := range as {
		if a != enum.ParamAttrReadOnly {
			out = append(out, a)
		}
	}
	return out
}

// mapped is the value of the loop function standing for v.
func (lp *loopParams) mapped(fn *ll.Func, v value.Value) value.Value {
	if k, ok := lp.index[v]; ok {
		return fn.Params[k]
	}
	return v
}

// emitOutlined lowers an outermost parallel loop through libgomp. It
// returns false, having emitted nothing, when the loop must stay
// sequential (see capture).
func (fe *fnEmitter) emitOutlined(op *ir.Operation) (bool, error) {
	c, ok := fe.capture(op)
	if !ok {
		return false, nil
	}
	// The range of the (first) parallel dimension, in the caller.
	var lb, ub value.Value
	var step int64
	var ivArg *ir.Value
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return true, err
	}
	var par *parallelOp
	switch op.Def {
	case affine.For:
		blk, err := singleBlock(op, 0)
		if err != nil || blk == nil || len(blk.Args) == 0 {
			return false, nil // emitAffineFor reports it
		}
		if lb, ub, step, err = fe.affineForRange(op, args); err != nil {
			return true, err
		}
		ivArg = blk.Args[0]
	case affine.Parallel:
		if par, err = readAffineParallel(op); err != nil {
			return true, err
		}
		lbs, ubs, err := par.bounds(fe, args)
		if err != nil {
			return true, wrapErr(op, err)
		}
		lb, ub = par.dimBounds(fe, lbs, ubs, 0)
		step = par.steps[0]
		ivArg = par.blk.Args[0]
	}
	me := fe.me
	// Fork when it pays: two iterations or more, and enough work for two
	// threads; the team has no more threads than iterations nor than
	// ParallelMinWork shares of the work. A nest known at compile time to
	// be too small is not outlined at all.
	trip := fe.tripCount(lb, ub, step)
	fork := fe.icmp(enum.IPredSGE, trip, i64(2))
	var shares value.Value // work / minWork; nil: not limited by the work
	if work := fe.workEstimate(op, ivArg, lb); work != nil && me.minWork > 0 {
		total := fe.mul(trip, work)
		fork = fe.and(fork, fe.icmp(enum.IPredSGE, total, i64(twice(me.minWork))))
		shares = fe.sdivConst(total, me.minWork)
	}
	if fork == constant.False {
		return false, nil
	}
	k := me.outlined
	me.outlined++
	name := fmt.Sprintf("%s.par%d", fe.fn.Name(), k)
	ivName := fe.ivName(ivArg)

	// The loop function.
	lp := &loopParams{index: map[value.Value]int{}}
	lp.params = []*ll.Param{ll.NewParam(ivName+".lb", types.I64), ll.NewParam(ivName+".ub", types.I64)}
	for _, v := range c.scalars {
		lp.add(fe.vals[v], scalarName(v, fe.vals[v]), false, false)
	}
	for _, v := range c.mems {
		mr := fe.mems[v]
		lp.add(mr.ptr, mr.name, true, !c.written[mr])
		lp.add(mr.offset, mr.name+".offset", false, false)
		for d := range mr.sizes {
			lp.add(mr.sizes[d], fmt.Sprintf("%s.size%d", mr.name, d), false, false)
			lp.add(mr.strides[d], fmt.Sprintf("%s.stride%d", mr.name, d), false, false)
		}
	}
	// A loop that allocates reports a failure through a status word of
	// the caller (allocfail.go).
	var status value.Value
	if allocates(op) {
		status = fe.setName(fe.prologue.NewAlloca(types.I32), name+".status")
		lp.add(status, "alloc.status", false, false)
	}
	loopFn := me.mod.NewFunc(name+".loop", types.Void, lp.params...)
	loopFn.Linkage = enum.LinkageInternal
	loopFn.FuncAttrs = append(loopFn.FuncAttrs, enum.FuncAttrNoUnwind)
	ce := newFnEmitter(me, loopFn)
	ce.inParallel = true
	if status != nil {
		ce.allocStatus = lp.mapped(loopFn, status)
	}
	ce.prologue = ce.place(ce.newBlock("entry"))
	start := ce.place(ce.newBlock("start"))
	ce.cur = start
	for _, v := range c.scalars {
		ce.vals[v] = lp.mapped(loopFn, fe.vals[v])
	}
	copies := map[*memref]*memref{}
	for _, v := range c.mems {
		mr := fe.mems[v]
		cp, ok := copies[mr]
		if !ok {
			cp = &memref{name: mr.name, typ: mr.typ, elem: mr.elem, ptr: lp.mapped(loopFn, mr.ptr), offset: lp.mapped(loopFn, mr.offset),
				sizes: make([]value.Value, len(mr.sizes)), strides: make([]value.Value, len(mr.strides))}
			for d := range mr.sizes {
				cp.sizes[d] = lp.mapped(loopFn, mr.sizes[d])
				cp.strides[d] = lp.mapped(loopFn, mr.strides[d])
			}
			copies[mr] = cp
		}
		ce.mems[v] = cp
	}
	for _, a := range c.private {
		if err := emitAlloca(ce, a); err != nil {
			return true, err
		}
	}
	rng := []value.Value{loopFn.Params[0], loopFn.Params[1]}
	if par != nil {
		err = ce.emitAffineParallelRange(op, rng)
	} else {
		err = ce.emitAffineForRange(op, rng[0], rng[1], step)
	}
	if err != nil {
		return true, err
	}
	ce.cur.NewRet(nil)
	ce.prologue.NewBr(start)

	// The thread function and the context it reads.
	fields := append([]types.Type{types.I64, types.I64}, paramTypes(lp.params[2:])...)
	ctxType := types.NewStruct(fields...)
	thread := me.emitThreadFunc(name, ctxType, loopFn, step)

	// The call site: fork when it pays and several threads are allowed
	// (OMP_NUM_THREADS, omp_set_num_threads).
	maxThreads := fe.cur.NewSExt(fe.cur.NewCall(me.declare("omp_get_max_threads", types.I32, false)), types.I64)
	fe.setName(maxThreads, "omp.max")
	fork = fe.and(fork, fe.icmp(enum.IPredSGE, maxThreads, i64(2)))
	fe.setName(fork, name+".fork")
	parB := fe.newBlock(name + ".threads")
	seqB := fe.newBlock(name + ".serial")
	join := fe.newBlock(name + ".done")
	if status != nil {
		fe.cur.NewStore(constant.NewInt(types.I32, 0), status)
	}
	fe.cur.NewCondBr(fork, parB, seqB)

	fe.cur = fe.place(parB)
	ctx := fe.prologue.NewAlloca(ctxType)
	fe.setName(ctx, name+".ctx")
	for i, v := range append([]value.Value{lb, trip}, lp.args...) {
		p := fe.cur.NewGetElementPtr(ctxType, ctx, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(i)))
		p.InBounds = true
		fe.cur.NewStore(v, p)
	}
	limit := fe.smin(maxThreads, trip)
	if shares != nil {
		limit = fe.smin(limit, shares)
	}
	team := fe.cur.NewTrunc(limit, types.I32)
	gomp := me.declare("GOMP_parallel", types.Void, false, types.NewPointer(thread.Sig), types.I8Ptr, types.I32, types.I32)
	fe.cur.NewCall(gomp, thread, fe.cur.NewBitCast(ctx, types.I8Ptr), team, constant.NewInt(types.I32, 0))
	fe.cur.NewBr(join)

	fe.cur = fe.place(seqB)
	fe.cur.NewCall(loopFn, append([]value.Value{lb, ub}, lp.args...)...)
	fe.cur.NewBr(join)
	fe.cur = fe.place(join)
	if status != nil {
		// The team has joined (or the loop ran here): a failure's message
		// is written; give back what the caller holds and return.
		code := fe.cur.NewLoad(types.I32, status)
		fail := fe.place(fe.newBlock(name + ".failed"))
		next := fe.place(fe.newBlock(name + ".ok"))
		br := fe.cur.NewCondBr(fe.cur.NewICmp(enum.IPredNE, code, constant.NewInt(types.I32, 0)), fail, next)
		br.Metadata = append(br.Metadata, me.rarelyTrue())
		fe.cur = fail
		fe.releaseLive()
		fe.cur.NewRet(code)
		fe.cur = next
	}
	return true, nil
}

// twice is 2*n, saturated at the largest int64.
func twice(n int64) int64 {
	if n > math.MaxInt64/2 {
		return math.MaxInt64
	}
	return 2 * n
}

// sdivConst divides a non-negative i64 value by a positive constant,
// folding a constant dividend (a division by 1 is the value).
func (fe *fnEmitter) sdivConst(a value.Value, d int64) value.Value {
	if c, ok := constInt(a); ok {
		return i64(c / d)
	}
	if d == 1 {
		return a
	}
	return fe.cur.NewSDiv(a, i64(d))
}

// allocates reports whether a memref.alloc is nested in op.
func allocates(op *ir.Operation) bool {
	found := false
	op.Walk(func(x *ir.Operation) bool {
		found = found || x.Is(memrefd.Alloc)
		return !found
	})
	return found
}

// scalarName names the parameter for a captured scalar: its IR name, or
// its name in the enclosing function (a parameter, %N), or v.
func scalarName(v *ir.Value, x value.Value) string {
	if h := valueHint(v); h != "" {
		return h
	}
	if n, ok := x.(value.Named); ok {
		if name := n.Name(); name != "" && (name[0] < '0' || name[0] > '9') {
			return name
		}
	}
	return "v"
}

func paramTypes(ps []*ll.Param) []types.Type {
	ts := make([]types.Type, len(ps))
	for i, p := range ps {
		ts[i] = p.Typ
	}
	return ts
}

// emitThreadFunc emits `void @name(i8* ctx)`, what every thread of the
// team runs: its share of [lb, lb + trip*step) by a static schedule, then
// the loop function on it.
func (me *moduleEmitter) emitThreadFunc(name string, ctxType *types.StructType, loopFn *ll.Func, step int64) *ll.Func {
	ctxParam := ll.NewParam("ctx", types.I8Ptr)
	fn := me.mod.NewFunc(name, types.Void, ctxParam)
	fn.Linkage = enum.LinkageInternal
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	te := newFnEmitter(me, fn)
	te.cur = te.place(te.newBlock("entry"))
	b := te.cur
	cp := b.NewBitCast(ctxParam, types.NewPointer(ctxType))
	vals := make([]value.Value, len(ctxType.Fields))
	for i, t := range ctxType.Fields {
		p := b.NewGetElementPtr(ctxType, cp, constant.NewInt(types.I32, 0), constant.NewInt(types.I32, int64(i)))
		p.InBounds = true
		vals[i] = b.NewLoad(t, p)
	}
	lb, trip := te.setName(vals[0], "lb"), te.setName(vals[1], "trip")
	tid := te.setName(b.NewSExt(b.NewCall(me.declare("omp_get_thread_num", types.I32, false)), types.I64), "tid")
	nt := te.setName(b.NewSExt(b.NewCall(me.declare("omp_get_num_threads", types.I32, false)), types.I64), "nthreads")
	q := te.setName(b.NewSDiv(trip, nt), "chunk")
	r := te.setName(b.NewSRem(trip, nt), "rest")
	first := te.add(te.mul(tid, q), te.smin(tid, r))
	count := te.add(q, b.NewZExt(b.NewICmp(enum.IPredSLT, tid, r), types.I64))
	lo := te.setName(te.add(lb, te.mul(first, i64(step))), "lo")
	hi := te.setName(te.add(lo, te.mul(count, i64(step))), "hi")
	b.NewCall(loopFn, append([]value.Value{lo, hi}, vals[2:]...)...)
	b.NewRet(nil)
	return fn
}

// icmp compares two i64 values, folding constants.
func (fe *fnEmitter) icmp(pred enum.IPred, a, b value.Value) value.Value {
	ca, oka := constInt(a)
	cb, okb := constInt(b)
	if oka && okb {
		var r bool
		switch pred {
		case enum.IPredSGE:
			r = ca >= cb
		case enum.IPredSLT:
			r = ca < cb
		default:
			panic("tollvm: icmp folds sge and slt only")
		}
		return constant.NewBool(r)
	}
	return fe.cur.NewICmp(pred, a, b)
}

// and is the conjunction of two i1 values, folding constants.
func (fe *fnEmitter) and(a, b value.Value) value.Value {
	switch {
	case a == constant.False || b == constant.False:
		return constant.False
	case a == constant.True:
		return b
	case b == constant.True:
		return a
	}
	return fe.cur.NewAnd(a, b)
}

// tripCount is the number of iterations of a loop from lb to ub by step.
func (fe *fnEmitter) tripCount(lb, ub value.Value, step int64) value.Value {
	return fe.ceilDivConst(fe.smax(fe.sub(ub, lb), i64(0)), step)
}

// affineForRange evaluates the bounds and step of an affine.for in the
// current block (args: the LLVM values of its operands).
func (fe *fnEmitter) affineForRange(op *ir.Operation, args []value.Value) (lb, ub value.Value, step int64, err error) {
	lbMap, err := mapAttr(op, "lower_bound")
	if err != nil {
		return nil, nil, 0, err
	}
	ubMap, err := mapAttr(op, "upper_bound")
	if err != nil {
		return nil, nil, 0, err
	}
	step = 1
	if a, ok := op.Attr(affine.AttrStep).(ir.IntegerAttr); ok {
		step = a.Value
	}
	if step <= 0 {
		return nil, nil, 0, ir.Errorf(op.Loc, "tollvm: affine.for step must be positive, got %d", step)
	}
	nlb, nub := lbMap.NumDims+lbMap.NumSyms, ubMap.NumDims+ubMap.NumSyms
	if len(args) < nlb+nub {
		return nil, nil, 0, ir.Errorf(op.Loc, "tollvm: affine.for has %d operands, which does not match its bound maps", len(args))
	}
	if lb, err = fe.boundsOf(lbMap, args[:nlb], true); err != nil {
		return nil, nil, 0, ir.Errorf(op.Loc, "tollvm: affine.for lower bound: %v", err)
	}
	if ub, err = fe.boundsOf(ubMap, args[nlb:nlb+nub], false); err != nil {
		return nil, nil, 0, ir.Errorf(op.Loc, "tollvm: affine.for upper bound: %v", err)
	}
	return lb, ub, step, nil
}

// emitAffineForRange emits an affine.for without results over [lb, ub).
func (fe *fnEmitter) emitAffineForRange(op *ir.Operation, lb, ub value.Value, step int64) error {
	blk, err := singleBlock(op, 0)
	if err != nil || blk == nil || len(blk.Args) == 0 {
		return ir.Errorf(op.Loc, "tollvm: affine.for needs a body with an induction variable")
	}
	freeHoisted, err := fe.hoistPrivateAllocs(blk)
	if err != nil {
		return err
	}
	_, err = fe.emitCountedLoop(fe.ivName(blk.Args[0]), lb, ub, i64(step), nil, func(iv value.Value, iters []value.Value) ([]value.Value, error) {
		if err := fe.bindRegionArgs(op, blk, []value.Value{iv}); err != nil {
			return nil, err
		}
		return fe.emitBlock(blk)
	})
	if err != nil {
		return wrapErr(op, err)
	}
	return freeHoisted()
}

// workEstimate emits, in the current block, the number of operations one
// iteration of the parallel loop op executes: every op counts one, a loop
// its trip count times its body. Inner loop bounds may use values of the
// function and induction variables of the nest, which are taken at their
// lower bounds (a tile loop's trip is that of its first tile). It returns
// nil when a bound depends on anything else (a value loaded in the loop):
// the nest is then assumed large enough.
func (fe *fnEmitter) workEstimate(op *ir.Operation, iv *ir.Value, lb value.Value) value.Value {
	w := &workEstimator{fe: fe, ivs: map[*ir.Value]value.Value{iv: lb}}
	if op.Is(affine.Parallel) {
		// Dimensions other than the first are inner loops.
		p, err := readAffineParallel(op)
		if err != nil {
			return nil
		}
		per, ok := w.parallelTrips(op, p, 1)
		if !ok {
			return nil
		}
		body, ok := w.block(p.blk)
		if !ok {
			return nil
		}
		return fe.mul(per, body)
	}
	body, ok := w.block(op.Regions[0].Blocks[0])
	if !ok {
		return nil
	}
	return body
}

type workEstimator struct {
	fe  *fnEmitter
	ivs map[*ir.Value]value.Value
}

func (w *workEstimator) operands(vs []*ir.Value) ([]value.Value, bool) {
	out := make([]value.Value, len(vs))
	for i, v := range vs {
		if x, ok := w.fe.vals[v]; ok {
			out[i] = x
		} else if x, ok := w.ivs[v]; ok {
			out[i] = x
		} else {
			return nil, false
		}
	}
	return out, true
}

func (w *workEstimator) block(b *ir.Block) (value.Value, bool) {
	var sum value.Value = i64(0)
	for _, op := range b.Ops {
		c, ok := w.op(op)
		if !ok {
			return nil, false
		}
		sum = w.fe.add(sum, c)
	}
	return sum, true
}

func (w *workEstimator) op(op *ir.Operation) (value.Value, bool) {
	fe := w.fe
	switch op.Def {
	case affine.For:
		args, ok := w.operands(op.Operands)
		if !ok {
			return nil, false
		}
		lb, ub, step, err := fe.affineForRange(op, args)
		if err != nil || len(op.Regions) == 0 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[0].Blocks[0].Args) == 0 {
			return nil, false
		}
		blk := op.Regions[0].Blocks[0]
		w.ivs[blk.Args[0]] = lb
		body, ok := w.block(blk)
		if !ok {
			return nil, false
		}
		return fe.mul(fe.tripCount(lb, ub, step), body), true
	case affine.Parallel:
		p, err := readAffineParallel(op)
		if err != nil {
			return nil, false
		}
		trips, ok := w.parallelTrips(op, p, 0)
		if !ok {
			return nil, false
		}
		body, ok := w.block(p.blk)
		if !ok {
			return nil, false
		}
		return fe.mul(trips, body), true
	case scf.For:
		args, ok := w.operands(op.Operands[:min(3, len(op.Operands))])
		if !ok || len(args) != 3 || len(op.Regions) == 0 || len(op.Regions[0].Blocks) != 1 {
			return nil, false
		}
		step, ok := constInt(args[2])
		if !ok || step <= 0 {
			return nil, false
		}
		blk := op.Regions[0].Blocks[0]
		if len(blk.Args) > 0 {
			w.ivs[blk.Args[0]] = args[0]
		}
		body, ok := w.block(blk)
		if !ok {
			return nil, false
		}
		return fe.mul(fe.tripCount(args[0], args[1], step), body), true
	case affine.If, scf.If:
		var sum value.Value = i64(1)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				c, ok := w.block(b)
				if !ok {
					return nil, false
				}
				sum = fe.add(sum, c)
			}
		}
		return sum, true
	}
	if len(op.Regions) > 0 {
		return nil, false
	}
	return i64(1), true
}

// parallelTrips is the product of the trip counts of an affine.parallel's
// dimensions from `from` on; their induction variables are bound to
// their lower bounds.
func (w *workEstimator) parallelTrips(op *ir.Operation, p *parallelOp, from int) (value.Value, bool) {
	args, ok := w.operands(op.Operands)
	if !ok {
		return nil, false
	}
	lbs, ubs, err := p.bounds(w.fe, args)
	if err != nil {
		return nil, false
	}
	var prod value.Value = i64(1)
	for d := range p.blk.Args {
		lb, ub := p.dimBounds(w.fe, lbs, ubs, d)
		w.ivs[p.blk.Args[d]] = lb
		if d >= from {
			prod = w.fe.mul(prod, w.fe.tripCount(lb, ub, p.steps[d]))
		}
	}
	return prod, true
}
