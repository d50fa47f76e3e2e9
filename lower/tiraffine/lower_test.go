package tiraffine_test

import (
	"os"
	"path/filepath"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	_ "tir/dialects/tir"
	"tir/lower/tiraffine"
)

// TestLowerExamples lowers the shared examples the lowering supports and
// checks the result verifies and re-parses to the same text.
func TestLowerExamples(t *testing.T) {
	for _, name := range []string{"laplacian.tir", "laplacian_symbolic.tir", "hdiff.tir", "temporaries.tir", "nabla.tir", "tridiag.tir"} {
		path := filepath.Join("..", "..", "..", "shared", "examples", name)
		src, err := os.ReadFile(path)
		if err != nil {
			t.Skipf("shared examples not available: %v", err)
		}
		m, diags := parser.Parse(name, string(src))
		if len(diags) > 0 {
			t.Fatalf("%s: %v", name, diags)
		}
		if err := tiraffine.Convert(m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := ir.Verify(m.Op, nil); err != nil {
			t.Fatalf("%s: verify: %v", name, err)
		}
		out := printer.Module(m, printer.Options{})
		m2, diags := parser.Parse(name, out)
		if len(diags) > 0 {
			t.Fatalf("%s: reparse: %v\n%s", name, diags, out)
		}
		if out2 := printer.Module(m2, printer.Options{}); out2 != out {
			t.Errorf("%s: not a fixed point:\n%s\n---\n%s", name, out, out2)
		}
		t.Logf("%s\n%s", name, out)
	}
}
