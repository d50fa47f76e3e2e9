// RUN: tc-opt --affine-loop-unroll='factor=1 unroll-full-threshold=8' --split-input-file
// A row of 7 neighbours: the reduction loop is replaced by its 7 copies in
// order, the sum chained through them; the loop over the rows stays.
func.func @neighbours(%a: memref<?x7xf64>, %out: memref<?xf64>, %n: index) {
  %cst = arith.constant 0.0 : f64
  affine.for %v = 0 to %n {
    %r = affine.for %k = 0 to 7 iter_args(%acc = %cst) -> (f64) {
      %0 = affine.load %a[%v, %k] : memref<?x7xf64>
      %1 = arith.addf %acc, %0 : f64
      affine.yield %1 : f64
    }
    affine.store %r, %out[%v] : memref<?xf64>
  }
  func.return
}

// -----
// In a nest of short loops only the innermost one is unrolled (3 copies,
// its lower bound kept), the loop around it stays a loop, of its step. The
// induction variable used by arithmetic becomes a constant affine.apply.
func.func @nest(%a: memref<8x8xi64>) {
  affine.for %i = 1 to 5 step 2 {
    affine.for %j = 2 to 5 {
      %0 = arith.index_cast %j : index to i64
      affine.store %0, %a[%i, %j] : memref<8x8xi64>
    }
  }
  func.return
}

// -----
// Left alone: 9 iterations (above the threshold), symbolic bounds, and a
// body too large to copy 8 times (66 ops: 528 copies, over
// fullUnrollBudget's 512). A loop that never
// runs is replaced by its initial values.
func.func @limits(%a: memref<?xf64>, %n: index) -> f64 {
  %cst = arith.constant 1.0 : f64
  affine.for %i = 0 to 9 {
    %0 = affine.load %a[%i] : memref<?xf64>
    affine.store %0, %a[%i + 1] : memref<?xf64>
  }
  affine.for %i = 0 to %n {
    %0 = affine.load %a[%i] : memref<?xf64>
    affine.store %0, %a[%i + 1] : memref<?xf64>
  }
  %never = affine.for %i = 3 to 3 iter_args(%acc = %cst) -> (f64) {
    %0 = affine.load %a[%i] : memref<?xf64>
    %1 = arith.addf %acc, %0 : f64
    affine.yield %1 : f64
  }
  affine.for %i = 0 to 8 {
    %0 = affine.load %a[%i] : memref<?xf64>
    %1 = arith.mulf %0, %0 : f64
    %2 = arith.mulf %1, %0 : f64
    %3 = arith.mulf %2, %0 : f64
    %4 = arith.mulf %3, %0 : f64
    %5 = arith.mulf %4, %0 : f64
    %6 = arith.mulf %5, %0 : f64
    %7 = arith.mulf %6, %0 : f64
    %8 = arith.mulf %7, %0 : f64
    %9 = arith.mulf %8, %0 : f64
    %10 = arith.mulf %9, %0 : f64
    %11 = arith.mulf %10, %0 : f64
    %12 = arith.mulf %11, %0 : f64
    %13 = arith.mulf %12, %0 : f64
    %14 = arith.mulf %13, %0 : f64
    %15 = arith.mulf %14, %0 : f64
    %16 = arith.mulf %15, %0 : f64
    %17 = arith.mulf %16, %0 : f64
    %18 = arith.mulf %17, %0 : f64
    %19 = arith.mulf %18, %0 : f64
    %20 = arith.mulf %19, %0 : f64
    %21 = arith.mulf %20, %0 : f64
    %22 = arith.mulf %21, %0 : f64
    %23 = arith.mulf %22, %0 : f64
    %24 = arith.mulf %23, %0 : f64
    %25 = arith.mulf %24, %0 : f64
    %26 = arith.mulf %25, %0 : f64
    %27 = arith.mulf %26, %0 : f64
    %28 = arith.mulf %27, %0 : f64
    %29 = arith.mulf %28, %0 : f64
    %30 = arith.mulf %29, %0 : f64
    %31 = arith.mulf %30, %0 : f64
    %32 = arith.mulf %31, %0 : f64
    %33 = arith.mulf %32, %0 : f64
    %34 = arith.mulf %33, %0 : f64
    %35 = arith.mulf %34, %0 : f64
    %36 = arith.mulf %35, %0 : f64
    %37 = arith.mulf %36, %0 : f64
    %38 = arith.mulf %37, %0 : f64
    %39 = arith.mulf %38, %0 : f64
    %40 = arith.mulf %39, %0 : f64
    %41 = arith.mulf %40, %0 : f64
    %42 = arith.mulf %41, %0 : f64
    %43 = arith.mulf %42, %0 : f64
    %44 = arith.mulf %43, %0 : f64
    %45 = arith.mulf %44, %0 : f64
    %46 = arith.mulf %45, %0 : f64
    %47 = arith.mulf %46, %0 : f64
    %48 = arith.mulf %47, %0 : f64
    %49 = arith.mulf %48, %0 : f64
    %50 = arith.mulf %49, %0 : f64
    %51 = arith.mulf %50, %0 : f64
    %52 = arith.mulf %51, %0 : f64
    %53 = arith.mulf %52, %0 : f64
    %54 = arith.mulf %53, %0 : f64
    %55 = arith.mulf %54, %0 : f64
    %56 = arith.mulf %55, %0 : f64
    %57 = arith.mulf %56, %0 : f64
    %58 = arith.mulf %57, %0 : f64
    %59 = arith.mulf %58, %0 : f64
    %60 = arith.mulf %59, %0 : f64
    %61 = arith.mulf %60, %0 : f64
    %62 = arith.mulf %61, %0 : f64
    %63 = arith.mulf %62, %0 : f64
    %64 = arith.mulf %63, %0 : f64
    affine.store %64, %a[%i] : memref<?xf64>
  }
  func.return %never : f64
}
