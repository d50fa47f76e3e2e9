// Generated from src/threads.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<() -> ()>
#map1 = affine_map<(d0, d1) -> (d0, d1)>
#map2 = affine_map<() -> (0)>
#map3 = affine_map<() -> (8)>
#map4 = affine_map<()[s0] -> (s0)>
#map5 = affine_map<(d0) -> (d0)>
#map6 = affine_map<(d0) -> (d0, 0)>
#map7 = affine_map<() -> (1)>
#map8 = affine_map<() -> (0, 0)>
#map9 = affine_map<()[s0] -> (s0, 8)>
#map10 = affine_map<()[s0] -> ()>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<?x8xf32>, %arg1: memref<f32>, %arg2: memref<?x8xf32>, %arg3: index):
    %0 = "memref.alloc"(%arg3) {operand_segment_sizes = array<i32: 1, 0>} : (index) -> memref<?x8xf32>
    %1 = "memref.alloca"() {operand_segment_sizes = array<i32: 0, 0>} : () -> memref<8xf32>
    %2 = "affine.load"(%arg1) {map = #map} : (memref<f32>) -> f32
    "affine.for"(%arg3) ({
    ^bb0(%arg4: index):
      "affine.for"() ({
      ^bb0(%arg5: index):
        %3 = "affine.load"(%arg0, %arg4, %arg5) {map = #map1} : (memref<?x8xf32>, index, index) -> f32
        %4 = "arith.mulf"(%3, %2) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
        "affine.store"(%4, %0, %arg4, %arg5) {map = #map1} : (f32, memref<?x8xf32>, index, index) -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map2, step = 1 : index, upper_bound = #map3} : () -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map2, step = 1 : index, tir.parallel, upper_bound = #map4} : (index) -> ()
    "affine.for"(%arg3) ({
    ^bb0(%arg4: index):
      %3 = "arith.index_cast"(%arg4) : (index) -> i64
      %4 = "arith.sitofp"(%3) : (i64) -> f32
      "affine.for"() ({
      ^bb0(%arg5: index):
        "affine.store"(%4, %1, %arg5) {map = #map5} : (f32, memref<8xf32>, index) -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map2, step = 1 : index, upper_bound = #map3} : () -> ()
      %5 = "affine.vector_load"(%1) {map = #map2} : (memref<8xf32>) -> vector<8xf32>
      %6 = "affine.vector_load"(%0, %arg4) {map = #map6} : (memref<?x8xf32>, index) -> vector<8xf32>
      %7 = "arith.addf"(%6, %5) {fastmath = #arith.fastmath<none>} : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
      "affine.vector_store"(%7, %arg2, %arg4) {map = #map6} : (vector<8xf32>, memref<?x8xf32>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map7, step = 2 : index, tir.parallel, upper_bound = #map4} : (index) -> ()
    "affine.parallel"(%arg3) ({
    ^bb0(%arg4: index, %arg5: index):
      %3 = "affine.load"(%0, %arg4, %arg5) {map = #map1} : (memref<?x8xf32>, index, index) -> f32
      %4 = "arith.subf"(%3, %2) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
      "affine.store"(%4, %arg2, %arg4, %arg5) {map = #map1} : (f32, memref<?x8xf32>, index, index) -> ()
      "affine.yield"() : () -> ()
    }) {lowerBoundsGroups = dense<1> : tensor<2xi32>, lowerBoundsMap = #map8, reductions = [], steps = [2, 1], upperBoundsGroups = dense<1> : tensor<2xi32>, upperBoundsMap = #map9} : (index) -> ()
    "affine.for"(%arg3) ({
    ^bb0(%arg4: index):
      %3 = "arith.cmpi"(%arg4, %arg3) {predicate = 2 : i64} : (index, index) -> i1
      "cf.assert"(%3) {msg = "in range"} : (i1) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map2, step = 1 : index, tir.parallel, upper_bound = #map4} : (index) -> ()
    "memref.dealloc"(%0) : (memref<?x8xf32>) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<?x8xf32>, memref<f32>, memref<?x8xf32>, index) -> (), sym_name = "threads", tir.arg_names = ["inp", "alpha", "out", "N"], tir.dim_names = [["I", "J"], [], ["I", "J"], []], tir.extents = [#map9, #map10, #map9, unit], tir.num_results = 1 : i64} : () -> ()
}) : () -> ()

