package mathexpand_test

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	_ "tir/dialects/affine"
	_ "tir/dialects/arith"
	_ "tir/dialects/fn"
	_ "tir/dialects/gpu"
	"tir/dialects/ir"
	_ "tir/dialects/mathd"
	_ "tir/dialects/memref"
	"tir/dialects/parser"
	"tir/dialects/printer"
	_ "tir/dialects/scf"
	"tir/passes"
	"tir/passes/mathexpand"
)

// The accuracy of the expansions is measured by the compiled end-to-end
// test test/mathexpand_accuracy_test.go; these tests check the rewrite
// itself: what is left, that the IR verifies, and the text of one case.

func parse(t *testing.T, path string) *ir.Module {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, diags := parser.Parse(path, string(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	return m
}

// remaining lists the expandable ops left under root.
func remaining(root *ir.Operation) []string {
	expand := map[string]bool{}
	for _, n := range mathexpand.Ops() {
		expand[n] = true
	}
	var left []string
	root.Walk(func(op *ir.Operation) bool {
		if expand[op.Name] {
			left = append(left, op.Name)
		}
		return true
	})
	return left
}

func TestExpandEveryOp(t *testing.T) {
	m := parse(t, "testdata/all_ops.mlir")
	before := remaining(m.Op)
	seen := map[string]bool{}
	for _, n := range before {
		seen[n] = true
	}
	for _, n := range mathexpand.Ops() {
		if !seen[n] {
			t.Errorf("testdata/all_ops.mlir does not use %s", n)
		}
	}
	if err := mathexpand.Expand(m.Op); err != nil {
		t.Fatal(err)
	}
	if left := remaining(m.Op); len(left) > 0 {
		t.Fatalf("ops left after Expand: %v", left)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("expanded IR does not verify: %v", err)
	}
	// Only selectable math ops remain, and the ops that were not expanded
	// (sqrt, floor) are kept.
	allowed := map[string]bool{"math.fma": true, "math.absf": true, "math.floor": true, "math.sqrt": true, "math.copysign": true}
	m.Op.Walk(func(op *ir.Operation) bool {
		if strings.HasPrefix(op.Name, "math.") && !allowed[op.Name] {
			t.Errorf("%s: '%s' left after expansion", op.Loc, op.Name)
		}
		return true
	})
	// The printed result parses back to the same text.
	out := printer.Module(m, printer.Options{})
	m2, diags := parser.Parse("expanded.mlir", out)
	if len(diags) > 0 {
		t.Fatalf("expanded IR does not parse back: %v", diags)
	}
	if out2 := printer.Module(m2, printer.Options{}); out2 != out {
		t.Error("print -> parse -> print is not idempotent")
	}
	// A second run finds nothing to do.
	if err := mathexpand.Expand(m.Op); err != nil {
		t.Fatal(err)
	}
	if out2 := printer.Module(m, printer.Options{}); out2 != out {
		t.Error("a second Expand changed the IR")
	}
}

func TestExpandGolden(t *testing.T) {
	for _, name := range []string{"exp_f32", "roundeven_f16"} {
		t.Run(name, func(t *testing.T) {
			m := parse(t, "testdata/"+name+".mlir")
			if err := mathexpand.Expand(m.Op); err != nil {
				t.Fatal(err)
			}
			if err := ir.Verify(m.Op, nil); err != nil {
				t.Fatal(err)
			}
			out := printer.Module(m, printer.Options{})
			goldie.New(t, goldie.WithFixtureDir("testdata"), goldie.WithNameSuffix(".golden")).Assert(t, name, []byte(out))
		})
	}
}

// The pass runs from a pipeline on any op, as tc-opt --expand-math does.
func TestPassPipeline(t *testing.T) {
	d := passes.Lookup("expand-math")
	if d == nil {
		t.Fatal("expand-math is not registered")
	}
	if d.Anchor != passes.AnchorAny || d.Summary == "" {
		t.Errorf("expand-math: anchor %q, summary %q", d.Anchor, d.Summary)
	}
	for _, pipeline := range []string{"expand-math", "builtin.module(func.func(expand-math))"} {
		m := parse(t, "testdata/all_ops.mlir")
		p, err := passes.ParsePipeline(pipeline)
		if err != nil {
			t.Fatal(err)
		}
		if err := passes.NewManager(p).Run(m); err != nil {
			t.Fatalf("%s: %v", pipeline, err)
		}
		left := remaining(m.Op)
		if pipeline == "expand-math" && len(left) > 0 {
			t.Errorf("%s: ops left: %v", pipeline, left)
		}
		// Nested on func.func, the gpu.func is not visited.
		if pipeline != "expand-math" && (len(left) != 3 || left[0] != "math.exp") {
			t.Errorf("%s: expected the gpu.func's 3 ops to be left, got %v", pipeline, left)
		}
	}
}

// Operands that are neither float scalars nor vectors are a located error.
func TestExpandRejectsTensors(t *testing.T) {
	src := "func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {\n  %r = math.exp %t : tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n"
	m, diags := parser.Parse("t.mlir", src)
	if len(diags) > 0 {
		t.Skipf("tensors do not parse here: %v", diags)
	}
	err := mathexpand.Expand(m.Op)
	if err == nil {
		t.Fatal("expected an error")
	}
	d, ok := err.(*ir.Diagnostic)
	if !ok || d.Loc.Line != 2 || !strings.Contains(d.Msg, "tensor<4xf32>") {
		t.Fatalf("want a located error on line 2 naming the type, got %v", err)
	}
}

// Constants that the expansions take from the package's high-precision
// computation agree with Go's float64 values.
func TestConstants(t *testing.T) {
	for name, c := range mathexpand.ConstantsForTest() {
		if math.Abs(c[0]-c[1]) > c[2]*math.Abs(c[1]) {
			t.Errorf("%s = %v, want %v (relative tolerance %g)", name, c[0], c[1], c[2])
		}
	}
}
