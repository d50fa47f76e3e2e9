// Generated from src/vector_reduction.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0) -> (d0, 0)>
#map1 = affine_map<(d0) -> (d0, 5)>
#map2 = affine_map<(d0) -> (d0, 1)>
#map3 = affine_map<(d0) -> (d0, 2)>
#map4 = affine_map<(d0) -> (d0, 3)>
#map5 = affine_map<(d0) -> (d0, 4)>
#map6 = affine_map<() -> (0)>
#map7 = affine_map<() -> (4)>
#map8 = affine_map<(d0) -> (d0, 6)>
#map9 = affine_map<(d0) -> (d0, 7)>
#map10 = affine_map<(d0) -> (d0, 8)>
#map11 = affine_map<() -> (2)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<4x8xf32>, %arg1: memref<2x8xi32>, %arg2: memref<2x8xi64>, %arg3: memref<4x6xf32>, %arg4: memref<2x9xi32>, %arg5: memref<2x4xi64>):
    %0 = "arith.constant"() {value = 5.000000e-01 : f32} : () -> f32
    %1 = "arith.constant"() {value = 3 : i32} : () -> i32
    %2 = "arith.constant"() {value = -5 : i64} : () -> i64
    "affine.for"() ({
    ^bb0(%arg6: index):
      %3 = "affine.vector_load"(%arg0, %arg6) {map = #map} : (memref<4x8xf32>, index) -> vector<8xf32>
      %4 = "affine.vector_load"(%arg0, %arg6) {map = #map1} : (memref<4x8xf32>, index) -> vector<3xf32>
      %5 = "vector.reduction"(%3) {kind = #vector.kind<add>} : (vector<8xf32>) -> f32
      %6 = "vector.reduction"(%3, %0) {kind = #vector.kind<mul>} : (vector<8xf32>, f32) -> f32
      %7 = "vector.reduction"(%3) {kind = #vector.kind<maxf>} : (vector<8xf32>) -> f32
      %8 = "vector.reduction"(%3, %0) {kind = #vector.kind<minf>} : (vector<8xf32>, f32) -> f32
      %9 = "vector.reduction"(%4) {kind = #vector.kind<maxf>} : (vector<3xf32>) -> f32
      %10 = "vector.reduction"(%3, %0) {kind = #vector.kind<add>} : (vector<8xf32>, f32) -> f32
      "affine.store"(%5, %arg3, %arg6) {map = #map} : (f32, memref<4x6xf32>, index) -> ()
      "affine.store"(%6, %arg3, %arg6) {map = #map2} : (f32, memref<4x6xf32>, index) -> ()
      "affine.store"(%7, %arg3, %arg6) {map = #map3} : (f32, memref<4x6xf32>, index) -> ()
      "affine.store"(%8, %arg3, %arg6) {map = #map4} : (f32, memref<4x6xf32>, index) -> ()
      "affine.store"(%9, %arg3, %arg6) {map = #map5} : (f32, memref<4x6xf32>, index) -> ()
      "affine.store"(%10, %arg3, %arg6) {map = #map1} : (f32, memref<4x6xf32>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map6, step = 1 : index, upper_bound = #map7} : () -> ()
    "affine.for"() ({
    ^bb0(%arg6: index):
      %3 = "affine.vector_load"(%arg1, %arg6) {map = #map} : (memref<2x8xi32>, index) -> vector<8xi32>
      %4 = "vector.reduction"(%3) {kind = #vector.kind<add>} : (vector<8xi32>) -> i32
      %5 = "vector.reduction"(%3, %1) {kind = #vector.kind<mul>} : (vector<8xi32>, i32) -> i32
      %6 = "vector.reduction"(%3) {kind = #vector.kind<and>} : (vector<8xi32>) -> i32
      %7 = "vector.reduction"(%3, %1) {kind = #vector.kind<or>} : (vector<8xi32>, i32) -> i32
      %8 = "vector.reduction"(%3) {kind = #vector.kind<xor>} : (vector<8xi32>) -> i32
      %9 = "vector.reduction"(%3, %1) {kind = #vector.kind<minsi>} : (vector<8xi32>, i32) -> i32
      %10 = "vector.reduction"(%3) {kind = #vector.kind<maxsi>} : (vector<8xi32>) -> i32
      %11 = "vector.reduction"(%3) {kind = #vector.kind<minui>} : (vector<8xi32>) -> i32
      %12 = "vector.reduction"(%3, %1) {kind = #vector.kind<maxui>} : (vector<8xi32>, i32) -> i32
      "affine.store"(%4, %arg4, %arg6) {map = #map} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%5, %arg4, %arg6) {map = #map2} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%6, %arg4, %arg6) {map = #map3} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%7, %arg4, %arg6) {map = #map4} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%8, %arg4, %arg6) {map = #map5} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%9, %arg4, %arg6) {map = #map1} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%10, %arg4, %arg6) {map = #map8} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%11, %arg4, %arg6) {map = #map9} : (i32, memref<2x9xi32>, index) -> ()
      "affine.store"(%12, %arg4, %arg6) {map = #map10} : (i32, memref<2x9xi32>, index) -> ()
      %13 = "affine.vector_load"(%arg2, %arg6) {map = #map} : (memref<2x8xi64>, index) -> vector<8xi64>
      %14 = "vector.reduction"(%13, %2) {kind = #vector.kind<add>} : (vector<8xi64>, i64) -> i64
      %15 = "vector.reduction"(%13) {kind = #vector.kind<maxsi>} : (vector<8xi64>) -> i64
      %16 = "vector.reduction"(%13, %2) {kind = #vector.kind<minui>} : (vector<8xi64>, i64) -> i64
      %17 = "vector.reduction"(%13) {kind = #vector.kind<xor>} : (vector<8xi64>) -> i64
      "affine.store"(%14, %arg5, %arg6) {map = #map} : (i64, memref<2x4xi64>, index) -> ()
      "affine.store"(%15, %arg5, %arg6) {map = #map2} : (i64, memref<2x4xi64>, index) -> ()
      "affine.store"(%16, %arg5, %arg6) {map = #map3} : (i64, memref<2x4xi64>, index) -> ()
      "affine.store"(%17, %arg5, %arg6) {map = #map4} : (i64, memref<2x4xi64>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map6, step = 1 : index, upper_bound = #map11} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<4x8xf32>, memref<2x8xi32>, memref<2x8xi64>, memref<4x6xf32>, memref<2x9xi32>, memref<2x4xi64>) -> (), sym_name = "vector_reduction", tir.arg_names = ["a", "b", "c", "rf", "ri", "rl"], tir.num_results = 3 : i64} : () -> ()
}) : () -> ()

