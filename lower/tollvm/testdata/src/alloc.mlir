// Temporaries: a static and a dynamic memref.alloc, used and freed.
func.func @alloc(%inp: memref<?xf32>, %out: memref<?xf32>, %N: index) attributes {
    tir.arg_names = ["inp", "out", "N"], tir.dim_names = [["I"], ["I"], []],
    tir.extents = [affine_map<()[s0] -> (s0)>, affine_map<()[s0] -> (s0)>, unit], tir.num_results = 1 : i64} {
  %two = arith.constant 2.0 : f32
  %tmp = memref.alloc(%N) : memref<?xf32>
  %acc = memref.alloc() : memref<1xf32>
  %zero = arith.constant 0.0 : f32
  affine.store %zero, %acc[0] : memref<1xf32>
  affine.for %i = 0 to %N {
    %x = affine.load %inp[%i] : memref<?xf32>
    %y = arith.mulf %x, %two : f32
    affine.store %y, %tmp[%i] : memref<?xf32>
    %a = affine.load %acc[0] : memref<1xf32>
    %b = arith.addf %a, %x : f32
    affine.store %b, %acc[0] : memref<1xf32>
  }
  %c0 = arith.constant 0 : index
  %n = memref.dim %tmp, %c0 : memref<?xf32>
  %total = affine.load %acc[0] : memref<1xf32>
  affine.for %i = 0 to %n {
    %t = affine.load %tmp[%i] : memref<?xf32>
    %u = affine.load %tmp[symbol(%n) - %i - 1] : memref<?xf32>
    %v = arith.addf %t, %u : f32
    %w = arith.subf %v, %total : f32
    affine.store %w, %out[%i] : memref<?xf32>
  }
  memref.dealloc %tmp : memref<?xf32>
  memref.dealloc %acc : memref<1xf32>
  return
}
