// Parallel loops for convert-to-llvm{threads=omp}: a nest marked
// tir.parallel that captures a scalar, a symbol and a temporary; one with
// lower bound 1 and step 2 whose stack scratch buffer is written in every
// iteration (as the vectorizer's broadcast); an affine.parallel; a loop
// holding a cf.assert, which stays sequential.
func.func @threads(%inp: memref<?x8xf32>, %alpha: memref<f32>, %out: memref<?x8xf32>, %N: index) attributes {
    tir.arg_names = ["inp", "alpha", "out", "N"], tir.dim_names = [["I", "J"], [], ["I", "J"], []],
    tir.extents = [affine_map<()[s0] -> (s0, 8)>, affine_map<()[s0] -> ()>, affine_map<()[s0] -> (s0, 8)>, unit], tir.num_results = 1 : i64} {
  %tmp = memref.alloc(%N) : memref<?x8xf32>
  %splat = memref.alloca() : memref<8xf32>
  %a = affine.load %alpha[] : memref<f32>
  affine.for %i = 0 to %N {
    affine.for %j = 0 to 8 {
      %x = affine.load %inp[%i, %j] : memref<?x8xf32>
      %y = arith.mulf %x, %a : f32
      affine.store %y, %tmp[%i, %j] : memref<?x8xf32>
    }
  } {tir.parallel}
  affine.for %i = 1 to %N step 2 {
    %ii = arith.index_cast %i : index to i64
    %f = arith.sitofp %ii : i64 to f32
    affine.for %k = 0 to 8 {
      affine.store %f, %splat[%k] : memref<8xf32>
    }
    %v = affine.vector_load %splat[0] : memref<8xf32>, vector<8xf32>
    %t = affine.vector_load %tmp[%i, 0] : memref<?x8xf32>, vector<8xf32>
    %s = arith.addf %t, %v : vector<8xf32>
    affine.vector_store %s, %out[%i, 0] : memref<?x8xf32>, vector<8xf32>
  } {tir.parallel}
  affine.parallel (%i, %j) = (0, 0) to (symbol(%N), 8) step (2, 1) {
    %t = affine.load %tmp[%i, %j] : memref<?x8xf32>
    %u = arith.subf %t, %a : f32
    affine.store %u, %out[%i, %j] : memref<?x8xf32>
  }
  affine.for %i = 0 to %N {
    %ok = arith.cmpi slt, %i, %N : index
    cf.assert %ok, "in range"
  } {tir.parallel}
  memref.dealloc %tmp : memref<?x8xf32>
  return
}
