package test

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestVersionLdflags builds both tools as the Makefile does, with the
// commit set through -ldflags -X, and checks that --version prints it with
// the LLVM and MLIR versions.
func TestVersionLdflags(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the tools (-short)")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir := t.TempDir()
	const commit = "0123456789abcdef0123456789abcdef01234567-dirty"
	build := exec.Command(goTool, "build", "-ldflags", "-X tir/tools/internal/version.Commit="+commit, "-o", dir+"/",
		"tir/tools/tc-opt", "tir/tools/tc-run")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, tool := range []string{"tc-opt", "tc-run"} {
		out, err := exec.Command(filepath.Join(dir, tool), "--version").CombinedOutput()
		if err != nil {
			t.Fatalf("%s --version: %v\n%s", tool, err, out)
		}
		for _, w := range []string{tool + " commit " + commit + "\n", "LLVM 14 IR", "MLIR 16"} {
			if !strings.Contains(string(out), w) {
				t.Errorf("%s --version lacks %q:\n%s", tool, w, out)
			}
		}
	}
}
