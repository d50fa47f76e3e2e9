// Written for tc-opt's corpus: memref views with strided and affine-map
// layouts, globals and memory spaces.

#map = affine_map<(d0, d1)[s0] -> (d0 * s0 + d1)>

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, -3.5, 4.0e-2]>

memref.global @zeros : memref<2x2xi32> = dense<0>

func.func @subview_static(%m: memref<8x16xf32>) -> memref<4x4xf32, strided<[16, 1], offset: 34>> {
  %0 = memref.subview %m[2, 2] [4, 4] [1, 1] : memref<8x16xf32> to memref<4x4xf32, strided<[16, 1], offset: 34>>
  return %0 : memref<4x4xf32, strided<[16, 1], offset: 34>>
}

func.func @subview_dynamic(%m: memref<?x?xf32>, %o: index, %s: index) -> memref<?x?xf32, strided<[?, ?], offset: ?>> {
  %0 = memref.subview %m[%o, 0] [%s, %s] [2, %s] : memref<?x?xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
  return %0 : memref<?x?xf32, strided<[?, ?], offset: ?>>
}

func.func @subview_strided_source(%m: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index) -> memref<4xf32, strided<[1], offset: ?>> {
  %0 = memref.subview %m[%i, 0] [1, 4] [1, 1] : memref<?x?xf32, strided<[?, 1], offset: ?>> to memref<4xf32, strided<[1], offset: ?>>
  return %0 : memref<4xf32, strided<[1], offset: ?>>
}

func.func @reinterpret(%m: memref<?xf32>, %n: index) -> memref<?x4xf32, strided<[4, 1]>> {
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [%n, 4], strides: [4, 1] : memref<?xf32> to memref<?x4xf32, strided<[4, 1]>>
  return %0 : memref<?x4xf32, strided<[4, 1]>>
}

func.func @globals() -> f32 {
  %c1 = arith.constant 1 : index
  %t = memref.get_global @table : memref<4xf32>
  %v = memref.load %t[%c1] : memref<4xf32>
  %z = memref.get_global @zeros : memref<2x2xi32>
  return %v : f32
}

func.func @collapse_expand(%m: memref<2x3x4xf32>) -> memref<2x3x4xf32> {
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %1 = memref.expand_shape %0 [[0, 1], [2]] : memref<6x4xf32> into memref<2x3x4xf32>
  return %1 : memref<2x3x4xf32>
}

func.func @rank_dim(%m: memref<*xf32>, %r: memref<4x?xf32>) -> (index, index) {
  %0 = memref.rank %m : memref<*xf32>
  %c1 = arith.constant 1 : index
  %1 = memref.dim %r, %c1 : memref<4x?xf32>
  return %0, %1 : index, index
}

func.func @affine_map_layout(%m: memref<4x4xf32, #map>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloc()[%n] : memref<4x4xf32, #map>
  %v = memref.load %m[%c0, %c0] : memref<4x4xf32, #map>
  memref.dealloc %a : memref<4x4xf32, #map>
  return %v : f32
}

func.func @memory_space(%m: memref<16xf32, 3>) -> memref<16xf32, 3> {
  %a = memref.alloca() {alignment = 64 : i64} : memref<16xf32, 3>
  memref.copy %m, %a : memref<16xf32, 3> to memref<16xf32, 3>
  return %a : memref<16xf32, 3>
}

func.func @casts(%m: memref<4xf32>) -> memref<4xf32> {
  %0 = memref.cast %m : memref<4xf32> to memref<*xf32>
  %1 = memref.cast %0 : memref<*xf32> to memref<4xf32>
  %2 = memref.cast %1 : memref<4xf32> to memref<?xf32, strided<[?], offset: ?>>
  return %1 : memref<4xf32>
}
