// Generated from src/atomic.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<() -> (0)>
#map2 = affine_map<() -> (5)>
#map3 = affine_map<() -> (16)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<16xi64>, %arg1: memref<16xf64>, %arg2: memref<16xi64>, %arg3: memref<5xf64>, %arg4: memref<5xi64>):
    %0 = "arith.constant"() {value = 0.000000e+00 : f64} : () -> f64
    %1 = "arith.constant"() {value = 0 : i64} : () -> i64
    %2 = "arith.constant"() {value = 5 : i64} : () -> i64
    "affine.for"() ({
    ^bb0(%arg5: index):
      "affine.store"(%0, %arg3, %arg5) {map = #map} : (f64, memref<5xf64>, index) -> ()
      "affine.store"(%1, %arg4, %arg5) {map = #map} : (i64, memref<5xi64>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map1, step = 1 : index, upper_bound = #map2} : () -> ()
    "affine.for"() ({
    ^bb0(%arg5: index):
      %3 = "affine.load"(%arg0, %arg5) {map = #map} : (memref<16xi64>, index) -> i64
      %4 = "arith.remsi"(%3, %2) : (i64, i64) -> i64
      %5 = "math.absi"(%4) : (i64) -> i64
      %6 = "arith.index_cast"(%5) : (i64) -> index
      %7 = "affine.load"(%arg1, %arg5) {map = #map} : (memref<16xf64>, index) -> f64
      %8 = "affine.load"(%arg2, %arg5) {map = #map} : (memref<16xi64>, index) -> i64
      %9 = "memref.atomic_rmw"(%7, %arg3, %6) {kind = 0 : i64} : (f64, memref<5xf64>, index) -> f64
      %10 = "memref.atomic_rmw"(%8, %arg4, %6) {kind = 1 : i64} : (i64, memref<5xi64>, index) -> i64
      "affine.yield"() : () -> ()
    }) {lower_bound = #map1, step = 1 : index, upper_bound = #map3} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<16xi64>, memref<16xf64>, memref<16xi64>, memref<5xf64>, memref<5xi64>) -> (), sym_name = "atomic", tir.arg_names = ["idx", "val", "ival", "out", "iout"], tir.num_results = 2 : i64} : () -> ()
}) : () -> ()

