// Arith and math ops on 4-wide vectors: integer division rounding with
// non-constant divisors of both signs, casts, selects, libm calls on vectors.
func.func @ops(%a: memref<8xi64>, %b: memref<8xi64>, %x: memref<8xf32>, %out: memref<10x8xi64>, %fout: memref<6x8xf32>) attributes {tir.arg_names = ["a", "b", "x", "out", "fout"], tir.num_results = 2 : i64} {
  %one = arith.constant dense<1> : vector<4xi64>
  %two = arith.constant dense<2> : vector<4xi64>
  %fzero = arith.constant dense<0.0> : vector<4xf32>
  %hundred = arith.constant dense<[100.0, 100.0, 100.0, 100.0]> : vector<4xf32>
  affine.for %j = 0 to 8 step 4 {
    %va = affine.vector_load %a[%j] : memref<8xi64>, vector<4xi64>
    %vb = affine.vector_load %b[%j] : memref<8xi64>, vector<4xi64>
    %d = arith.ori %vb, %one : vector<4xi64>
    %r0 = arith.floordivsi %va, %d : vector<4xi64>
    %r1 = arith.ceildivsi %va, %d : vector<4xi64>
    %r2 = arith.remsi %va, %d : vector<4xi64>
    %r3 = arith.maxsi %va, %vb : vector<4xi64>
    %r4 = arith.minsi %va, %vb : vector<4xi64>
    %c = arith.cmpi sge, %va, %vb : vector<4xi64>
    %r5 = arith.extui %c : vector<4xi1> to vector<4xi64>
    %r6 = arith.shrsi %va, %two : vector<4xi64>
    %r7 = arith.xori %va, %vb : vector<4xi64>
    %t = arith.trunci %va : vector<4xi64> to vector<4xi8>
    %r8 = arith.extsi %t : vector<4xi8> to vector<4xi64>
    %r9 = math.absi %va : vector<4xi64>
    affine.vector_store %r0, %out[0, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r1, %out[1, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r2, %out[2, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r3, %out[3, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r4, %out[4, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r5, %out[5, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r6, %out[6, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r7, %out[7, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r8, %out[8, %j] : memref<10x8xi64>, vector<4xi64>
    affine.vector_store %r9, %out[9, %j] : memref<10x8xi64>, vector<4xi64>
    %vx = affine.vector_load %x[%j] : memref<8xf32>, vector<4xf32>
    %f0 = math.tanh %vx : vector<4xf32>
    %f1 = arith.negf %vx : vector<4xf32>
    %f2 = arith.sitofp %va : vector<4xi64> to vector<4xf32>
    %h = arith.mulf %vx, %hundred : vector<4xf32>
    %hi = arith.fptosi %h : vector<4xf32> to vector<4xi32>
    %f3 = arith.sitofp %hi : vector<4xi32> to vector<4xf32>
    %f4 = arith.minf %vx, %f1 : vector<4xf32>
    %pos = arith.cmpf ogt, %vx, %fzero : vector<4xf32>
    %f5 = arith.select %pos, %vx, %fzero : vector<4xi1>, vector<4xf32>
    affine.vector_store %f0, %fout[0, %j] : memref<6x8xf32>, vector<4xf32>
    affine.vector_store %f1, %fout[1, %j] : memref<6x8xf32>, vector<4xf32>
    affine.vector_store %f2, %fout[2, %j] : memref<6x8xf32>, vector<4xf32>
    affine.vector_store %f3, %fout[3, %j] : memref<6x8xf32>, vector<4xf32>
    affine.vector_store %f4, %fout[4, %j] : memref<6x8xf32>, vector<4xf32>
    affine.vector_store %f5, %fout[5, %j] : memref<6x8xf32>, vector<4xf32>
  }
  return
}
