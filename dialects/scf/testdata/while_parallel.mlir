func.func @while_sum(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r:2 = scf.while (%i = %c0, %acc = %c0) : (i32, i32) -> (i32, i32) {
    %lt = arith.cmpi slt, %i, %n : i32
    scf.condition(%lt) %i, %acc : i32, i32
  } do {
  ^bb0(%i_0: i32, %acc_0: i32):
    %a = arith.addi %acc_0, %i_0 : i32
    %i1 = arith.addi %i_0, %c1 : i32
    scf.yield %i1, %a : i32, i32
  }
  func.return %r#1 : i32
}

func.func @parallel_reduce(%m: memref<?x?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %s = scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) init (%zero) -> (f32) {
    %v = memref.load %m[%i, %j] : memref<?x?xf32>
    scf.reduce(%v) : f32 {
    ^bb0(%l: f32, %r: f32):
      %x = arith.maxf %l, %r : f32
      scf.reduce.return %x : f32
    }
  }
  func.return %s : f32
}

func.func @parallel_store(%m: memref<?xf32>, %n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %v, %m[%i] : memref<?xf32>
  } {mapping = "none"}
  func.return
}

func.func @execute_region(%a: index) -> index {
  %r = scf.execute_region -> index {
    cf.br ^bb1
  ^bb1:
    scf.yield %a : index
  }
  func.return %r : index
}
