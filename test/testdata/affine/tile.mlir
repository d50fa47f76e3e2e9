// RUN: tc-opt --affine-loop-tile='sizes=4,4' --split-input-file
// A 2-D band with symbolic bounds: min upper bounds for the partial tiles.
func.func @copy(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %n: index, %m: index) {
  affine.for %i = 0 to %n {
    affine.for %j = 1 to affine_map<()[s0] -> (s0 - 1)>()[%m] {
      %0 = affine.load %a[%i, %j] : memref<?x?xf32>
      affine.store %0, %b[%i, %j] : memref<?x?xf32>
    }
  }
  func.return
}

// -----
// Constant bounds: no min where the tile size divides the trip count (16),
// the whole loop where it does not exceed it (3), a min otherwise (10).
func.func @constant(%a: memref<16x3xf32>, %b: memref<10xf32>) {
  affine.for %i = 0 to 16 {
    affine.for %j = 0 to 3 {
      %0 = affine.load %a[%i, %j] : memref<16x3xf32>
      %1 = arith.addf %0, %0 : f32
      affine.store %1, %a[%i, %j] : memref<16x3xf32>
    }
  }
  affine.for %k = 0 to 10 step 2 {
    %2 = affine.load %b[%k] : memref<10xf32>
    affine.store %2, %b[%k] : memref<10xf32>
  }
  func.return
}

// -----
// A[i][j] = A[i-1][j+1]: the dependence distance (1, -1) is not fully
// permutable; tiling would read elements before they are written. Not tiled.
func.func @skewed_dependence(%a: memref<64x64xf32>) {
  affine.for %i = 1 to 64 {
    affine.for %j = 0 to 63 {
      %0 = affine.load %a[%i - 1, %j + 1] : memref<64x64xf32>
      affine.store %0, %a[%i, %j] : memref<64x64xf32>
    }
  }
  func.return
}

// -----
// A[i][j] = A[i-1][j-1] + A[i][j-1]: distances (1, 1) and (0, 1), fully
// permutable. Tiled.
func.func @permutable_dependence(%a: memref<64x64xf32>) {
  affine.for %i = 1 to 64 {
    affine.for %j = 1 to 64 {
      %0 = affine.load %a[%i - 1, %j - 1] : memref<64x64xf32>
      %1 = affine.load %a[%i, %j - 1] : memref<64x64xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %a[%i, %j] : memref<64x64xf32>
    }
  }
  func.return
}

// -----
// Every iteration writes the same element: the last writer would change
// (unknown distances in both loops). Not tiled.
func.func @same_element(%a: memref<64x64xf32>, %s: memref<1xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      %0 = affine.load %a[%i, %j] : memref<64x64xf32>
      affine.store %0, %s[0] : memref<1xf32>
    }
  }
  func.return
}

// -----
// A triangular band (the inner bound uses %i) is not rectangular: only the
// outer loop is tiled. A loop with iter_args ends the band.
func.func @triangular(%a: memref<64x64xf32>, %r: memref<64xf32>) {
  %cst = arith.constant 0.0 : f32
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
      %0 = affine.load %a[%i, %j] : memref<64x64xf32>
      affine.store %0, %a[%j, %i] : memref<64x64xf32>
    }
  }
  affine.for %i = 0 to 64 {
    %s = affine.for %j = 0 to 64 iter_args(%acc = %cst) -> (f32) {
      %0 = affine.load %a[%i, %j] : memref<64x64xf32>
      %1 = arith.addf %acc, %0 : f32
      affine.yield %1 : f32
    }
    affine.store %s, %r[%i] : memref<64xf32>
  }
  func.return
}

// -----
// A call may touch any memory: not tiled.
func.func private @opaque(memref<64x64xf32>)
func.func @call(%a: memref<64x64xf32>) {
  affine.for %i = 0 to 64 {
    affine.for %j = 0 to 64 {
      func.call @opaque(%a) : (memref<64x64xf32>) -> ()
    }
  }
  func.return
}
