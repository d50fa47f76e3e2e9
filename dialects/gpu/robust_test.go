package gpu_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
)

// TestDamagedInputs feeds every prefix of the corpus files, and each file
// with one line removed, through parse, verify and both printers: bad input
// must give located diagnostics, never a panic (the parser reports a panic
// of a Parse hook as an internal error), and whatever verifies must print.
func TestDamagedInputs(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.mlir")
	more, _ := filepath.Glob("testdata/mlir-opt/*.mlir")
	for _, f := range append(files, more...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(raw)
		for i := 0; i < len(src); i++ {
			check(t, f, src[:i])
		}
		lines := strings.Split(src, "\n")
		for i := range lines {
			check(t, f, strings.Join(append(append([]string(nil), lines[:i]...), lines[i+1:]...), "\n"))
		}
	}
}

func check(t *testing.T, name, src string) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic on %s:\n%v\n%s", name, r, src)
		}
	}()
	m, diags := parser.Parse(name, src)
	for _, d := range diags {
		if strings.Contains(d.Msg, "internal error") || !d.Loc.Known() {
			t.Fatalf("%s: %s\n%s", name, d.Error(), src)
		}
	}
	if len(diags) > 0 || m == nil {
		return
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		for _, d := range err.(ir.DiagList) {
			if !d.Loc.Known() {
				t.Fatalf("%s: unlocated: %s", name, d.Error())
			}
		}
	}
	printer.Module(m, printer.Options{})
	printer.Module(m, printer.Options{Generic: true})
}
