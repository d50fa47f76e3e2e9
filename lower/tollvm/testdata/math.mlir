// Generated from src/math.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> (0, d0)>
#map2 = affine_map<(d0) -> (1, d0)>
#map3 = affine_map<(d0) -> (2, d0)>
#map4 = affine_map<(d0) -> (3, d0)>
#map5 = affine_map<(d0) -> (4, d0)>
#map6 = affine_map<(d0) -> (5, d0)>
#map7 = affine_map<() -> (0)>
#map8 = affine_map<() -> (32)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<32xf32>, %arg1: memref<6x32xf32>, %arg2: memref<32xf64>):
    "affine.for"() ({
    ^bb0(%arg3: index):
      %0 = "affine.load"(%arg0, %arg3) {map = #map} : (memref<32xf32>, index) -> f32
      %1 = "math.exp"(%0) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %2 = "math.absf"(%0) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %3 = "math.sqrt"(%2) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %4 = "math.rsqrt"(%2) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %5 = "math.tanh"(%0) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %6 = "math.floor"(%0) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %7 = "math.fma"(%0, %1, %3) {fastmath = #arith.fastmath<none>} : (f32, f32, f32) -> f32
      "affine.store"(%1, %arg1, %arg3) {map = #map1} : (f32, memref<6x32xf32>, index) -> ()
      "affine.store"(%3, %arg1, %arg3) {map = #map2} : (f32, memref<6x32xf32>, index) -> ()
      "affine.store"(%4, %arg1, %arg3) {map = #map3} : (f32, memref<6x32xf32>, index) -> ()
      "affine.store"(%5, %arg1, %arg3) {map = #map4} : (f32, memref<6x32xf32>, index) -> ()
      "affine.store"(%6, %arg1, %arg3) {map = #map5} : (f32, memref<6x32xf32>, index) -> ()
      "affine.store"(%7, %arg1, %arg3) {map = #map6} : (f32, memref<6x32xf32>, index) -> ()
      %8 = "arith.extf"(%0) : (f32) -> f64
      %9 = "math.log"(%2) {fastmath = #arith.fastmath<none>} : (f32) -> f32
      %10 = "arith.extf"(%9) : (f32) -> f64
      %11 = "math.powf"(%8, %8) {fastmath = #arith.fastmath<none>} : (f64, f64) -> f64
      %12 = "math.cos"(%8) {fastmath = #arith.fastmath<none>} : (f64) -> f64
      %13 = "math.tan"(%8) {fastmath = #arith.fastmath<none>} : (f64) -> f64
      %14 = "arith.addf"(%10, %12) {fastmath = #arith.fastmath<none>} : (f64, f64) -> f64
      %15 = "arith.addf"(%14, %13) {fastmath = #arith.fastmath<none>} : (f64, f64) -> f64
      %16 = "arith.cmpf"(%8, %15) {predicate = 4 : i64} : (f64, f64) -> i1
      %17 = "arith.select"(%16, %11, %15) : (i1, f64, f64) -> f64
      "affine.store"(%17, %arg2, %arg3) {map = #map} : (f64, memref<32xf64>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map7, step = 1 : index, upper_bound = #map8} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<32xf32>, memref<6x32xf32>, memref<32xf64>) -> (), sym_name = "math", tir.arg_names = ["inp", "out", "d"], tir.num_results = 2 : i64} : () -> ()
}) : () -> ()

