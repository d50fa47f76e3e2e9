package tollvm

import (
	"path/filepath"
	"strings"
	"testing"

	ll "github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/types"
)

// genericFunc wraps ops in a generic func.func taking a memref<4xf32> and an index.
func genericFunc(body string) string {
	return `"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<4xf32>, %arg1: index):
` + body + `
    "func.return"() : () -> ()
  }) {function_type = (memref<4xf32>, index) -> (), sym_name = "f"} : () -> ()
}) : () -> ()
`
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, opts, want string
	}{
		{"unsupported op", genericFunc(`    "foo.bar"() : () -> ()`), "", `in.mlir:4:5: error: tollvm: unsupported operation 'foo.bar'`},
		{"nested unsupported op", genericFunc(`    "affine.for"() ({
    ^bb0(%i: index):
      %x = "vector.splat"(%arg1) : (index) -> vector<4xindex>
      "affine.yield"() : () -> ()
    }) {lower_bound = affine_map<() -> (0)>, step = 1 : index, upper_bound = affine_map<() -> (4)>} : () -> ()`), "", `in.mlir:6:7: error: tollvm: unsupported operation 'vector.splat'`},
		{"nvptx without kernels", genericFunc(""), "nvptx64", "run gpu-kernel-outlining before convert-to-llvm"},
		{"unknown target", genericFunc(""), "riscv", `unknown target "riscv"`},
		{"results", `"func.func"() ({
  ^bb0(%arg0: index):
    "func.return"(%arg0) : (index) -> ()
  }) {function_type = (index) -> index, sym_name = "g"} : () -> ()`, "", "destination-passing style"},
		{"top-level op", `"memref.global"() {sym_name = "x", type = memref<4xf32>} : () -> ()`, "", "unsupported top-level operation 'memref.global'"},
		{"bad step", genericFunc(`    "affine.for"() ({
    ^bb0(%i: index):
      "affine.yield"() : () -> ()
    }) {lower_bound = affine_map<() -> (0)>, step = 0 : index, upper_bound = affine_map<() -> (4)>} : () -> ()`), "", "step must be positive"},
		// Byte counts known to overflow are refused where the buffer is
		// made (the run-time ones return a status code, allocfail.go).
		{"huge alloc", genericFunc(`    %0 = "memref.alloc"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<4611686018427387904x4xf64>`), "", "in.mlir:4:5: error: tollvm: memref.alloc of memref<4611686018427387904x4xf64> needs 2^63 bytes or more"},
		{"huge alloca", genericFunc(`    %0 = "memref.alloca"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<3x3074457345618258603xi8>`), "", "in.mlir:4:5: error: tollvm: memref.alloca of memref<3x3074457345618258603xi8> needs 2^63 bytes or more"},
		{"dealloc of argument", genericFunc(`    "memref.dealloc"(%arg0) : (memref<4xf32>) -> ()`), "", "memref.dealloc of a buffer not allocated by memref.alloc"},
		{"bad extents", `"func.func"() ({
  ^bb0(%arg0: memref<?xf32>, %arg1: index):
    "func.return"() : () -> ()
  }) {function_type = (memref<?xf32>, index) -> (), sym_name = "h", tir.extents = [affine_map<()[s0, s1] -> (s0)>, unit]} : () -> ()`, "", "at most 1 symbols"},
		{"name clash", `"func.func"() ({
  ^bb0(%arg0: index):
    %0 = "memref.alloc"(%arg0) {operand_segment_sizes = array<i32: 1, 0>} : (index) -> memref<?xf32>
    "memref.dealloc"(%0) : (memref<?xf32>) -> ()
    "func.return"() : () -> ()
  }) {function_type = (index) -> (), sym_name = "free"} : () -> ()`, "", "in.mlir:1:1: error: tollvm: function @free clashes with free, a C function the compiled module calls"},
		// llc turns llvm.log.f32 into a call of logf, for vectors too
		// (on generic x86-64; exp is expanded there, cpumath.go).
		{"libm clash", `"func.func"() ({
  ^bb0(%arg0: memref<8xf32>):
    "affine.for"() ({
    ^bb0(%i: index):
      %x = "affine.load"(%arg0, %i) {map = affine_map<(d0) -> (d0)>} : (memref<8xf32>, index) -> f32
      %e = "math.log"(%x) : (f32) -> f32
      "affine.store"(%e, %arg0, %i) {map = affine_map<(d0) -> (d0)>} : (f32, memref<8xf32>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = affine_map<() -> (0)>, step = 1 : index, upper_bound = affine_map<() -> (8)>} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<8xf32>) -> (), sym_name = "logf"} : () -> ()`, "", "tollvm: function @logf clashes with logf, the libm function llc calls for llvm.log"},
		// A function named like another's ABI helper.
		{"helper clash", `"func.func"() ({
  ^bb0(%arg0: index):
    "func.return"() : () -> ()
  }) {function_type = (index) -> (), sym_name = "g"} : () -> ()
  "func.func"() ({
  ^bb0(%arg0: index):
    "func.return"() : () -> ()
  }) {function_type = (index) -> (), sym_name = "g_error"} : () -> ()`, "", "function name @g_error is used twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := parseMLIR(t, "in.mlir", tc.src)
			_, err := Emit(m, Options{Target: tc.opts})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestCheckTerminators: llir panics when printing a block without a
// terminator; the check reports it instead.
func TestCheckTerminators(t *testing.T) {
	mod := ll.NewModule()
	f := mod.NewFunc("f", types.Void)
	f.NewBlock("entry")
	if err := checkTerminators(mod); err == nil || !strings.Contains(err.Error(), "no terminator") {
		t.Fatalf("got %v", err)
	}
}

// TestSpecialConstants: NaN and infinities (written as bit patterns by
// MLIR) and f16 values reach llc as valid constants.
func TestSpecialConstants(t *testing.T) {
	llc := tool(t, "llc")
	src := genericFunc(`    %0 = "arith.constant"() {value = 0x7FC00000 : f32} : () -> f32
    %1 = "arith.constant"() {value = 0xFF800000 : f32} : () -> f32
    %2 = "arith.constant"() {value = 0x7FF0000000000000 : f64} : () -> f64
    %3 = "arith.constant"() {value = 1.000000e-01 : f32} : () -> f32
    %4 = "arith.addf"(%0, %1) : (f32, f32) -> f32
    %5 = "arith.addf"(%4, %3) : (f32, f32) -> f32
    %6 = "arith.truncf"(%2) : (f64) -> f32
    %7 = "arith.addf"(%5, %6) : (f32, f32) -> f32
    %8 = "arith.constant"() {value = true} : () -> i1
    %9 = "arith.select"(%8, %7, %3) : (i1, f32, f32) -> f32
    "affine.store"(%9, %arg0, %arg1) {map = affine_map<(d0) -> (d0)>} : (f32, memref<4xf32>, index) -> ()`)
	m := parseMLIR(t, "in.mlir", src)
	dir := t.TempDir()
	path := emitFile(t, m, Options{}, dir, "special")
	run(t, dir, llc, "-O3", "-o", filepath.Join(dir, "special.s"), path)
}

// TestIntList reads every spelling of affine.parallel's integer arrays.
func TestIntList(t *testing.T) {
	m := parseMLIR(t, "in.mlir", `"test.op"() {a = [1, 2], b = array<i32: 3, 4>, c = dense<[5, 6]> : tensor<2xi32>, d = dense<7> : tensor<3xi32>, e = array<i32>} : () -> ()`)
	op := m.Body().Ops[0]
	for name, want := range map[string][]int64{"a": {1, 2}, "b": {3, 4}, "c": {5, 6}, "d": {7, 7, 7}, "e": nil} {
		got, ok := intList(op.Attr(name))
		if !ok || len(got) != len(want) {
			t.Errorf("%s: got %v %v, want %v", name, got, ok, want)
			continue
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: got %v, want %v", name, got, want)
			}
		}
	}
}

// TestOddNames: duplicate, numeric and quoted argument names still give
// valid LLVM IR.
func TestOddNames(t *testing.T) {
	llc := tool(t, "llc")
	m := parseMLIR(t, "in.mlir", `"func.func"() ({
  ^bb0(%arg0: memref<4xf32>, %arg1: memref<4xf32>, %arg2: index):
    "func.return"() : () -> ()
  }) {function_type = (memref<4xf32>, memref<4xf32>, index) -> (), sym_name = "odd name", tir.arg_names = ["a", "a", "0"], tir.dim_names = [["100%"], ["x y"], []]} : () -> ()`)
	dir := t.TempDir()
	path := emitFile(t, m, Options{}, dir, "odd")
	run(t, dir, llc, "-O3", "-o", filepath.Join(dir, "odd.s"), path)
}

// TestLibcallName: the C function llc may call for a math intrinsic.
func TestLibcallName(t *testing.T) {
	for in, want := range map[string]string{
		"llvm.exp.f32": "expf", "llvm.exp.v8f32": "expf", "llvm.pow.f64": "pow", "llvm.floor.v4f64": "floor",
		"llvm.round.f32": "roundf", "llvm.sqrt.f32": "", "llvm.fabs.f64": "", "llvm.abs.i32": "", "tanhf": "",
	} {
		if got := libcallName(in); got != want {
			t.Errorf("libcallName(%s) = %q, want %q", in, got, want)
		}
	}
}
