// RUN: tc-opt --affine-vectorize='width=4' --split-input-file
// Float sums vectorized across the loop around them: each lane is one
// iteration of the outer loop and adds in its order, so results are the
// scalar code's bit for bit. A row sum reads rows: its reduction runs in
// chunks of 4, each loading a 4 x 4 block of 4 rows that vector.shuffle
// transposes (column j feeds step j), then the last elements of the rows
// one by one; the rows left after the groups of 4 run the original loop.
func.func @row_sums(%x: memref<?x?xf32>, %s: memref<?xf32>, %n: index, %m: index) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %r = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %x[%i, %k] : memref<?x?xf32>
      %1 = arith.addf %acc, %0 : f32
      affine.yield %1 : f32
    }
    affine.store %r, %s[%i] : memref<?xf32>
  }
  func.return
}

// -----
// Column sums: the lanes are consecutive elements of a row, loaded as one
// vector per step; the reduction needs no chunks. The initial value comes
// from memory (the result accumulates into what it holds).
func.func @column_sums(%x: memref<?x?xf64>, %c: memref<?xf64>, %n: index, %m: index) {
  affine.for %j = 0 to %m {
    %init = affine.load %c[%j] : memref<?xf64>
    %r = affine.for %i = 0 to %n iter_args(%acc = %init) -> (f64) {
      %0 = affine.load %x[%i, %j] : memref<?x?xf64>
      %1 = arith.addf %acc, %0 : f64
      affine.yield %1 : f64
    }
    affine.store %r, %c[%j] : memref<?xf64>
  }
  func.return
}

// -----
// A layer normalization's statistics: two reductions, the second reading
// the first's mean, a size computed by a loop that is the same for every
// row (run once per group of rows, on scalars, and broadcast), divisions
// and a masked update, all on vectors of 4 rows.
func.func @statistics(%x: memref<?x?xf32>, %mu: memref<?xf32>, %var: memref<?xf32>, %n: index, %m: index) {
  %zero = arith.constant 0.0 : f32
  %min = arith.constant -9223372036854775808 : i64
  %half = arith.constant 0.5 : f32
  affine.for %i = 0 to %n {
    %sum = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %x[%i, %k] : memref<?x?xf32>
      %1 = arith.addf %acc, %0 : f32
      affine.yield %1 : f32
    }
    %size = affine.for %s = %m to affine_map<()[s0] -> (s0 + 1)>()[%m] iter_args(%acc = %min) -> (i64) {
      %0 = arith.index_cast %s : index to i64
      %1 = arith.maxsi %acc, %0 : i64
      affine.yield %1 : i64
    }
    %d = arith.sitofp %size : i64 to f32
    %mean = arith.divf %sum, %d : f32
    affine.store %mean, %mu[%i] : memref<?xf32>
    %sq = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %x[%i, %k] : memref<?x?xf32>
      %1 = arith.subf %0, %mean : f32
      %2 = arith.mulf %1, %1 : f32
      %3 = arith.addf %acc, %2 : f32
      %4 = arith.cmpf ogt, %1, %half : f32
      %5 = arith.select %4, %3, %acc : f32
      affine.yield %5 : f32
    }
    %v = arith.divf %sq, %d : f32
    affine.store %v, %var[%i] : memref<?xf32>
  }
  func.return
}

// -----
// A matrix-vector product over a constant range: w(k) is the same for
// every row (a scalar load broadcast at each step), 8 = 2 chunks of 4
// and no remainder.
func.func @matvec(%a: memref<?x8xf32>, %w: memref<8xf32>, %y: memref<?xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %r = affine.for %k = 0 to 8 iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %a[%i, %k] : memref<?x8xf32>
      %1 = affine.load %w[%k] : memref<8xf32>
      %2 = arith.mulf %0, %1 : f32
      %3 = arith.addf %acc, %2 : f32
      affine.yield %3 : f32
    }
    affine.store %r, %y[%i] : memref<?xf32>
  }
  func.return
}

// -----
// Refused: a row's result is stored along a row (no vector store), a row
// reads what the previous row wrote, a reduction's length depends on the
// row (triangular).
func.func @refused(%x: memref<?x?xf32>, %s: memref<?xf32>, %t: memref<?x?xf32>, %n: index, %m: index) {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to %n {
    %r = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %x[%i, %k] : memref<?x?xf32>
      %1 = arith.addf %acc, %0 : f32
      affine.yield %1 : f32
    }
    affine.store %r, %t[%i, 0] : memref<?x?xf32>
  }
  affine.for %i = 1 to %n {
    %r = affine.for %k = 0 to %m iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %x[%i, %k] : memref<?x?xf32>
      %1 = arith.addf %acc, %0 : f32
      affine.yield %1 : f32
    }
    %p = affine.load %s[%i - 1] : memref<?xf32>
    %q = arith.addf %r, %p : f32
    affine.store %q, %s[%i] : memref<?xf32>
  }
  affine.for %i = 0 to %n {
    %r = affine.for %k = 0 to affine_map<(d0) -> (d0)>(%i) iter_args(%acc = %zero) -> (f32) {
      %0 = affine.load %x[%i, %k] : memref<?x?xf32>
      %1 = arith.addf %acc, %0 : f32
      affine.yield %1 : f32
    }
    affine.store %r, %s[%i] : memref<?xf32>
  }
  func.return
}
