func.func @exp(%x: f32) -> f32 {
  %r = math.exp %x : f32
  return %r : f32
}
