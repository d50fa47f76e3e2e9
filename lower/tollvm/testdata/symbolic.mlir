// Generated from src/symbolic.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0, d1) -> (d0, d1 + 1)>
#map1 = affine_map<(d0, d1) -> (d0 + 1, d1)>
#map2 = affine_map<(d0, d1) -> (d0 + 1, d1 + 2)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<() -> (0)>
#map5 = affine_map<()[s0] -> (s0)>
#map6 = affine_map<()[s0, s1] -> (s0 + 1, s1 + 2)>
#map7 = affine_map<()[s0, s1] -> (s0, s1)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<?x?xf64>, %arg1: memref<?x?xf64>, %arg2: index, %arg3: index):
    %0 = "arith.constant"() {value = 5.000000e-01 : f64} : () -> f64
    "affine.for"(%arg2) ({
    ^bb0(%arg4: index):
      "affine.for"(%arg3) ({
      ^bb0(%arg5: index):
        %1 = "affine.load"(%arg0, %arg4, %arg5) {map = #map} : (memref<?x?xf64>, index, index) -> f64
        %2 = "affine.load"(%arg0, %arg4, %arg5) {map = #map1} : (memref<?x?xf64>, index, index) -> f64
        %3 = "affine.load"(%arg0, %arg4, %arg5) {map = #map2} : (memref<?x?xf64>, index, index) -> f64
        %4 = "arith.addf"(%2, %3) {fastmath = #arith.fastmath<none>} : (f64, f64) -> f64
        %5 = "arith.mulf"(%4, %0) {fastmath = #arith.fastmath<none>} : (f64, f64) -> f64
        %6 = "arith.subf"(%1, %5) {fastmath = #arith.fastmath<none>} : (f64, f64) -> f64
        "affine.store"(%6, %arg1, %arg4, %arg5) {map = #map3} : (f64, memref<?x?xf64>, index, index) -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map4, step = 1 : index, upper_bound = #map5} : (index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map4, step = 1 : index, upper_bound = #map5} : (index) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<?x?xf64>, memref<?x?xf64>, index, index) -> (), sym_name = "symbolic", tir.arg_names = ["inp", "out", "N", "M"], tir.dim_names = [["I", "J"], ["I", "J"], [], []], tir.extents = [#map6, #map7, unit, unit], tir.num_results = 1 : i64} : () -> ()
}) : () -> ()

