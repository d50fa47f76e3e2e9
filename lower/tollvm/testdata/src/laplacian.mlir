// Horizontal Laplacian of a 3-D field: out(i, j, k) over 5x7x9 reads
// inp(i+1 +- 1, j+1 +- 1, k) over 7x9x9 (interval origins already folded).
func.func @laplacian(%inp: memref<7x9x9xf32>, %out: memref<5x7x9xf32>) attributes {tir.arg_names = ["inp", "out"], tir.dim_names = [["I", "J", "K"], ["I", "J", "K"]], tir.num_results = 1 : i64} {
  %c4 = arith.constant -4.0 : f32
  affine.for %i = 0 to 5 {
    affine.for %j = 0 to 7 {
      affine.for %k = 0 to 9 {
        %c = affine.load %inp[%i + 1, %j + 1, %k] : memref<7x9x9xf32>
        %w = affine.load %inp[%i, %j + 1, %k] : memref<7x9x9xf32>
        %e = affine.load %inp[%i + 2, %j + 1, %k] : memref<7x9x9xf32>
        %s = affine.load %inp[%i + 1, %j, %k] : memref<7x9x9xf32>
        %n = affine.load %inp[%i + 1, %j + 2, %k] : memref<7x9x9xf32>
        %t0 = arith.addf %w, %e : f32
        %t1 = arith.addf %t0, %s : f32
        %t2 = arith.addf %t1, %n : f32
        %m = arith.mulf %c4, %c : f32
        %r = arith.addf %t2, %m : f32
        affine.store %r, %out[%i, %j, %k] : memref<5x7x9xf32>
      }
    }
  }
  return
}
