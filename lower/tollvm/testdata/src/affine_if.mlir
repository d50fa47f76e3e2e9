// affine.if with results (a clamp to a window) and without (a store).
#inside = affine_set<(d0) : (d0 - 3 >= 0, 12 - d0 >= 0)>
#diag = affine_set<(d0)[s0] : (d0 - s0 == 0)>
func.func @affine_if(%inp: memref<16xf32>, %out: memref<16xf32>, %flag: memref<16xi32>, %K: index) attributes {tir.arg_names = ["inp", "out", "flag", "K"], tir.num_results = 2 : i64} {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1 : i32
  %none = arith.constant 0 : i32
  affine.for %i = 0 to 16 {
    %r = affine.if #inside(%i) -> f32 {
      %x = affine.load %inp[%i] : memref<16xf32>
      affine.yield %x : f32
    } else {
      affine.yield %zero : f32
    }
    affine.store %r, %out[%i] : memref<16xf32>
    affine.store %none, %flag[%i] : memref<16xi32>
    affine.if #diag(%i)[%K] {
      affine.store %one, %flag[%i] : memref<16xi32>
    }
  }
  return
}
