// RUN: tc-opt --affine-vectorize='width=4 reassociate=true' --split-input-file
// With reassociate, float sums and products are vectorized too: each lane
// sums (or multiplies) the iterations of its own, from -0.0 (or 1.0), and
// vector.reduction adds the lanes and the initial value. The rounding then
// differs from the scalar order's (tc-opt --fp-reassociate).
func.func @dot(%a: memref<?x?xf32>, %b: memref<?xf32>, %r: memref<?xf32>, %n: index, %m: index) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %s = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %a[%i, %k] : memref<?x?xf32>
      %1 = affine.load %b[%k] : memref<?xf32>
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %acc, %2 : f32
      affine.yield %3 : f32
    }
    affine.store %s, %r[%i] : memref<?xf32>
  }
  func.return
}

// -----
// A product, a difference (%acc - %e: the lanes add -%e) and a maximum
// side by side.
func.func @kinds(%a: memref<32xf64>, %r: memref<3xf64>) {
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  %p:3 = affine.for %k = 0 to 32 iter_args(%prod = %one, %diff = %zero, %max = %zero) -> (f64, f64, f64) {
    %0 = affine.load %a[%k] : memref<32xf64>
    %1 = arith.mulf %prod, %0 : f64
    %2 = arith.subf %diff, %0 : f64
    %3 = arith.maxf %max, %0 : f64
    affine.yield %1, %2, %3 : f64, f64, f64
  }
  affine.store %p#0, %r[0] : memref<3xf64>
  affine.store %p#1, %r[1] : memref<3xf64>
  affine.store %p#2, %r[2] : memref<3xf64>
  func.return
}
