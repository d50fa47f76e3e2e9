package parser_test

import (
	"strings"
	"testing"

	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	_ "tir/dialects/scf"
)

// Nested symbol references read as NestedSymbolRefAttr (flat ones stay
// SymbolRefAttr) and print back unchanged, quotes included.
func TestNestedSymbolRefs(t *testing.T) {
	src := `"x.op"() {flat = @f, list = [@a::@b::@c, @"q n"], nested = @m::@k, quoted = @"a b"::@"c::d"} : () -> ()
`
	m, diags := parser.Parse("refs.mlir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	op := m.Body().Ops[0]
	if _, ok := op.Attr("flat").(ir.SymbolRefAttr); !ok {
		t.Errorf("@f is %T", op.Attr("flat"))
	}
	want := map[string][]string{"nested": {"m", "k"}, "quoted": {"a b", "c::d"}}
	for name, path := range want {
		a, ok := op.Attr(name).(ir.NestedSymbolRefAttr)
		got, _ := ir.SymbolPath(a)
		if !ok || strings.Join(got, "|") != strings.Join(path, "|") {
			t.Errorf("%s: %#v, want path %v", name, op.Attr(name), path)
		}
	}
	if out := printer.Module(m, printer.Options{Generic: true}); out != src {
		t.Errorf("round trip:\n%s\nwant\n%s", out, src)
	}
}

// `return` inside a func.func is func.return (the func dialect is
// func.func's default dialect in MLIR's printing); elsewhere it is unknown,
// as in mlir-opt. A generic op keeps the enclosing default dialect.
func TestBareReturn(t *testing.T) {
	src := `func.func @f(%a: f32, %c: i1) -> f32 {
  "scf.if"(%c) ({
    "scf.yield"() : () -> ()
  }, {
  }) : (i1) -> ()
  return %a : f32
}
`
	m, diags := parser.Parse("ret.mlir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	if out := printer.Module(m, printer.Options{}); !strings.Contains(out, "  func.return %a : f32\n") {
		t.Errorf("bare return did not become func.return:\n%s", out)
	}
	bad := map[string]string{
		"top level": "return\n",
		"in scf.if": "func.func @f(%c: i1) {\n  scf.if %c {\n    return\n  }\n  return\n}\n",
	}
	wants := map[string]string{
		"top level": "1:1: error: custom op 'return' is unknown (tried 'builtin.return' as well)",
		"in scf.if": "3:5: error: custom op 'return' is unknown (tried '.return' as well)",
	}
	for name, src := range bad {
		_, diags := parser.Parse("ret.mlir", src)
		if len(diags) == 0 || !strings.Contains(diags[0].Error(), wants[name]) {
			t.Errorf("%s: got %v, want %s", name, diags, wants[name])
		}
	}
}

// Ops that name a symbol of their own (func.func, func.call) take a flat
// symbol; a nested one is a located error, not silently its root.
func TestFlatSymbolExpected(t *testing.T) {
	_, diags := parser.Parse("call.mlir", "func.func @f() {\n  func.call @m::@g() : () -> ()\n  func.return\n}\n")
	if len(diags) == 0 || !strings.Contains(diags[0].Error(), "call.mlir:2:13: error: expected a flat symbol name (@name), found nested reference @m::@g") {
		t.Errorf("got %v", diags)
	}
}
