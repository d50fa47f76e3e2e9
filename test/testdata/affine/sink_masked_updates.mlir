// RUN: tc-opt --sink-masked-updates --split-input-file
// Two neighbours of a masked sum, as the lowering and full unrolling leave
// them: each neighbour's index is clamped (%safe) and its update kept out
// by a select {tir.mask} on %masked. Each becomes one scf.if {tir.mask}
// whose else arm holds the loads and arithmetic that only feed the update;
// in the arm the index is known in range, so the loads use it unclamped.
// The second neighbour's two sums (x and y) share one branch.
func.func @two_neighbours(%x: memref<?xf64>, %y: memref<?xf64>, %tab: memref<2xi32>, %out: memref<2xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %true = arith.constant true
  %false = arith.constant false
  %t0 = affine.load %tab[0] : memref<2xi32>
  %i0 = arith.index_cast %t0 : i32 to index
  %in0 = arith.cmpi ult, %i0, %n : index
  %safe0 = arith.select %in0, %i0, %c0 : index
  %out0 = arith.xori %in0, %true : i1
  %masked0 = arith.ori %false, %out0 : i1
  %a0 = memref.load %x[%safe0] : memref<?xf64>
  %s0 = arith.addf %zero, %a0 : f64
  %r0 = arith.select %masked0, %zero, %s0 {tir.mask} : f64
  %t1 = affine.load %tab[1] : memref<2xi32>
  %i1 = arith.index_cast %t1 : i32 to index
  %in1 = arith.cmpi ult, %i1, %n : index
  %safe1 = arith.select %in1, %i1, %c0 : index
  %masked1 = arith.xori %in1, %true : i1
  %a1 = memref.load %x[%safe1] : memref<?xf64>
  %b1 = memref.load %y[%safe1] : memref<?xf64>
  %s1 = arith.addf %r0, %a1 : f64
  %r1 = arith.select %masked1, %r0, %s1 {tir.mask} : f64
  %u1 = arith.addf %zero, %b1 : f64
  %v1 = arith.select %masked1, %zero, %u1 {tir.mask} : f64
  affine.store %r1, %out[0] : memref<2xf64>
  affine.store %v1, %out[1] : memref<2xf64>
  return
}

// -----

// A store between the load and its select: the load stays where it is
// (it could read what the store wrote, moved or not, but the pass does not
// reason about which addresses differ); the add, which only feeds the
// update, still moves. A vector select is left alone.
func.func @store_between(%x: memref<?xf64>, %out: memref<?xf64>, %i: index, %masked: i1, %acc: f64, %va: vector<4xf64>, %vb: vector<4xf64>, %vm: vector<4xi1>) -> vector<4xf64> {
  %a = memref.load %x[%i] : memref<?xf64>
  memref.store %acc, %out[%i] : memref<?xf64>
  %s = arith.addf %acc, %a : f64
  %r = arith.select %masked, %acc, %s {tir.mask} : f64
  memref.store %r, %out[%i] : memref<?xf64>
  %v = arith.select %vm, %va, %vb {tir.mask} : vector<4xi1>, vector<4xf64>
  return %v : vector<4xf64>
}

// -----

// A scatter sweep's entry: the sums of a rider update where the entry is
// valid (%masked = not %in), and the scatter adds into the point the entry
// names under `scf.if %in`, right after. The guard runs exactly where the
// else arm does, so its ops move to the end of that arm (one branch per
// entry), where the select on the negated mask (%valid) is resolved. A
// guard that reads the sums' results, or one on another condition, stays.
func.func @scatter_guard(%x: memref<?xf64>, %d: memref<?xf64>, %tab: memref<2xi32>, %out: memref<2xf64>, %g: f64, %other: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %true = arith.constant true
  %false = arith.constant false
  %t0 = affine.load %tab[0] : memref<2xi32>
  %i0 = arith.index_cast %t0 : i32 to index
  %in0 = arith.cmpi ult, %i0, %n : index
  %safe0 = arith.select %in0, %i0, %c0 : index
  %out0 = arith.xori %in0, %true : i1
  %masked0 = arith.ori %false, %out0 : i1
  %valid0 = arith.xori %masked0, %true : i1
  %a0 = memref.load %x[%safe0] : memref<?xf64>
  %s0 = arith.addf %zero, %a0 : f64
  %r0 = arith.select %masked0, %zero, %s0 {tir.mask} : f64
  scf.if %in0 {
    %v0 = arith.select %valid0, %g, %zero : f64
    %o0 = memref.load %d[%i0] : memref<?xf64>
    %n0 = arith.addf %o0, %v0 : f64
    memref.store %n0, %d[%i0] : memref<?xf64>
  }
  %t1 = affine.load %tab[1] : memref<2xi32>
  %i1 = arith.index_cast %t1 : i32 to index
  %in1 = arith.cmpi ult, %i1, %n : index
  %safe1 = arith.select %in1, %i1, %c0 : index
  %masked1 = arith.xori %in1, %true : i1
  %a1 = memref.load %x[%safe1] : memref<?xf64>
  %s1 = arith.addf %r0, %a1 : f64
  %r1 = arith.select %masked1, %r0, %s1 {tir.mask} : f64
  scf.if %other {
    memref.store %g, %d[%i1] : memref<?xf64>
  }
  %t2 = affine.load %tab[0] : memref<2xi32>
  %i2 = arith.index_cast %t2 : i32 to index
  %in2 = arith.cmpi ult, %i2, %n : index
  %masked2 = arith.xori %in2, %true : i1
  %a2 = memref.load %x[%i2] : memref<?xf64>
  %s2 = arith.addf %r1, %a2 : f64
  %r2 = arith.select %masked2, %r1, %s2 {tir.mask} : f64
  scf.if %in2 {
    memref.store %r2, %d[%i2] : memref<?xf64>
  }
  affine.store %r2, %out[0] : memref<2xf64>
  return
}

// -----

// A masked product, as the adjoint of a gathered value writes it: the
// inner select on %valid is read only through the outer select's true arm
// (where %valid holds), so it is resolved there: %p multiplies %g itself.
// %t reads %q where %valid is false, where %sh is 0: %q0 adds %zero; the
// select on another condition (%other) stays. %shared has another user
// (the store) and keeps reading the select.
func.func @nested_selects(%g: f64, %h: f64, %w: f64, %valid: i1, %other: i1, %out: memref<4xf64>) {
  %zero = arith.constant 0.0 : f64
  %sg = arith.select %valid, %g, %zero : f64
  %p = arith.mulf %sg, %w : f64
  %r = arith.select %valid, %p, %zero : f64
  %sh = arith.select %valid, %h, %zero : f64
  %so = arith.select %other, %h, %zero : f64
  %q0 = arith.addf %sh, %so : f64
  %q = arith.mulf %q0, %w : f64
  %t = arith.select %valid, %w, %q : f64
  %shared = arith.mulf %sg, %w : f64
  %v = arith.select %valid, %shared, %zero : f64
  affine.store %r, %out[0] : memref<4xf64>
  affine.store %t, %out[1] : memref<4xf64>
  affine.store %v, %out[2] : memref<4xf64>
  affine.store %shared, %out[3] : memref<4xf64>
  return
}

// -----

// A store beside a masked sum reads the same mask: the adjoint of a
// gather stores each neighbour's cotangent, zero where it is missing,
// through selects on the negated mask (%valid0) and a flag that is false
// either way (%m = %valid0 and %masked0). The store right before the
// scf.if {tir.mask} moves into both arms: in the masked arm the selects
// give 0.0 + 0.0, folded to 0.0; in the other they give %pa + %pb, and
// %pb moves with it. The stores of %w and %pa, which no select on the
// mask computes, stay before the branch, and so do %pa and the loads,
// which come before those stores.
func.func @masked_store(%x: memref<?xf64>, %y: memref<?xf64>, %tab: memref<2xi32>, %out: memref<3xf64>, %acc: memref<1xf64>, %gx: f64, %gy: f64, %n: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %true = arith.constant true
  %false = arith.constant false
  %t0 = affine.load %tab[0] : memref<2xi32>
  %i0 = arith.index_cast %t0 : i32 to index
  %in0 = arith.cmpi ult, %i0, %n : index
  %safe0 = arith.select %in0, %i0, %c0 : index
  %out0 = arith.xori %in0, %true : i1
  %masked0 = arith.ori %false, %out0 : i1
  %a0 = memref.load %x[%safe0] : memref<?xf64>
  %b0 = memref.load %y[%safe0] : memref<?xf64>
  %valid0 = arith.xori %masked0, %true : i1
  %pa = arith.mulf %a0, %gx : f64
  %sa = arith.select %valid0, %pa, %zero : f64
  %m0 = arith.select %valid0, %masked0, %false : i1
  %pb = arith.mulf %b0, %gy : f64
  %sb = arith.select %valid0, %pb, %zero : f64
  %s = arith.addf %sa, %sb : f64
  %m = arith.ori %m0, %m0 : i1
  %r = arith.select %m, %zero, %s : f64
  %w = arith.mulf %gx, %gy : f64
  affine.store %pa, %out[1] : memref<3xf64>
  affine.store %w, %out[2] : memref<3xf64>
  affine.store %r, %out[0] : memref<3xf64>
  %u = arith.addf %zero, %a0 : f64
  %acc0 = arith.select %masked0, %zero, %u {tir.mask} : f64
  affine.store %acc0, %acc[0] : memref<1xf64>
  return
}

// -----

// A scatter's entry under a test of its own (no masked sum before it to
// merge with): in the then arm %in0 holds, so %valid0, derived from it,
// is true and the select gives %g; in the else arm it gives 0.0. No
// select is left for llc to turn into a branch of its own.
func.func @guarded_select(%d: memref<?xf64>, %tab: memref<2xi32>, %g: f64, %n: index) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f64
  %true = arith.constant true
  %false = arith.constant false
  %t0 = affine.load %tab[0] : memref<2xi32>
  %i0 = arith.index_cast %t0 : i32 to index
  %in0 = arith.cmpi ult, %i0, %n : index
  %out0 = arith.xori %in0, %true : i1
  %masked0 = arith.ori %false, %out0 : i1
  %valid0 = arith.xori %masked0, %true : i1
  scf.if %in0 {
    %v0 = arith.select %valid0, %g, %zero : f64
    %o0 = memref.load %d[%i0] : memref<?xf64>
    %n0 = arith.addf %o0, %v0 : f64
    memref.store %n0, %d[%i0] : memref<?xf64>
  } else {
    %w0 = arith.select %valid0, %g, %zero : f64
    memref.store %w0, %d[%c0] : memref<?xf64>
  }
  return
}
