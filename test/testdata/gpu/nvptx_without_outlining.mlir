// RUN: tc-opt --convert-to-llvm=target=nvptx64
// convert-to-llvm{target=nvptx64} emits kernels: loop nests that were not
// outlined are an error that says which pass to run.
func.func @f(%m: memref<4xf32>, %x: f32) {
  affine.for %i = 0 to 4 {
    affine.store %x, %m[%i] : memref<4xf32>
  } {tir.parallel}
  func.return
}
