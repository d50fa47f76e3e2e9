// Every expanded op, in f32, f64, f16 and vector<4xf32>, at several
// depths: a func.func body, an affine.for, an scf.if, a gpu.func.
module attributes {gpu.container_module} {
  func.func @scalars(%a: f32, %b: f32, %c: f64, %d: f64, %h: f16, %cond: i1, %m: memref<16xf32>, %md: memref<16xf64>) {
    %0 = math.exp %a : f32
    %1 = math.exp2 %a : f32
    %2 = math.expm1 %c : f64
    %3 = math.log %c : f64
    %4 = math.log2 %a : f32
    %5 = math.log10 %c : f64
    %6 = math.log1p %a : f32
    %7 = math.powf %c, %d : f64
    %8 = math.sin %h : f16
    %9 = "math.cbrt"(%d) {fastmath = #arith.fastmath<none>} : (f64) -> f64
    %10 = "math.roundeven"(%b) {fastmath = #arith.fastmath<none>} : (f32) -> f32
    affine.for %i = 0 to 16 {
      %x = affine.load %m[%i] : memref<16xf32>
      %s = math.sin %x : f32
      %t = math.tan %s : f32
      %u = math.tanh %t : f32
      affine.store %u, %m[%i] : memref<16xf32>
      %y = affine.load %md[%i] : memref<16xf64>
      %co = math.cos %y : f64
      %at = math.atan2 %co, %y : f64
      affine.store %at, %md[%i] : memref<16xf64>
    }
    scf.if %cond {
      %e = math.erf %b : f32
      %at = math.atan %e : f32
      %p = math.powf %at, %a : f32
      %c0 = arith.constant 0 : index
      memref.store %p, %m[%c0] : memref<16xf32>
    }
    %sq = math.sqrt %a : f32
    %fl = math.floor %c : f64
    return
  }
  func.func @vectors(%v: vector<4xf32>, %w: vector<4xf64>) -> (vector<4xf32>, vector<4xf64>) {
    %0 = math.exp %v : vector<4xf32>
    %1 = math.powf %0, %v : vector<4xf32>
    %2 = math.log %w : vector<4xf64>
    %3 = math.atan2 %2, %w : vector<4xf64>
    %4 = math.erf %1 : vector<4xf32>
    %5 = "math.cbrt"(%3) {fastmath = #arith.fastmath<none>} : (vector<4xf64>) -> vector<4xf64>
    return %4, %5 : vector<4xf32>, vector<4xf64>
  }
  gpu.module @kernels {
    gpu.func @k(%m: memref<?xf32>, %n: index) kernel {
      %tx = gpu.thread_id  x
      %in = arith.cmpi slt, %tx, %n : index
      scf.if %in {
        %v = memref.load %m[%tx] : memref<?xf32>
        %r = math.exp %v : f32
        %l = math.log %r : f32
        %c = math.cos %l : f32
        memref.store %c, %m[%tx] : memref<?xf32>
      }
      gpu.return
    }
  }
}
