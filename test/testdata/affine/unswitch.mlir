// RUN: tc-opt --affine-loop-unswitch --split-input-file
// A gather from a table whose target may be empty, as convert-tir-to-affine
// lowers it: the emptiness test %ne is fixed before the nest, so the nest
// is copied under one scf.if on it, each copy with the branch resolved
// (the load in the first, the masked zero in the second).
func.func @gather(%pp: memref<?xf64>, %tab: memref<?x2xi32>, %out: memref<?xf64>, %nv: index, %ne: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %true = arith.constant true
  %false = arith.constant false
  %ne0 = arith.cmpi slt, %c0, %nv : index
  affine.for %e = 0 to %ne {
    %s = affine.for %k = 0 to 2 iter_args(%acc = %zero) -> (f64) {
      %t = affine.load %tab[%e, %k] : memref<?x2xi32>
      %i = arith.index_cast %t : i32 to index
      %lo = arith.cmpi sge, %i, %c0 : index
      %hi = arith.cmpi slt, %i, %nv : index
      %in = arith.andi %lo, %hi : i1
      %safe = arith.select %in, %i, %c0 : index
      %out_of_range = arith.xori %in, %true : i1
      %v:2 = scf.if %ne0 -> (f64, i1) {
        %x = memref.load %pp[%safe] : memref<?xf64>
        scf.yield %x, %false : f64, i1
      } else {
        scf.yield %zero, %true : f64, i1
      }
      %m = arith.ori %v#1, %out_of_range : i1
      %sum = arith.addf %acc, %v#0 : f64
      %next = arith.select %m, %acc, %sum : f64
      affine.yield %next : f64
    }
    affine.store %s, %out[%e] : memref<?xf64>
  }
  func.return
}

// -----
// The test is computed inside the nest, in an arm of another test (a
// gather of a gather): it is hoisted in front of the nest, and its copies
// deeper in the nest are the same test. Two tests give three copies of the
// loop. A test on the induction variable stays a branch, and so does a
// loop carrying a value (its copies yield it through the scf.if).
func.func @nested(%a: memref<?xf64>, %b: memref<?xf64>, %n: index, %m: index) -> f64 {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %ma = arith.cmpi slt, %c0, %n : index
  %r = affine.for %i = 0 to 16 iter_args(%acc = %zero) -> (f64) {
    %v = scf.if %ma -> (f64) {
      %mb = arith.cmpi slt, %c0, %m : index
      %w = scf.if %mb -> (f64) {
        %x = memref.load %b[%c0] : memref<?xf64>
        scf.yield %x : f64
      } else {
        scf.yield %zero : f64
      }
      %mb2 = arith.cmpi slt, %c0, %m : index
      %w2 = scf.if %mb2 -> (f64) {
        %x2 = memref.load %a[%c0] : memref<?xf64>
        scf.yield %x2 : f64
      } else {
        scf.yield %zero : f64
      }
      %s = arith.addf %w, %w2 : f64
      scf.yield %s : f64
    } else {
      scf.yield %zero : f64
    }
    %odd = arith.cmpi slt, %i, %n : index
    %u = scf.if %odd -> (f64) {
      %y = affine.load %a[%i] : memref<?xf64>
      scf.yield %y : f64
    } else {
      scf.yield %v : f64
    }
    %next = arith.addf %acc, %u : f64
    affine.yield %next : f64
  }
  func.return %r : f64
}

// -----
// A test nested in an arm of the same test (a concat of pieces of a concat
// split at the same point) is resolved too, in each copy.
func.func @same_test_nested(%a: memref<4xf64>, %out: memref<4xf64>, %i: index) {
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f64
  %low = arith.cmpi slt, %i, %c2 : index
  affine.for %j = 0 to 4 {
    %v = scf.if %low -> (f64) {
      %w = scf.if %low -> (f64) {
        %x = affine.load %a[%j] : memref<4xf64>
        scf.yield %x : f64
      } else {
        scf.yield %one : f64
      }
      scf.yield %w : f64
    } else {
      scf.yield %one : f64
    }
    affine.store %v, %out[%j] : memref<4xf64>
  }
  func.return
}

// -----
// A nest computes inside a test equal to one computed before it: once
// hoisted, it is that one (CSE), and the nest is unswitched on it.
func.func @same_test_outside(%a: memref<?xf64>, %out: memref<8xf64>, %n: index) -> i1 {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f64
  %ne = arith.cmpi slt, %c0, %n : index
  affine.for %j = 0 to 8 {
    %ne2 = arith.cmpi slt, %c0, %n : index
    %v = scf.if %ne2 -> (f64) {
      %x = memref.load %a[%c0] : memref<?xf64>
      scf.yield %x : f64
    } else {
      scf.yield %one : f64
    }
    affine.store %v, %out[%j] : memref<8xf64>
  }
  func.return %ne : i1
}
