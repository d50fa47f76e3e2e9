// Scatter-adds with memref.atomic_rmw addf and addi (the GPU lowering of
// a gather's adjoint, tiraffine.Options.AtomicScatters), lowered for the
// host as the emulated kernels are: out[idx[e] mod 5] += val[e], in
// entry order.
#id = affine_map<(d0) -> (d0)>
func.func @atomic(%idx: memref<16xi64>, %val: memref<16xf64>, %ival: memref<16xi64>, %out: memref<5xf64>, %iout: memref<5xi64>) attributes {tir.arg_names = ["idx", "val", "ival", "out", "iout"], tir.num_results = 2 : i64} {
  %zf = arith.constant 0.0 : f64
  %zi = arith.constant 0 : i64
  %c5 = arith.constant 5 : i64
  affine.for %i = 0 to 5 {
    affine.store %zf, %out[%i] : memref<5xf64>
    affine.store %zi, %iout[%i] : memref<5xi64>
  }
  affine.for %e = 0 to 16 {
    %t = affine.load %idx[%e] : memref<16xi64>
    %m = arith.remsi %t, %c5 : i64
    %a = math.absi %m : i64
    %p = arith.index_cast %a : i64 to index
    %v = affine.load %val[%e] : memref<16xf64>
    %w = affine.load %ival[%e] : memref<16xi64>
    %old = memref.atomic_rmw addf %v, %out[%p] : (f64, memref<5xf64>) -> f64
    %iold = memref.atomic_rmw addi %w, %iout[%p] : (i64, memref<5xi64>) -> i64
  }
  return
}
