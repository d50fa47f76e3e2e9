// Written for tc-opt's corpus: ops of unregistered dialects (generic form
// only), empty blocks and regions, successors.

func.func @unknown_ops(%a: i32) -> i32 {
  %0 = "test.op"(%a) {attr = 4 : i64, flag, name = "x"} : (i32) -> i32
  %1:2 = "test.two"() : () -> (i32, f32)
  "test.side_effect"(%0, %1#0) : (i32, i32) -> ()
  %2 = "foo"() : () -> i32
  return %1#0 : i32
}

func.func @unknown_regions() {
  "test.empty_region"() ({
  }) : () -> ()
  "test.empty_block"() ({
  ^bb0:
  }) : () -> ()
  "test.two_regions"() ({
    "test.inner"() : () -> ()
  }, {
  ^bb0(%x: i32):
    "test.use"(%x) : (i32) -> ()
  }) : () -> ()
  "test.blocks"() ({
    "test.br"()[^bb1] : () -> ()
  ^bb1:
    "test.end"() : () -> ()
  }) : () -> ()
  return
}

func.func @unknown_terminator(%c: i1, %a: i32) {
  "test.cond_br"(%c, %a)[^bb1, ^bb2] : (i1, i32) -> ()
^bb1:
  "test.ret"() : () -> ()
^bb2:
  return
}

func.func @unknown_types(%a: !foo.thing, %b: !foo.param<4, "x">) -> !foo.thing {
  %0 = "test.convert"(%b) {kind = #foo.attr<1, 2>} : (!foo.param<4, "x">) -> !foo.thing
  return %0 : !foo.thing
}

func.func @generic_known(%a: f32, %m: memref<4xf32>, %i: index) -> f32 {
  %0 = "arith.addf"(%a, %a) {fastmath = #arith.fastmath<fast>} : (f32, f32) -> f32
  %1 = "memref.load"(%m, %i) : (memref<4xf32>, index) -> f32
  %2 = "arith.constant"() {value = dense<[1.0, 2.5]> : vector<2xf32>} : () -> vector<2xf32>
  return %0 : f32
}
