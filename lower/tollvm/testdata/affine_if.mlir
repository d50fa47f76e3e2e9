// Generated from src/affine_if.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<() -> (0)>
#map2 = affine_map<() -> (16)>
#set = affine_set<(d0) : (d0 - 3 >= 0, -d0 + 12 >= 0)>
#set1 = affine_set<(d0)[s0] : (d0 - s0 == 0)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<16xf32>, %arg1: memref<16xf32>, %arg2: memref<16xi32>, %arg3: index):
    %0 = "arith.constant"() {value = 0.000000e+00 : f32} : () -> f32
    %1 = "arith.constant"() {value = 1 : i32} : () -> i32
    %2 = "arith.constant"() {value = 0 : i32} : () -> i32
    "affine.for"() ({
    ^bb0(%arg4: index):
      %3 = "affine.if"(%arg4) ({
        %4 = "affine.load"(%arg0, %arg4) {map = #map} : (memref<16xf32>, index) -> f32
        "affine.yield"(%4) : (f32) -> ()
      }, {
        "affine.yield"(%0) : (f32) -> ()
      }) {condition = #set} : (index) -> f32
      "affine.store"(%3, %arg1, %arg4) {map = #map} : (f32, memref<16xf32>, index) -> ()
      "affine.store"(%2, %arg2, %arg4) {map = #map} : (i32, memref<16xi32>, index) -> ()
      "affine.if"(%arg4, %arg3) ({
        "affine.store"(%1, %arg2, %arg4) {map = #map} : (i32, memref<16xi32>, index) -> ()
        "affine.yield"() : () -> ()
      }, {
      }) {condition = #set1} : (index, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map1, step = 1 : index, upper_bound = #map2} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<16xf32>, memref<16xf32>, memref<16xi32>, index) -> (), sym_name = "affine_if", tir.arg_names = ["inp", "out", "flag", "K"], tir.num_results = 2 : i64} : () -> ()
}) : () -> ()

