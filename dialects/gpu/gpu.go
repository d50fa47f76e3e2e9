// Package gpu is the part of MLIR 16's gpu dialect that kernel outlining
// produces, with MLIR 16's custom syntax and generic representation:
//
//   - gpu.module @m { ... }: a symbol table of kernels (sym_name; one block
//     ending in the implicit terminator gpu.module_end), directly inside a
//     builtin.module;
//   - gpu.func @k(%a: T, ...) [workgroup(...)] [private(...)] [kernel]
//     { ... gpu.return }: a device function or, with the unit attribute
//     gpu.kernel, a kernel (function_type, sym_name, workgroup_attributions;
//     optionally gpu.known_block_size / gpu.known_grid_size);
//   - gpu.thread_id, gpu.block_id, gpu.block_dim, gpu.grid_dim: the index of
//     the thread or block and the sizes along one dimension
//     (dimension = #gpu<dim x>);
//   - gpu.launch_func @m::@k blocks in (...) threads in (...) args(...): the
//     host side of a launch, operands segmented by operand_segment_sizes
//     (async dependencies, grid x y z, block x y z, dynamic shared memory
//     size, kernel operands).
//
// Where MLIR 16 is looser our verifiers are stricter, so that the IR a pass
// builds is the IR the later stages expect: index ops must be inside a
// gpu.func, and a gpu.module must be directly inside a builtin.module (the
// symbol table gpu.launch_func resolves its kernel in).
package gpu

import "tir/dialects/ir"

// Attribute names with a meaning in this dialect.
const (
	// ContainerModuleAttr marks a builtin.module that holds gpu.modules
	// next to the host code launching them; gpu.launch_func requires it on
	// its closest module, as MLIR does.
	ContainerModuleAttr = "gpu.container_module"
	// KernelAttr (a unit attribute) makes a gpu.func a kernel, one that
	// gpu.launch_func may launch; the custom form spells it `kernel`.
	KernelAttr = "gpu.kernel"
	// KnownBlockSizeAttr and KnownGridSizeAttr are array<i32: x, y, z>
	// facts about the launches of a kernel that later lowerings may use.
	KnownBlockSizeAttr = "gpu.known_block_size"
	KnownGridSizeAttr  = "gpu.known_grid_size"
)

// AsyncToken is the type of the token an async launch returns and waits on.
// No gpu op here produces one except gpu.launch_func async; the type is kept
// as an opaque dialect type, which prints as MLIR spells it.
var AsyncToken ir.Type = ir.OpaqueType{Name: "gpu.async.token"}

func init() { ir.RegisterAttr("gpu", parseGPUAttr) }

// enclosing returns the closest op of kind k that (transitively) holds op,
// or nil.
func enclosing(op *ir.Operation, k ir.OpKind) *ir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Is(k) {
			return p
		}
	}
	return nil
}
