func.func @roundeven(%x: f16) -> f16 {
  %r = "math.roundeven"(%x) {fastmath = #arith.fastmath<none>} : (f16) -> f16
  return %r : f16
}
