package parser_test

import (
	"os"
	"path/filepath"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	_ "tir/dialects/tir"
)

// TestExamplesRoundTrip parses the shared .tir examples the registered ops
// support, prints them, and checks print(parse(print(x))) == print(x).
func TestExamplesRoundTrip(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "examples", "*.tir"))
	if len(files) == 0 {
		t.Skip("../shared/examples not found next to the repository")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, diags := parser.Parse(f, string(src))
		if len(diags) > 0 {
			t.Errorf("%s: %v", f, diags)
			continue
		}
		if err := ir.Verify(m.Op, nil); err != nil {
			t.Errorf("%s: verify: %v", f, err)
			continue
		}
		out := printer.Module(m, printer.Options{})
		m2, diags := parser.Parse(f, out)
		if len(diags) > 0 {
			t.Errorf("%s: reparse: %v\n%s", f, diags, out)
			continue
		}
		out2 := printer.Module(m2, printer.Options{})
		if out != out2 {
			t.Errorf("%s: not a fixed point:\n%s\n---\n%s", f, out, out2)
		}
		gen := printer.Module(m, printer.Options{Generic: true})
		m3, diags := parser.Parse(f, gen)
		if len(diags) > 0 {
			t.Errorf("%s: generic reparse: %v\n%s", f, diags, gen)
			continue
		}
		// The generic form spells types out, so compare without aliases.
		plain := printer.Module(m, printer.Options{NoAliases: true})
		if out3 := printer.Module(m3, printer.Options{NoAliases: true}); out3 != plain {
			t.Errorf("%s: generic form does not round-trip:\n%s\n---\n%s", f, plain, out3)
		}
	}
}
