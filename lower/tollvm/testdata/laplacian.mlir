// Generated from src/laplacian.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0, d1, d2) -> (d0 + 1, d1 + 1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1 + 1, d2)>
#map2 = affine_map<(d0, d1, d2) -> (d0 + 2, d1 + 1, d2)>
#map3 = affine_map<(d0, d1, d2) -> (d0 + 1, d1, d2)>
#map4 = affine_map<(d0, d1, d2) -> (d0 + 1, d1 + 2, d2)>
#map5 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map6 = affine_map<() -> (0)>
#map7 = affine_map<() -> (9)>
#map8 = affine_map<() -> (7)>
#map9 = affine_map<() -> (5)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<7x9x9xf32>, %arg1: memref<5x7x9xf32>):
    %0 = "arith.constant"() {value = -4.000000e+00 : f32} : () -> f32
    "affine.for"() ({
    ^bb0(%arg2: index):
      "affine.for"() ({
      ^bb0(%arg3: index):
        "affine.for"() ({
        ^bb0(%arg4: index):
          %1 = "affine.load"(%arg0, %arg2, %arg3, %arg4) {map = #map} : (memref<7x9x9xf32>, index, index, index) -> f32
          %2 = "affine.load"(%arg0, %arg2, %arg3, %arg4) {map = #map1} : (memref<7x9x9xf32>, index, index, index) -> f32
          %3 = "affine.load"(%arg0, %arg2, %arg3, %arg4) {map = #map2} : (memref<7x9x9xf32>, index, index, index) -> f32
          %4 = "affine.load"(%arg0, %arg2, %arg3, %arg4) {map = #map3} : (memref<7x9x9xf32>, index, index, index) -> f32
          %5 = "affine.load"(%arg0, %arg2, %arg3, %arg4) {map = #map4} : (memref<7x9x9xf32>, index, index, index) -> f32
          %6 = "arith.addf"(%2, %3) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
          %7 = "arith.addf"(%6, %4) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
          %8 = "arith.addf"(%7, %5) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
          %9 = "arith.mulf"(%0, %1) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
          %10 = "arith.addf"(%8, %9) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
          "affine.store"(%10, %arg1, %arg2, %arg3, %arg4) {map = #map5} : (f32, memref<5x7x9xf32>, index, index, index) -> ()
          "affine.yield"() : () -> ()
        }) {lower_bound = #map6, step = 1 : index, upper_bound = #map7} : () -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map6, step = 1 : index, upper_bound = #map8} : () -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map6, step = 1 : index, upper_bound = #map9} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<7x9x9xf32>, memref<5x7x9xf32>) -> (), sym_name = "laplacian", tir.arg_names = ["inp", "out"], tir.dim_names = [["I", "J", "K"], ["I", "J", "K"]], tir.num_results = 1 : i64} : () -> ()
}) : () -> ()

