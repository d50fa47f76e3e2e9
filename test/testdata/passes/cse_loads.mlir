// RUN: tc-opt --cse
// A load repeats an equal load of its block when nothing between them may
// write (mlir-opt 16's cse): %b and %f go. A store (%c), a loop holding a
// store (%e), or another block (%g, in the branch) keep the reload; a loop
// that only reads (before %f) does not, where mlir-opt 16 keeps %f too.
func.func @f(%m: memref<?xf32>, %t: memref<?x2xf32>, %n: index, %i: index, %x: f32, %p: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.load %m[%i] : memref<?xf32>
  %b = memref.load %m[%i] : memref<?xf32>
  %s0 = arith.addf %a, %b : f32
  memref.store %x, %m[%c0] : memref<?xf32>
  %c = memref.load %m[%i] : memref<?xf32>
  %s1 = arith.addf %s0, %c : f32
  %d = affine.load %t[%i, 1] : memref<?x2xf32>
  affine.for %k = 0 to %n {
    affine.store %x, %m[%k] : memref<?xf32>
  }
  %e = affine.load %t[%i, 1] : memref<?x2xf32>
  %s2 = arith.addf %d, %e : f32
  %sum = affine.for %k = 0 to %n iter_args(%acc = %s2) -> (f32) {
    %v = affine.load %m[%k] : memref<?xf32>
    %w = arith.addf %acc, %v : f32
    affine.yield %w : f32
  }
  %f = affine.load %t[%i, 1] : memref<?x2xf32>
  %s3 = arith.addf %sum, %f : f32
  %r = scf.if %p -> (f32) {
    %g = affine.load %t[%i, 1] : memref<?x2xf32>
    scf.yield %g : f32
  } else {
    scf.yield %s3 : f32
  }
  %h = arith.addf %r, %s1 : f32
  func.return %h : f32
}
