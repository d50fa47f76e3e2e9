// RUN: tc-opt --affine-contraction-tile='vector-bits=256 rows=2 vectors=2 k-block=12 n-block=32 specialize=0' --split-input-file
// A weight stored N x K (W[%n, %k], 8 lanes of f32, 16-wide panels) is
// packed by blocks of 8 columns: for each 8 values of k, 8 vector loads
// along k (one per column), an 8 x 8 transposition in 3 rounds of 8
// vector.shuffle ops, 8 stores of whole panel rows. The last values of k
// of a block (fewer than 8: the k blocks of 12 and %K need not be
// multiples of 8) are copied element by element, from the end of the
// full blocks for each upper bound (a second loop only copies some
// elements again); so are the columns of the partial panel past its full
// vectors.
func.func @linear(%X: memref<?x?xf32>, %W: memref<?x?xf32>, %O: memref<?x?xf32>, %M: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
        %x = affine.load %X[%m, %k] : memref<?x?xf32>
        %w = affine.load %W[%n, %k] : memref<?x?xf32>
        %p = arith.mulf %x, %w : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %0, %O[%m, %n] : memref<?x?xf32>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// f64 (4 lanes: 4 x 4 blocks in 2 rounds) and constant sizes: one k
// block of 10 (the last 2 values of k element by element), two full
// panels and the partial one's single vector, by blocks.
func.func @linear_f64(%X: memref<5x10xf64>, %W: memref<20x10xf64>, %O: memref<5x20xf64>) {
  %cst = arith.constant 0.0 : f64
  affine.for %m = 0 to 5 {
    affine.for %n = 0 to 20 {
      %0 = affine.for %k = 0 to 10 iter_args(%acc = %cst) -> (f64) {
        %x = affine.load %X[%m, %k] : memref<5x10xf64>
        %w = affine.load %W[%n, %k] : memref<20x10xf64>
        %p = arith.mulf %x, %w : f64
        %s = arith.addf %acc, %p : f64
        affine.yield %s : f64
      }
      affine.store %0, %O[%m, %n] : memref<5x20xf64>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// Two reductions, W[%n, %c, %k] contiguous along the inner one: the
// blocks run along %k inside the loop over %c.
func.func @two_reductions(%A: memref<?x?x?xf32>, %W: memref<?x?x?xf32>, %O: memref<?x?xf32>, %I: index, %C: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %i = 0 to %I {
    affine.for %n = 0 to %N {
      %0 = affine.for %c = 0 to %C iter_args(%a0 = %cst) -> (f32) {
        %1 = affine.for %k = 0 to %K iter_args(%a1 = %a0) -> (f32) {
          %a = affine.load %A[%i, %c, %k] : memref<?x?x?xf32>
          %w = affine.load %W[%n, %c, %k] : memref<?x?x?xf32>
          %p = arith.mulf %a, %w : f32
          %s = arith.addf %a1, %p : f32
          affine.yield %s : f32
        }
        affine.yield %1 : f32
      }
      affine.store %0, %O[%i, %n] : memref<?x?xf32>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// W[%n, %k, %c] is contiguous along the outer reduction, not the inner
// one: a vector along its last dimension holds values of different
// blocks, so it is copied element by element, a cache line of a row at a
// time.
func.func @outer_contiguous(%A: memref<?x?x?xf32>, %W: memref<?x?x?xf32>, %O: memref<?x?xf32>, %I: index, %C: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %i = 0 to %I {
    affine.for %n = 0 to %N {
      %0 = affine.for %c = 0 to %C iter_args(%a0 = %cst) -> (f32) {
        %1 = affine.for %k = 0 to %K iter_args(%a1 = %a0) -> (f32) {
          %a = affine.load %A[%i, %c, %k] : memref<?x?x?xf32>
          %w = affine.load %W[%n, %k, %c] : memref<?x?x?xf32>
          %p = arith.mulf %a, %w : f32
          %s = arith.addf %a1, %p : f32
          affine.yield %s : f32
        }
        affine.yield %1 : f32
      }
      affine.store %0, %O[%i, %n] : memref<?x?xf32>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}
