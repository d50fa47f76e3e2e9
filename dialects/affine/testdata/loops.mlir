func.func @loops(%m: memref<100x100xf32>, %N: index, %x: f32) -> f32 {
  %c3 = arith.constant 3 : index
  affine.for %i = 0 to 10 {
    affine.for %j = affine_map<(d0) -> (d0)>(%i) to affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%N] {
      affine.store %x, %m[%i, %j] : memref<100x100xf32>
    }
    affine.for %k = %N to 100 step 4 {
      affine.store %x, %m[%i, %k] : memref<100x100xf32>
    }
    affine.for %l = max affine_map<(d0) -> (d0, 0)>(%i) to min affine_map<(d0)[s0] -> (d0 + 10, s0)>(%i)[%N] step 2 {
      affine.store %x, %m[%l, %i] : memref<100x100xf32>
    }
  }
  affine.for %n = -5 to affine_map<()[s0] -> (s0 + 1)>()[%N] {
  }
  %sum = affine.for %p = 0 to %N iter_args(%acc = %x) -> (f32) {
    %v = affine.load %m[%p, %p] : memref<100x100xf32>
    %s = arith.addf %acc, %v : f32
    affine.yield %s : f32
  }
  %r:2 = affine.for %q = 0 to 10 iter_args(%a = %sum, %b = %c3) -> (f32, index) {
    affine.yield %a, %b : f32, index
  }
  func.return %r#0 : f32
}

func.func @tagged(%m: memref<10xf32>, %x: f32) {
  affine.for %i = 0 to 10 {
    affine.for %j = 0 to 10 {
      affine.store %x, %m[%j] : memref<10xf32>
    } {tir.parallel}
  } {note = "outer", tir.parallel, unroll}
  func.return
}
