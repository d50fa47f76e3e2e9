// Exact integer semantics with negative values: affine floordiv, ceildiv
// and mod by constants (power of two and not) of a negative operand x =
// i - 12, arith floordivsi, ceildivsi and remsi by constants of both signs,
// affine.min/max. Row r of out holds the r-th quantity for x.
#sub = affine_map<(d0) -> (d0 - 12)>
#fd = affine_map<(d0) -> (d0 floordiv 4)>
#fd3 = affine_map<(d0) -> (d0 floordiv 3)>
#cd = affine_map<(d0) -> (d0 ceildiv 3)>
#cd8 = affine_map<(d0) -> (d0 ceildiv 8)>
#md = affine_map<(d0) -> (d0 mod 5)>
#md8 = affine_map<(d0) -> (d0 mod 8)>
#mn = affine_map<(d0) -> (d0, d0 floordiv 2, -3)>
#neg = affine_map<(d0) -> ((5 - d0) floordiv 3 + (7 - d0) mod 3)>
func.func @floordiv(%inp: memref<8xi64>, %out: memref<13x24xi64>) attributes {tir.arg_names = ["inp", "out"], tir.num_results = 1 : i64} {
  %c3 = arith.constant 3 : i64
  %cm7 = arith.constant -7 : i64
  %c4 = arith.constant 4 : i64
  %c5 = arith.constant 5 : i64
  affine.for %i = 0 to 24 {
    %x = affine.apply #sub(%i)
    %a = affine.apply #fd(%x)
    %b = affine.apply #fd3(%x)
    %c = affine.apply #cd(%x)
    %d = affine.apply #cd8(%x)
    %e = affine.apply #md(%x)
    %f = affine.apply #md8(%x)
    %g = affine.min #mn(%x)
    %h = affine.max #mn(%x)
    %n = affine.apply #neg(%i)
    %ai = arith.index_cast %a : index to i64
    %bi = arith.index_cast %b : index to i64
    %ci = arith.index_cast %c : index to i64
    %di = arith.index_cast %d : index to i64
    %ei = arith.index_cast %e : index to i64
    %fi = arith.index_cast %f : index to i64
    %gi = arith.index_cast %g : index to i64
    %hi = arith.index_cast %h : index to i64
    %ni = arith.index_cast %n : index to i64
    affine.store %ai, %out[0, %i] : memref<13x24xi64>
    affine.store %bi, %out[1, %i] : memref<13x24xi64>
    affine.store %ci, %out[2, %i] : memref<13x24xi64>
    affine.store %di, %out[3, %i] : memref<13x24xi64>
    affine.store %ei, %out[4, %i] : memref<13x24xi64>
    affine.store %fi, %out[5, %i] : memref<13x24xi64>
    affine.store %gi, %out[6, %i] : memref<13x24xi64>
    affine.store %hi, %out[7, %i] : memref<13x24xi64>
    affine.store %ni, %out[12, %i] : memref<13x24xi64>
    // A subscript with a floordiv of a negative value: x floordiv 3 + 4 is in [0, 8).
    %v = affine.load %inp[%x floordiv 3 + 4] : memref<8xi64>
    %p = arith.floordivsi %v, %c3 : i64
    %q = arith.ceildivsi %v, %cm7 : i64
    %r = arith.remsi %v, %c5 : i64
    %s = arith.floordivsi %v, %c4 : i64
    affine.store %p, %out[8, %i] : memref<13x24xi64>
    affine.store %q, %out[9, %i] : memref<13x24xi64>
    affine.store %r, %out[10, %i] : memref<13x24xi64>
    affine.store %s, %out[11, %i] : memref<13x24xi64>
  }
  return
}
