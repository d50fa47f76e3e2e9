// Generated from src/parallel.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<() -> (0)>
#map2 = affine_map<() -> (12)>
#map3 = affine_map<() -> (10)>
#map4 = affine_map<() -> (0, 1, 0)>
#map5 = affine_map<() -> (10, 9, 12)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<10x12xi32>, %arg1: memref<10x12xi32>, %arg2: memref<i64>):
    %0 = "arith.constant"() {value = 0 : i32} : () -> i32
    %1 = "arith.constant"() {value = 0 : index} : () -> index
    %2 = "arith.constant"() {value = 1 : index} : () -> index
    %3 = "arith.constant"() {value = 10 : index} : () -> index
    "affine.for"() ({
    ^bb0(%arg3: index):
      "affine.for"() ({
      ^bb0(%arg4: index):
        "affine.store"(%0, %arg1, %arg3, %arg4) {map = #map} : (i32, memref<10x12xi32>, index, index) -> ()
        "affine.yield"() : () -> ()
      }) {lower_bound = #map1, step = 1 : index, upper_bound = #map2} : () -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map1, step = 1 : index, upper_bound = #map3} : () -> ()
    "affine.parallel"() ({
    ^bb0(%arg3: index, %arg4: index):
      %7 = "affine.load"(%arg0, %arg3, %arg4) {map = #map} : (memref<10x12xi32>, index, index) -> i32
      %8 = "arith.muli"(%7, %7) : (i32, i32) -> i32
      "affine.store"(%8, %arg1, %arg3, %arg4) {map = #map} : (i32, memref<10x12xi32>, index, index) -> ()
      "affine.yield"() : () -> ()
    }) {lowerBoundsGroups = dense<[2, 1]> : tensor<2xi32>, lowerBoundsMap = #map4, reductions = [], steps = [2, 3], upperBoundsGroups = dense<[2, 1]> : tensor<2xi32>, upperBoundsMap = #map5} : () -> ()
    %4 = "arith.constant"() {value = 0 : i64} : () -> i64
    %5 = "arith.constant"() {value = 1 : i64} : () -> i64
    %6 = "scf.for"(%1, %3, %2, %4) ({
    ^bb0(%arg3: index, %arg4: i64):
      %7 = "memref.load"(%arg0, %arg3, %arg3) : (memref<10x12xi32>, index, index) -> i32
      %8 = "arith.cmpi"(%7, %0) {predicate = 4 : i64} : (i32, i32) -> i1
      %9 = "scf.if"(%8) ({
        %10 = "arith.addi"(%arg4, %5) : (i64, i64) -> i64
        "scf.yield"(%10) : (i64) -> ()
      }, {
        "scf.yield"(%arg4) : (i64) -> ()
      }) : (i1) -> i64
      "scf.yield"(%9) : (i64) -> ()
    }) : (index, index, index, i64) -> i64
    "memref.store"(%6, %arg2) : (i64, memref<i64>) -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<10x12xi32>, memref<10x12xi32>, memref<i64>) -> (), sym_name = "parallel", tir.arg_names = ["inp", "out", "cnt"], tir.num_results = 2 : i64} : () -> ()
}) : () -> ()

