// RUN: tc-opt --affine-licm --split-input-file
// Invariant arithmetic climbs out of both loops; a load from a memref the
// loops do not write leaves the inner loop (which runs at least once: 16
// iterations) and the outer one (N may be 0: the load stays where it would
// have executed).
func.func @climb(%a: memref<?xf32>, %b: memref<?x16xf32>, %x: f32, %n: index) {
  affine.for %i = 0 to %n {
    affine.for %j = 0 to 16 {
      %c = arith.constant 2.0 : f32
      %0 = arith.mulf %x, %c : f32
      %1 = affine.load %a[%i] : memref<?xf32>
      %2 = arith.addf %0, %1 : f32
      %3 = affine.load %b[%i, %j] : memref<?x16xf32>
      %4 = arith.mulf %2, %3 : f32
      affine.store %4, %b[%i, %j] : memref<?x16xf32>
    }
  }
  func.return
}

// -----
// A tile's point loop provably runs once (its lower bound %t is below N):
// the load is hoisted. A load from a memref the loop writes is not, nor
// an integer division by a value that may be zero.
func.func @point_loop(%a: memref<?xf32>, %b: memref<?xf32>, %n: index, %k: i32, %p: memref<?xi32>) {
  affine.for %t = 0 to %n step 8 {
    affine.for %i = affine_map<(d0) -> (d0)>(%t) to min affine_map<(d0)[s0] -> (d0 + 8, s0)>(%t)[%n] {
      %0 = affine.load %a[%t] : memref<?xf32>
      %1 = affine.load %b[%t] : memref<?xf32>
      %2 = arith.addf %0, %1 : f32
      affine.store %2, %b[%i] : memref<?xf32>
      %3 = arith.divsi %k, %k : i32
      %4 = arith.constant 3 : i32
      %5 = arith.divsi %k, %4 : i32
      %6 = arith.addi %3, %5 : i32
      affine.store %6, %p[%i] : memref<?xi32>
    }
  }
  func.return
}

// -----
// A loop holding a call or an assert keeps its loads.
func.func private @opaque()
func.func @barrier(%a: memref<?xf32>, %b: memref<?xf32>, %ok: i1) {
  affine.for %i = 0 to 8 {
    func.call @opaque() : () -> ()
    %0 = affine.load %a[0] : memref<?xf32>
    affine.store %0, %b[%i] : memref<?xf32>
  }
  affine.for %i = 0 to 8 {
    cf.assert %ok, "precondition"
    %0 = affine.load %a[0] : memref<?xf32>
    affine.store %0, %b[%i] : memref<?xf32>
  }
  func.return
}

// -----
// A loop that computes a value from invariants alone (a TC size read as a
// value, the maximum over the one point D:D+1) leaves the element loop
// with what uses it; one that reads memory, or uses the element loop's
// index, stays.
func.func @pure_loop(%a: memref<?xf32>, %d: index, %n: index) {
  affine.for %i = 0 to %n {
    %m0 = arith.constant -9223372036854775808 : i64
    %size = affine.for %r = %d to affine_map<()[s0] -> (s0 + 1)>()[%d] iter_args(%acc = %m0) -> (i64) {
      %x = arith.index_cast %r : index to i64
      %y = arith.maxsi %acc, %x : i64
      affine.yield %y : i64
    }
    %f = arith.sitofp %size : i64 to f32
    %read = affine.for %r = 0 to 4 iter_args(%acc = %f) -> (f32) {
      %v = affine.load %a[%r] : memref<?xf32>
      %s = arith.addf %acc, %v : f32
      affine.yield %s : f32
    }
    %ix = affine.for %r = %d to affine_map<()[s0] -> (s0 + 1)>()[%d] iter_args(%acc = %m0) -> (i64) {
      %x = arith.index_cast %i : index to i64
      %y = arith.maxsi %acc, %x : i64
      affine.yield %y : i64
    }
    %g = arith.sitofp %ix : i64 to f32
    %h = arith.addf %read, %g : f32
    affine.store %h, %a[%i] : memref<?xf32>
  }
  func.return
}
