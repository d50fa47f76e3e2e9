// Row sums with iter_args, and the maximum of all elements with an
// affine.parallel reduction into a rank-0 result.
func.func @reduction(%inp: memref<6x10xf32>, %sums: memref<6xf32>, %mx: memref<f32>) attributes {tir.arg_names = ["inp", "sums", "mx"], tir.num_results = 2 : i64} {
  %zero = arith.constant 0.0 : f32
  affine.for %i = 0 to 6 {
    %s = affine.for %j = 0 to 10 iter_args(%acc = %zero) -> (f32) {
      %x = affine.load %inp[%i, %j] : memref<6x10xf32>
      %n = arith.addf %acc, %x : f32
      affine.yield %n : f32
    }
    affine.store %s, %sums[%i] : memref<6xf32>
  }
  %m = affine.parallel (%i, %j) = (0, 0) to (6, 10) reduce ("maxf") -> (f32) {
    %x = affine.load %inp[%i, %j] : memref<6x10xf32>
    affine.yield %x : f32
  }
  affine.store %m, %mx[] : memref<f32>
  return
}
