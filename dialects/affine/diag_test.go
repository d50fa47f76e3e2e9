package affine_test

import (
	"testing"

	"tir/dialects/internal/dialecttest"
)

func TestDiagnostics(t *testing.T) {
	dialecttest.CheckDiagnostics(t, []dialecttest.DiagCase{
		{Name: "load index count", Line: 3, Want: "'affine.load' has 1 subscripts for a memref of rank 2", Src: `func.func @f(%m: memref<4x4xf32>) {
  affine.for %i = 0 to 4 {
    %v = affine.load %m[%i] : memref<4x4xf32>
  }
  func.return
}`},
		{Name: "generic load index count", Line: 2, Want: "has 1 subscripts for a memref of rank 2", Src: `func.func @f(%m: memref<4x4xf32>, %n: index) {
  %v = "affine.load"(%m, %n) {map = affine_map<(d0) -> (d0)>} : (memref<4x4xf32>, index) -> f32
  func.return
}`},
		{Name: "non-affine subscript", Line: 3, Want: "non-affine product", Src: `func.func @f(%m: memref<16xf32>) {
  affine.for %i = 0 to 4 {
    %v = affine.load %m[%i * %i] : memref<16xf32>
  }
  func.return
}`},
		{Name: "store value type", Line: 3, Want: "expects different type than prior uses: 'f32' vs 'f64'", Src: `func.func @f(%m: memref<16xf32>, %x: f64) {
  affine.for %i = 0 to 4 {
    affine.store %x, %m[%i] : memref<16xf32>
  }
  func.return
}`},
		{Name: "loop-variant symbol", Line: 4, Want: "upper bound operand #0 cannot be used as a symbol", Src: `func.func @f(%m: memref<16xi32>) {
  affine.for %i = 0 to 4 {
    %n = arith.addi %i, %i : index
    affine.for %j = 0 to %n {
    }
  }
  func.return
}`},
		{Name: "subscript from a load", Line: 4, Want: "index operand #0 must be a dimension or symbol identifier", Src: `func.func @f(%m: memref<16xindex>, %a: memref<16xf32>) {
  affine.for %i = 0 to 4 {
    %k = affine.load %m[%i] : memref<16xindex>
    %v = affine.load %a[%k] : memref<16xf32>
  }
  func.return
}`},
		{Name: "yield type", Line: 2, Want: "'affine.yield' yields (i32) but the op's results are (f32)", Src: `func.func @f(%x: f32, %c: i32) {
  %r = affine.for %i = 0 to 4 iter_args(%acc = %x) -> (f32) {
    affine.yield %c : i32
  }
  func.return
}`},
		{Name: "unknown reduction", Line: 2, Want: "expected a reduction kind string", Src: `func.func @f(%x: f32) {
  %r = affine.parallel (%i) = (0) to (4) reduce ("plus") -> (f32) {
    affine.yield %x : f32
  }
  func.return
}`},
		{Name: "reduction type", Line: 2, Want: "result type i32 cannot match reduction attribute \"addf\"", Src: `func.func @f(%x: i32) {
  %r = affine.parallel (%i) = (0) to (4) reduce ("addf") -> (i32) {
    affine.yield %x : i32
  }
  func.return
}`},
		{Name: "set operands", Line: 2, Want: "the map or set takes 1 dims and 0 symbols, got 2 and 0", Src: `func.func @f(%n: index) {
  affine.if affine_set<(d0) : (d0 >= 0)>(%n, %n) {
  }
  func.return
}`},
		{Name: "bound keyword", Line: 2, Want: "needs the 'max' keyword", Src: `func.func @f(%n: index) {
  affine.for %i = affine_map<()[s0] -> (0, s0)>()[%n] to 10 {
  }
  func.return
}`},
		{Name: "step", Line: 2, Want: "expected step to be representable as a positive signed integer", Src: `func.func @f() {
  affine.for %i = 0 to 10 step 0 {
  }
  func.return
}`},
	})
}
