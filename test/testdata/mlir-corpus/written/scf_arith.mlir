// Written for tc-opt's corpus: scf loops, arith and math forms.

func.func @while_sum(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%i = %c0, %acc = %c0) : (i32, i32) -> (i32, i32) {
    %lt = arith.cmpi slt, %i, %n : i32
    scf.condition(%lt) %i, %acc : i32, i32
  } do {
  ^bb0(%i: i32, %acc: i32):
    %a = arith.addi %acc, %i : i32
    %i1 = arith.addi %i, %c1 : i32
    scf.yield %i1, %a : i32, i32
  }
  return %r#1 : i32
}

func.func @parallel_reduce(%m: memref<?x?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) init (%zero) -> f32 {
    %v = memref.load %m[%i, %j] : memref<?x?xf32>
    scf.reduce(%v) : f32 {
    ^bb0(%l: f32, %r: f32):
      %x = arith.maxf %l, %r : f32
      scf.reduce.return %x : f32
    }
  }
  return %s : f32
}

func.func @parallel_store(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
  } {mapping = "none"}
  return
}

func.func @fastmath(%a: f32, %v: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.addf %a, %a fastmath<fast> : f32
  %1 = arith.mulf %v, %v fastmath<nnan,contract> : vector<4xf32>
  %2 = math.exp %1 fastmath<afn> : vector<4xf32>
  %3 = math.powf %2, %v fastmath<reassoc,nsz> : vector<4xf32>
  return %3 : vector<4xf32>
}

func.func @dense_constants() -> (vector<3xf32>, tensor<4xi32>, vector<2xf64>) {
  %0 = arith.constant dense<[1.5, -2.0, 3.25e+02]> : vector<3xf32>
  %1 = arith.constant dense<[1, 2, 3, -4]> : tensor<4xi32>
  %2 = arith.constant dense<0.5> : vector<2xf64>
  %3 = arith.constant -9223372036854775808 : i64
  %4 = arith.constant 18446744073709551615 : i64
  return %0, %1, %2 : vector<3xf32>, tensor<4xi32>, vector<2xf64>
}

func.func @scalable(%a: vector<[4]xf32>, %b: vector<2x[4]xi32>) -> vector<[4]xf32> {
  %0 = arith.addf %a, %a : vector<[4]xf32>
  %1 = arith.cmpi eq, %b, %b : vector<2x[4]xi32>
  return %0 : vector<[4]xf32>
}

func.func @extended(%a: i32, %b: i32) -> (i32, i1, i32) {
  %s, %o = arith.addui_extended %a, %b : i32, i1
  %lo, %hi = arith.mulsi_extended %a, %b : i32
  return %s, %o, %hi : i32, i1, i32
}

func.func @affine_attrs(%m: memref<10xf32>) {
  affine.for %i = 0 to 10 {
    %v = affine.load %m[%i] : memref<10xf32>
    affine.if affine_set<(d0) : (d0 - 5 >= 0)>(%i) {
      affine.store %v, %m[%i] : memref<10xf32>
    } {tag = 1 : i64}
  } {tir.parallel}
  return
}
