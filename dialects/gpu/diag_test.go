package gpu_test

import (
	"testing"

	"tir/dialects/gpu"
	"tir/dialects/internal/dialecttest"
	"tir/dialects/printer"
)

// launching is a container module with a kernel @m::@k(f32), a device
// function @m::@d(f32) and, at line 12 of a host function with %x: f32,
// %i: i32 and %c1 (index), the launch given.
func launching(launch string) string {
	return `module attributes {gpu.container_module} {
  gpu.module @m {
    gpu.func @k(%a: f32) kernel {
      gpu.return
    }
    gpu.func @d(%a: f32) {
      gpu.return
    }
  }
  func.func @host(%x: f32, %i: i32) {
    %c1 = arith.constant 1 : index
    ` + launch + `
    func.return
  }
}`
}

func TestDiagnostics(t *testing.T) {
	dialecttest.CheckDiagnostics(t, []dialecttest.DiagCase{
		// Index ops.
		{Name: "bad dimension", Line: 3, Want: "expected a dimension: x, y or z, found 'w'", Src: `gpu.module @m {
  gpu.func @k() kernel {
    %t = gpu.thread_id w
    gpu.return
  }
}`},
		{Name: "bad dimension attribute", Line: 3, Want: "expected a dimension: x, y or z, found 'w'", Src: `gpu.module @m {
  gpu.func @k() kernel {
    %t = "gpu.block_dim"() {dimension = #gpu<dim w>} : () -> index
    gpu.return
  }
}`},
		{Name: "two dimensions", Line: 3, Want: "unexpected 'y'", Src: `gpu.module @m {
  gpu.func @k() kernel {
    %t = "gpu.block_dim"() {dimension = #gpu<dim x y>} : () -> index
    gpu.return
  }
}`},
		{Name: "dimension of the wrong kind", Line: 3, Want: "'gpu.grid_dim' op attribute 'dimension' failed to satisfy constraint: a dimension, either 'x', 'y', or 'z'", Src: `gpu.module @m {
  gpu.func @k() kernel {
    %t = "gpu.grid_dim"() {dimension = "x"} : () -> index
    gpu.return
  }
}`},
		{Name: "index result type", Line: 3, Want: "'gpu.block_id' result type i32 does not match the inferred type index", Src: `gpu.module @m {
  gpu.func @k() kernel {
    %t = "gpu.block_id"() {dimension = #gpu<dim x>} : () -> i32
    gpu.return
  }
}`},
		{Name: "index op outside gpu.func", Line: 2, Want: "'gpu.thread_id' op must be inside a gpu.func", Src: `func.func @f() {
  %t = gpu.thread_id  x
  func.return
}`},

		// gpu.module and its terminator.
		{Name: "module in a function", Line: 2, Want: "'gpu.module' op expects parent op 'builtin.module'", Src: `func.func @f() {
  gpu.module @m {
  }
  func.return
}`},
		{Name: "module in a module", Line: 2, Want: "'gpu.module' op expects parent op 'builtin.module'", Src: `gpu.module @m {
  gpu.module @n {
  }
}`},
		{Name: "module_end outside", Line: 2, Want: "'gpu.module_end' op expects parent op 'gpu.module'", Src: `func.func @f() {
  gpu.module_end
}`},
		{Name: "generic module without terminator", Line: 1, Want: "'gpu.module' op body must end with 'gpu.module_end'", Src: `"gpu.module"() ({
^bb0:
}) {sym_name = "m"} : () -> ()`},

		// gpu.func and gpu.return.
		{Name: "func outside gpu.module", Line: 1, Want: "'gpu.func' op expects parent op 'gpu.module'", Src: `gpu.func @k() kernel {
  gpu.return
}`},
		{Name: "kernel with results", Line: 2, Want: "'gpu.func' op expected void return type for kernel function", Src: `gpu.module @m {
  gpu.func @k(%a: f32) -> f32 kernel {
    gpu.return %a : f32
  }
}`},
		{Name: "kernel returns a value", Line: 3, Want: "'gpu.return' op expected 0 result operands: kernel @k returns nothing", Src: `gpu.module @m {
  gpu.func @k(%a: f32) kernel {
    gpu.return %a : f32
  }
}`},
		{Name: "return count", Line: 3, Want: "'gpu.return' op expected 1 result operands, got 0 (function @d)", Src: `gpu.module @m {
  gpu.func @d(%a: f32) -> f32 {
    gpu.return
  }
}`},
		{Name: "return type", Line: 3, Want: "'gpu.return' op unexpected type 'i32' for operand #0: function @d returns f32", Src: `gpu.module @m {
  gpu.func @d(%a: i32) -> f32 {
    gpu.return %a : i32
  }
}`},
		{Name: "return outside gpu.func", Line: 2, Want: "'gpu.return' op expects parent op 'gpu.func'", Src: `func.func @f() {
  gpu.return
}`},
		{Name: "func.return in gpu.func", Line: 3, Want: "'func.return' op expects parent op 'func.func'", Src: `gpu.module @m {
  gpu.func @k() kernel {
    func.return
  }
}`},
		{Name: "bare return in gpu.func", Line: 3, Want: "custom op 'return' is unknown (tried '.return' as well)", Src: `gpu.module @m {
  gpu.func @k() kernel {
    return
  }
}`},
		{Name: "missing return", Line: 2, Want: "'gpu.func' op body must end with gpu.return", Src: `gpu.module @m {
  gpu.func @k() kernel {
    %t = gpu.thread_id  x
  }
}`},
		{Name: "kernel attribute kind", Line: 2, Want: "'gpu.func' op 'gpu.kernel' must be a unit attribute", Src: `gpu.module @m {
  "gpu.func"() ({
    "gpu.return"() : () -> ()
  }) {function_type = () -> (), gpu.kernel = 1 : i32, sym_name = "k", workgroup_attributions = 0 : i64} : () -> ()
}`},
		{Name: "known block size count", Line: 2, Want: "'gpu.func' op gpu.known_block_size must contain exactly 3 elements", Src: `gpu.module @m {
  gpu.func @k() kernel attributes {gpu.known_block_size = array<i32: 32, 8>} {
    gpu.return
  }
}`},
		{Name: "known grid size kind", Line: 2, Want: "'gpu.func' op gpu.known_grid_size must be a dense i32 array", Src: `gpu.module @m {
  gpu.func @k() kernel attributes {gpu.known_grid_size = [1, 1, 1]} {
    gpu.return
  }
}`},
		{Name: "attribution type", Line: 2, Want: "'gpu.func' op expected memref type in attribution, got f32", Src: `gpu.module @m {
  gpu.func @k() workgroup(%w : f32) kernel {
    gpu.return
  }
}`},
		{Name: "nested function name", Line: 2, Want: "expected a flat symbol name (@name), found nested reference @m::@k", Src: `gpu.module @m {
  gpu.func @m::@k() kernel {
    gpu.return
  }
}`},

		// gpu.launch_func.
		{Name: "no container module", Line: 12, Want: "'gpu.launch_func' op expected the closest surrounding module to have the 'gpu.container_module' attribute",
			Src: `module {
  gpu.module @m {
    gpu.func @k(%a: f32) kernel {
      gpu.return
    }
    gpu.func @d(%a: f32) {
      gpu.return
    }
  }
  func.func @host(%x: f32, %i: i32) {
    %c1 = arith.constant 1 : index
    gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)
    func.return
  }
}`},
		{Name: "undefined module", Line: 12, Want: "'gpu.launch_func' op kernel module 'n' is undefined",
			Src: launching(`gpu.launch_func  @n::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "undefined kernel", Line: 12, Want: "'gpu.launch_func' op kernel function '@m::@z' is undefined",
			Src: launching(`gpu.launch_func  @m::@z blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "not a kernel", Line: 12, Want: "'gpu.launch_func' op kernel function is missing the 'gpu.kernel' attribute",
			Src: launching(`gpu.launch_func  @m::@d blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "argument count", Line: 12, Want: "'gpu.launch_func' op got 2 kernel operands but expected 1",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32, %x : f32)`)},
		{Name: "argument type", Line: 12, Want: "'gpu.launch_func' op type of kernel operand #0 (i32) does not match argument #0 of @m::@k (f32)",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%i : i32)`)},
		{Name: "annotated type differs", Line: 12, Want: "use of value '%x' expects different type than prior uses: 'i32' vs 'f32'",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : i32)`)},
		{Name: "grid size type", Line: 12, Want: "use of value '%i' expects different type than prior uses: 'index' vs 'i32'",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%i, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "generic block size type", Line: 12, Want: "'gpu.launch_func' op operand blockSizeY has type i32, expected index",
			Src: launching(`"gpu.launch_func"(%c1, %c1, %c1, %c1, %i, %c1, %x) {kernel = @m::@k, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 1>} : (index, index, index, index, i32, index, f32) -> ()`)},
		{Name: "shared memory size type", Line: 12, Want: "use of value '%c1' expects different type than prior uses: 'i32' vs 'index'",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c1 args(%x : f32)`)},
		{Name: "segment sizes", Line: 12, Want: "'gpu.launch_func' op needs operand_segment_sizes = array<i32: deps, 1, 1, 1, 1, 1, 1, 0 or 1, args> adding up to its 7 operands",
			Src: launching(`"gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %x) {kernel = @m::@k, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0>} : (index, index, index, index, index, index, f32) -> ()`)},
		{Name: "flat kernel symbol", Line: 12, Want: "expected the kernel as @module::@kernel, found @k",
			Src: launching(`gpu.launch_func  @k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "generic flat kernel symbol", Line: 12, Want: "'gpu.launch_func' op needs a 'kernel' attribute @module::@kernel",
			Src: launching(`"gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1) {kernel = @k, operand_segment_sizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0>} : (index, index, index, index, index, index) -> ()`)},
		{Name: "missing threads", Line: 12, Want: "expected 'threads', found 'args'",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "two block sizes", Line: 12, Want: "expected ','",
			Src: launching(`gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1) args(%x : f32)`)},
		{Name: "result without async", Line: 12, Want: "gpu.launch_func has a result only when it is async",
			Src: launching(`%t = gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
		{Name: "async dependency type", Line: 12, Want: "use of value '%x' expects different type than prior uses: '!gpu.async.token' vs 'f32'",
			Src: launching(`gpu.launch_func [%x] @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%x : f32)`)},
	})
}

// Other #gpu<...> attributes stay opaque, so they still round-trip.
func TestOpaqueGPUAttr(t *testing.T) {
	src := `"x.op"() {dim = #gpu<dim y>, mode = #gpu<shuffle_mode xor>} : () -> ()
`
	m := dialecttest.Parse(t, "opaque.mlir", src)
	if _, ok := m.Body().Ops[0].Attr("dim").(gpu.DimAttr); !ok {
		t.Errorf("#gpu<dim y> is %T", m.Body().Ops[0].Attr("dim"))
	}
	if out := printer.Module(m, printer.Options{}); out != src {
		t.Errorf("round trip:\n%s", dialecttest.Diff(src, out))
	}
}
