memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, -3.5, 0.04]>

memref.global @zeros : memref<2x2xi32> = dense<0>

func.func @subview_static(%m: memref<8x16xf32>) -> memref<4x4xf32, strided<[16, 1], offset: 34>> {
  %0 = memref.subview %m[2, 2][4, 4][1, 1] : memref<8x16xf32> to memref<4x4xf32, strided<[16, 1], offset: 34>>
  func.return %0 : memref<4x4xf32, strided<[16, 1], offset: 34>>
}

func.func @subview_dynamic(%m: memref<?x?xf32>, %o: index, %s: index) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
  %0 = memref.subview %m[%o, 0][%s, %s][2, %s] : memref<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  func.return %0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
}

func.func @reinterpret(%m: memref<?xf32>, %n: index) -> memref<?x4xf32, strided<[4, 1]>> {
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<?xf32> to memref<?x4xf32, strided<[4, 1]>>
  func.return %0 : memref<?x4xf32, strided<[4, 1]>>
}

func.func @collapse_expand(%m: memref<2x3x4xf32>) -> memref<2x3x4xf32> {
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %1 = memref.expand_shape %0 [[0, 1], [2]] : memref<6x4xf32> into memref<2x3x4xf32>
  func.return %1 : memref<2x3x4xf32>
}

func.func @rank_dim(%m: memref<*xf32>, %r: memref<4x?xf32>) -> (index, index) {
  %0 = memref.rank %m : memref<*xf32>
  %c1 = arith.constant 1 : index
  %1 = memref.dim %r, %c1 : memref<4x?xf32>
  func.return %0, %1 : index, index
}

func.func @memory_space(%m: memref<16xf32, 3>) -> memref<16xf32, 3> {
  %a = memref.alloca() {alignment = 64 : i64} : memref<16xf32, 3>
  memref.copy %m, %a : memref<16xf32, 3> to memref<16xf32, 3>
  func.return %a : memref<16xf32, 3>
}

func.func @casts(%m: memref<4xf32>) -> memref<4xf32> {
  %0 = memref.cast %m : memref<4xf32> to memref<*xf32>
  %1 = memref.cast %0 : memref<*xf32> to memref<4xf32>
  %2 = memref.cast %1 : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
  func.return %1 : memref<4xf32>
}

func.func @globals_and_atomics(%m: memref<10xf32>, %v: f32, %i: index) -> f32 {
  %t = memref.get_global @table : memref<4xf32>
  %x = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<10xf32>) -> f32
  memref.prefetch %m[%i], read, locality<3>, data : memref<10xf32>
  memref.assume_alignment %m, 16 : memref<10xf32>
  %g = memref.generic_atomic_rmw %m[%i] : memref<10xf32> {
  ^bb0(%old: f32):
    %n = arith.addf %old, %v : f32
    memref.atomic_yield %n : f32
  }
  func.return %x : f32
}
