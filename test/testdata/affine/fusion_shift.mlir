// RUN: tc-opt --affine-loop-fusion='max-shift=2'
// A 3-point stencil over rows of a temporary: row i of the consumer needs
// rows i - 1 .. i + 1 of the producer, so it runs one iteration behind,
// in a fused loop covering both domains, each body guarded by its own.
// The consumer's output buffer, allocated between the nests, moves above
// them. Inner loops are never shifted (no guards in innermost loops).
func.func @rows(%a: memref<?x?xf64>, %b: memref<?x?xf64>, %n: index, %m: index) {
  %t = memref.alloc(%n, %m) : memref<?x?xf64>
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %0 = affine.load %a[%i, %j] : memref<?x?xf64>
      %1 = arith.mulf %0, %0 : f64
      affine.store %1, %t[%i, %j] : memref<?x?xf64>
    }
  }
  %u = memref.alloc(%n, %m) : memref<?x?xf64>
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    affine.for %j = 0 to %m {
      %0 = affine.load %t[%i - 1, %j] : memref<?x?xf64>
      %1 = affine.load %t[%i + 1, %j] : memref<?x?xf64>
      %2 = arith.addf %0, %1 : f64
      affine.store %2, %u[%i, %j] : memref<?x?xf64>
    }
  }
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    affine.for %j = 1 to affine_map<()[s0] -> (s0 - 1)>()[%m] {
      %0 = affine.load %u[%i, %j - 1] : memref<?x?xf64>
      %1 = affine.load %u[%i, %j + 1] : memref<?x?xf64>
      %2 = arith.subf %0, %1 : f64
      affine.store %2, %b[%i, %j] : memref<?x?xf64>
    }
  }
  memref.dealloc %u : memref<?x?xf64>
  memref.dealloc %t : memref<?x?xf64>
  func.return
}
