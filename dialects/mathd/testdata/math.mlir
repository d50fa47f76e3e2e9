func.func @math(%x: f32, %y: f64, %v: vector<8xf32>, %i: i32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.exp2 %0 : f32
  %2 = math.expm1 %1 : f32
  %3 = math.log %2 : f32
  %4 = math.log2 %3 : f32
  %5 = math.log10 %4 : f32
  %6 = math.log1p %5 : f32
  %7 = math.sqrt %6 : f32
  %8 = math.rsqrt %7 : f32
  %9 = math.sin %8 : f32
  %10 = math.cos %9 : f32
  %11 = math.tan %10 : f32
  %12 = math.tanh %11 : f32
  %13 = math.atan %12 : f32
  %14 = math.erf %13 : f32
  %15 = math.floor %14 : f32
  %16 = math.ceil %15 : f32
  %17 = math.round %16 : f32
  %18 = math.trunc %17 : f32
  %19 = math.absf %18 : f32
  %20 = math.powf %19, %x : f32
  %21 = math.atan2 %20, %x : f32
  %22 = math.copysign %21, %x : f32
  %23 = math.fma %22, %x, %x : f32
  %24 = math.absi %i : i32
  %25 = math.sqrt %y : f64
  %26 = math.exp %v : vector<8xf32>
  %27 = math.fma %26, %v, %v : vector<8xf32>
  func.return %23 : f32
}
