// Generated from src/reduction.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<() -> (0)>
#map2 = affine_map<() -> (10)>
#map3 = affine_map<(d0) -> (d0)>
#map4 = affine_map<() -> (6)>
#map5 = affine_map<() -> (0, 0)>
#map6 = affine_map<() -> (6, 10)>
#map7 = affine_map<() -> ()>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<6x10xf32>, %arg1: memref<6xf32>, %arg2: memref<f32>):
    %0 = "arith.constant"() {value = 0.000000e+00 : f32} : () -> f32
    "affine.for"() ({
    ^bb0(%arg3: index):
      %2 = "affine.for"(%0) ({
      ^bb0(%arg4: index, %arg5: f32):
        %3 = "affine.load"(%arg0, %arg3, %arg4) {map = #map} : (memref<6x10xf32>, index, index) -> f32
        %4 = "arith.addf"(%arg5, %3) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
        "affine.yield"(%4) : (f32) -> ()
      }) {lower_bound = #map1, step = 1 : index, upper_bound = #map2} : (f32) -> f32
      "affine.store"(%2, %arg1, %arg3) {map = #map3} : (f32, memref<6xf32>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map1, step = 1 : index, upper_bound = #map4} : () -> ()
    %1 = "affine.parallel"() ({
    ^bb0(%arg3: index, %arg4: index):
      %2 = "affine.load"(%arg0, %arg3, %arg4) {map = #map} : (memref<6x10xf32>, index, index) -> f32
      "affine.yield"(%2) : (f32) -> ()
    }) {lowerBoundsGroups = dense<1> : tensor<2xi32>, lowerBoundsMap = #map5, reductions = [3], steps = [1, 1], upperBoundsGroups = dense<1> : tensor<2xi32>, upperBoundsMap = #map6} : () -> f32
    "affine.store"(%1, %arg2) {map = #map7} : (f32, memref<f32>) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<6x10xf32>, memref<6xf32>, memref<f32>) -> (), sym_name = "reduction", tir.arg_names = ["inp", "sums", "mx"], tir.num_results = 2 : i64} : () -> ()
}) : () -> ()

