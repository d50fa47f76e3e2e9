// RUN: tc-opt --affine-contraction-tile='vector-bits=128 rows=2 vectors=2 k-block=4 n-block=16 specialize=0' --split-input-file
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
// A Linear layer with the weight stored N x K, as PyTorch stores it: W is
// read as W[%n, %k], so its block is packed by 4 x 4 blocks transposed
// with shuffles (the panels take the columns of n contiguously), the last
// values of k and the columns past the partial panel's vectors element by
// element; the bias and the ReLU after the sum are applied to the tile's
// accumulators before the store, after the last k block only (the others
// store their partial sums). The columns past the last 4-wide vector take
// 2-lane vectors.
func.func @linear(%X: memref<?x?xf32>, %W: memref<?x?xf32>, %B: memref<?xf32>, %O: memref<?x?xf32>, %M: index, %K: index, %N: index) {
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
      %b = affine.load %B[%n] : memref<?xf32>
      %t = arith.addf %0, %b : f32
      %r = arith.maxf %t, %cst : f32
      affine.store %r, %O[%m, %n] : memref<?x?xf32>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// Attention's scores, batched, K read as K[%z, %s, %d] (transposed: packed
// by blocks transposed with shuffles, once per batch), scaled after the
// sum: the batch loop holds the nest and shares its panels.
func.func @scores(%Q: memref<?x?x?xf32>, %K: memref<?x?x?xf32>, %S: memref<?x?x?xf32>, %Z: index, %L: index, %D: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  affine.for %z = 0 to %Z {
    affine.for %l = 0 to %L {
      affine.for %s = 0 to %N {
        %0 = affine.for %d = 0 to %D iter_args(%acc = %cst) -> (f32) {
          %q = affine.load %Q[%z, %l, %d] : memref<?x?x?xf32>
          %k = affine.load %K[%z, %s, %d] : memref<?x?x?xf32>
          %p = arith.mulf %q, %k : f32
          %a = arith.addf %acc, %p : f32
          affine.yield %a : f32
        }
        %1 = arith.mulf %0, %scale : f32
        affine.store %1, %S[%z, %l, %s] : memref<?x?x?xf32>
      } {tir.parallel}
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// The bias as the sum's initial value, a reduction that fits in one
// block: the accumulators start from vectors of B.
func.func @bias_init(%X: memref<?x3xf32>, %W: memref<3x?xf32>, %B: memref<?xf32>, %O: memref<?x?xf32>, %M: index, %N: index) {
  affine.for %m = 0 to %M {
    affine.for %n = 0 to %N {
      %b = affine.load %B[%n] : memref<?xf32>
      %0 = affine.for %k = 0 to 3 iter_args(%acc = %b) -> (f32) {
        %x = affine.load %X[%m, %k] : memref<?x3xf32>
        %w = affine.load %W[%k, %n] : memref<3x?xf32>
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
// A 2-D convolution, NCHW: three reductions (c, kh, kw) nested in the
// tile as they were; the row is the output channel %m, two loops out,
// whose rows share the input window; %h becomes a loop around the tiles,
// which pack the window I[%n, %c, %h + %kh, %w + %kw] once per %h into
// panels with a dimension per reduction.
func.func @conv_nchw(%I: memref<?x?x?x?xf32>, %Wt: memref<?x?x?x?xf32>, %O: memref<?x?x?x?xf32>, %N: index, %C: index, %H: index, %W: index, %M: index, %KH: index, %KW: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %n = 0 to %N {
    affine.for %m = 0 to %M {
      affine.for %h = 0 to affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%H, %KH] {
        affine.for %w = 0 to affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%W, %KW] {
          %0 = affine.for %c = 0 to %C iter_args(%a0 = %cst) -> (f32) {
            %1 = affine.for %kh = 0 to %KH iter_args(%a1 = %a0) -> (f32) {
              %2 = affine.for %kw = 0 to %KW iter_args(%a2 = %a1) -> (f32) {
                %i = affine.load %I[%n, %c, %h + %kh, %w + %kw] : memref<?x?x?x?xf32>
                %f = affine.load %Wt[%m, %c, %kh, %kw] : memref<?x?x?x?xf32>
                %p = arith.mulf %i, %f : f32
                %s = arith.addf %a2, %p : f32
                affine.yield %s : f32
              }
              affine.yield %2 : f32
            }
            affine.yield %1 : f32
          }
          affine.store %0, %O[%n, %m, %h, %w] : memref<?x?x?x?xf32>
        } {tir.parallel}
      } {tir.parallel}
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// A 2-D convolution, NHWC: the row is %w, the weights Wt[%kh, %kw, %c, %m]
// are packed (the same for every row), the input broadcast.
func.func @conv_nhwc(%I: memref<?x?x?x?xf32>, %Wt: memref<?x?x?x?xf32>, %O: memref<?x?x?x?xf32>, %N: index, %H: index, %W: index, %C: index, %KH: index, %KW: index, %M: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %n = 0 to %N {
    affine.for %h = 0 to affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%H, %KH] {
      affine.for %w = 0 to affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%W, %KW] {
        affine.for %m = 0 to %M {
          %0 = affine.for %kh = 0 to %KH iter_args(%a0 = %cst) -> (f32) {
            %1 = affine.for %kw = 0 to %KW iter_args(%a1 = %a0) -> (f32) {
              %2 = affine.for %c = 0 to %C iter_args(%a2 = %a1) -> (f32) {
                %i = affine.load %I[%n, %h + %kh, %w + %kw, %c] : memref<?x?x?x?xf32>
                %f = affine.load %Wt[%kh, %kw, %c, %m] : memref<?x?x?x?xf32>
                %p = arith.mulf %i, %f : f32
                %s = arith.addf %a2, %p : f32
                affine.yield %s : f32
              }
              affine.yield %2 : f32
            }
            affine.yield %1 : f32
          }
          affine.store %0, %O[%n, %h, %w, %m] : memref<?x?x?x?xf32>
        } {tir.parallel}
      } {tir.parallel}
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// A depthwise convolution, NCHW: every operand depends on the channel, so
// no loop's rows share one; the tiles take MR rows of %h, reading the
// input's vectors directly and broadcasting the weights.
func.func @depthwise(%I: memref<?x?x?x?xf32>, %Wt: memref<?x3x3xf32>, %O: memref<?x?x?x?xf32>, %N: index, %C: index, %H: index, %W: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %n = 0 to %N {
    affine.for %c = 0 to %C {
      affine.for %h = 0 to affine_map<()[s0] -> (s0 - 2)>()[%H] {
        affine.for %w = 0 to affine_map<()[s0] -> (s0 - 2)>()[%W] {
          %0 = affine.for %kh = 0 to 3 iter_args(%a0 = %cst) -> (f32) {
            %1 = affine.for %kw = 0 to 3 iter_args(%a1 = %a0) -> (f32) {
              %i = affine.load %I[%n, %c, %h + %kh, %w + %kw] : memref<?x?x?x?xf32>
              %f = affine.load %Wt[%c, %kh, %kw] : memref<?x3x3xf32>
              %p = arith.mulf %i, %f : f32
              %s = arith.addf %a1, %p : f32
              affine.yield %s : f32
            }
            affine.yield %1 : f32
          }
          affine.store %0, %O[%n, %c, %h, %w] : memref<?x?x?x?xf32>
        } {tir.parallel}
      } {tir.parallel}
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// np.tensordot(A, B, axes=([1, 3], [1, 0])): two reductions, the row %j,
// %i a batch loop around the nest (the panels are packed per %i).
func.func @tensordot(%A: memref<?x?x?x?xf32>, %B: memref<?x?x?xf32>, %O: memref<?x?x?xf32>, %I: index, %K: index, %J: index, %L: index, %N: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %i = 0 to %I {
    affine.for %j = 0 to %J {
      affine.for %n = 0 to %N {
        %0 = affine.for %k = 0 to %K iter_args(%a0 = %cst) -> (f32) {
          %1 = affine.for %l = 0 to %L iter_args(%a1 = %a0) -> (f32) {
            %a = affine.load %A[%i, %k, %j, %l] : memref<?x?x?x?xf32>
            %b = affine.load %B[%l, %k, %n] : memref<?x?x?xf32>
            %p = arith.mulf %a, %b : f32
            %s = arith.addf %a1, %p : f32
            affine.yield %s : f32
          }
          affine.yield %1 : f32
        }
        affine.store %0, %O[%i, %j, %n] : memref<?x?x?xf32>
      } {tir.parallel}
    } {tir.parallel}
  } {tir.parallel}
  func.return
}

// -----
// Left alone: an initial value read from C (it may be what the nest
// stores); a body that reads C; an operand read with %n elsewhere than in
// the last subscript that also depends on the row (no panel is shared);
// an epilogue that stores before the result.
func.func @refused(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %C: memref<?x?xf32>, %D: memref<?x?xf32>, %M: index, %K: index, %N: index) {
  %cst = arith.constant 0.0 : f32
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
        %b = affine.load %B[%n, %m + %k] : memref<?x?xf32>
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
      affine.store %0, %D[%m, %n] : memref<?x?xf32>
      %1 = arith.mulf %0, %0 : f32
      affine.store %1, %C[%m, %n] : memref<?x?xf32>
    }
  }
  func.return
}
