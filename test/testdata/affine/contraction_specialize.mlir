// RUN: tc-opt --affine-contraction-tile='vector-bits=128 rows=2 vectors=1 k-block=0'
// A 1-D convolution over channels, O[m, i] = sum over c, k of
// I[c, i + k] * W[m, c, k], with a window of %K taps: the nest is
// versioned on %K == 3 (the default of specialize), the copy's window
// loop having 3 iterations (affine-loop-unroll unrolls it in the tiles,
// which otherwise enter and leave it every 3 iterations), the other
// window widths running the general copy.
func.func @conv(%I: memref<?x?xf32>, %W: memref<?x?x?xf32>, %O: memref<?x?xf32>, %M: index, %C: index, %N: index, %K: index) {
  %cst = arith.constant 0.0 : f32
  affine.for %m = 0 to %M {
    affine.for %i = 0 to affine_map<()[s0, s1] -> (s0 - s1 + 1)>()[%N, %K] {
      %0 = affine.for %c = 0 to %C iter_args(%a0 = %cst) -> (f32) {
        %1 = affine.for %k = 0 to %K iter_args(%a1 = %a0) -> (f32) {
          %x = affine.load %I[%c, %i + %k] : memref<?x?xf32>
          %w = affine.load %W[%m, %c, %k] : memref<?x?x?xf32>
          %p = arith.mulf %x, %w : f32
          %s = arith.addf %a1, %p : f32
          affine.yield %s : f32
        }
        affine.yield %1 : f32
      }
      affine.store %0, %O[%m, %i] : memref<?x?xf32>
    } {tir.parallel}
  } {tir.parallel}
  func.return
}
