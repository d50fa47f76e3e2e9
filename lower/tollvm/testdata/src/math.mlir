// Math ops: intrinsics (exp, sqrt, ...), libm calls (tanh, tan), rsqrt.
func.func @math(%inp: memref<32xf32>, %out: memref<6x32xf32>, %d: memref<32xf64>) attributes {tir.arg_names = ["inp", "out", "d"], tir.num_results = 2 : i64} {
  affine.for %i = 0 to 32 {
    %x = affine.load %inp[%i] : memref<32xf32>
    %e = math.exp %x : f32
    %a = math.absf %x : f32
    %s = math.sqrt %a : f32
    %r = math.rsqrt %a : f32
    %t = math.tanh %x : f32
    %f = math.floor %x : f32
    %fm = math.fma %x, %e, %s : f32
    affine.store %e, %out[0, %i] : memref<6x32xf32>
    affine.store %s, %out[1, %i] : memref<6x32xf32>
    affine.store %r, %out[2, %i] : memref<6x32xf32>
    affine.store %t, %out[3, %i] : memref<6x32xf32>
    affine.store %f, %out[4, %i] : memref<6x32xf32>
    affine.store %fm, %out[5, %i] : memref<6x32xf32>
    %xd = arith.extf %x : f32 to f64
    %l = math.log %a : f32
    %ld = arith.extf %l : f32 to f64
    %p = math.powf %xd, %xd : f64
    %c = math.cos %xd : f64
    %tn = math.tan %xd : f64
    %sum0 = arith.addf %ld, %c : f64
    %sum1 = arith.addf %sum0, %tn : f64
    %cmp = arith.cmpf olt, %xd, %sum1 : f64
    %sel = arith.select %cmp, %p, %sum1 : f64
    affine.store %sel, %d[%i] : memref<32xf64>
  }
  return
}
