// RUN: tc-opt --affine-contraction-tile='vector-bits=128 rows=2 vectors=2 k-block=4 n-block=16' --split-input-file
// A matrix product with symbolic sizes, as convert-tir-to-affine writes
// it: C is set to 0 on the 2 x 8 tiles, the k loop is cut into blocks of
// 4 that accumulate in C, B's block is packed into 8-wide panels, and the
// tiles hold 2 x 2 vector accumulators with A broadcast. The columns past
// the last 8-wide tile get 2 x 1 tiles, the last rows 1 x 2 and 1 x 1
// tiles, the last columns that do not fill a vector the original loops.
func.func @matmul(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %M: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
        %a = affine.load %A[%m, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %n] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %0, %C[%m, %n] : memref<?x?xf32>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// Constant sizes that are multiples of the tiles and a reduction that
// fits in one block: no initialization of C, no remainder pieces, the
// accumulators start from the initial value.
func.func @exact(%A: memref<6x3xf64>, %B: memref<3x16xf64>, %C: memref<6x16xf64>) {
  %one = arith.constant 1.0 : f64
  affine.for %m = 0 to 6 {
    affine.for %n = 0 to 16 {
      %0 = affine.for %k = 0 to 3 iter_args(%acc = %one) -> (f64) {
        %a = affine.load %A[%m, %k] : memref<6x3xf64>
        %b = affine.load %B[%k, %n] : memref<3x16xf64>
        %p = arith.mulf %a, %b : f64
        %s = arith.addf %acc, %p : f64
        affine.yield %s : f64
      }
      affine.store %0, %C[%m, %n] : memref<6x16xf64>
    }
  }
  func.return
}

// -----
// A convolution: no row loop, so 1 x 2 tiles over the output with the
// input read at %i + %k (contiguous along %i, not packed: nothing would
// reuse the panels) and the weights broadcast.
func.func @conv1d(%I: memref<?xf32>, %W: memref<?xf32>, %O: memref<?xf32>, %N: index, %K: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %i = 0 to affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%N, %K] {
    %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
      %x = affine.load %I[%i + %k] : memref<?xf32>
      %w = affine.load %W[%k] : memref<?xf32>
      %p = arith.mulf %x, %w : f32
      %s = arith.addf %acc, %p : f32
      affine.yield %s : f32
    }
    affine.store %0, %O[%i] : memref<?xf32>
  } {tir.parallel}
  func.return
}

// -----
// Any elementwise body and combiner: a max over k of a sum scaled by a
// scalar argument (broadcast once, before the nest), with a row offset in
// the store and a lower bound of 1.
func.func @maxplus(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %s: f32, %M: index, %K: index, %N: index) {
  %ninf = arith.constant 0xFF800000 : f32
  affine.for %m = 1 to %M {
    affine.for %n = 0 to %N {
      %0 = affine.for %k = 0 to %K iter_args(%acc = %ninf) -> (f32) {
        %a = affine.load %A[%m, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %n] : memref<?x?xf32>
        %p = arith.addf %a, %b : f32
        %q = arith.mulf %p, %s : f32
        %r = arith.maxf %acc, %q : f32
        affine.yield %r : f32
      }
      affine.store %0, %C[%m - 1, %n] : memref<?x?xf32>
    }
  }
  func.return
}

// -----
// A batch of products: the tiles are made inside the batch loop, whose
// iterations now share the panel buffer (allocated once, at the top
// level): it loses its parallel mark; the row tiles stay parallel.
func.func @batched(%A: memref<?x?x?xf32>, %B: memref<?x?x?xf32>, %C: memref<?x?x?xf32>, %Z: index, %M: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %z = 0 to %Z {
    affine.for %m = 0 to %M {
      affine.for %n = 0 to %N {
        %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
          %a = affine.load %A[%z, %m, %k] : memref<?x?x?xf32>
          %b = affine.load %B[%z, %k, %n] : memref<?x?x?xf32>
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          affine.yield %s : f32
        }
        affine.store %0, %C[%z, %m, %n] : memref<?x?x?xf32>
      } {tir.parallel}
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// Left alone: B read as B[%n, %k] is not contiguous along %n; an initial
// value computed inside the nest; a body that reads C (it may see what the
// nest writes); a result used before it is stored.
func.func @refused(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %M: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
        %a = affine.load %A[%m, %k] : memref<?x?xf32>
        %b = affine.load %B[%n, %k] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %0, %C[%m, %n] : memref<?x?xf32>
    }
  }
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %i = affine.load %C[%m, %n] : memref<?x?xf32>
      %0 = affine.for %k = 0 to %K iter_args(%acc = %i) -> (f32) {
        %a = affine.load %A[%m, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %n] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %0, %C[%m, %n] : memref<?x?xf32>
    }
  }
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
        %a = affine.load %C[%m, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %n] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      affine.store %0, %C[%m, %n] : memref<?x?xf32>
    }
  }
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %0 = affine.for %k = 0 to %K iter_args(%acc = %cst) -> (f32) {
        %a = affine.load %A[%m, %k] : memref<?x?xf32>
        %b = affine.load %B[%k, %n] : memref<?x?xf32>
        %p = arith.mulf %a, %b : f32
        %s = arith.addf %acc, %p : f32
        affine.yield %s : f32
      }
      %1 = arith.mulf %0, %0 : f32
      affine.store %1, %C[%m, %n] : memref<?x?xf32>
    }
  }
  func.return
}
