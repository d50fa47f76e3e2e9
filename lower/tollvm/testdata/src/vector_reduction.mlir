// vector.reduction of every kind: float rows with a NaN, zeros of both
// signs, an odd lane count (3), with and without an accumulator; i32 and
// i64 rows with every integer kind.
func.func @vector_reduction(%a: memref<4x8xf32>, %b: memref<2x8xi32>, %c: memref<2x8xi64>, %rf: memref<4x6xf32>, %ri: memref<2x9xi32>, %rl: memref<2x4xi64>) attributes {tir.arg_names = ["a", "b", "c", "rf", "ri", "rl"], tir.num_results = 3 : i64} {
  %half = arith.constant 0.5 : f32
  %three = arith.constant 3 : i32
  %big = arith.constant -5 : i64
  affine.for %i = 0 to 4 {
    %v = affine.vector_load %a[%i, 0] : memref<4x8xf32>, vector<8xf32>
    %v3 = affine.vector_load %a[%i, 5] : memref<4x8xf32>, vector<3xf32>
    %0 = vector.reduction <add>, %v : vector<8xf32> into f32
    %1 = vector.reduction <mul>, %v, %half : vector<8xf32> into f32
    %2 = vector.reduction <maxf>, %v : vector<8xf32> into f32
    %3 = vector.reduction <minf>, %v, %half : vector<8xf32> into f32
    %4 = vector.reduction <maxf>, %v3 : vector<3xf32> into f32
    %5 = vector.reduction <add>, %v, %half : vector<8xf32> into f32
    affine.store %0, %rf[%i, 0] : memref<4x6xf32>
    affine.store %1, %rf[%i, 1] : memref<4x6xf32>
    affine.store %2, %rf[%i, 2] : memref<4x6xf32>
    affine.store %3, %rf[%i, 3] : memref<4x6xf32>
    affine.store %4, %rf[%i, 4] : memref<4x6xf32>
    affine.store %5, %rf[%i, 5] : memref<4x6xf32>
  }
  affine.for %i = 0 to 2 {
    %w = affine.vector_load %b[%i, 0] : memref<2x8xi32>, vector<8xi32>
    %0 = vector.reduction <add>, %w : vector<8xi32> into i32
    %1 = vector.reduction <mul>, %w, %three : vector<8xi32> into i32
    %2 = vector.reduction <and>, %w : vector<8xi32> into i32
    %3 = vector.reduction <or>, %w, %three : vector<8xi32> into i32
    %4 = vector.reduction <xor>, %w : vector<8xi32> into i32
    %5 = vector.reduction <minsi>, %w, %three : vector<8xi32> into i32
    %6 = vector.reduction <maxsi>, %w : vector<8xi32> into i32
    %7 = vector.reduction <minui>, %w : vector<8xi32> into i32
    %8 = vector.reduction <maxui>, %w, %three : vector<8xi32> into i32
    affine.store %0, %ri[%i, 0] : memref<2x9xi32>
    affine.store %1, %ri[%i, 1] : memref<2x9xi32>
    affine.store %2, %ri[%i, 2] : memref<2x9xi32>
    affine.store %3, %ri[%i, 3] : memref<2x9xi32>
    affine.store %4, %ri[%i, 4] : memref<2x9xi32>
    affine.store %5, %ri[%i, 5] : memref<2x9xi32>
    affine.store %6, %ri[%i, 6] : memref<2x9xi32>
    affine.store %7, %ri[%i, 7] : memref<2x9xi32>
    affine.store %8, %ri[%i, 8] : memref<2x9xi32>
    %x = affine.vector_load %c[%i, 0] : memref<2x8xi64>, vector<8xi64>
    %9 = vector.reduction <add>, %x, %big : vector<8xi64> into i64
    %10 = vector.reduction <maxsi>, %x : vector<8xi64> into i64
    %11 = vector.reduction <minui>, %x, %big : vector<8xi64> into i64
    %12 = vector.reduction <xor>, %x : vector<8xi64> into i64
    affine.store %9, %rl[%i, 0] : memref<2x4xi64>
    affine.store %10, %rl[%i, 1] : memref<2x4xi64>
    affine.store %11, %rl[%i, 2] : memref<2x4xi64>
    affine.store %12, %rl[%i, 3] : memref<2x4xi64>
  }
  return
}
