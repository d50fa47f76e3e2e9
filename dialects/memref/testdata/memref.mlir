func.func @buffers(%n: index, %m: index, %in: memref<?x8xf32>, %s: memref<?xf32, strided<[?], offset: ?>>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %buf = memref.alloc(%n, %m) : memref<?x?xf32>
  %fixed = memref.alloc() : memref<16xf32>
  %tmp = memref.alloca(%n) : memref<?xf32>
  %d0 = memref.dim %in, %c0 : memref<?x8xf32>
  %v = memref.load %in[%c0, %c1] : memref<?x8xf32>
  memref.store %v, %buf[%d0, %c1] : memref<?x?xf32>
  %x = memref.load %s[%c0] : memref<?xf32, strided<[?], offset: ?>>
  memref.store %x, %tmp[%c1] : memref<?xf32>
  %dyn = memref.cast %fixed : memref<16xf32> to memref<?xf32>
  memref.copy %tmp, %dyn : memref<?xf32> to memref<?xf32>
  %scalar = memref.alloc() : memref<f32>
  memref.store %v, %scalar[] : memref<f32>
  %r = memref.load %scalar[] : memref<f32>
  memref.dealloc %scalar : memref<f32>
  memref.dealloc %buf : memref<?x?xf32>
  memref.dealloc %fixed : memref<16xf32>
  func.return %r : f32
}
