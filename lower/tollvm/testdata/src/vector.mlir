// A vectorised loop: 8-wide loads, arithmetic and stores, with a scalar
// remainder loop.
func.func @vector(%a: memref<4x20xf32>, %b: memref<4x20xf32>, %out: memref<4x20xf32>) attributes {tir.arg_names = ["a", "b", "out"], tir.num_results = 1 : i64} {
  %two = arith.constant dense<2.0> : vector<8xf32>
  %twos = arith.constant 2.0 : f32
  affine.for %i = 0 to 4 {
    affine.for %j = 0 to 16 step 8 {
      %x = affine.vector_load %a[%i, %j] : memref<4x20xf32>, vector<8xf32>
      %y = affine.vector_load %b[%i, %j] : memref<4x20xf32>, vector<8xf32>
      %p = arith.mulf %x, %y : vector<8xf32>
      %s = arith.addf %p, %x : vector<8xf32>
      %m = arith.maxf %s, %y : vector<8xf32>
      %q = arith.mulf %m, %two : vector<8xf32>
      affine.vector_store %q, %out[%i, %j] : memref<4x20xf32>, vector<8xf32>
    }
    affine.for %j = 16 to 20 {
      %x = affine.load %a[%i, %j] : memref<4x20xf32>
      %y = affine.load %b[%i, %j] : memref<4x20xf32>
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %p, %x : f32
      %m = arith.maxf %s, %y : f32
      %q = arith.mulf %m, %twos : f32
      affine.store %q, %out[%i, %j] : memref<4x20xf32>
    }
  }
  return
}
