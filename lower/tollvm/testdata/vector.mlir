// Generated from src/vector.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<() -> (0)>
#map2 = affine_map<() -> (16)>
#map3 = affine_map<() -> (20)>
#map4 = affine_map<() -> (4)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<4x20xf32>, %arg1: memref<4x20xf32>, %arg2: memref<4x20xf32>):
    %0 = "arith.constant"() {value = dense<2.000000e+00> : vector<8xf32>} : () -> vector<8xf32>
    %1 = "arith.constant"() {value = 2.000000e+00 : f32} : () -> f32
    "affine.for"() ({
    ^bb0(%arg3: index):
      "affine.for"() ({
      ^bb0(%arg4: index):
        %2 = "affine.vector_load"(%arg0, %arg3, %arg4) {map = #map} : (memref<4x20xf32>, index, index) -> vector<8xf32>
        %3 = "affine.vector_load"(%arg1, %arg3, %arg4) {map = #map} : (memref<4x20xf32>, index, index) -> vector<8xf32>
        %4 = "arith.mulf"(%2, %3) {fastmath = #arith.fastmath<none>} : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
        %5 = "arith.addf"(%4, %2) {fastmath = #arith.fastmath<none>} : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
        %6 = "arith.maxf"(%5, %3) {fastmath = #arith.fastmath<none>} : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
        %7 = "arith.mulf"(%6, %0) {fastmath = #arith.fastmath<none>} : (vector<8xf32>, vector<8xf32>) -> vector<8xf32>
        "affine.vector_store"(%7, %arg2, %arg3, %arg4) {map = #map} : (vector<8xf32>, memref<4x20xf32>, index, index) -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map1, step = 8 : index, upper_bound = #map2} : () -> ()
      "affine.for"() ({
      ^bb0(%arg4: index):
        %2 = "affine.load"(%arg0, %arg3, %arg4) {map = #map} : (memref<4x20xf32>, index, index) -> f32
        %3 = "affine.load"(%arg1, %arg3, %arg4) {map = #map} : (memref<4x20xf32>, index, index) -> f32
        %4 = "arith.mulf"(%2, %3) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
        %5 = "arith.addf"(%4, %2) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
        %6 = "arith.maxf"(%5, %3) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
        %7 = "arith.mulf"(%6, %1) {fastmath = #arith.fastmath<none>} : (f32, f32) -> f32
        "affine.store"(%7, %arg2, %arg3, %arg4) {map = #map} : (f32, memref<4x20xf32>, index, index) -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map2, step = 1 : index, upper_bound = #map3} : () -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map1, step = 1 : index, upper_bound = #map4} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<4x20xf32>, memref<4x20xf32>, memref<4x20xf32>) -> (), sym_name = "vector", tir.arg_names = ["a", "b", "out"], tir.num_results = 1 : i64} : () -> ()
}) : () -> ()

