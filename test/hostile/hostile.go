// Package hostile holds the integers and programs of the overflow sweep
// (test/overflow_sweep_test.go), which also seed the fuzz targets: every
// op that takes an interval, an offset, a coefficient or a size, written
// with placeholders that take the integers near the ends of int64, of
// the index limit and of 32 bits.
package hostile

import "strings"

// Ints are the integers of the overflow sweep: the ends of int64
// and just inside them, the index limit's neighbourhood, the 32-bit
// boundaries, and the small values that make intervals empty or
// inverted. 9223372036854775808 (2^63) does not fit in int64 at all.
var Ints = []string{
	"9223372036854775808", "-9223372036854775808",
	"9223372036854775807", "-9223372036854775807",
	"4611686018427387904", "-4611686018427387904",
	"1152921504606846976", "1152921504606846975", "-1152921504606846975",
	"2147483648", "-2147483648", "4294967296",
	"0", "-1", "1", "7",
}

// Program is a program with placeholders: $A and $B take every pair of
// hostile integers (a program without $B takes each $A once).
type Program struct {
	Name, Ext, Src string
}

var Programs = []Program{
	{"argument", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[$A:$B]>) -> !tir.tensor<f32, I[$A:$B]> {
  tir.return %a : !tir.tensor<f32, I[$A:$B]>
}`},
	{"symbolic argument", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[$A*N:N + $B]>) -> !tir.tensor<f32, I[$A*N:N + $B]> {
  tir.return %a : !tir.tensor<f32, I[$A*N:N + $B]>
}`},
	{"shift", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:$B]>) -> !tir.tensor<f32, I[1:5]> {
  %s = tir.shift %a [I - $A]
  %t = tir.subset %s [I[1:5]]
  tir.return %t : !tir.tensor<f32, I[1:5]>
}`},
	{"shift chain", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[$A:$B]>) -> !tir.tensor<f32, I[$A:$B]> {
  %s = tir.shift %a [I + $A]
  %t = tir.shift %s [I + $A]
  %u = tir.shift %t [I - $A]
  %v = tir.shift %u [I - $A]
  %w = tir.add %v, %a
  tir.return %w : !tir.tensor<f32, I[$A:$B]>
}`},
	{"elementwise intersection", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[$A:10]>, %b: !tir.tensor<f32, I[0:$B]>) -> !tir.tensor<f32, I[0:10]> {
  %c = tir.add %a, %b
  tir.return %c : !tir.tensor<f32, I[0:10]>
}`},
	{"view offset", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:16]>) -> !tir.tensor<f32, i[0:$B]> {
  %v = tir.view %a [I = i + $A] : !tir.tensor<f32, i[0:$B]>
  tir.return %v : !tir.tensor<f32, i[0:$B]>
}`},
	{"view coefficient", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, i[0:$B]> {
  %v = tir.view %a [I = $A*i + 1] : !tir.tensor<f32, i[0:$B]>
  tir.return %v : !tir.tensor<f32, i[0:$B]>
}`},
	{"subset", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[$A:$B]> {
  %s = tir.subset %a [I[$A:$B]]
  tir.return %s : !tir.tensor<f32, I[$A:$B]>
}`},
	{"broadcast", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4], K[$A:$B]> {
  %s = tir.broadcast %a [K[$A:$B]]
  tir.return %s : !tir.tensor<f32, I[0:4], K[$A:$B]>
}`},
	{"concat", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[$A:0]>, %b: !tir.tensor<f32, I[0:$B]>) -> !tir.tensor<f32, I[$A:$B]> {
  %c = tir.concat %a, %b along I
  tir.return %c : !tir.tensor<f32, I[$A:$B]>
}`},
	{"concat chain", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:$A]>) -> !tir.tensor<f32, I[0:N]> {
  %s = tir.shift %a [I - $A]
  %c = tir.concat %a, %s along I
  %t = tir.shift %c [I - $A]
  %t2 = tir.shift %t [I - $A]
  %d = tir.concat %c, %t2 along I
  tir.return %d : !tir.tensor<f32, I[0:N]>
}`},
	{"assume_shape", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[$A:$B]> {
  %s = tir.assume_shape %a : !tir.tensor<f32, I[$A:$B]>
  tir.return %s : !tir.tensor<f32, I[$A:$B]>
}`},
	{"pos", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[$A:$B]>) -> !tir.tensor<i64, I[$A:$B]> {
  %p = tir.pos I of %a
  tir.return %p : !tir.tensor<i64, I[$A:$B]>
}`},
	{"reduce", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:4], K[$A:$B]>) -> !tir.tensor<f32, I[0:4]> {
  %r = tir.reduce add %a over [K]
  tir.return %r : !tir.tensor<f32, I[0:4]>
}`},
	{"scan", "tir", `
tir.func @f(%a: !tir.tensor<f64, K[0:N]>) -> !tir.tensor<f64, K[$A:$B]> {
  %z = tir.constant 0.0 : f64
  %s = tir.scan forward along K[$A:$B] init %z ins(%a) {
  ^bb0(%st: !tir.tensor<f64>, %x: !tir.tensor<f64>):
    %n = tir.add %st, %x
    tir.yield %n : !tir.tensor<f64>
  }
  tir.return %s : !tir.tensor<f64, K[$A:$B]>
}`},
	{"unknown extent", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[?]>) -> !tir.tensor<f32, I[0:$B]> {
  %s = tir.shift %a [I + $A]
  %t = tir.subset %s [I[0:$B]]
  tir.return %t : !tir.tensor<f32, I[0:$B]>
}`},
	{"call", "tir", `
tir.func @g(%u: !tir.tensor<f64, I[L:H]>) -> !tir.tensor<f64, I[L + 1:H - 1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %s = tir.add %e, %w
  tir.return %s : !tir.tensor<f64, I[L + 1:H - 1]>
}
tir.func @f(%u: !tir.tensor<f64, I[$A:$B]>) -> !tir.tensor<f64, I[0:4]> {
  %l = tir.call @g(%u)
  %ll = tir.call @g(%l)
  %r = tir.subset %ll [I[0:4]]
  tir.return %r : !tir.tensor<f64, I[0:4]>
}`},
	{"gather", "tir", `
tir.func @f(%x: !tir.tensor<f32, Cell[$A:$B]>, %t: !tir.tensor<i32, Edge[0:8], E2C[0:2]>) -> !tir.tensor<f32, Edge[0:8]> {
  %g = tir.gather %x [Cell = %t]
  %s = tir.reduce add %g over [E2C]
  tir.return %s : !tir.tensor<f32, Edge[0:8]>
}`},
	{"temporary", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:$A], J[0:$B]>) -> !tir.tensor<f32, I[1:$A], J[0:$B]> {
  %e = tir.exp %a
  %s = tir.shift %e [I - 1]
  %r = tir.add %e, %s
  tir.return %r : !tir.tensor<f32, I[1:$A], J[0:$B]>
}`},
	{"symbolic temporary", "tir", `
tir.func @f(%a: !tir.tensor<f32, I[0:N], J[$A:$B]>) -> !tir.tensor<f32, I[1:N], J[$A:$B]> {
  %e = tir.exp %a
  %s = tir.shift %e [I - 1]
  %r = tir.add %e, %s
  tir.return %r : !tir.tensor<f32, I[1:N], J[$A:$B]>
}`},
	{"scan columns", "tir", `
tir.func @f(%a: !tir.tensor<f64, I[0:$A], K[0:$B]>) -> !tir.tensor<f64, I[0:$A], K[0:$B]> {
  %z = tir.constant 0.0 : f64
  %s = tir.scan forward along K init %z ins(%a) {
  ^bb0(%st: !tir.tensor<f64>, %x: !tir.tensor<f64>):
    %n = tir.add %st, %x
    tir.yield %n : !tir.tensor<f64>
  }
  %b = tir.scan backward along K init %z ins(%s) {
  ^bb0(%st: !tir.tensor<f64>, %x: !tir.tensor<f64>):
    %n = tir.mul %st, %x
    tir.yield %n : !tir.tensor<f64>
  }
  tir.return %b : !tir.tensor<f64, I[0:$A], K[0:$B]>
}`},
	{"memref alloc", "mlir", `
func.func @f(%n: index) {
  %m = memref.alloc() : memref<$Ax$Bxf64>
  %d = memref.alloc(%n) : memref<?x$Axf64>
  memref.dealloc %d : memref<?x$Axf64>
  memref.dealloc %m : memref<$Ax$Bxf64>
  func.return
}`},
	{"affine loop", "mlir", `
func.func @f(%a: memref<?xf32>) {
  %c = arith.constant 1.0 : f32
  affine.for %i = $A to $B {
    affine.store %c, %a[%i - $A] : memref<?xf32>
  }
  func.return
}`},
	{"affine step", "mlir", `
func.func @f(%a: memref<?xf32>, %n: index) {
  %c = arith.constant 1.0 : f32
  affine.for %i = 0 to %n step $A {
    affine.store %c, %a[%i] : memref<?xf32>
  }
  affine.for %i = 0 to 1000 step $A {
    affine.store %c, %a[%i] : memref<?xf32>
  }
  func.return
}`},
	{"tc matmul", "tc", `
def f(float(M, K) A, float(K, N) B) -> (C) { C(m, n) +=! A(m, k) * B(k, n) where m in $A:$B }`},
	{"tc offset", "tc", `
def f(float(N) I) -> (O) { O(i) = I(i - $A) + I(i + 1) }`},
	{"tc where", "tc", `
def f(float(N) I) -> (O) { O(i) = I(i) where i in $A:$B }`},
	{"tc reduction", "tc", `
def f(float(N, K) A) -> (O) { O(i) +=! A(i, k + $A) where k in 0:$B }`},
	{"tc coefficient", "tc", `
def f(float(N) I) -> (O) { O(i) = I($A * i + $B) }`},
}

// Instances returns p with every pair of Ints in $A and $B (each of Ints
// alone when p has no $B).
func (p Program) Instances() []string {
	var out []string
	for _, a := range Ints {
		if !strings.Contains(p.Src, "$B") {
			out = append(out, p.With(a, ""))
			continue
		}
		for _, b := range Ints {
			out = append(out, p.With(a, b))
		}
	}
	return out
}

// With returns p with a in $A and b in $B.
func (p Program) With(a, b string) string {
	return strings.NewReplacer("$A", a, "$B", b).Replace(p.Src)
}

// seedInts are the integers of Seeds: past int64, at its end, past the
// index limit, and a 32-bit boundary.
var seedInts = []string{"9223372036854775808", "-9223372036854775807", "4611686018427387904", "-2147483648"}

// Seeds returns a sample of the instances of the programs in the language
// of ext (tir, tc or mlir) for a fuzz target's corpus: each of a few
// hostile integers in $A with $B = 8, and in $B with $A = 0.
func Seeds(ext string) []string {
	var out []string
	for _, p := range Programs {
		if p.Ext != ext {
			continue
		}
		for _, v := range seedInts {
			out = append(out, p.With(v, "8"))
			if strings.Contains(p.Src, "$B") {
				out = append(out, p.With("0", v))
			}
		}
	}
	return out
}
