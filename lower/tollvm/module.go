// Package tollvm lowers affine-stage IR (func, affine, arith, math, memref and
// scf ops in MLIR 16's generic representation) to textual LLVM 14 IR with
// github.com/llir/llvm, following the C ABI of spec 5.1: every func.func @f
// becomes a public `i32 @f(descriptor*..., i64...)` that checks its
// arguments, an internal `void @f.body(...)` holding the loops, and the
// helpers `@f_error` and `@f_result_shape`.
//
// The output is plain text accepted by LLVM 14's llc and opt unchanged.
// llir has no verifier, so the emitter is careful to produce valid IR by
// construction, and checks before printing what would make llir panic.
package tollvm

import (
	"fmt"
	"runtime/debug"
	"strings"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/metadata"
	"github.com/llir/llvm/ir/types"

	"tir/dialects/fn"
	"tir/dialects/gpu"
	"tir/dialects/ir"
	"tir/lower/abi"
)

// Options selects the code generation target.
type Options struct {
	// Target is "x86_64" (the default when empty), "aarch64", or "nvptx64".
	// For nvptx64 the module must hold outlined kernels (gpu-kernel-outlining):
	// only the kernels are emitted; the host code is --emit=cuda-host's C.
	Target string
	// Emulate emits a GPU target's kernels for the host CPU instead, with
	// thread indices passed in (the tests' CUDA driver emulator runs them).
	Emulate bool
	// Math says how the math functions without an instruction (exp, log,
	// sin, tanh, ...) are computed. GPU kernels: "expand" (also "" and
	// "auto") computes them with arithmetic (expand-math); "libdevice"
	// calls __nv_expf and friends, which the user links from
	// libdevice.10.bc. CPU targets (cpumath.go): "expand" computes them
	// with expand-math's arithmetic, scalars and vectors alike; "libm"
	// calls the C library (per lane for vectors); "auto" or "" expands
	// where the CPU has FMA instructions and calls libm elsewhere.
	Math string
	// CPU is the processor the code is for (cpu.go): "" (generic),
	// "native" or an LLVM processor name.
	CPU string
	// Threads is "" or "none" (every loop runs on the calling thread) or
	// "omp": the outermost parallel loops of CPU code run on all cores
	// through GNU OpenMP's runtime (threads.go); the program then links
	// libgomp (gcc -fopenmp, or -lgomp).
	Threads string
	// ParallelMinWork is, with Threads, the estimated number of operations
	// each thread of a parallel loop nest must get: the team has at most
	// work / ParallelMinWork threads, and a nest with less work than two
	// threads' worth runs on the calling thread. 0 means
	// DefaultParallelMinWork; a negative value forks whenever the loop has
	// two iterations or more (for tests).
	ParallelMinWork int64
	// Contract allows llc to fuse a float multiply and the add or
	// subtract that uses it into one fused multiply-add (the `contract`
	// fast-math flag on every fadd, fsub and fmul; an FMA where the CPU
	// has one). A fused operation rounds once instead of twice, so results
	// may differ from the reference interpreter's in the last bits
	// (docs/decisions.md); off by default.
	Contract bool
	// ReassociateFPReductions lets the float add and mul kinds of
	// vector.reduction combine their lanes in any order (a tree, with the
	// reassoc flag) instead of in lane order, as MLIR's
	// convert-vector-to-llvm{reassociate-fp-reductions}. Results may then
	// differ in the last bits; off by default.
	ReassociateFPReductions bool
}

// InternalError is a panic inside Emit (a bug of the emitter or of llir),
// as an error: its message is one line, the stack is kept for bug reports
// and never printed to a user.
type InternalError struct {
	Msg   string
	Stack string
}

func (e *InternalError) Error() string { return "tollvm: internal error: " + e.Msg }

// Emit lowers every func.func of m to LLVM IR and returns the module text.
// Unsupported ops, types and attributes are reported as located errors; Emit
// never panics (a panic inside llir is turned into an *InternalError).
func Emit(m *ir.Module, opts Options) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			msg, _, _ := strings.Cut(fmt.Sprint(r), "\n")
			out, err = "", &InternalError{Msg: msg, Stack: string(debug.Stack())}
		}
	}()
	tgt, err := lookupTarget(opts.Target, opts.Emulate)
	if err != nil {
		return "", err
	}
	if !tgt.Kernels {
		if m, err = expandCPUMath(m, opts); err != nil {
			return "", err
		}
	} else if opts.Math == "libm" {
		return "", fmt.Errorf("math=libm applies to CPU targets: GPU kernels have no C library (math=expand or libdevice)")
	}
	me := newModuleEmitter(tgt)
	me.libdevice = opts.Math == "libdevice"
	me.contract = opts.Contract
	me.reassocReductions = opts.ReassociateFPReductions
	if err := me.setThreads(opts); err != nil {
		return "", err
	}
	kernels := 0
	for _, op := range m.Body().Ops {
		switch {
		case op.Is(fn.Func) && tgt.Kernels:
			// Host code: the kernels it launches are emitted from their
			// gpu.module; what it computes itself must be host work.
			if err := checkHostFunc(op); err != nil {
				return "", err
			}
		case op.Is(fn.Func) && op.Attr(abi.AttrShapeOf) != nil:
			// Emitted with the function whose shape it computes.
			if f := lookupFunc(m, op.Attr(abi.AttrShapeOf)); f == nil || me.shapeFuncOf(f) != op {
				return "", ir.Errorf(op.Loc, "tollvm: @%s computes the result shape of %s, which is not a func.func of this module", ir.SymbolName(op), op.Attr(abi.AttrShapeOf))
			}
		case op.Is(fn.Func):
			if err := me.emitFunc(op); err != nil {
				return "", err
			}
		case op.Is(gpu.Module) && tgt.Kernels:
			if err := me.emitGPUModule(op); err != nil {
				return "", err
			}
			kernels++
		case op.Is(gpu.Module):
			return "", ir.Errorf(op.Loc, "tollvm: GPU kernels need target=nvptx64 (this is target=%s)", tgt.Name)
		default:
			return "", ir.Errorf(op.Loc, "tollvm: unsupported top-level operation '%s' (only func.func and gpu.module are lowered)", op.Name)
		}
	}
	if tgt.Kernels && kernels == 0 && len(m.Body().Ops) > 0 && !isContainer(m) {
		return "", fmt.Errorf("tollvm: target %s emits GPU kernels, and the module has none: run gpu-kernel-outlining before convert-to-llvm", tgt.Name)
	}
	if err := checkNameClashes(m, me.mod); err != nil {
		return "", err
	}
	if err := checkTerminators(me.mod); err != nil {
		return "", err
	}
	cpu, features, err := ResolveCPU(tgt.Name, opts.CPU)
	if err != nil {
		return "", err
	}
	applyCPU(me.mod, cpu, features)
	return me.mod.String(), nil
}

// moduleEmitter owns the LLVM module and the declarations shared by all
// functions (intrinsics, libc and libm functions, string constants).
type moduleEmitter struct {
	tgt     *targetDesc
	mod     *ll.Module
	decls   map[string]*ll.Func
	strs    map[string]constant.Constant
	globals map[string]bool
	// nextGlobal is, per base name, the next suffix globalName tries.
	nextGlobal map[string]int
	// libdevice: math the GPU cannot compute natively calls libdevice.
	libdevice bool
	// rareProf is the branch_weights node of rarelyTrue, once made.
	rareProf *metadata.Tuple
	// asserts are the cf.assert checks of the function being emitted; their
	// codes start at abi.AssertCodeBase, after the entry checks' codes.
	asserts []check
	// omp: outermost parallel loops are outlined and run through libgomp
	// (threads.go) when they are estimated to execute at least minWork
	// operations; outlined counts the outlined loops of the module.
	omp      bool
	minWork  int64
	outlined int
	// contract adds the contract flag to float adds, subtracts and
	// multiplies (Options.Contract).
	contract bool
	// reassocReductions lets float vector.reduction add and mul run as a
	// tree (Options.ReassociateFPReductions).
	reassocReductions bool
	// funcName is the function being emitted; errBuf and errCode are its
	// message buffer and last failure code, once made (errGlobals), and
	// allocFails says whether its code can fail to allocate.
	funcName        string
	errBuf, errCode *ll.Global
	allocFails      bool
	// shapeFuncs maps a function's name to its f_result_shape_data
	// (shape_data.go), built once: looking it up per function made
	// modules of many functions quadratic.
	shapeFuncs map[string]*ir.Operation
}

func newModuleEmitter(tgt *targetDesc) *moduleEmitter {
	mod := ll.NewModule()
	mod.TargetTriple = tgt.Triple
	mod.DataLayout = tgt.DataLayout
	return &moduleEmitter{tgt: tgt, mod: mod, decls: map[string]*ll.Func{}, strs: map[string]constant.Constant{}, globals: map[string]bool{}, nextGlobal: map[string]int{}}
}

// declare returns the external function name, declaring it on first use.
// Intrinsics are declared with the attributes LLVM gives them anyway; libc
// and libm functions get nounwind so calls need no landing pads.
func (me *moduleEmitter) declare(name string, ret types.Type, variadic bool, params ...types.Type) *ll.Func {
	if f, ok := me.decls[name]; ok {
		return f
	}
	ps := make([]*ll.Param, len(params))
	for i, t := range params {
		ps[i] = ll.NewParam("", t)
	}
	f := me.mod.NewFunc(name, ret, ps...)
	f.Sig.Variadic = variadic
	f.FuncAttrs = append(f.FuncAttrs, enum.FuncAttrNoUnwind)
	me.decls[name] = f
	return f
}

// cstring returns an i8* to a private NUL-terminated string constant; equal
// strings share one global.
func (me *moduleEmitter) cstring(s string) constant.Constant {
	if c, ok := me.strs[s]; ok {
		return c
	}
	data := constant.NewCharArrayFromString(s + "\x00")
	g := me.mod.NewGlobalDef(me.globalName(".str"), data)
	g.Immutable = true
	g.Linkage = enum.LinkagePrivate
	g.UnnamedAddr = enum.UnnamedAddrUnnamedAddr
	g.Align = 1
	zero := constant.NewInt(types.I64, 0)
	gep := constant.NewGetElementPtr(data.Typ, g, zero, zero)
	gep.InBounds = true
	me.strs[s] = gep
	return gep
}

// globalName returns a module-unique global name starting with base.
func (me *moduleEmitter) globalName(base string) string {
	name := base
	i := max(me.nextGlobal[base], 1)
	for ; me.globals[name]; i++ {
		name = fmt.Sprintf("%s.%d", base, i)
	}
	me.nextGlobal[base] = i // probing from 1 each time was quadratic
	me.globals[name] = true
	return name
}

// checkNameClashes reports a function whose name is also that of another
// function: a func.func named like a C function the module calls (free,
// snprintf, tanhf, or expf, which llc calls for llvm.exp.f32; see
// libcalls.go), located at the func.func, or like another function's
// helpers (f_error).
func checkNameClashes(m *ir.Module, mod *ll.Module) error {
	if err := checkLibraryClashes(m, mod); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, f := range mod.Funcs {
		if seen[f.Name()] {
			return fmt.Errorf("tollvm: function name @%s is used twice (a func.func named like a C library function or another function's ABI helper?)", f.Name())
		}
		seen[f.Name()] = true
	}
	return nil
}

// checkTerminators reports a block without terminator, which llir would
// panic on when printing; it is always a bug of this package, but an error
// naming the function is more useful than a crash.
func checkTerminators(mod *ll.Module) error {
	for _, f := range mod.Funcs {
		for _, b := range f.Blocks {
			if b.Term == nil {
				return fmt.Errorf("tollvm: internal error: block %s of function %s has no terminator", b.Ident(), f.Ident())
			}
		}
	}
	return nil
}

// isContainer reports whether m was outlined for a GPU (it may have no
// kernel: a function without loops).
func isContainer(m *ir.Module) bool {
	_, ok := m.Op.Attr(gpu.ContainerModuleAttr).(ir.UnitAttr)
	return ok
}
