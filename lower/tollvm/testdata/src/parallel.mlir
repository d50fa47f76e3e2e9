// affine.parallel with bound groups (max/min of several results), steps,
// and a scf.for / scf.if nest.
func.func @parallel(%inp: memref<10x12xi32>, %out: memref<10x12xi32>, %cnt: memref<i64>) attributes {tir.arg_names = ["inp", "out", "cnt"], tir.num_results = 2 : i64} {
  %c0 = arith.constant 0 : i32
  %c0i = arith.constant 0 : index
  %c1i = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 12 {
      affine.store %c0, %out[%i, %j] : memref<10x12xi32>
    }
  }
  affine.parallel (%i, %j) = (max(0, 1), 0) to (min(10, 9), 12) step (2, 3) {
    %x = affine.load %inp[%i, %j] : memref<10x12xi32>
    %y = arith.muli %x, %x : i32
    affine.store %y, %out[%i, %j] : memref<10x12xi32>
  }
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %n = scf.for %k = %c0i to %c10 step %c1i iter_args(%acc = %zero) -> (i64) {
    %x = memref.load %inp[%k, %k] : memref<10x12xi32>
    %pos = arith.cmpi sgt, %x, %c0 : i32
    %next = scf.if %pos -> (i64) {
      %a = arith.addi %acc, %one : i64
      scf.yield %a : i64
    } else {
      scf.yield %acc : i64
    }
    scf.yield %next : i64
  }
  memref.store %n, %cnt[] : memref<i64>
  return
}
