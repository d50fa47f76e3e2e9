// Package gpuoutline turns the affine-stage functions of a module into
// MLIR's gpu dialect (`gpu-kernel-outlining`): each outermost loop nest of
// a func.func becomes a gpu.func kernel in a gpu.module, and the function
// keeps only host work — argument checks (cf.assert), size arithmetic,
// temporaries (memref.alloc/dealloc) — and one gpu.launch_func per kernel,
// in program order.
//
// Mapping. The band of perfectly nested loops marked parallel
// (affine.ParallelAttr) at the top of a nest is mapped to threads: the
// innermost (contiguous) loop to x, so that neighbouring threads touch
// neighbouring elements, the next to y, and the rest, linearized, to z;
// an innermost loop shorter than a warp is linearized into x with the
// loops outside it (mapping).
// x is covered by the grid (`blockIdx.x * blockDim.x + threadIdx.x`, with
// a bounds guard); y and z by grid-stride loops, since a grid has at most
// 65535 blocks in those directions and mesh or column dimensions can be
// longer. What the band does not cover — scan and reduction loops, loops
// whose bounds depend on a mapped index — runs sequentially inside the
// thread (one column per thread, the standard vertical-solver mapping). A
// nest without a parallel loop, and top-level stores, run in a kernel of
// one thread.
//
// Kernel bodies are then lowered from affine to scf/arith/memref
// (affinescf): inside a kernel the mapped indices are not affine values.
package gpuoutline

import (
	"fmt"
	"sort"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/cf"
	"tir/dialects/fn"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/tir"
	"tir/lower/abi"
	"tir/lower/affinescf"
)

// Options of the outlining.
type Options struct {
	// Block is the thread-block shape (x, y, z); zero entries take the
	// defaults. A kernel mapping fewer dimensions folds the unused
	// directions into the last one it maps: with the default 32×8×1 a 1-D
	// kernel gets 256 threads, a 2-D or 3-D kernel 32×8.
	Block [3]int64
	// Coarsen is how many points of its outermost direction each thread
	// computes (0 or 1: one); see coarsePoints.
	Coarsen int64
}

// DefaultBlock is the thread-block shape used when none is given.
var DefaultBlock = [3]int64{32, 8, 1}

// Grid limits of the y and z directions (x allows 2^31 - 1 blocks).
const maxGridYZ = 65535

// Outline converts every func.func of m with a body. The module becomes a
// gpu.container_module printed with its explicit `module` wrapper.
func Outline(m *ir.Module, opts Options) error {
	block := DefaultBlock
	for i, b := range opts.Block {
		if b > 0 {
			block[i] = b
		}
	}
	var funcs []*ir.Operation
	for _, op := range m.Body().Ops {
		if op.Is(fn.Func) && len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
			funcs = append(funcs, op)
		}
	}
	for _, fn := range funcs {
		if err := refuseDataExtents(fn); err != nil {
			return err
		}
	}
	for _, fn := range funcs {
		o := &outliner{fn: fn, block: block, coarsen: max(opts.Coarsen, 1), host: map[*ir.Value]bool{}}
		if err := o.run(); err != nil {
			return err
		}
		if o.mod != nil {
			m.Body().InsertAt(m.Body().IndexOf(fn), o.mod)
		}
		if err := affinescf.Lower(fn); err != nil {
			return err
		}
	}
	m.Op.SetAttr(gpu.ContainerModuleAttr, ir.UnitAttr{})
	m.Implicit = false
	return nil
}

// outliner converts one function.
type outliner struct {
	fn      *ir.Operation
	block   [3]int64
	coarsen int64
	mod     *ir.Operation // the gpu.module of the function's kernels, once needed
	n       int           // kernels made so far
	// host holds the values the host computes: arguments, results of host
	// ops (sizes, checks, allocations).
	host map[*ir.Value]bool
}

func (o *outliner) name() string { return ir.SymbolName(o.fn) }

func (o *outliner) run() error {
	body := o.fn.Regions[0].Entry()
	for _, a := range body.Args {
		o.host[a] = true
	}
	ops := append([]*ir.Operation(nil), body.Ops...)
	for i := 0; i < len(ops); i++ {
		op := ops[i]
		switch {
		case op.HasTrait(ir.TraitTerminator):
		case op.Attr(tir.VersionsAttr) != nil:
			// Kernels are launched from the function's top level only.
			return ir.Errorf(op.Loc, "gpu-kernel-outlining: a function's versions on the size of its temporaries (tir-temporaries{recompute-above}) are for CPU targets: GPU pipelines leave recompute-above at 0")
		case o.isHostOp(op):
			for _, r := range op.Results {
				o.host[r] = true
			}
		case len(op.Regions) == 0 && isPure(op):
			// A device value (a constant, a load hoisted out of a loop):
			// cloned into the kernels that use it.
		case len(op.Regions) > 0 && len(op.Results) == 0 && affine.IsParallel(op):
			if err := o.outline([]*ir.Operation{op}); err != nil {
				return err
			}
		default:
			// Sequential device work: a loop nest without parallel loops, a
			// store into a 0-d result, a loop whose results later ops use.
			// One single-thread kernel runs it together with the ops after
			// it that are sequential too or use its values.
			group := []*ir.Operation{op}
			for i+1 < len(ops) {
				next := ops[i+1]
				if next.HasTrait(ir.TraitTerminator) {
					break
				}
				if o.isHostOp(next) {
					// Host work (a constant, size arithmetic) between device
					// ops whose values later ops still need (a 0-d
					// reduction, then arithmetic on it) depends on host
					// values only: it moves before the kernel instead of
					// ending it.
					if !usedAfter(group, ops[i+1:]) {
						break
					}
					body.Remove(next)
					body.InsertAt(body.IndexOf(op), next)
					for _, r := range next.Results {
						o.host[r] = true
					}
					i++
					continue
				}
				sequential := len(next.Regions) == 0 && !isPure(next) ||
					len(next.Regions) > 0 && (len(next.Results) > 0 || !affine.IsParallel(next))
				if !sequential && !usedAfter(group, ops[i+1:]) {
					break
				}
				i++
				group = append(group, next)
			}
			if usedAfter(group, ops[i+1:]) {
				return ir.Errorf(op.Loc, "gpu-kernel-outlining: a value computed on the device here is needed by the host")
			}
			if err := o.outline(group); err != nil {
				return err
			}
		}
	}
	removeDeadPure(body)
	return nil
}

// hostOps are the ops the host may run: index and integer arithmetic on
// arguments and sizes, the argument checks, and temporaries. (The C host
// wrapper of --emit=cuda-host implements exactly these.)
var hostOps = map[*ir.OpDef]bool{
	arith.Constant: true, arith.AddI: true, arith.SubI: true, arith.MulI: true,
	arith.DivSI: true, arith.DivUI: true, arith.RemSI: true, arith.RemUI: true,
	arith.FloorDivSI: true, arith.CeilDivSI: true, arith.MaxSI: true, arith.MinSI: true,
	arith.MaxUI: true, arith.MinUI: true, arith.AndI: true, arith.OrI: true, arith.XOrI: true,
	arith.ShLI: true, arith.ShRSI: true, arith.ShRUI: true, arith.CmpI: true, arith.Select: true,
	arith.IndexCast: true, arith.IndexCastUI: true, arith.ExtSI: true, arith.ExtUI: true, arith.TruncI: true,
	affine.Apply: true, affine.Min: true, affine.Max: true,
	memref.Dim: true, memref.Alloc: true, memref.Dealloc: true, cf.Assert: true,
}

// isHostOp reports whether op runs on the host: a host op whose operands
// the host has and whose results are integers (a float constant is left
// to the kernels that use it).
func (o *outliner) isHostOp(op *ir.Operation) bool {
	if !hostOps[op.Def] || len(op.Regions) > 0 {
		return false
	}
	for _, v := range op.Operands {
		if !o.host[v] {
			return false
		}
	}
	for _, r := range op.Results {
		switch r.Type.(type) {
		case ir.IndexType, ir.IntegerType, ir.MemRefType:
		default:
			return false
		}
	}
	return true
}

// isPure reports whether op can be evaluated anywhere, any number of
// times: pure ops and loads (the nest that reads a hoisted load's value
// runs after everything that precedes the load in the function).
func isPure(op *ir.Operation) bool {
	switch op.Def {
	case affine.Load, memref.Load:
		return true
	}
	return op.HasTrait(ir.TraitPure)
}

// removeDeadPure erases top-level pure ops whose values nothing uses any
// more (their users moved into kernels, which have their own copies).
func removeDeadPure(b *ir.Block) {
	for {
		used := map[*ir.Value]bool{}
		for _, op := range b.Ops {
			op.Walk(func(o *ir.Operation) bool {
				for _, v := range o.Operands {
					used[v] = true
				}
				return true
			})
		}
		changed := false
		for _, op := range append([]*ir.Operation(nil), b.Ops...) {
			if len(op.Regions) > 0 || !isPure(op) || op.HasTrait(ir.TraitTerminator) || len(op.Results) == 0 {
				continue
			}
			dead := true
			for _, r := range op.Results {
				if used[r] {
					dead = false
				}
			}
			if dead {
				op.Erase()
				changed = true
			}
		}
		if !changed {
			return
		}
	}
}

// band returns the perfectly nested parallel loops at the top of root
// (root first), and the pure ops found between them, which every thread
// evaluates before the innermost body.
func (o *outliner) band(root *ir.Operation) (loops, between []*ir.Operation) {
	if !affine.IsParallel(root) || len(root.Results) > 0 || !o.hostBounds(root) {
		return nil, nil
	}
	loops = []*ir.Operation{root}
	for {
		var inner *ir.Operation
		var pure []*ir.Operation
		ok := true
		for _, op := range affine.ForBody(loops[len(loops)-1]).Ops {
			switch {
			case op.Is(affine.Yield):
			case op.Is(affine.For) && inner == nil && affine.IsParallel(op) && len(op.Results) == 0 && o.hostBounds(op):
				inner = op
			case len(op.Regions) == 0 && isPure(op):
				pure = append(pure, op)
			default:
				ok = false
			}
		}
		if !ok || inner == nil {
			return loops, between
		}
		loops = append(loops, inner)
		between = append(between, pure...)
	}
}

// hostBounds reports whether loop's bounds are values the host has (sizes,
// constants): the launch computes the grid from them.
func (o *outliner) hostBounds(loop *ir.Operation) bool {
	_, lbOps, _, ubOps, _ := affine.ForBounds(loop)
	for _, v := range append(append([]*ir.Value(nil), lbOps...), ubOps...) {
		if !o.host[v] {
			return false
		}
	}
	return true
}

// outline makes one kernel of ops (a loop nest, or a run of top-level
// side effects) and replaces them with its launch.
func (o *outliner) outline(ops []*ir.Operation) error {
	root := ops[0]
	loc := root.Loc
	var loops, between []*ir.Operation
	if len(ops) == 1 && root.Is(affine.For) {
		loops, between = o.band(root)
	}
	// The values the kernel uses from outside: host values other than
	// constants become parameters; device values (constants, hoisted
	// loads and arithmetic) are recomputed in the kernel.
	var params []*ir.Value
	var clones []*ir.Operation
	seenParam := map[*ir.Value]bool{}
	seenClone := map[*ir.Operation]bool{}
	var need func(v *ir.Value) error
	need = func(v *ir.Value) error {
		d := v.DefiningOp()
		// Index values and buffers the host computes are passed; other
		// values (constants, flags, device values) are recomputed, which
		// keeps kernel parameters to pointers and 64-bit integers.
		_, isMem := v.Type.(ir.MemRefType)
		passed := o.host[v] && (isMem || ir.TypeEqual(v.Type, ir.Index))
		if d != nil && (d.Is(arith.Constant) || !passed) {
			if d.ParentBlock() != o.fn.Regions[0].Entry() {
				return nil // defined inside the kernel's ops
			}
			if seenClone[d] {
				return nil
			}
			if !isPure(d) || len(d.Regions) > 0 {
				return ir.Errorf(d.Loc, "gpu-kernel-outlining: '%s' computes a value on the device that another kernel needs; only pure values can be recomputed", d.Name)
			}
			seenClone[d] = true
			for _, w := range d.Operands {
				if err := need(w); err != nil {
					return err
				}
			}
			clones = append(clones, d)
			return nil
		}
		if !o.host[v] || seenParam[v] {
			return nil
		}
		seenParam[v] = true
		params = append(params, v)
		return nil
	}
	inside := map[*ir.Operation]bool{}
	for _, op := range ops {
		op.Walk(func(x *ir.Operation) bool {
			inside[x] = true
			return true
		})
	}
	var err error
	for _, op := range ops {
		op.Walk(func(x *ir.Operation) bool {
			for _, v := range x.Operands {
				if d := v.DefiningOp(); d != nil && inside[d] || d == nil && isInside(v, inside) {
					continue
				}
				if err == nil {
					err = need(v)
				}
			}
			return err == nil
		})
	}
	if err != nil {
		return err
	}
	// Clones keep their order in the function (operands first);
	// parameters follow the function's arguments, then the values it
	// computes, in order.
	order := map[*ir.Operation]int{}
	for i, op := range o.fn.Regions[0].Entry().Ops {
		order[op] = i
	}
	sortOps(clones, order)
	position := func(v *ir.Value) int {
		if d := v.DefiningOp(); d != nil {
			return 1<<20 + order[d]*16 + v.ResultIndex()
		}
		return v.ArgIndex()
	}
	sort.SliceStable(params, func(i, j int) bool { return position(params[i]) < position(params[j]) })

	kname := fmt.Sprintf("%s_k%d", o.name(), o.n)
	o.n++
	if o.mod == nil {
		o.mod = gpu.NewModule(o.fn.Loc, o.name()+"_kernels")
	}
	types := make([]ir.Type, len(params))
	for i, p := range params {
		types[i] = p.Type
	}
	kfn := gpu.NewFunc(loc, kname, types, true)
	gpu.AppendToModule(o.mod, kfn)
	kbody := gpu.FuncBody(kfn)
	mapping := map[*ir.Value]*ir.Value{}
	for i, p := range params {
		mapping[p] = kbody.Args[i]
		kbody.Args[i].NameHint = p.NameHint
	}
	for _, c := range clones {
		kbody.Append(c.Clone(mapping))
	}

	// The host computes the extent of each mapped loop for the grid; the
	// kernel computes the same bounds from its parameters.
	hostE := &affinescf.Emitter{Rewriter: &ir.Rewriter{Root: o.fn}, Anchor: root}
	var dims [3][]int
	if len(loops) > 0 {
		dims = o.mapping(loops)
	}
	blockDims := [3]*ir.Value{hostE.Index(1), hostE.Index(1), hostE.Index(1)}
	grid := [3]*ir.Value{hostE.Index(1), hostE.Index(1), hostE.Index(1)}
	// The body: the pure ops between the band loops, then the innermost
	// body (or the whole ops for a serial kernel).
	var body []*ir.Operation
	if len(loops) > 0 {
		body = append(body, between...)
		for _, op := range affine.ForBody(loops[len(loops)-1]).Ops {
			if !op.Is(affine.Yield) {
				body = append(body, op)
			}
		}
	} else {
		body = ops
	}
	var coarse coarsePoints
	var inner *ir.Block = kbody
	if len(loops) > 0 {
		ke := &affinescf.Emitter{Block: kbody}
		kmap := func(vs []*ir.Value) []*ir.Value {
			out := make([]*ir.Value, len(vs))
			for i, v := range vs {
				if m, ok := mapping[v]; ok {
					out[i] = m
				} else {
					out[i] = v
				}
			}
			return out
		}
		type extent struct{ lo, n *ir.Value }
		hostExt := make([]extent, len(loops))
		kernExt := make([]extent, len(loops))
		for i, l := range loops {
			lb, lbOps, ub, ubOps, _ := affine.ForBounds(l)
			lo := hostE.Bound(lb, lbOps, true)
			hostExt[i] = extent{lo, hostE.Binary("maxsi", hostE.Binary("subi", hostE.Bound(ub, ubOps, false), lo), hostE.Index(0))}
			klo := ke.Bound(lb, kmap(lbOps), true)
			kernExt[i] = extent{klo, ke.Binary("maxsi", ke.Binary("subi", ke.Bound(ub, kmap(ubOps), false), klo), ke.Index(0))}
		}
		// dims[d] lists the loops (outermost first) mapped to direction d.
		cd := o.coarseDirection(loops, dims, body)
		for d := 2; d >= 0; d-- {
			if len(dims[d]) == 0 {
				continue
			}
			bs := o.blockSize(d, dims)
			blockDims[d] = hostE.Index(bs)
			perBlock := bs
			if d == cd {
				perBlock = bs * o.coarsen
			}
			var hn, kn *ir.Value
			for _, li := range dims[d] {
				if hn == nil {
					hn, kn = hostExt[li].n, kernExt[li].n
				} else {
					hn = hostE.Binary("muli", hn, hostExt[li].n)
					kn = ke.Binary("muli", kn, kernExt[li].n)
				}
			}
			blocks := hostE.Binary("maxsi", hostE.Binary("ceildivsi", hn, hostE.Index(perBlock)), hostE.Index(1))
			if d > 0 {
				blocks = hostE.Binary("minsi", blocks, hostE.Index(maxGridYZ))
			}
			grid[d] = blocks
			dim := "xyz"[d : d+1]
			tid := ke.Value(gpu.NewIndexOp(loc, gpu.ThreadID.Name, dim))
			bid := ke.Value(gpu.NewIndexOp(loc, gpu.BlockID.Name, dim))
			bdim := ke.Value(gpu.NewIndexOp(loc, gpu.BlockDim.Name, dim))
			if d == cd {
				li := dims[d][0]
				coarse.iv, coarse.lo, coarse.n = affine.InductionVar(loops[li]), kernExt[li].lo, kn
				if d == 0 {
					// A block covers perBlock consecutive points; a thread
					// takes every blockDim-th of them, so that each copy of
					// the body still reads neighbouring elements in
					// neighbouring threads.
					coarse.first = ke.Binary("addi", ke.Binary("muli", bid, ke.Binary("muli", bdim, ke.Index(o.coarsen))), tid)
					coarse.step = bdim
				} else {
					gdim := ke.Value(gpu.NewIndexOp(loc, gpu.GridDim.Name, dim))
					start := ke.Binary("muli", ke.Binary("addi", ke.Binary("muli", bid, bdim), tid), ke.Index(o.coarsen))
					stride := ke.Binary("muli", ke.Binary("muli", gdim, bdim), ke.Index(o.coarsen))
					loop := scf.NewFor(loc, start, kn, stride, nil)
					ke.Append(loop)
					scf.ForBody(loop).Append(scf.NewYield(loc))
					ke = &affinescf.Emitter{Block: scf.ForBody(loop)}
					coarse.first, coarse.step = scf.InductionVar(loop), ke.Index(1)
				}
				continue
			}
			global := ke.Binary("addi", ke.Binary("muli", bid, bdim), tid)
			var linear *ir.Value
			if d == 0 {
				// The bounds guard.
				cond := ke.Value(arith.NewCmpI(loc, "slt", global, kn))
				guard := scf.NewIf(loc, cond, nil, false)
				ke.Append(guard)
				scf.ThenBlock(guard).Append(scf.NewYield(loc))
				ke = &affinescf.Emitter{Block: scf.ThenBlock(guard)}
				linear = global
			} else {
				gdim := ke.Value(gpu.NewIndexOp(loc, gpu.GridDim.Name, dim))
				stride := ke.Binary("muli", gdim, bdim)
				loop := scf.NewFor(loc, global, kn, stride, nil)
				ke.Append(loop)
				scf.ForBody(loop).Append(scf.NewYield(loc))
				ke = &affinescf.Emitter{Block: scf.ForBody(loop)}
				linear = scf.InductionVar(loop)
			}
			// Unfold the linear index, innermost loop first.
			for k := len(dims[d]) - 1; k >= 0; k-- {
				li := dims[d][k]
				idx := linear
				if k > 0 {
					idx = ke.Binary("remsi", linear, kernExt[li].n)
					linear = ke.Binary("divsi", linear, kernExt[li].n)
				}
				mapping[affine.InductionVar(loops[li])] = ke.Binary("addi", kernExt[li].lo, idx)
			}
		}
		inner = ke.Block
	}
	if coarse.iv != nil {
		o.coarsenBody(loc, inner, coarse, body, mapping)
	} else {
		cloneInto(inner, body, mapping)
	}
	kbody.Append(gpu.NewReturn(loc))
	if err := checkKernelBody(kfn); err != nil {
		return err
	}
	if err := affinescf.Lower(kfn); err != nil {
		return err
	}
	launch := gpu.NewLaunchFunc(loc, ir.SymbolName(o.mod), kname, grid, blockDims, params)
	hostE.Rewriter.InsertBefore(root, launch)
	for _, op := range ops {
		if !isPure(op) || len(op.Regions) > 0 {
			op.Erase()
		}
	}
	return nil
}

// Coarsening. A thread that computes one point of a memory-bound stencil
// has one load in flight per input access, and for f32 data on a GPU
// such as the H100 that is too little to cover the memory latency: the
// laplacian reached 39% of a device copy's bandwidth, the f64 hdiff 82%.
// With coarsen=C a thread computes C points of the kernel's outermost
// mapped direction (z or y; x for a 1-D kernel, its points blockDim
// apart so that loads stay coalesced). When all C points are inside the
// domain, their bodies are copied one after the other without guards, so
// that llc and ptxas can issue every copy's loads together and merge the
// loads that neighbouring points share (a plane of a 3-D stencil; the
// index arithmetic is emitted so that such points get equal indices, see
// affinescf.Emitter.Binary); the last points of the domain run in a loop
// with the bounds as its limit. With C = 4 the laplacian reached 74% and
// hdiff 93% (docs/gpu.md).
// Only kernels whose body is straight-line code are coarsened: a body
// with a sequential loop (a column's scan) has its parallelism in that
// loop already, and C copies would multiply its registers.

// coarsePoints describes the coarsened direction of a kernel being built:
// the loop it maps (iv, its lower bound lo and extent n, in the kernel),
// and the thread's first point and the distance between its points,
// relative to lo.
type coarsePoints struct {
	iv, lo, n   *ir.Value
	first, step *ir.Value
}

// coarseDirection is the direction whose points each thread of a kernel
// computes o.coarsen of, or -1: the outermost direction used, when it
// maps one loop, not a short one (shortTrip), and the body has no
// regions.
func (o *outliner) coarseDirection(loops []*ir.Operation, dims [3][]int, body []*ir.Operation) int {
	if o.coarsen <= 1 {
		return -1
	}
	for _, op := range body {
		if len(op.Regions) > 0 {
			return -1
		}
	}
	for d := 2; d >= 0; d-- {
		switch len(dims[d]) {
		case 0:
			continue
		case 1:
			if _, short := shortTrip(loops[dims[d][0]]); short {
				return -1 // a thread would take most of the loop
			}
			return d
		}
		return -1
	}
	return -1
}

// coarsenBody emits into inner the body for the thread's o.coarsen points
// of the coarsened direction: copies without guards when all are inside
// the domain, else a loop over those that are.
func (o *outliner) coarsenBody(loc ir.Location, inner *ir.Block, c coarsePoints, body []*ir.Operation, mapping map[*ir.Value]*ir.Value) {
	e := &affinescf.Emitter{Block: inner}
	last := e.Binary("addi", c.first, e.Binary("muli", c.step, e.Index(o.coarsen-1)))
	split := scf.NewIf(loc, e.Value(arith.NewCmpI(loc, "slt", last, c.n)), nil, true)
	e.Append(split)
	all := &affinescf.Emitter{Block: scf.ThenBlock(split)}
	all.Block.Append(scf.NewYield(loc))
	for k := int64(0); k < o.coarsen; k++ {
		p := c.first
		if k > 0 {
			p = all.Binary("addi", c.first, all.Binary("muli", c.step, all.Index(k)))
		}
		mapping[c.iv] = all.Binary("addi", c.lo, p)
		cloneInto(all.Block, body, mapping)
	}
	some := &affinescf.Emitter{Block: scf.ElseBlock(split)}
	some.Block.Append(scf.NewYield(loc))
	end := some.Binary("minsi", some.Binary("addi", c.first, some.Binary("muli", c.step, some.Index(o.coarsen))), c.n)
	rest := scf.NewFor(loc, c.first, end, c.step, nil)
	some.Append(rest)
	scf.ForBody(rest).Append(scf.NewYield(loc))
	in := &affinescf.Emitter{Block: scf.ForBody(rest)}
	mapping[c.iv] = in.Binary("addi", c.lo, scf.InductionVar(rest))
	cloneInto(in.Block, body, mapping)
}

// cloneInto clones ops at the end of b (before its terminator).
func cloneInto(b *ir.Block, ops []*ir.Operation, mapping map[*ir.Value]*ir.Value) {
	for _, op := range ops {
		c := op.Clone(mapping)
		if t := b.Terminator(); t != nil {
			b.InsertAt(b.IndexOf(t), c)
		} else {
			b.Append(c)
		}
	}
}

// usedAfter reports whether a value defined by group (at its top level) is
// used by one of later (or inside them).
func usedAfter(group, later []*ir.Operation) bool {
	defined := map[*ir.Value]bool{}
	for _, op := range group {
		for _, r := range op.Results {
			defined[r] = true
		}
	}
	found := false
	for _, op := range later {
		op.Walk(func(x *ir.Operation) bool {
			for _, v := range x.Operands {
				if defined[v] {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

// warpSize is the number of threads that execute together on an NVIDIA
// GPU; a loop shorter than a warp mapped to x leaves lanes idle.
const warpSize = 32

// shortTrip returns the trip count of loop when its bounds are constants
// and it is shorter than a warp.
func shortTrip(loop *ir.Operation) (int64, bool) {
	lb, lbOps, ub, ubOps, step := affine.ForBounds(loop)
	if len(lbOps) > 0 || len(ubOps) > 0 || len(lb.Results) != 1 || len(ub.Results) != 1 || step <= 0 {
		return 0, false
	}
	lo, ok1 := lb.Results[0].Const()
	hi, ok2 := ub.Results[0].Const()
	if !ok1 || !ok2 {
		return 0, false
	}
	n := max(hi-lo, 0)
	n = (n + step - 1) / step
	return n, n < warpSize
}

// mapping assigns the band loops (outermost first) to directions: the
// innermost to x, the next to y, all others to z (linearized). When the
// innermost loops have a constant trip count shorter than a warp (a
// neighbour table's V2E[0:7], a vector's components), x takes the next
// loops outward too, linearized, until it covers a warp: x is the
// direction whose threads run together, and with V2E alone 7 of 32
// lanes would work; linearized, neighbouring threads still touch
// neighbouring elements.
func (o *outliner) mapping(loops []*ir.Operation) [3][]int {
	n := len(loops)
	first := n - 1 // the outermost loop mapped to x
	trip := int64(1)
	for first > 0 {
		t, short := shortTrip(loops[first])
		if !short {
			break
		}
		if trip *= t; trip >= warpSize {
			break
		}
		first--
	}
	var dims [3][]int
	for i := first; i < n; i++ {
		dims[0] = append(dims[0], i)
	}
	for i := 0; i < first; i++ {
		if i == first-1 {
			dims[1] = append(dims[1], i)
		} else {
			dims[2] = append(dims[2], i)
		}
	}
	return dims
}

// blockSize is the block extent of direction d: the unused directions
// fold into the last used one.
func (o *outliner) blockSize(d int, dims [3][]int) int64 {
	used := 0
	for k := range dims {
		if len(dims[k]) > 0 {
			used = k + 1
		}
	}
	if d < used-1 {
		return o.block[d]
	}
	s := int64(1)
	for k := d; k < 3; k++ {
		s *= o.block[k]
	}
	return s
}

// checkKernelBody refuses what a kernel cannot do.
func checkKernelBody(kfn *ir.Operation) error {
	var err error
	kfn.Walk(func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		switch op.Def {
		case memref.Alloc, memref.Alloca, memref.Dealloc:
			err = ir.Errorf(op.Loc, "gpu-kernel-outlining: '%s' cannot run in a kernel: allocate temporaries outside the loop nests (convert-tir-to-affine{scan-columns=false} does, for GPU targets)", op.Name)
		case cf.Assert:
			err = ir.Errorf(op.Loc, "gpu-kernel-outlining: 'cf.assert' cannot run in a kernel: a check must depend only on sizes and come before the loop nests")
		}
		return err == nil
	})
	return err
}

func isInside(v *ir.Value, inside map[*ir.Operation]bool) bool {
	if b := v.OwnerBlock(); b != nil {
		return inside[b.ParentOp()]
	}
	return false
}

func sortOps(ops []*ir.Operation, order map[*ir.Operation]int) {
	for i := 1; i < len(ops); i++ {
		for j := i; j > 0 && order[ops[j]] < order[ops[j-1]]; j-- {
			ops[j], ops[j-1] = ops[j-1], ops[j]
		}
	}
}

// refuseDataExtents reports, at the tir op that computes it, an extent
// computed from data (tir.iota, tir.compress; abi.AttrDataExtent): its
// loops are sequential host work whose result sizes buffers, which the
// GPU mapping does not support yet.
func refuseDataExtents(fn *ir.Operation) error {
	var err error
	fn.Walk(func(op *ir.Operation) bool {
		if s, ok := op.Attr(abi.AttrDataExtent).(ir.StringAttr); ok && err == nil {
			err = ir.Errorf(op.Loc, "gpu-kernel-outlining: the extent %s is computed from data (tir.iota, tir.compress), which GPU targets do not support yet: compile for the CPU", string(s))
		}
		return err == nil
	})
	return err
}
