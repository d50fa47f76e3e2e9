package test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
)

// TestRoundTripCustomGeneric: for every .tir input that parses and
// verifies (test inputs and the shared examples), the custom form and the
// generic form say the same: print(parse(custom)) is a fixed point, and
// reading the generic print back prints the same custom form. The custom
// syntax of most ops comes from format strings (ir.Format); this catches a
// format whose printer and parser disagree, or that loses an attribute.
func TestRoundTripCustomGeneric(t *testing.T) {
	var files []string
	filepath.Walk(testdataDir, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".tir") {
			files = append(files, path)
		}
		return nil
	})
	shared, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	files = append(files, shared...)
	checked := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, diags := parser.Parse(f, string(src))
		if len(diags) > 0 || ir.Verify(m.Op, nil) != nil {
			continue // a diagnostics test or another input format
		}
		checked++
		custom := printer.Module(m, printer.Options{})
		again, diags := parser.Parse(f, custom)
		if len(diags) > 0 {
			t.Errorf("%s: the custom print does not parse: %v", f, diags)
			continue
		}
		if got := printer.Module(again, printer.Options{}); got != custom {
			t.Errorf("%s: print(parse(print)) differs:\n--- first\n%s--- again\n%s", f, custom, got)
			continue
		}
		generic := printer.Module(m, printer.Options{Generic: true})
		fromGeneric, diags := parser.Parse(f, generic)
		if len(diags) > 0 {
			t.Errorf("%s: the generic print does not parse: %v", f, diags)
			continue
		}
		// Type aliases are the custom print's: compare without them.
		plain := printer.Module(m, printer.Options{NoAliases: true})
		if got := printer.Module(fromGeneric, printer.Options{NoAliases: true}); got != plain {
			t.Errorf("%s: the generic form reads back as another custom form:\n--- custom\n%s--- from generic\n%s", f, plain, got)
		}
	}
	if checked < 100 {
		t.Errorf("only %d inputs parsed and verified; the corpus went missing?", checked)
	}
}
