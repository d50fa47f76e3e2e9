// A symbolic stencil: out(I, J) over N x M reads inp over (N+1) x (M+2).
func.func @symbolic(%inp: memref<?x?xf64>, %out: memref<?x?xf64>, %N: index, %M: index) attributes {
    tir.arg_names = ["inp", "out", "N", "M"],
    tir.dim_names = [["I", "J"], ["I", "J"], [], []],
    tir.extents = [affine_map<()[s0, s1] -> (s0 + 1, s1 + 2)>, affine_map<()[s0, s1] -> (s0, s1)>, unit, unit],
    tir.num_results = 1 : i64} {
  %half = arith.constant 0.5 : f64
  affine.for %i = 0 to %N {
    affine.for %j = 0 to %M {
      %a = affine.load %inp[%i, %j + 1] : memref<?x?xf64>
      %b = affine.load %inp[%i + 1, %j] : memref<?x?xf64>
      %c = affine.load %inp[%i + 1, %j + 2] : memref<?x?xf64>
      %s = arith.addf %b, %c : f64
      %h = arith.mulf %s, %half : f64
      %r = arith.subf %a, %h : f64
      affine.store %r, %out[%i, %j] : memref<?x?xf64>
    }
  }
  return
}
