func.func @fast(%a: f32, %i: i32) -> f32 {
  %0 = arith.addf %a, %a fastmath<fast> : f32
  %1 = arith.mulf %0, %0 fastmath<nnan,ninf,contract> : f32
  %2 = "arith.subf"(%1, %a) {fastmath = #arith.fastmath<none>, tir.note = "kept"} : (f32, f32) -> f32
  %3 = "arith.addi"(%i, %i) {tir.tag} : (i32, i32) -> i32
  func.return %2 : f32
}
