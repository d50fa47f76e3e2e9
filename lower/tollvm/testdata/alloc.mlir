// Generated from src/alloc.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<() -> (0)>
#map1 = affine_map<(d0) -> (d0)>
#map2 = affine_map<()[s0] -> (s0)>
#map3 = affine_map<(d0)[s0] -> (-d0 + s0 - 1)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<?xf32>, %arg1: memref<?xf32>, %arg2: index):
    %0 = "arith.constant"() {value = 2.000000e+00 : f32} : () -> f32
    %1 = "memref.alloc"(%arg2) {operand_segment_sizes = array<i32: 1, 0>} : (index) -> memref<?xf32>
    %2 = "memref.alloc"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<1xf32>
    %3 = "arith.constant"() {value = 0.000000e+00 : f32} : () -> f32
    "affine.store"(%3, %2) {map = #map} : (f32, memref<1xf32>) -> ()
    "affine.for"(%arg2) ({
    ^bb0(%arg3: index):
      %7 = "affine.load"(%arg0, %arg3) {map = #map1} : (memref<?xf32>, index) -> f32
      %8 = "arith.mulf"(%7, %0) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "affine.store"(%8, %1, %arg3) {map = #map1} : (f32, memref<?xf32>, index) -> ()
      %9 = "affine.load"(%2) {map = #map} : (memref<1xf32>) -> f32
      %10 = "arith.addf"(%9, %7) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "affine.store"(%10, %2) {map = #map} : (f32, memref<1xf32>) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map, step = 1 : index, upper_bound = #map2} : (index) -> ()
    %4 = "arith.constant"() {value = 0 : index} : () -> index
    %5 = "memref.dim"(%1, %4) : (memref<?xf32>, index) -> index
    %6 = "affine.load"(%2) {map = #map} : (memref<1xf32>) -> f32
    "affine.for"(%5) ({
    ^bb0(%arg3: index):
      %7 = "affine.load"(%1, %arg3) {map = #map1} : (memref<?xf32>, index) -> f32
      %8 = "affine.load"(%1, %arg3, %5) {map = #map3} : (memref<?xf32>, index, index) -> f32
      %9 = "arith.addf"(%7, %8) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      %10 = "arith.subf"(%9, %6) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "affine.store"(%10, %arg1, %arg3) {map = #map1} : (f32, memref<?xf32>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map, step = 1 : index, upper_bound = #map2} : (index) -> ()
    "memref.dealloc"(%1) : (memref<?xf32>) -> ()
    "memref.dealloc"(%2) : (memref<1xf32>) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<?xf32>, memref<?xf32>, index) -> (), sym_name = "alloc", tir.arg_names = ["inp", "out", "N"], tir.dim_names = [["I"], ["I"], []], tir.extents = [#map2, #map2, unit], tir.num_results = 1 : i64} : () -> ()
}) : () -> ()

