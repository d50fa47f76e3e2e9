func.func @loops(%m: memref<?xf32>, %n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %x, %m[%i] : memref<?xf32>
  }
  %sum = scf.for %j = %c0 to %n step %c2 iter_args(%acc = %x) -> (f32) {
    %v = memref.load %m[%j] : memref<?xf32>
    %s = arith.addf %acc, %v : f32
    scf.yield %s : f32
  }
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%a = %x, %b = %c0) -> (f32, index) {
    %b1 = arith.addi %b, %c1 : index
    scf.yield %a, %b1 : f32, index
  }
  %cond = arith.cmpf ogt, %sum, %x : f32
  scf.if %cond {
    memref.store %sum, %m[%c0] : memref<?xf32>
  }
  scf.if %cond {
    memref.store %x, %m[%c0] : memref<?xf32>
  } else {
    memref.store %sum, %m[%c0] : memref<?xf32>
  }
  %y = scf.if %cond -> (f32) {
    scf.yield %sum : f32
  } else {
    %neg = arith.negf %r#0 : f32
    scf.yield %neg : f32
  }
  %z = scf.if %cond -> (f32) {
    scf.yield %y : f32
  } else {
    %w = arith.addf %y, %x : f32
    scf.yield %w : f32
  } {tir.mask}
  func.return %z : f32
}
