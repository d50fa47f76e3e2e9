// Package lower registers the conversion passes (convert-tir-to-affine,
// lower-affine, gpu-kernel-outlining, convert-to-llvm) in the one pass
// table tc-opt reads, and links in the packages that register the other
// passes (the affine loop passes, the tir passes, tir-derivatives,
// expand-math): tools import it, for that side effect, to get the whole
// table.
package lower

import (
	"fmt"

	"tir/dialects/ir"
	"tir/lower/affinescf"
	"tir/lower/gpuoutline"
	"tir/lower/tiraffine"
	"tir/lower/tollvm"
	"tir/passes"
	_ "tir/passes/affinepasses" // affine loop passes
	_ "tir/passes/derivatives"  // tir-derivatives
	_ "tir/passes/tirpasses"    // tir-inline, tir-temporaries

	_ "tir/passes/mathexpand" // expand-math (GPU math without libdevice)
)

func init() {
	passes.Register(&passes.Def{
		Name:    "convert-tir-to-affine",
		Title:   "ConvertTIRToAffine",
		Summary: "Lower tir.func to func.func with affine loop nests over memrefs (destination-passing style, fused)",
		Anchor:  passes.AnchorModule,
		Options: []passes.OptionSpec{
			{Name: "scan-columns", Type: passes.OptBool, Default: true,
				Help: "keep a scan read only by later scans of the same column (a forward sweep read by a backward one) in a column-sized buffer; only the outermost loop of such a nest stays parallel (GPU pipelines turn it off)"},
			{Name: "scan-lanes", Type: passes.OptInt, Default: 1,
				Help: "compute the scans of a nest with outer dimensions for this many neighbouring columns in one loop, so that their dependence chains overlap (1: one column per loop)"},
			{Name: "scan-rows", Type: passes.OptBool, Default: false,
				Help: "sweep scans whose dimension is stored before the innermost other dimension J with a loop over J inside each step (state in a row, columns in a slab), a contiguous parallel loop that affine-vectorize vectorizes"},
			{Name: "split-pieces", Type: passes.OptBool, Default: false,
				Help: "split the loops of a nest whose points pick among the pieces of a concat (zero padding) at the pieces' bounds: the range inside all of them computes without a test, the edges keep the tests"},
			{Name: "atomic-scatters", Type: passes.OptBool, Default: false,
				Help: "compute scatter-adds (a gather's adjoint) with a parallel sweep over the table's entries whose updates are atomic adds (memref.atomic_rmw), for GPU targets, instead of one sequential sweep in the interpreter's order"},
			{Name: "sweep-riders", Type: passes.OptBool, Default: true,
				Help: "compute the results over a scatter-add's table in its sequential sweep when they need nothing else still to compute, instead of a parallel nest of their own (what both read is read once; --threads turns it off)"},
		},
		Check: func(o passes.Options) error {
			if n := o.Int("scan-lanes"); n < 1 || n > 16 {
				return fmt.Errorf("scan-lanes must be between 1 and 16, got %d", n)
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			opts := tiraffine.Options{ScanColumns: o.Bool("scan-columns"), ScanLanes: o.Int("scan-lanes"), ScanRows: o.Bool("scan-rows"), SplitPieces: o.Bool("split-pieces"), AtomicScatters: o.Bool("atomic-scatters"), SweepRiders: o.Bool("sweep-riders")}
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return tiraffine.ConvertWith(ctx.Module, opts)
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "convert-to-llvm",
		Title:   "ConvertToLLVM",
		Summary: "Emit LLVM 14 IR for the affine-stage module (C ABI of spec 5.1); tc-opt then prints it",
		Anchor:  passes.AnchorModule,
		Options: []passes.OptionSpec{
			{Name: "target", Type: passes.OptString, Default: "x86_64", Help: "x86_64, aarch64 or nvptx64 (GPU kernels; outline them first with gpu-kernel-outlining)", Choices: passes.Targets},
			{Name: "math", Type: passes.OptString, Default: "auto", Choices: tollvm.MathModes,
				Help: "exp, log, sin, tanh, ...: expand computes them with tc-opt's own expansion (arithmetic, fma and selects, in vector registers), libdevice (nvptx64) calls libdevice's __nv_* functions (link libdevice.10.bc), libm (CPU targets) calls the C library, once per lane for vectors; auto expands on nvptx64 and on CPUs with FMA instructions (cpu=x86-64-v3 and later, native where it has them, every aarch64), and calls libm on others"},
			{Name: "emulate", Type: passes.OptBool, Default: false,
				Help: "nvptx64: emit the kernels for the host CPU, with thread indices as arguments (for running them without a GPU)"},
			{Name: "threads", Type: passes.OptString, Default: "none", Choices: tollvm.ThreadModes,
				Help: "CPU targets: omp runs the outermost parallel loops on all cores through GNU OpenMP's runtime (GOMP_parallel; link with gcc -fopenmp or -lgomp)"},
			{Name: "cpu", Type: passes.OptString, Default: "",
				Help: "CPU targets: the processor to generate code for, written as target-cpu/target-features so that plain llc -O3 uses its instructions: native (this machine) or an LLVM name (x86-64-v3, znver3, skylake-avx512, neoverse-n1, ...); empty: generic"},
			{Name: "contract", Type: passes.OptBool, Default: false,
				Help: "let llc fuse float multiplies with the adds and subtracts that use them (the contract flag; FMA instructions where the CPU has them): faster, and results may differ from the interpreter's in the last bits"},
			{Name: "reassociate-fp-reductions", Type: passes.OptBool, Default: false,
				Help: "let the float add and mul kinds of vector.reduction combine their lanes as a tree (the reassoc flag) instead of in lane order, as MLIR's convert-vector-to-llvm option: faster, and results may differ in the last bits"},
			{Name: "parallel-min-work", Type: passes.OptInt, Default: tollvm.DefaultParallelMinWork,
				Help: "with threads=omp: the estimated operations each thread must get; a nest runs on as many threads as it has that much work for, on the calling thread below twice that (0: fork whenever the loop has two iterations or more)"},
		},
		Check: func(o passes.Options) error {
			if o.String("threads") == "omp" && o.String("target") == "nvptx64" {
				return fmt.Errorf("threads=omp applies to CPU targets (x86_64, aarch64), not nvptx64")
			}
			if _, _, err := tollvm.ResolveCPU(o.String("target"), o.String("cpu")); err != nil {
				return err
			}
			switch m, gpu := o.String("math"), o.String("target") == "nvptx64"; {
			case m == "libm" && gpu:
				return fmt.Errorf("math=libm applies to CPU targets (x86_64, aarch64), not nvptx64")
			case m == "libdevice" && !gpu:
				return fmt.Errorf("math=libdevice applies to nvptx64, not %s", o.String("target"))
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			minWork := int64(o.Int("parallel-min-work"))
			if minWork == 0 {
				minWork = -1 // 0 is Options' "default"; here it means no threshold
			}
			opts := tollvm.Options{Target: o.String("target"), Math: o.String("math"), Emulate: o.Bool("emulate"),
				Threads: o.String("threads"), ParallelMinWork: minWork, CPU: o.String("cpu"), Contract: o.Bool("contract"),
				ReassociateFPReductions: o.Bool("reassociate-fp-reductions")}
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				text, err := tollvm.Emit(ctx.Module, opts)
				if ie, ok := err.(*tollvm.InternalError); ok {
					// A bug, not an input error: tc-opt exits 3.
					return &passes.InternalError{Pass: "convert-to-llvm", Msg: ie.Error(), Loc: op.Loc, Stack: ie.Stack}
				}
				if err != nil {
					return err
				}
				// The LLVM text rides on the module; tc-opt prints it.
				ctx.Module.Op.SetAttr(LLVMAttr, ir.StringAttr(text))
				return nil
			})
		},
	})
}

func init() {
	passes.Register(&passes.Def{
		Name:    "lower-affine",
		Title:   "LowerAffine",
		Summary: "Lower affine loops, conditions, loads and stores to scf, arith and memref ops (explicit index arithmetic)",
		Anchor:  passes.AnchorAny,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return affinescf.Lower(op)
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "gpu-kernel-outlining",
		Title:   "GpuKernelOutlining",
		Summary: "Turn each outermost loop nest into a gpu.func kernel (parallel loops mapped to threads, x innermost) launched by gpu.launch_func",
		Anchor:  passes.AnchorModule,
		Options: []passes.OptionSpec{
			{Name: "block", Type: passes.OptIntList, Default: []int{int(gpuoutline.DefaultBlock[0]), int(gpuoutline.DefaultBlock[1])},
				Help: "thread-block shape x,y[,z]; a kernel mapping fewer directions multiplies the rest into its last one (32,8: 256 threads in 1-D, 32x8 in 2-D and 3-D)"},
			{Name: "coarsen", Type: passes.OptInt, Default: 1,
				Help: "points of its outermost direction each thread computes in a kernel whose body is straight-line code (loads of several points in flight, shared loads merged; 1: one point)"},
		},
		Check: func(o passes.Options) error {
			b := o.Ints("block")
			if len(b) == 0 || len(b) > 3 {
				return fmt.Errorf("block takes 1 to 3 sizes, got %d", len(b))
			}
			total := 1
			for _, x := range b {
				if x <= 0 || x > 1024 {
					return fmt.Errorf("block sizes must be between 1 and 1024, got %d", x)
				}
				total *= x
			}
			if total > 1024 {
				return fmt.Errorf("a thread block has at most 1024 threads, %v has %d", b, total)
			}
			if c := o.Int("coarsen"); c < 1 || c > 16 {
				return fmt.Errorf("coarsen must be between 1 and 16, got %d", c)
			}
			if len(b) == 3 && b[2] > 64 {
				return fmt.Errorf("the z extent of a thread block is at most 64, got %d", b[2])
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			opts := gpuoutline.Options{Coarsen: int64(o.Int("coarsen"))}
			for i, x := range o.Ints("block") {
				opts.Block[i] = int64(x)
			}
			if len(o.Ints("block")) < 3 {
				opts.Block[2] = 1
			}
			if len(o.Ints("block")) < 2 {
				opts.Block[1] = 1
			}
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return gpuoutline.Outline(ctx.Module, opts)
			})
		},
	})
}

// LLVMAttr is the module attribute that carries the emitted LLVM IR.
const LLVMAttr = "llvm.ir"
