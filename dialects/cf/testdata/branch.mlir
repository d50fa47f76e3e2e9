func.func @br(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  func.return %x : i32
}

func.func @cond_br(%c: i1, %a: i32, %b: f32) -> i32 {
  cf.cond_br %c, ^bb1(%a, %b : i32, f32), ^bb2
^bb1(%x: i32, %y: f32):
  func.return %x : i32
^bb2:
  %z = arith.constant 0 : i32
  func.return %z : i32
}

func.func @loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^bb1(%c0, %c0 : index, index)
^bb1(%i: index, %acc: index):
  %done = arith.cmpi sge, %i, %n : index
  cf.cond_br %done, ^bb3(%acc : index), ^bb2
^bb2:
  %next = arith.addi %acc, %i : index
  %i1 = arith.addi %i, %c1 : index
  cf.br ^bb1(%i1, %next : index, index)
^bb3(%r: index):
  func.return %r : index
}

func.func @diamond(%c: i1, %a: f32) -> f32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %l = arith.addf %a, %a : f32
  cf.br ^bb3(%l : f32)
^bb2:
  %r = arith.mulf %a, %a : f32
  cf.br ^bb3(%r : f32)
^bb3(%v: f32):
  func.return %v : f32
}

func.func @switch(%flag: i32, %a: f32) -> f32 {
  cf.switch %flag : i32, [default: ^bb1(%a : f32), 0: ^bb2, -1: ^bb1(%a : f32)]
^bb1(%x: f32):
  func.return %x : f32
^bb2:
  %z = arith.constant 0.0 : f32
  func.return %z : f32
}

func.func @assert_then_branch(%c: i1) {
  cf.assert %c, "must hold"
  cf.br ^bb1
^bb1:
  func.return
}
