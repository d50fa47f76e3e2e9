// RUN: tc-opt --lower-affine
// lower-affine: bounds (max of lower, min of upper), steps, iter_args,
// floordiv / ceildiv / mod, affine.if, affine.apply / min / max, loads and
// stores, affine.parallel.
func.func @lowered(%m: memref<100x100xf32>, %v: memref<100xf32>, %N: index, %x: f32) -> f32 {
  %cst = arith.constant 0.0 : f32
  %r = affine.for %i = max affine_map<()[s0] -> (0, s0 - 90)>()[%N] to min affine_map<()[s0] -> (100, s0 floordiv 2)>()[%N] step 3 iter_args(%acc = %cst) -> (f32) {
    %a = affine.load %m[%i, %i mod 7] : memref<100x100xf32>
    %s = arith.addf %acc, %a : f32
    affine.yield %s : f32
  }
  affine.for %j = 0 to 100 {
    affine.if affine_set<(d0)[s0] : (d0 - s0 >= 0, -d0 + 99 >= 0)>(%j)[%N] {
      affine.store %x, %v[%j ceildiv 4] : memref<100xf32>
    } else {
      %k = affine.apply affine_map<(d0) -> (d0 * 3 - 1)>(%j)
      %lo = affine.min affine_map<(d0)[s0] -> (d0, s0)>(%k)[%N]
      %hi = affine.max affine_map<(d0) -> (d0 - 5, 0)>(%j)
      affine.store %x, %m[%k, %j] : memref<100x100xf32>
      memref.store %x, %m[%lo, %hi] : memref<100x100xf32>
    }
  } {tir.parallel}
  affine.parallel (%p, %q) = (0, 0) to (10, %N) {
    affine.store %x, %m[%p, %q] : memref<100x100xf32>
  }
  func.return %r : f32
}
