package parser_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/test/hostile"
)

func examples(t testing.TB) map[string]string {
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "examples", "*.tir"))
	out := map[string]string{}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(src)
	}
	return out
}

// parseNoPanic parses, verifies and prints src; an internal error (a
// recovered panic) fails the test.
func parseNoPanic(t *testing.T, name, src string) {
	t.Helper()
	m, diags := parser.Parse(name, src)
	for _, d := range diags {
		if strings.Contains(d.Msg, "internal error") {
			t.Fatalf("%s: %s", name, d.Msg)
		}
		if !d.Loc.Known() {
			t.Errorf("%s: diagnostic without a location: %s", name, d.Msg)
		}
	}
	if len(diags) == 0 && m != nil {
		_ = ir.Verify(m.Op, nil)
		_ = printer.Module(m, printer.Options{})
	}
}

// TestTruncatedExamples parses every prefix of every example: bad input
// must give located diagnostics, never a panic.
func TestTruncatedExamples(t *testing.T) {
	ex := examples(t)
	if len(ex) == 0 {
		t.Skip("../shared/examples not found next to the repository")
	}
	for name, src := range ex {
		for i := 0; i <= len(src); i++ {
			parseNoPanic(t, name, src[:i])
		}
	}
}

// FuzzParse checks the parse -> print -> parse round trip on mutated input.
func FuzzParse(f *testing.F) {
	for _, src := range examples(f) {
		f.Add(src)
	}
	for _, src := range hostile.Seeds("tir") {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		m, diags := parser.Parse("fuzz.tir", src)
		for _, d := range diags {
			if strings.Contains(d.Msg, "internal error") {
				t.Fatalf("%s", d.Msg)
			}
		}
		if len(diags) > 0 || ir.Verify(m.Op, nil) != nil {
			return
		}
		out := printer.Module(m, printer.Options{})
		m2, diags := parser.Parse("fuzz.tir", out)
		if len(diags) > 0 {
			t.Fatalf("printed IR does not parse: %v\n%s", diags, out)
		}
		if out2 := printer.Module(m2, printer.Options{}); out2 != out {
			t.Fatalf("not a fixed point:\n%s\n---\n%s", out, out2)
		}
	})
}
