// RUN: tc-opt --affine-loop-fusion --split-input-file
// A producer and its consumer over the same 2-D domain, read at the
// produced point: fused at both levels.
func.func @pointwise(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %n: index, %m: index) {
  %t = memref.alloc(%n, %m) : memref<?x?xf32>
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %0 = affine.load %a[%i, %j] : memref<?x?xf32>
      %1 = arith.mulf %0, %0 : f32
      affine.store %1, %t[%i, %j] : memref<?x?xf32>
    }
  }
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %0 = affine.load %t[%i, %j] : memref<?x?xf32>
      %1 = arith.addf %0, %0 : f32
      affine.store %1, %b[%i, %j] : memref<?x?xf32>
    }
  }
  memref.dealloc %t : memref<?x?xf32>
  func.return
}

// -----
// The consumer reads t[i][j + 1], produced by a later j iteration: fused
// over %i only. Reading t[i + 1][j] (a later %i) is not fused at all.
func.func @shifted(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  %t = memref.alloc() : memref<8x8xf32>
  affine.for %i = 0 to 7 {
    affine.for %j = 0 to 7 {
      %0 = affine.load %a[%i, %j] : memref<8x8xf32>
      affine.store %0, %t[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 7 {
    affine.for %j = 0 to 7 {
      %0 = affine.load %t[%i, %j + 1] : memref<8x8xf32>
      affine.store %0, %b[%i, %j] : memref<8x8xf32>
    }
  }
  %u = memref.alloc() : memref<8x8xf32>
  affine.for %i = 0 to 7 {
    affine.for %j = 0 to 7 {
      %0 = affine.load %a[%i, %j] : memref<8x8xf32>
      affine.store %0, %u[%i, %j] : memref<8x8xf32>
    }
  }
  affine.for %i = 0 to 7 {
    affine.for %j = 0 to 7 {
      %0 = affine.load %u[%i + 1, %j] : memref<8x8xf32>
      affine.store %0, %c[%i, %j] : memref<8x8xf32>
    }
  }
  func.return
}

// -----
// An op between the nests writes what the consumer reads: the consumer
// cannot move above it. Different domains are not fused either.
func.func @blocked(%a: memref<16xf32>, %b: memref<16xf32>, %c: memref<16xf32>) {
  %cst = arith.constant 1.0 : f32
  affine.for %i = 0 to 16 {
    %0 = affine.load %a[%i] : memref<16xf32>
    affine.store %0, %b[%i] : memref<16xf32>
  }
  affine.store %cst, %c[3] : memref<16xf32>
  affine.for %i = 0 to 16 {
    %0 = affine.load %b[%i] : memref<16xf32>
    %1 = affine.load %c[%i] : memref<16xf32>
    %2 = arith.addf %0, %1 : f32
    affine.store %2, %a[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 15 {
    %0 = affine.load %b[%i] : memref<16xf32>
    affine.store %0, %c[%i] : memref<16xf32>
  }
  func.return
}

// -----
// The consumer writes back into what the producer reads, at the same
// point: legal (the read happens first in the fused body). Writing one
// element ahead is not: the producer would read the new value.
func.func @anti(%a: memref<16xf32>, %b: memref<16xf32>) {
  affine.for %i = 0 to 15 {
    %0 = affine.load %a[%i] : memref<16xf32>
    affine.store %0, %b[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 15 {
    %0 = affine.load %b[%i] : memref<16xf32>
    %1 = arith.addf %0, %0 : f32
    affine.store %1, %a[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 15 {
    %0 = affine.load %a[%i] : memref<16xf32>
    affine.store %0, %b[%i] : memref<16xf32>
  }
  affine.for %i = 0 to 15 {
    %0 = affine.load %b[%i] : memref<16xf32>
    affine.store %0, %a[%i + 1] : memref<16xf32>
  }
  func.return
}
