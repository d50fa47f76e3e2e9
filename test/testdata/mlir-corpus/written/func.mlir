// Written for tc-opt's corpus: func dialect forms as users write them.

func.func private @decl(i32, f32) -> i32

func.func private @decl_multi(memref<?xf32>) -> (index, f32)

func.func @call(%a: i32, %b: f32) -> i32 {
  %0 = func.call @decl(%a, %b) : (i32, f32) -> i32
  %1 = call @decl(%0, %b) : (i32, f32) -> i32
  return %1 : i32
}

func.func @multi_result(%m: memref<?xf32>) -> (index, f32) {
  %0:2 = call @decl_multi(%m) : (memref<?xf32>) -> (index, f32)
  return %0#0, %0#1 : index, f32
}

func.func @no_args() {
  return
}

func.func @attrs(%a: f32) -> f32 attributes {llvm.emit_c_interface, tir.note = "kept"} {
  return %a : f32
}

func.func @unnamed_entry(i32, i1) -> i32 {
^bb0(%x: i32, %c: i1):
  return %x : i32
}

func.func @entry_label() -> i32 {
^bb0:
  %x = arith.constant 1 : i32
  return %x : i32
}

func.func nested @nested_visibility() {
  return
}
