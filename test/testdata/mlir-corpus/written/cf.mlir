// Written for tc-opt's corpus: multi-block functions with cf branches and
// block arguments.

func.func @br(%a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  return %x : i32
}

func.func @cond_br(%c: i1, %a: i32, %b: f32) -> i32 {
  cf.cond_br %c, ^bb1(%a, %b : i32, f32), ^bb2
^bb1(%x: i32, %y: f32):
  return %x : i32
^bb2:
  %z = arith.constant 0 : i32
  return %z : i32
}

func.func @loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^header(%c0, %c0 : index, index)
^header(%i: index, %acc: index):
  %done = arith.cmpi sge, %i, %n : index
  cf.cond_br %done, ^exit(%acc : index), ^body
^body:
  %next = arith.addi %acc, %i : index
  %i1 = arith.addi %i, %c1 : index
  cf.br ^header(%i1, %next : index, index)
^exit(%r: index):
  return %r : index
}

func.func @diamond(%c: i1, %a: f32) -> f32 {
  cf.cond_br %c, ^left, ^right
^left:
  %l = arith.addf %a, %a : f32
  cf.br ^join(%l : f32)
^right:
  %r = arith.mulf %a, %a : f32
  cf.br ^join(%r : f32)
^join(%v: f32):
  return %v : f32
}

func.func @switch(%flag: i32, %a: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^bb1(%a : f32),
    0: ^bb2,
    -1: ^bb1(%a : f32)
  ]
^bb1(%x: f32):
  return %x : f32
^bb2:
  %z = arith.constant 0.0 : f32
  return %z : f32
}

func.func @assert_then_branch(%c: i1) {
  cf.assert %c, "must hold"
  cf.br ^bb1
^bb1:
  return
}

func.func @scf_in_block(%c: i1, %a: index) -> index {
  cf.cond_br %c, ^bb1, ^bb2(%a : index)
^bb1:
  %r = scf.execute_region -> index {
    cf.br ^inner
  ^inner:
    scf.yield %a : index
  }
  cf.br ^bb2(%r : index)
^bb2(%v: index):
  return %v : index
}
