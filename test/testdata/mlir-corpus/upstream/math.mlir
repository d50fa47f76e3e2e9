// From llvm-project mlir/test/Dialect/Math/ops.mlir (CHECK lines removed).

func.func @atan(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.atan %f : f32
  %1 = math.atan %v : vector<4xf32>
  %2 = math.atan %t : tensor<4x4x?xf32>
  return
}

func.func @atan2(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.atan2 %f, %f : f32
  %1 = math.atan2 %v, %v : vector<4xf32>
  %2 = math.atan2 %t, %t : tensor<4x4x?xf32>
  return
}

func.func @cbrt(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.cbrt %f : f32
  %1 = math.cbrt %v : vector<4xf32>
  %2 = math.cbrt %t : tensor<4x4x?xf32>
  return
}

func.func @cos(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.cos %f : f32
  %1 = math.cos %v : vector<4xf32>
  %2 = math.cos %t : tensor<4x4x?xf32>
  return
}

func.func @sin(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.sin %f : f32
  %1 = math.sin %v : vector<4xf32>
  %2 = math.sin %t : tensor<4x4x?xf32>
  return
}

func.func @sincos(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0:2 = math.sincos %f : f32
  %1:2 = math.sincos %v : vector<4xf32>
  %2:2 = math.sincos %t : tensor<4x4x?xf32>
  return
}

func.func @erf(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.erf %f : f32
  %1 = math.erf %v : vector<4xf32>
  %2 = math.erf %t : tensor<4x4x?xf32>
  return
}

func.func @exp(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.exp %f : f32
  %1 = math.exp %v : vector<4xf32>
  %2 = math.exp %t : tensor<4x4x?xf32>
  return
}

func.func @exp2(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.exp2 %f : f32
  %1 = math.exp2 %v : vector<4xf32>
  %2 = math.exp2 %t : tensor<4x4x?xf32>
  return
}

func.func @expm1(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.expm1 %f : f32
  %1 = math.expm1 %v : vector<4xf32>
  %2 = math.expm1 %t : tensor<4x4x?xf32>
  return
}

func.func @log(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.log %f : f32
  %1 = math.log %v : vector<4xf32>
  %2 = math.log %t : tensor<4x4x?xf32>
  return
}

func.func @log10(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.log10 %f : f32
  %1 = math.log10 %v : vector<4xf32>
  %2 = math.log10 %t : tensor<4x4x?xf32>
  return
}

func.func @log1p(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.log1p %f : f32
  %1 = math.log1p %v : vector<4xf32>
  %2 = math.log1p %t : tensor<4x4x?xf32>
  return
}

func.func @log2(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.log2 %f : f32
  %1 = math.log2 %v : vector<4xf32>
  %2 = math.log2 %t : tensor<4x4x?xf32>
  return
}

func.func @powf(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.powf %f, %f : f32
  %1 = math.powf %v, %v : vector<4xf32>
  %2 = math.powf %t, %t : tensor<4x4x?xf32>
  return
}

func.func @fpowi(%b: f32, %p: i32, %vb: vector<4xf64>, %vp: vector<4xi16>, %tb: tensor<4x3x?xf16>, %tp: tensor<4x3x?xi64>) {
  %0 = math.fpowi %b, %p : f32, i32
  %1 = math.fpowi %vb, %vp : vector<4xf64>, vector<4xi16>
  %2 = math.fpowi %tb, %tp : tensor<4x3x?xf16>, tensor<4x3x?xi64>
  return
}

func.func @rsqrt(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.rsqrt %f : f32
  %1 = math.rsqrt %v : vector<4xf32>
  %2 = math.rsqrt %t : tensor<4x4x?xf32>
  return
}

func.func @sqrt(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.sqrt %f : f32
  %1 = math.sqrt %v : vector<4xf32>
  %2 = math.sqrt %t : tensor<4x4x?xf32>
  return
}

func.func @tan(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.tan %f : f32
  %1 = math.tan %v : vector<4xf32>
  %2 = math.tan %t : tensor<4x4x?xf32>
  return
}

func.func @tanh(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.tanh %f : f32
  %1 = math.tanh %v : vector<4xf32>
  %2 = math.tanh %t : tensor<4x4x?xf32>
  return
}

func.func @round(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.round %f : f32
  %1 = math.round %v : vector<4xf32>
  %2 = math.round %t : tensor<4x4x?xf32>
  return
}

func.func @roundeven(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.roundeven %f : f32
  %1 = math.roundeven %v : vector<4xf32>
  %2 = math.roundeven %t : tensor<4x4x?xf32>
  return
}

func.func @ipowi(%i: i32, %v: vector<4xi32>, %t: tensor<4x4x?xi32>) {
  %0 = math.ipowi %i, %i : i32
  %1 = math.ipowi %v, %v : vector<4xi32>
  %2 = math.ipowi %t, %t : tensor<4x4x?xi32>
  return
}

func.func @trunc(%f: f32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.trunc %f : f32
  %1 = math.trunc %v : vector<4xf32>
  %2 = math.trunc %t : tensor<4x4x?xf32>
  return
}

func.func @fastmath(%f: f32, %i: i32, %v: vector<4xf32>, %t: tensor<4x4x?xf32>) {
  %0 = math.trunc %f fastmath<fast> : f32
  %1 = math.powf %v, %v fastmath<reassoc,nnan,ninf,nsz,arcp,contract,afn> : vector<4xf32>
  %2 = math.fma %t, %t, %t fastmath<none> : tensor<4x4x?xf32>
  %3 = math.fma %f, %f, %f to_nearest_even : f32
  %4 = math.fma %f, %f, %f downward fastmath<contract> : f32
  %5 = math.fma %v, %v, %v toward_zero : vector<4xf32>
  %6 = math.absf %f fastmath<ninf> : f32
  %7 = math.fpowi %f, %i fastmath<fast> : f32, i32
  return
}

func.func @fpclassify(%f: f32, %d: f64, %v: vector<4xf32>, %t: tensor<4x?xf32>) {
  math.isfinite %f : f32
  math.isfinite %d : f64
  math.isfinite %v : vector<4xf32>
  math.isfinite %t : tensor<4x?xf32>
  math.isfinite %f fastmath<nnan> : f32
  math.isinf %f : f32
  math.isinf %d : f64
  math.isinf %v : vector<4xf32>
  math.isinf %t : tensor<4x?xf32>
  math.isinf %d fastmath<ninf> : f64
  math.isnan %f : f32
  math.isnan %d : f64
  math.isnan %v : vector<4xf32>
  math.isnan %t : tensor<4x?xf32>
  math.isnan %v fastmath<nnan> : vector<4xf32>
  math.isnormal %f : f32
  math.isnormal %d : f64
  math.isnormal %v : vector<4xf32>
  math.isnormal %t : tensor<4x?xf32>
  math.isnormal %t fastmath<fast> : tensor<4x?xf32>
  return
}

func.func @clampf(%av: vector<3x4xf32>, %mv: vector<3x4xf32>, %Mv: vector<3x4xf32>,
                  %as: f32, %ms: f32, %Ms: f32,
                  %at: tensor<?xf80>, %mt: tensor<?xf80>, %Mt: tensor<?xf80>) {
  %rv = math.clampf %av to [%mv, %Mv] fastmath<fast> : vector<3x4xf32>
  %rs = math.clampf %as to [%ms, %Ms] fastmath<none> : f32
  %rt = math.clampf %at to [%mt, %Mt] : tensor<?xf80>
  return
}
