func.func @access(%m: memref<100x100xf32>, %v1: memref<?xf32>, %N: index, %x: f32) {
  %c3 = arith.constant 3 : index
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      %a = affine.apply affine_map<(d0, d1) -> (d0 + 2*d1 - 1)>(%i, %j)
      %v = affine.load %m[%i + %j, %c3 + symbol(%N)] : memref<100x100xf32>
      %w = affine.load %m[(%i + %j) floordiv 2, %i mod 4] : memref<100x100xf32>
      %u = affine.load %m[3*%i + 2*symbol(%N), -%j + 5] : memref<100x100xf32>
      %t = affine.load %m[%a, 2*%i] : memref<100x100xf32>
      affine.store %v, %m[%i + 1, symbol(%N) - 1] : memref<100x100xf32>
      affine.store %w, %m[0, %j] : memref<100x100xf32>
      %lo = affine.max affine_map<(d0)[s0] -> (d0, s0)>(%i)[%N]
      %hi = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%j)[%N]
      %vec = affine.vector_load %v1[8*%i] : memref<?xf32>, vector<8xf32>
      %dbl = arith.addf %vec, %vec : vector<8xf32>
      affine.vector_store %dbl, %v1[8*%i + symbol(%N)] : memref<?xf32>, vector<8xf32>
    }
  }
  affine.for %k = 0 to 10 {
    affine.if affine_set<(d0)[s0] : (d0 - 1 >= 0, -d0 + s0 - 1 >= 0)>(%k)[%N] {
      affine.store %x, %m[%k, %k] : memref<100x100xf32>
    }
    affine.if affine_set<(d0) : (d0 - 5 == 0)>(%k) {
      affine.store %x, %m[%k, 0] : memref<100x100xf32>
    } else {
      affine.store %x, %m[0, %k] : memref<100x100xf32>
    }
    %y = affine.if affine_set<()[s0] : (s0 - 10 >= 0)>()[%N] -> f32 {
      affine.yield %x : f32
    } else {
      %z = arith.negf %x : f32
      affine.yield %z : f32
    }
    affine.store %y, %m[%k, 1] : memref<100x100xf32>
  }
  func.return
}
