func.func @parallel(%m: memref<?x10xf32>, %N: index, %x: f32) -> (f32, f32, i32) {
  affine.parallel (%i, %j) = (0, 0) to (5, %N) {
    affine.store %x, %m[%i, %j] : memref<?x10xf32>
  }
  affine.parallel (%i2, %j2) = (0, max(0, %N - 2)) to (symbol(%N), min(10, symbol(%N) floordiv 2)) step (2, 3) {
    affine.store %x, %m[%i2, %j2] : memref<?x10xf32>
  }
  affine.for %k = 0 to 4 {
    affine.parallel (%l) = (%k) to (%k + symbol(%N)) {
      affine.store %x, %m[%l, %k] : memref<?x10xf32>
    }
  }
  %r:2 = affine.parallel (%a, %b) = (0, 0) to (%N, 10) reduce ("addf", "maxf") -> (f32, f32) {
    %v = affine.load %m[%a, %b] : memref<?x10xf32>
    affine.yield %v, %v : f32, f32
  }
  %c = affine.parallel (%c0) = (0) to (10) reduce ("addi") -> (i32) {
    %one = arith.constant 1 : i32
    affine.yield %one : i32
  }
  func.return %r#0, %r#1, %c : f32, f32, i32
}
