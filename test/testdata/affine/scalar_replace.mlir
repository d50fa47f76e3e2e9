// RUN: tc-opt --affine-scalar-replace --split-input-file
// A temporary written and read back at the same point: the load takes the
// stored value, the second load of %a reuses the first, the buffer is
// only written and disappears. The first store to %b[%i] is overwritten
// (the store to %b[%i + 1] between is elsewhere) and removed.
func.func @forward(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  affine.for %i = 0 to %n {
    %0 = affine.load %a[%i] : memref<?xf32>
    affine.store %0, %t[%i] : memref<?xf32>
    %1 = affine.load %t[%i] : memref<?xf32>
    %2 = affine.load %a[%i] : memref<?xf32>
    %3 = arith.addf %1, %2 : f32
    affine.store %3, %b[%i] : memref<?xf32>
    affine.store %3, %b[%i + 1] : memref<?xf32>
    affine.store %1, %b[%i] : memref<?xf32>
  }
  memref.dealloc %t : memref<?xf32>
  func.return
}

// -----
// What may write in between blocks forwarding: a store to an unknown
// element of the same memref, a store through a memref.cast view, a loop
// writing the memref. A store to another argument does not (arguments do
// not alias).
func.func @blocked(%a: memref<16xf32>, %b: memref<16xf32>, %j: index, %x: f32) {
  affine.for %i = 0 to 16 {
    affine.store %x, %a[%i] : memref<16xf32>
    affine.store %x, %a[%j] : memref<16xf32>
    %0 = affine.load %a[%i] : memref<16xf32>
    affine.store %0, %b[%i] : memref<16xf32>
  }
  %v = memref.cast %a : memref<16xf32> to memref<?xf32>
  affine.store %x, %a[0] : memref<16xf32>
  affine.store %x, %v[0] : memref<?xf32>
  %1 = affine.load %a[0] : memref<16xf32>
  affine.store %x, %a[1] : memref<16xf32>
  affine.for %k = 0 to 16 {
    affine.store %x, %a[%k] : memref<16xf32>
  }
  %2 = affine.load %a[1] : memref<16xf32>
  affine.store %x, %a[2] : memref<16xf32>
  affine.store %1, %b[2] : memref<16xf32>
  %3 = affine.load %a[2] : memref<16xf32>
  %4 = arith.addf %1, %2 : f32
  %5 = arith.addf %4, %3 : f32
  affine.store %5, %b[0] : memref<16xf32>
  func.return
}
