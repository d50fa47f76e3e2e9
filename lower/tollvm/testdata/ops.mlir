// Generated from src/ops.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0) -> (d0)>
#map1 = affine_map<(d0) -> (0, d0)>
#map2 = affine_map<(d0) -> (1, d0)>
#map3 = affine_map<(d0) -> (2, d0)>
#map4 = affine_map<(d0) -> (3, d0)>
#map5 = affine_map<(d0) -> (4, d0)>
#map6 = affine_map<(d0) -> (5, d0)>
#map7 = affine_map<(d0) -> (6, d0)>
#map8 = affine_map<(d0) -> (7, d0)>
#map9 = affine_map<(d0) -> (8, d0)>
#map10 = affine_map<(d0) -> (9, d0)>
#map11 = affine_map<() -> (0)>
#map12 = affine_map<() -> (8)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<8xi64>, %arg1: memref<8xi64>, %arg2: memref<8xf32>, %arg3: memref<10x8xi64>, %arg4: memref<6x8xf32>):
    %0 = "arith.constant"() {value = dense<1> : vector<4xi64>} : () -> vector<4xi64>
    %1 = "arith.constant"() {value = dense<2> : vector<4xi64>} : () -> vector<4xi64>
    %2 = "arith.constant"() {value = dense<0.000000e+00> : vector<4xf32>} : () -> vector<4xf32>
    %3 = "arith.constant"() {value = dense<1.000000e+02> : vector<4xf32>} : () -> vector<4xf32>
    "affine.for"() ({
    ^bb0(%arg5: index):
      %4 = "affine.vector_load"(%arg0, %arg5) {map = #map} : (memref<8xi64>, index) -> vector<4xi64>
      %5 = "affine.vector_load"(%arg1, %arg5) {map = #map} : (memref<8xi64>, index) -> vector<4xi64>
      %6 = "arith.ori"(%5, %0) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %7 = "arith.floordivsi"(%4, %6) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %8 = "arith.ceildivsi"(%4, %6) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %9 = "arith.remsi"(%4, %6) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %10 = "arith.maxsi"(%4, %5) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %11 = "arith.minsi"(%4, %5) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %12 = "arith.cmpi"(%4, %5) {predicate = 5 : i64} : (vector<4xi64>, vector<4xi64>) -> vector<4xi1>
      %13 = "arith.extui"(%12) : (vector<4xi1>) -> vector<4xi64>
      %14 = "arith.shrsi"(%4, %1) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %15 = "arith.xori"(%4, %5) : (vector<4xi64>, vector<4xi64>) -> vector<4xi64>
      %16 = "arith.trunci"(%4) : (vector<4xi64>) -> vector<4xi8>
      %17 = "arith.extsi"(%16) : (vector<4xi8>) -> vector<4xi64>
      %18 = "math.absi"(%4) : (vector<4xi64>) -> vector<4xi64>
      "affine.vector_store"(%7, %arg3, %arg5) {map = #map1} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%8, %arg3, %arg5) {map = #map2} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%9, %arg3, %arg5) {map = #map3} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%10, %arg3, %arg5) {map = #map4} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%11, %arg3, %arg5) {map = #map5} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%13, %arg3, %arg5) {map = #map6} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%14, %arg3, %arg5) {map = #map7} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%15, %arg3, %arg5) {map = #map8} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%17, %arg3, %arg5) {map = #map9} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      "affine.vector_store"(%18, %arg3, %arg5) {map = #map10} : (vector<4xi64>, memref<10x8xi64>, index) -> ()
      %19 = "affine.vector_load"(%arg2, %arg5) {map = #map} : (memref<8xf32>, index) -> vector<4xf32>
      %20 = "math.tanh"(%19) {fastmath = #arith.fastmath<none>} : (vector<4xf32>) -> vector<4xf32>
      %21 = "arith.negf"(%19) {fastmath = #arith.fastmath<none>} : (vector<4xf32>) -> vector<4xf32>
      %22 = "arith.sitofp"(%4) : (vector<4xi64>) -> vector<4xf32>
      %23 = "arith.mulf"(%19, %3) {fastmath = #arith.fastmath<none>} : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
      %24 = "arith.fptosi"(%23) : (vector<4xf32>) -> vector<4xi32>
      %25 = "arith.sitofp"(%24) : (vector<4xi32>) -> vector<4xf32>
      %26 = "arith.minf"(%19, %21) {fastmath = #arith.fastmath<none>} : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
      %27 = "arith.cmpf"(%19, %2) {predicate = 2 : i64} : (vector<4xf32>, vector<4xf32>) -> vector<4xi1>
      %28 = "arith.select"(%27, %19, %2) : (vector<4xi1>, vector<4xf32>, vector<4xf32>) -> vector<4xf32>
      "affine.vector_store"(%20, %arg4, %arg5) {map = #map1} : (vector<4xf32>, memref<6x8xf32>, index) -> ()
      "affine.vector_store"(%21, %arg4, %arg5) {map = #map2} : (vector<4xf32>, memref<6x8xf32>, index) -> ()
      "affine.vector_store"(%22, %arg4, %arg5) {map = #map3} : (vector<4xf32>, memref<6x8xf32>, index) -> ()
      "affine.vector_store"(%25, %arg4, %arg5) {map = #map4} : (vector<4xf32>, memref<6x8xf32>, index) -> ()
      "affine.vector_store"(%26, %arg4, %arg5) {map = #map5} : (vector<4xf32>, memref<6x8xf32>, index) -> ()
      "affine.vector_store"(%28, %arg4, %arg5) {map = #map6} : (vector<4xf32>, memref<6x8xf32>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map11, step = 4 : index, upper_bound = #map12} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<8xi64>, memref<8xi64>, memref<8xf32>, memref<10x8xi64>, memref<6x8xf32>) -> (), sym_name = "ops", tir.arg_names = ["a", "b", "x", "out", "fout"], tir.num_results = 2 : i64} : () -> ()
}) : () -> ()

