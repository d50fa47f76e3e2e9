func.func @tagged(%m: memref<10xf32>, %x: f32) {
  "affine.for"() ({
  ^bb0(%i: index):
    affine.store %x, %m[%i] : memref<10xf32>
    affine.yield
  }) {lower_bound = affine_map<() -> (0)>, step = 1 : index, tir.parallel, upper_bound = affine_map<() -> (10)>} : () -> ()
  func.return
}
