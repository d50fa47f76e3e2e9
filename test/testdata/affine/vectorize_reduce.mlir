// RUN: tc-opt --affine-vectorize='width=4' --split-input-file
// Reductions whose result does not depend on the order: integer sums, float
// maxima and minima. Each lane of the vector accumulator starts at the
// kind's neutral element (an infinity is a vector.broadcast), one
// vector.reduction folds the lanes and the initial value after the vector
// loop, and the scalar remainder loop continues from there.
func.func @rows(%a: memref<?x?xi32>, %b: memref<?x?xf32>, %c: memref<?x?xf64>, %ri: memref<?xi32>, %rf: memref<?xf32>, %rd: memref<?xf64>, %n: index, %m: index) {
  %zero = arith.constant 0 : i32
  %ninf = arith.constant 0xFF800000 : f32
  %one = arith.constant 1.0 : f64
  affine.for %i = 0 to %n {
    %s = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (i32) {
      %0 = affine.load %a[%i, %k] : memref<?x?xi32>
      %1 = arith.addi %acc, %0 : i32
      affine.yield %1 : i32
    }
    affine.store %s, %ri[%i] : memref<?xi32>
    %x = affine.for %k = 0 to %m iter_args(%acc = %ninf) -> (f32) {
      %0 = affine.load %b[%i, %k] : memref<?x?xf32>
      %1 = arith.maxf %0, %acc : f32
      affine.yield %1 : f32
    }
    affine.store %x, %rf[%i] : memref<?xf32>
    %y = affine.for %k = 1 to %m iter_args(%acc = %one) -> (f64) {
      %0 = affine.load %c[%i, %k - 1] : memref<?x?xf64>
      %1 = arith.minf %acc, %0 : f64
      affine.yield %1 : f64
    }
    affine.store %y, %rd[%i] : memref<?xf64>
  }
  func.return
}

// -----
// Constant bounds with no remainder: the vector.reduction replaces the
// loop. Integer kinds: muli, andi, ori, xori, min and max (signed and
// unsigned), and subi as a sum of -%e.
func.func @kinds(%a: memref<16xi64>, %r: memref<9xi64>) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %p = affine.for %k = 0 to 16 iter_args(%acc = %c1) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.muli %acc, %0 : i64
    affine.yield %1 : i64
  }
  %q = affine.for %k = 0 to 16 iter_args(%acc = %c1) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.andi %acc, %0 : i64
    affine.yield %1 : i64
  }
  %o = affine.for %k = 0 to 16 iter_args(%acc = %c0) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.ori %0, %acc : i64
    affine.yield %1 : i64
  }
  %x = affine.for %k = 0 to 16 iter_args(%acc = %c0) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.xori %acc, %0 : i64
    affine.yield %1 : i64
  }
  %s1 = affine.for %k = 0 to 16 iter_args(%acc = %c0) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.minsi %acc, %0 : i64
    affine.yield %1 : i64
  }
  %s2 = affine.for %k = 0 to 16 iter_args(%acc = %c0) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.maxsi %acc, %0 : i64
    affine.yield %1 : i64
  }
  %u1 = affine.for %k = 0 to 16 iter_args(%acc = %c1) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.minui %acc, %0 : i64
    affine.yield %1 : i64
  }
  %u2 = affine.for %k = 0 to 16 iter_args(%acc = %c1) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.maxui %acc, %0 : i64
    affine.yield %1 : i64
  }
  %d = affine.for %k = 0 to 16 iter_args(%acc = %c0) -> (i64) {
    %0 = affine.load %a[%k] : memref<16xi64>
    %1 = arith.subi %acc, %0 : i64
    affine.yield %1 : i64
  }
  affine.store %p, %r[0] : memref<9xi64>
  affine.store %q, %r[1] : memref<9xi64>
  affine.store %o, %r[2] : memref<9xi64>
  affine.store %x, %r[3] : memref<9xi64>
  affine.store %s1, %r[4] : memref<9xi64>
  affine.store %s2, %r[5] : memref<9xi64>
  affine.store %u1, %r[6] : memref<9xi64>
  affine.store %u2, %r[7] : memref<9xi64>
  affine.store %d, %r[8] : memref<9xi64>
  func.return
}

// -----
// Sibling reductions share the loop and its loads (a sum and a maximum of
// the same element); a masked element (select between the accumulator and
// the combined value) keeps its select lane by lane; "all positive" is an
// and-reduction of i1 compare results; an invariant load (the weight w[i])
// is hoisted under an affine.if that yields the accumulators' initial
// vectors when the vector loop does not run.
func.func @siblings(%a: memref<?x?xi32>, %b: memref<?x?xf32>, %w: memref<?xf32>, %r: memref<?xi32>, %f: memref<?xf32>, %g: memref<?xi1>, %n: index, %m: index) {
  %zero = arith.constant 0 : i32
  %min = arith.constant -2147483648 : i32
  %fzero = arith.constant 0.0 : f32
  %true = arith.constant true
  affine.for %i = 0 to %n {
    %s:3 = affine.for %k = 0 to %m iter_args(%sum = %zero, %max = %min, %pos = %zero) -> (i32, i32, i32) {
      %0 = affine.load %a[%i, %k] : memref<?x?xi32>
      %1 = arith.addi %sum, %0 : i32
      %2 = arith.maxsi %max, %0 : i32
      %3 = arith.cmpi sgt, %0, %zero : i32
      %4 = arith.addi %pos, %0 : i32
      %5 = arith.select %3, %4, %pos : i32
      affine.yield %1, %2, %5 : i32, i32, i32
    }
    %t = arith.addi %s#0, %s#1 : i32
    %u = arith.addi %t, %s#2 : i32
    affine.store %u, %r[%i] : memref<?xi32>
    %all = affine.for %k = 0 to %m iter_args(%acc = %true) -> (i1) {
      %0 = affine.load %b[%i, %k] : memref<?x?xf32>
      %1 = arith.cmpf ogt, %0, %fzero : f32
      %2 = arith.andi %acc, %1 : i1
      affine.yield %2 : i1
    }
    affine.store %all, %g[%i] : memref<?xi1>
    %mx = affine.for %k = 0 to %m iter_args(%acc = %fzero) -> (f32) {
      %0 = affine.load %b[%i, %k] : memref<?x?xf32>
      %1 = affine.load %w[%i] : memref<?xf32>
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.maxf %acc, %2 : f32
      affine.yield %3 : f32
    }
    affine.store %mx, %f[%i] : memref<?xf32>
  }
  func.return
}

// -----
// Not vectorized: a float sum (its rounding depends on the order; see
// vectorize_reassociate.mlir), the running value stored in every
// iteration, an accumulator read by another one's element, %e - %acc, a
// compare of the accumulator (an argmax), a reduction over a strided
// dimension, and index accumulators.
func.func @refused(%a: memref<64xf32>, %b: memref<64x64xi32>, %c: memref<64xi32>, %r: memref<8xf32>, %ri: memref<8xi32>, %rx: memref<8xindex>) {
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant 0 : i32
  %c0 = arith.constant 0 : index
  %s = affine.for %k = 0 to 64 iter_args(%acc = %cst) -> (f32) {
    %0 = affine.load %a[%k] : memref<64xf32>
    %1 = arith.addf %acc, %0 : f32
    affine.yield %1 : f32
  }
  affine.store %s, %r[0] : memref<8xf32>
  %p = affine.for %k = 0 to 64 iter_args(%acc = %zero) -> (i32) {
    %0 = affine.load %c[%k] : memref<64xi32>
    %1 = arith.addi %acc, %0 : i32
    affine.store %1, %c[%k] : memref<64xi32>
    affine.yield %1 : i32
  }
  affine.store %p, %ri[0] : memref<8xi32>
  %q:2 = affine.for %k = 0 to 64 iter_args(%acc = %zero, %acc2 = %zero) -> (i32, i32) {
    %0 = affine.load %c[%k] : memref<64xi32>
    %1 = arith.addi %acc, %0 : i32
    %2 = arith.addi %acc2, %1 : i32
    affine.yield %1, %2 : i32, i32
  }
  affine.store %q#1, %ri[1] : memref<8xi32>
  %d = affine.for %k = 0 to 64 iter_args(%acc = %zero) -> (i32) {
    %0 = affine.load %c[%k] : memref<64xi32>
    %1 = arith.subi %0, %acc : i32
    affine.yield %1 : i32
  }
  affine.store %d, %ri[2] : memref<8xi32>
  %am:2 = affine.for %k = 0 to 64 iter_args(%best = %cst, %arg = %zero) -> (f32, i32) {
    %0 = affine.load %a[%k] : memref<64xf32>
    %1 = arith.cmpf ogt, %0, %best : f32
    %2 = arith.select %1, %0, %best : f32
    %3 = affine.load %c[%k] : memref<64xi32>
    %4 = arith.select %1, %3, %arg : i32
    affine.yield %2, %4 : f32, i32
  }
  affine.store %am#1, %ri[3] : memref<8xi32>
  %col = affine.for %k = 0 to 64 iter_args(%acc = %zero) -> (i32) {
    %0 = affine.load %b[%k, 3] : memref<64x64xi32>
    %1 = arith.maxsi %acc, %0 : i32
    affine.yield %1 : i32
  }
  affine.store %col, %ri[4] : memref<8xi32>
  %ix = affine.for %k = 0 to 64 iter_args(%acc = %c0) -> (index) {
    %0 = arith.addi %acc, %k : index
    affine.yield %0 : index
  }
  affine.store %ix, %rx[0] : memref<8xindex>
  func.return
}
