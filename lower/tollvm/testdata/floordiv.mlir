// Generated from src/floordiv.mlir by: mlir-opt --mlir-print-op-generic (MLIR 16). Do not edit.
#map = affine_map<(d0) -> (d0 - 12)>
#map1 = affine_map<(d0) -> (d0 floordiv 4)>
#map2 = affine_map<(d0) -> (d0 floordiv 3)>
#map3 = affine_map<(d0) -> (d0 ceildiv 3)>
#map4 = affine_map<(d0) -> (d0 ceildiv 8)>
#map5 = affine_map<(d0) -> (d0 mod 5)>
#map6 = affine_map<(d0) -> (d0 mod 8)>
#map7 = affine_map<(d0) -> (d0, d0 floordiv 2, -3)>
#map8 = affine_map<(d0) -> ((-d0 + 5) floordiv 3 + (-d0 + 7) mod 3)>
#map9 = affine_map<(d0) -> (0, d0)>
#map10 = affine_map<(d0) -> (1, d0)>
#map11 = affine_map<(d0) -> (2, d0)>
#map12 = affine_map<(d0) -> (3, d0)>
#map13 = affine_map<(d0) -> (4, d0)>
#map14 = affine_map<(d0) -> (5, d0)>
#map15 = affine_map<(d0) -> (6, d0)>
#map16 = affine_map<(d0) -> (7, d0)>
#map17 = affine_map<(d0) -> (12, d0)>
#map18 = affine_map<(d0) -> (d0 floordiv 3 + 4)>
#map19 = affine_map<(d0) -> (8, d0)>
#map20 = affine_map<(d0) -> (9, d0)>
#map21 = affine_map<(d0) -> (10, d0)>
#map22 = affine_map<(d0) -> (11, d0)>
#map23 = affine_map<() -> (0)>
#map24 = affine_map<() -> (24)>
"builtin.module"() ({
  "func.func"() ({
  ^bb0(%arg0: memref<8xi64>, %arg1: memref<13x24xi64>):
    %0 = "arith.constant"() {value = 3 : i64} : () -> i64
    %1 = "arith.constant"() {value = -7 : i64} : () -> i64
    %2 = "arith.constant"() {value = 4 : i64} : () -> i64
    %3 = "arith.constant"() {value = 5 : i64} : () -> i64
    "affine.for"() ({
    ^bb0(%arg2: index):
      %4 = "affine.apply"(%arg2) {map = #map} : (index) -> index
      %5 = "affine.apply"(%4) {map = #map1} : (index) -> index
      %6 = "affine.apply"(%4) {map = #map2} : (index) -> index
      %7 = "affine.apply"(%4) {map = #map3} : (index) -> index
      %8 = "affine.apply"(%4) {map = #map4} : (index) -> index
      %9 = "affine.apply"(%4) {map = #map5} : (index) -> index
      %10 = "affine.apply"(%4) {map = #map6} : (index) -> index
      %11 = "affine.min"(%4) {map = #map7} : (index) -> index
      %12 = "affine.max"(%4) {map = #map7} : (index) -> index
      %13 = "affine.apply"(%arg2) {map = #map8} : (index) -> index
      %14 = "arith.index_cast"(%5) : (index) -> i64
      %15 = "arith.index_cast"(%6) : (index) -> i64
      %16 = "arith.index_cast"(%7) : (index) -> i64
      %17 = "arith.index_cast"(%8) : (index) -> i64
      %18 = "arith.index_cast"(%9) : (index) -> i64
      %19 = "arith.index_cast"(%10) : (index) -> i64
      %20 = "arith.index_cast"(%11) : (index) -> i64
      %21 = "arith.index_cast"(%12) : (index) -> i64
      %22 = "arith.index_cast"(%13) : (index) -> i64
      "affine.store"(%14, %arg1, %arg2) {map = #map9} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%15, %arg1, %arg2) {map = #map10} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%16, %arg1, %arg2) {map = #map11} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%17, %arg1, %arg2) {map = #map12} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%18, %arg1, %arg2) {map = #map13} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%19, %arg1, %arg2) {map = #map14} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%20, %arg1, %arg2) {map = #map15} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%21, %arg1, %arg2) {map = #map16} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%22, %arg1, %arg2) {map = #map17} : (i64, memref<13x24xi64>, index) -> ()
      %23 = "affine.load"(%arg0, %4) {map = #map18} : (memref<8xi64>, index) -> i64
      %24 = "arith.floordivsi"(%23, %0) : (i64, i64) -> i64
      %25 = "arith.ceildivsi"(%23, %1) : (i64, i64) -> i64
      %26 = "arith.remsi"(%23, %3) : (i64, i64) -> i64
      %27 = "arith.floordivsi"(%23, %2) : (i64, i64) -> i64
      "affine.store"(%24, %arg1, %arg2) {map = #map19} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%25, %arg1, %arg2) {map = #map20} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%26, %arg1, %arg2) {map = #map21} : (i64, memref<13x24xi64>, index) -> ()
      "affine.store"(%27, %arg1, %arg2) {map = #map22} : (i64, memref<13x24xi64>, index) -> ()
      "affine.yield"() : () -> ()
    }) {lower_bound = #map23, step = 1 : index, upper_bound = #map24} : () -> ()
    "func.return"() : () -> ()
  }) {function_type = (memref<8xi64>, memref<13x24xi64>) -> (), sym_name = "floordiv", tir.arg_names = ["inp", "out"], tir.num_results = 1 : i64} : () -> ()
}) : () -> ()

