// RUN: tc-opt --cse
// An op in a nested region reuses an equal op of an enclosing block; ops of
// one region are not visible in a sibling region or after it.
func.func @f(%m: memref<?xf32>, %n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %one = arith.constant 1 : index
    %j = arith.addi %i, %one : index
    %k = arith.addi %i, %c1 : index
    %y = arith.addf %x, %x : f32
    memref.store %y, %m[%j] : memref<?xf32>
    memref.store %y, %m[%k] : memref<?xf32>
  }
  %cond = arith.cmpf ogt, %x, %x : f32
  %r = scf.if %cond -> (f32) {
    %a = arith.addf %x, %x : f32
    scf.yield %a : f32
  } else {
    %b = arith.addf %x, %x : f32
    scf.yield %b : f32
  }
  %z = arith.addf %x, %x : f32
  %s = arith.addf %r, %z : f32
  func.return %s : f32
}
