func.func private @ext(f32, index) -> f32

func.func @callee(%a: f32) -> (f32, f32) {
  func.return %a, %a : f32, f32
}

func.func @caller(%x: f32, %n: index) -> f32 attributes {llvm.emit_c_interface} {
  %pair:2 = func.call @callee(%x) : (f32) -> (f32, f32)
  %y = func.call @ext(%pair#1, %n) : (f32, index) -> f32
  func.call @none() : () -> ()
  func.return %y : f32
}

func.func private @helper(%m: memref<?xf32>) {
  func.return
}

func.func @none() {
  func.return
}
