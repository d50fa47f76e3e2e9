package passes_test

import (
	"strings"
	"testing"

	"tir/passes"
)

// TestSetOption sets an option of every instance of a pass, nested ones
// included, as -O2 --threads does for convert-to-llvm.
func TestSetOption(t *testing.T) {
	p, err := passes.ParsePipeline("builtin.module(test-opts,tir.func(test-func-pass),builtin.module(test-opts{n=2}))")
	if err != nil {
		t.Fatal(err)
	}
	n, err := p.SetOption("test-opts", "name", "y")
	if err != nil || n != 2 {
		t.Fatalf("set %d, %v; want 2, nil", n, err)
	}
	if got := p.String(); strings.Count(got, "name=y") != 2 || !strings.Contains(got, "n=2") {
		t.Errorf("got %s", got)
	}
	if _, err := p.SetOption("test-opts", "target", "mips"); err == nil {
		t.Error("a value outside the choices was accepted")
	}
	if _, err := p.SetOption("test-opts", "nope", "1"); err == nil {
		t.Error("an unknown option was accepted")
	}
	if err := passes.WithThreads(p); err == nil || !strings.Contains(err.Error(), "convert-to-llvm") {
		t.Errorf("WithThreads on a pipeline without convert-to-llvm: %v", err)
	}
}
