package gpu

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// gpu.launch_func operands come in MLIR 16's nine segments, whose sizes
// operand_segment_sizes records: async dependencies, grid x y z, block x y
// z (one each), the dynamic shared memory size (zero or one) and the kernel
// operands.
const (
	segAsync = iota
	segGrid  // three segments: x, y, z
	segBlock = segGrid + 3
	segShmem = segBlock + 3
	segArgs  = segShmem + 1
	numSegs  = segArgs + 1
)

var sizeNames = [6]string{"gridSizeX", "gridSizeY", "gridSizeZ", "blockSizeX", "blockSizeY", "blockSizeZ"}

// LaunchFunc is gpu.launch_func.
var LaunchFunc = &ir.OpDef{
	Name:    "gpu.launch_func",
	Summary: "launch a kernel of a gpu.module on a grid of thread blocks",
	Syntax: "[%t = ] gpu.launch_func [async] [[%deps]] @module::@kernel blocks in (%gx, %gy, %gz) threads in (%bx, %by, %bz)" +
		" [dynamic_shared_memory_size %bytes] [args(%a : T, ...)]",
	NumOperands: -1, NumResults: -1, NumRegions: 0,
	Parse:        parseLaunch,
	Print:        printLaunch,
	NeedsGeneric: launchNeedsGeneric,
	Verify:       verifyLaunch,
}

// launchNeedsGeneric: the custom form has no place for other attributes,
// and it implies the types of the async dependencies and result, the sizes
// and the shared memory size; IR that differs prints generically.
func launchNeedsGeneric(op *ir.Operation) bool {
	path, _ := ir.SymbolPath(op.Attr("kernel"))
	if _, ok := segments(op); !ok || len(path) != 2 || !arith.OnlyAttrs(op, "kernel", "operand_segment_sizes") {
		return true
	}
	if len(op.Results) > 1 || len(op.Results) == 1 && !ir.TypeEqual(op.Results[0].Type, AsyncToken) {
		return true
	}
	for _, v := range segment(op, segAsync) {
		if !ir.TypeEqual(v.Type, AsyncToken) {
			return true
		}
	}
	for i := segGrid; i < segShmem; i++ {
		if !ir.TypeEqual(segment(op, i)[0].Type, ir.Index) {
			return true
		}
	}
	shmem := segment(op, segShmem)
	return len(shmem) == 1 && !ir.TypeEqual(shmem[0].Type, ir.I32)
}

// segments returns the segment sizes; ok is false when the attribute is
// missing or does not describe the operands.
func segments(op *ir.Operation) (segs [numSegs]int, ok bool) {
	a, isArray := op.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
	if !isArray || !ir.TypeEqual(a.Elem, ir.I32) || len(a.Values) != numSegs {
		return segs, false
	}
	total := 0
	for i, v := range a.Values {
		if v < 0 || i >= segGrid && i < segShmem && v != 1 || i == segShmem && v > 1 {
			return segs, false
		}
		segs[i] = int(v)
		total += int(v)
	}
	return segs, total == len(op.Operands)
}

// segment returns the operands of segment i (nil when the sizes are bad).
func segment(op *ir.Operation, i int) []*ir.Value {
	segs, ok := segments(op)
	if !ok {
		return nil
	}
	start := 0
	for _, n := range segs[:i] {
		start += n
	}
	return op.Operands[start : start+segs[i]]
}

// sizeTriple reads `KW in (%x, %y, %z)`, three index values.
func sizeTriple(p *ir.OpParser, kw string) ([]*ir.Value, error) {
	if err := p.ExpectWord(kw); err != nil {
		return nil, err
	}
	if err := p.ExpectWord("in"); err != nil {
		return nil, err
	}
	g, err := p.Group()
	if err != nil {
		return nil, err
	}
	vs, locs, err := arith.Operands(g, 3)
	if err != nil {
		return nil, err
	}
	for i, v := range vs {
		if err := arith.CheckType(v, locs[i], ir.Index); err != nil {
			return nil, err
		}
	}
	return vs, g.ExpectEnd()
}

func parseLaunch(p *ir.OpParser, st *ir.OpState) error {
	async := p.Word("async")
	var deps []*ir.Value
	if p.IsBrackets() {
		entries, _, _ := p.Brackets()
		for _, e := range entries {
			if e.Form != ir.EntryExpr || e.E.Kind != ir.ExprValue {
				return ir.Errorf(e.Loc, "expected an async token (an SSA value of type %s)", AsyncToken)
			}
			v, err := p.Host.ResolveValue(e.E.Name, e.E.Loc)
			if err != nil {
				return err
			}
			if err := arith.CheckType(v, e.E.Loc, AsyncToken); err != nil {
				return err
			}
			deps = append(deps, v)
		}
	}
	path, loc, err := p.SymbolPath()
	if err != nil {
		return err
	}
	if len(path) != 2 {
		return ir.Errorf(loc, "expected the kernel as @module::@kernel, found %s", ir.SymbolRef(path...))
	}
	grid, err := sizeTriple(p, "blocks")
	if err != nil {
		return err
	}
	block, err := sizeTriple(p, "threads")
	if err != nil {
		return err
	}
	var shmem []*ir.Value
	if p.Word("dynamic_shared_memory_size") {
		v, vloc, err := arith.Operand(p)
		if err != nil {
			return err
		}
		if err := arith.CheckType(v, vloc, ir.I32); err != nil {
			return err
		}
		shmem = []*ir.Value{v}
	}
	var args []*ir.Value
	if p.Word("args") {
		g, err := p.Group()
		if err != nil {
			return err
		}
		for !g.AtEnd() {
			v, vloc, err := arith.Operand(g)
			if err != nil {
				return err
			}
			t, err := arith.ColonType(g)
			if err != nil {
				return err
			}
			if err := arith.CheckType(v, vloc, t); err != nil {
				return err
			}
			args = append(args, v)
			if !g.Punct(",") {
				break
			}
		}
		if err := g.ExpectEnd(); err != nil {
			return err
		}
	}
	switch {
	case async && st.NumResults != 1:
		return ir.Errorf(st.Loc, "an async gpu.launch_func has one result, the async token; %d are named", st.NumResults)
	case !async && st.NumResults != 0:
		return ir.Errorf(st.Loc, "gpu.launch_func has a result only when it is async")
	}
	if async {
		st.ResultTypes = []ir.Type{AsyncToken}
	}
	st.Operands = append(append(append(append(deps, grid...), block...), shmem...), args...)
	st.Attrs = st.Attrs.With("kernel", ir.SymbolRef(path...)).
		With("operand_segment_sizes", ir.SegmentSizes(len(deps), 1, 1, 1, 1, 1, 1, len(shmem), len(args)))
	return p.ExpectEnd()
}

// printLaunch writes MLIR 16's spelling, blanks included (two after the op
// name when there is neither `async` nor a dependency list), except for the
// blank MLIR leaves at the end of a launch without `args`.
func printLaunch(p ir.OpPrinter, op *ir.Operation) {
	p.Write(" ")
	if len(op.Results) == 1 {
		p.Write("async")
	}
	if deps := segment(op, segAsync); len(deps) > 0 {
		if len(op.Results) == 1 {
			p.Write(" ")
		}
		p.Write("[")
		p.Values(deps)
		p.Write("]")
	}
	p.Write(" " + op.Attr("kernel").String())
	grid, block := LaunchGrid(op), LaunchBlock(op)
	p.Write(" blocks in (")
	p.Values(grid[:])
	p.Write(") threads in (")
	p.Values(block[:])
	p.Write(")")
	if shmem := segment(op, segShmem); len(shmem) > 0 {
		p.Write(" dynamic_shared_memory_size ")
		p.Value(shmem[0])
	}
	if args := LaunchArgs(op); len(args) > 0 {
		p.Write(" args(")
		for i, a := range args {
			if i > 0 {
				p.Write(", ")
			}
			p.Value(a)
			p.Write(" : ")
			p.Type(a.Type)
		}
		p.Write(")")
	}
}

func verifyLaunch(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if _, ok := segments(op); !ok {
		return arith.Errf(op, "needs operand_segment_sizes = array<i32: deps, 1, 1, 1, 1, 1, 1, 0 or 1, args> adding up to its %d operands", len(op.Operands))
	}
	for _, v := range segment(op, segAsync) {
		if !ir.TypeEqual(v.Type, AsyncToken) {
			return arith.Errf(op, "async dependency has type %s, expected %s", v.Type, AsyncToken)
		}
	}
	for i := segGrid; i < segShmem; i++ {
		if v := segment(op, i)[0]; !ir.TypeEqual(v.Type, ir.Index) {
			return arith.Errf(op, "operand %s has type %s, expected index", sizeNames[i-segGrid], v.Type)
		}
	}
	if shmem := segment(op, segShmem); len(shmem) > 0 && !ir.TypeEqual(shmem[0].Type, ir.I32) {
		return arith.Errf(op, "dynamic_shared_memory_size has type %s, expected i32", shmem[0].Type)
	}
	switch {
	case len(op.Results) > 1:
		return arith.Errf(op, "has %d results; at most one, the async token", len(op.Results))
	case len(op.Results) == 1 && !ir.TypeEqual(op.Results[0].Type, AsyncToken):
		return arith.Errf(op, "result has type %s, expected %s", op.Results[0].Type, AsyncToken)
	}
	path, isRef := ir.SymbolPath(op.Attr("kernel"))
	if !isRef || len(path) != 2 {
		return arith.Errf(op, "needs a 'kernel' attribute @module::@kernel")
	}
	module := enclosing(op, ir.BuiltinModule)
	if module == nil || module.Attr(ContainerModuleAttr) == nil {
		return arith.Errf(op, "expected the closest surrounding module to have the '%s' attribute", ContainerModuleAttr)
	}
	var kmod *ir.Operation
	var top []*ir.Operation
	if b := module.Regions[0].Entry(); b != nil {
		top = b.Ops
	}
	for _, o := range top {
		if o.Is(Module) && ir.SymbolName(o) == path[0] {
			kmod = o
			break
		}
	}
	if kmod == nil {
		return arith.Errf(op, "kernel module '%s' is undefined", path[0])
	}
	var kfn *ir.Operation
	var kernels []*ir.Operation
	if len(kmod.Regions) == 1 && kmod.Regions[0].Entry() != nil {
		kernels = ModuleBody(kmod).Ops
	}
	for _, o := range kernels {
		if o.Is(Func) && ir.SymbolName(o) == path[1] {
			kfn = o
			break
		}
	}
	if kfn == nil {
		return arith.Errf(op, "kernel function '%s' is undefined", op.Attr("kernel"))
	}
	if !IsKernel(kfn) {
		return arith.Errf(op, "kernel function is missing the '%s' attribute", KernelAttr)
	}
	ft, _ := FuncType(kfn)
	args := LaunchArgs(op)
	if len(args) != len(ft.Inputs) {
		return arith.Errf(op, "got %d kernel operands but expected %d", len(args), len(ft.Inputs))
	}
	for i, a := range args {
		if !ir.TypeEqual(a.Type, ft.Inputs[i]) {
			return arith.Errf(op, "type of kernel operand #%d (%s) does not match argument #%d of %s (%s)", i, a.Type, i, op.Attr("kernel"), ft.Inputs[i])
		}
	}
	return nil
}

// NewLaunchFunc builds `gpu.launch_func @module::@kernel blocks in (grid)
// threads in (block) args(args)`: synchronous, without dynamic shared
// memory.
func NewLaunchFunc(loc ir.Location, module, kernel string, grid, block [3]*ir.Value, args []*ir.Value) *ir.Operation {
	operands := append(append(append([]*ir.Value{}, grid[:]...), block[:]...), args...)
	attrs := ir.DictAttr{}.
		With("kernel", ir.SymbolRef(module, kernel)).
		With("operand_segment_sizes", ir.SegmentSizes(0, 1, 1, 1, 1, 1, 1, 0, len(args)))
	return ir.NewOpOf(LaunchFunc, loc, operands, nil, attrs)
}

// LaunchKernel returns the gpu.module and gpu.func a launch names ("" when
// its kernel attribute is not @module::@kernel).
func LaunchKernel(op *ir.Operation) (module, kernel string) {
	path, _ := ir.SymbolPath(op.Attr("kernel"))
	if len(path) != 2 {
		return "", ""
	}
	return path[0], path[1]
}

// LaunchGrid returns the grid size operands x, y, z (nils when the
// operand_segment_sizes attribute is bad).
func LaunchGrid(op *ir.Operation) [3]*ir.Value {
	var out [3]*ir.Value
	for i := range out {
		if s := segment(op, segGrid+i); len(s) == 1 {
			out[i] = s[0]
		}
	}
	return out
}

// LaunchBlock returns the block size operands x, y, z (nils when the
// operand_segment_sizes attribute is bad).
func LaunchBlock(op *ir.Operation) [3]*ir.Value {
	var out [3]*ir.Value
	for i := range out {
		if s := segment(op, segBlock+i); len(s) == 1 {
			out[i] = s[0]
		}
	}
	return out
}

// LaunchArgs returns the kernel operands, the values passed to the
// kernel's parameters.
func LaunchArgs(op *ir.Operation) []*ir.Value { return segment(op, segArgs) }
