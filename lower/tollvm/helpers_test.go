package tollvm

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
)

// parseMLIR parses MLIR text.
func parseMLIR(t *testing.T, name, src string) *ir.Module {
	t.Helper()
	m, diags := parser.Parse(name, src)
	if len(diags) > 0 {
		t.Fatalf("parse %s: %v", name, diags)
	}
	return m
}

// loadTestdata parses testdata/<name>.mlir.
func loadTestdata(t *testing.T, name string) *ir.Module {
	t.Helper()
	path := filepath.Join("testdata", name+".mlir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseMLIR(t, path, string(src))
}

// tool finds an LLVM 14 tool, or skips the test.
func tool(t *testing.T, name string) string {
	t.Helper()
	for _, p := range []string{name, "/usr/lib/llvm-14/bin/" + name, name + "-14"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	t.Skipf("%s (LLVM 14) not found", name)
	return ""
}

// run runs a command, failing the test with its output on error.
func run(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// runEnv is run with variables added to the environment.
func runEnv(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// emitFile lowers a module and writes it to dir/name.ll.
func emitFile(t *testing.T, m *ir.Module, opts Options, dir, name string) string {
	t.Helper()
	out, err := Emit(m, opts)
	if err != nil {
		t.Fatalf("Emit: %v", err)
	}
	path := filepath.Join(dir, name+".ll")
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
