// RUN: tc-opt --affine-loop-unroll='factor=4' --split-input-file
// Symbolic bounds: a main loop over full chunks of 4, then the original
// loop for what remains (from max(lb, end of the last chunk)); the sum is
// carried through every copy and into the remainder.
func.func @sum(%a: memref<?xf32>, %n: index) -> f32 {
  %cst = arith.constant 0.0 : f32
  %r = affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] iter_args(%acc = %cst) -> (f32) {
    %0 = affine.load %a[%i] : memref<?xf32>
    %1 = arith.addf %acc, %0 : f32
    affine.yield %1 : f32
  }
  func.return %r : f32
}

// -----
// Constant bounds with a step: 9 iterations are 2 chunks and 1 left over;
// 8 iterations leave nothing over (no remainder loop); 3 iterations, fewer
// than the factor, are left alone. Only innermost loops are unrolled.
func.func @constant(%a: memref<32x32xf32>) {
  affine.for %j = 0 to 3 {
    affine.for %i = 3 to 21 step 2 {
      %0 = affine.load %a[%j, %i] : memref<32x32xf32>
      affine.store %0, %a[%j, %i + 1] : memref<32x32xf32>
    }
    affine.for %k = 0 to 8 {
      %1 = affine.load %a[%j, %k] : memref<32x32xf32>
      affine.store %1, %a[%k, %j] : memref<32x32xf32>
    }
  }
  func.return
}

// -----
// A tile's point loop: the min upper bound d0 + 8 is a multiple of the
// chunk, so the remainder starts at the last chunk of N.
func.func @point_loop(%a: memref<?xf64>, %n: index) {
  affine.for %t = 0 to %n step 8 {
    affine.for %i = affine_map<(d0) -> (d0)>(%t) to min affine_map<(d0)[s0] -> (d0 + 8, s0)>(%t)[%n] {
      %0 = affine.load %a[%i] : memref<?xf64>
      %1 = arith.mulf %0, %0 : f64
      affine.store %1, %a[%i] : memref<?xf64>
    }
  }
  func.return
}

// -----
// Bounds whose split cannot be written as affine maps (a max lower bound,
// two symbolic upper bounds) are left alone.
func.func @unsupported(%a: memref<?xf64>, %n: index, %m: index) {
  affine.for %i = max affine_map<()[s0, s1] -> (s0, s1)>()[%n, %m] to 100 {
    %0 = affine.load %a[%i] : memref<?xf64>
    affine.store %0, %a[%i + 1] : memref<?xf64>
  }
  affine.for %i = 0 to min affine_map<()[s0, s1] -> (s0, s1)>()[%n, %m] {
    %0 = affine.load %a[%i] : memref<?xf64>
    affine.store %0, %a[%i + 1] : memref<?xf64>
  }
  func.return
}
