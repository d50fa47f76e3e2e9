func.func @laplacian(%u: memref<?x?x?xf32>, %out: memref<?x?x?xf32>, %norm: memref<1xf32>, %N: index) attributes {llvm.emit_c_interface} {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 6.0 : f32
  %zero = arith.constant 0.0 : f32
  %n2 = affine.apply affine_map<()[s0] -> (s0 - 2)>()[%N]
  %tmp = memref.alloc(%n2, %n2, %n2) : memref<?x?x?xf32>
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%N] {
    affine.for %j = 1 to affine_map<()[s0] -> (s0 - 1)>()[%N] {
      affine.for %k = 1 to affine_map<()[s0] -> (s0 - 1)>()[%N] {
        %c = affine.load %u[%i, %j, %k] : memref<?x?x?xf32>
        %xm = affine.load %u[%i - 1, %j, %k] : memref<?x?x?xf32>
        %xp = affine.load %u[%i + 1, %j, %k] : memref<?x?x?xf32>
        %ym = affine.load %u[%i, %j - 1, %k] : memref<?x?x?xf32>
        %yp = affine.load %u[%i, %j + 1, %k] : memref<?x?x?xf32>
        %zm = affine.load %u[%i, %j, %k - 1] : memref<?x?x?xf32>
        %zp = affine.load %u[%i, %j, %k + 1] : memref<?x?x?xf32>
        %s0 = arith.addf %xm, %xp : f32
        %s1 = arith.addf %s0, %ym : f32
        %s2 = arith.addf %s1, %yp : f32
        %s3 = arith.addf %s2, %zm : f32
        %s4 = arith.addf %s3, %zp : f32
        %c6 = arith.mulf %c, %cst : f32
        %lap = arith.subf %s4, %c6 : f32
        affine.store %lap, %tmp[%i - 1, %j - 1, %k - 1] : memref<?x?x?xf32>
      }
    }
  }
  affine.parallel (%pi, %pj) = (0, 0) to (symbol(%n2), symbol(%n2)) {
    affine.for %pk = 0 to affine_map<()[s0] -> (8*(s0 floordiv 8))>()[%n2] step 8 {
      %v = affine.vector_load %tmp[%pi, %pj, %pk] : memref<?x?x?xf32>, vector<8xf32>
      %e = math.exp %v : vector<8xf32>
      affine.vector_store %e, %out[%pi + 1, %pj + 1, %pk + 1] : memref<?x?x?xf32>, vector<8xf32>
    }
    affine.for %rk = affine_map<()[s0] -> (8*(s0 floordiv 8))>()[%n2] to %n2 {
      %w = affine.load %tmp[%pi, %pj, %rk] : memref<?x?x?xf32>
      %ew = math.exp %w : f32
      affine.store %ew, %out[%pi + 1, %pj + 1, %rk + 1] : memref<?x?x?xf32>
    }
  }
  %sum = affine.for %a = 0 to %n2 iter_args(%acc = %zero) -> (f32) {
    %row = affine.for %b = 0 to %n2 iter_args(%acc2 = %acc) -> (f32) {
      %t = affine.load %tmp[%a, %b, 0] : memref<?x?x?xf32>
      %sq = arith.mulf %t, %t : f32
      %acc3 = arith.addf %acc2, %sq : f32
      affine.yield %acc3 : f32
    }
    affine.yield %row : f32
  }
  affine.for %f = 0 to %N {
    affine.if affine_set<(d0)[s0] : (d0 == 0, s0 - 1 >= 0)>(%f)[%N] {
      affine.store %zero, %out[%f, %f, %f] : memref<?x?x?xf32>
    } else {
      affine.store %sum, %out[%f, %f, %f] : memref<?x?x?xf32>
    }
  }
  affine.store %sum, %norm[0] : memref<1xf32>
  memref.dealloc %tmp : memref<?x?x?xf32>
  func.return
}
