package memref_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
)

func TestDiagnostics(t *testing.T) {
	dialecttest.CheckDiagnostics(t, []dialecttest.DiagCase{
		{Name: "alloc sizes", Line: 2, Want: "dimension operand count does not equal memref dynamic dimension count (0 vs 1)", Src: `func.func @f() {
  %m = memref.alloc() : memref<?xf32>
  func.return
}`},
		{Name: "generic alloc without segments", Line: 2, Want: "needs operand_segment_sizes = array<i32: 1, 0>", Src: `func.func @f(%n: index) {
  %m = "memref.alloc"(%n) : (index) -> memref<?xf32>
  func.return
}`},
		{Name: "load index count", Line: 2, Want: "has 1 indices for a memref of rank 2", Src: `func.func @f(%m: memref<4x4xf32>, %i: index) {
  %v = "memref.load"(%m, %i) : (memref<4x4xf32>, index) -> f32
  func.return
}`},
		{Name: "index type", Line: 2, Want: "expects different type than prior uses: 'index' vs 'i32'", Src: `func.func @f(%m: memref<4xf32>, %i: i32) {
  %v = memref.load %m[%i] : memref<4xf32>
  func.return
}`},
		{Name: "store type", Line: 2, Want: "stored value has type f64, but the element type is f32", Src: `func.func @f(%m: memref<4xf32>, %i: index, %x: f64) {
  "memref.store"(%x, %m, %i) : (f64, memref<4xf32>, index) -> ()
  func.return
}`},
		{Name: "cast", Line: 2, Want: "are cast incompatible", Src: `func.func @f(%m: memref<4xf32>) {
  %c = memref.cast %m : memref<4xf32> to memref<5xf32>
  func.return
}`},
	})
}
