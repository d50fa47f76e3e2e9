// RUN: tc-opt --affine-vectorize='width=4' --split-input-file
// A contiguous stencil row with symbolic bounds: vector loads at every
// offset, the constant as a dense splat, a scalar remainder loop.
func.func @row(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %n: index, %m: index) {
  %cst = arith.constant 0.25 : f32
  affine.for %i = 1 to affine_map<()[s0] -> (s0 - 1)>()[%n] {
    affine.for %j = 1 to affine_map<()[s0] -> (s0 - 1)>()[%m] {
      %0 = affine.load %a[%i, %j - 1] : memref<?x?xf32>
      %1 = affine.load %a[%i, %j + 1] : memref<?x?xf32>
      %2 = affine.load %a[%i - 1, %j] : memref<?x?xf32>
      %3 = arith.addf %0, %1 : f32
      %4 = arith.addf %3, %2 : f32
      %5 = arith.mulf %4, %cst : f32
      %6 = arith.cmpf ogt, %5, %cst : f32
      %7 = arith.select %6, %5, %0 : f32
      %8 = math.sqrt %7 : f32
      affine.store %8, %b[%i, %j] : memref<?x?xf32>
    }
  }
  func.return
}

// -----
// A value loaded from outside the inner loop's contiguous dimension (x[%i])
// and a scalar argument are broadcast through a scratch buffer; the
// invariant load only runs when the vector loop does (affine.if). Integer
// lanes are fine; an i1 from outside stays a scalar select condition.
func.func @broadcast(%x: memref<?xf64>, %y: memref<?x?xf64>, %z: memref<?x?xi32>, %s: f64, %c: i1, %n: index, %m: index) {
  %two = arith.constant 2 : i32
  affine.for %i = 0 to %n {
    affine.for %j = 0 to %m {
      %0 = affine.load %x[%i] : memref<?xf64>
      %1 = affine.load %y[%i, %j] : memref<?x?xf64>
      %2 = arith.mulf %0, %1 : f64
      %3 = arith.addf %2, %s : f64
      %4 = arith.select %c, %3, %1 : f64
      affine.store %4, %y[%i, %j] : memref<?x?xf64>
      %5 = affine.load %z[%i, %j] : memref<?x?xi32>
      %6 = arith.muli %5, %two : i32
      affine.store %6, %z[%i, %j] : memref<?x?xi32>
    }
  }
  func.return
}

// -----
// Dependences within the loop: a[i] = a[i+1] reads ahead of the writes
// (distance 1 forward: vectorized); b[i+1] = b[i] reads what the previous
// iteration wrote (distance -1 < 4 backward: not vectorized); c[i+4] =
// c[i] is 4 iterations back, a full vector away (vectorized).
func.func @dependences(%a: memref<100xf32>, %b: memref<100xf32>, %c: memref<100xf32>) {
  affine.for %i = 0 to 99 {
    %0 = affine.load %a[%i + 1] : memref<100xf32>
    affine.store %0, %a[%i] : memref<100xf32>
  }
  affine.for %i = 0 to 99 {
    %0 = affine.load %b[%i] : memref<100xf32>
    affine.store %0, %b[%i + 1] : memref<100xf32>
  }
  affine.for %i = 0 to 96 {
    %0 = affine.load %c[%i] : memref<100xf32>
    affine.store %0, %c[%i + 4] : memref<100xf32>
  }
  func.return
}

// -----
// Not vectorized: a strided access, a float sum (iter_args; see
// vectorize_reduce.mlir for the reductions that are), the induction
// variable used as a value, a loop shorter than the vector, a non-unit
// step, an access through memref.load, and a memref that may alias (a
// memref.cast of an argument) with an unknown distance.
func.func @refused(%a: memref<64xf32>, %b: memref<64xf32>, %r: memref<1xf32>) {
  affine.for %i = 0 to 32 {
    %0 = affine.load %a[2 * %i] : memref<64xf32>
    affine.store %0, %b[%i] : memref<64xf32>
  }
  %cst = arith.constant 0.0 : f32
  %s = affine.for %i = 0 to 64 iter_args(%acc = %cst) -> (f32) {
    %0 = affine.load %a[%i] : memref<64xf32>
    %1 = arith.addf %acc, %0 : f32
    affine.yield %1 : f32
  }
  affine.store %s, %r[0] : memref<1xf32>
  affine.for %i = 0 to 64 {
    %0 = arith.index_cast %i : index to i32
    %1 = arith.sitofp %0 : i32 to f32
    affine.store %1, %a[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 3 {
    %0 = affine.load %a[%i] : memref<64xf32>
    affine.store %0, %b[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 step 2 {
    %0 = affine.load %a[%i] : memref<64xf32>
    affine.store %0, %b[%i] : memref<64xf32>
  }
  affine.for %i = 0 to 64 {
    %0 = memref.load %a[%i] : memref<64xf32>
    affine.store %0, %b[%i] : memref<64xf32>
  }
  %v = memref.cast %a : memref<64xf32> to memref<?xf32>
  affine.for %i = 0 to 63 {
    %0 = affine.load %v[%i] : memref<?xf32>
    affine.store %0, %a[%i + 1] : memref<64xf32>
  }
  func.return
}

// -----

// A constant that is an infinity: a dense attribute of one has no text
// MLIR reads, so its splat is a vector.broadcast of the scalar.
func.func @max_with_ninf(%a: memref<64xf32>, %b: memref<64xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  affine.for %i = 0 to 64 {
    %x = affine.load %a[%i] : memref<64xf32>
    %m = arith.maxf %x, %ninf : f32
    affine.store %m, %b[%i] : memref<64xf32>
  }
  return
}
