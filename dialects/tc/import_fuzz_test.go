package tc_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/test/hostile"
)

// FuzzImport imports mutated Tensor Comprehensions (seeded with the shared
// examples and test/testdata/tc): the frontend answers with located
// diagnostics or a module, never a panic or an internal error; a module
// it returns verifies, and its printed tir parses back.
func FuzzImport(f *testing.F) {
	var files []string
	for _, pattern := range []string{
		filepath.Join("..", "..", "..", "shared", "examples", "*.tc"),
		filepath.Join("..", "..", "test", "testdata", "*", "*.tc"),
	} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	// Offsets and ranges near the ends of int64 (issue 20).
	for _, src := range hostile.Seeds("tc") {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Inputs of thousands of terms or nesting levels are slow for a
		// known reason (issue 10, resource limits); the fuzzer looks
		// elsewhere.
		if len(src) > 4096 {
			t.Skip()
		}
		m, diags := tc.Import("fuzz.tc", src)
		for _, d := range diags {
			if strings.Contains(d.Msg, "internal error") {
				t.Fatalf("%s", d.Msg)
			}
			if !d.Loc.Known() {
				t.Fatalf("a diagnostic without a location: %s", d.Msg)
			}
		}
		if m == nil {
			if !diags.HasErrors() {
				t.Fatal("no module and no error")
			}
			return
		}
		if diags.HasErrors() {
			return
		}
		if err := ir.Verify(m.Op, nil); err != nil {
			t.Fatalf("the imported module does not verify: %v", err)
		}
		out := printer.Module(m, printer.Options{})
		if _, diags := parser.Parse("printed.tir", out); diags.HasErrors() {
			t.Fatalf("the printed import does not parse: %v\n%s", diags, out)
		}
	})
}
