// Package test holds tc-opt's end-to-end tests: golden files (goldie),
// --verify-diagnostics files, print/parse idempotence of every IR output,
// and command-line checks on the built binary.
//
// Every file under testdata/ ending in .tir, .mlir or .tc starts with a RUN
// line, `// RUN: tc-opt <args>` (`# RUN: tc-opt <args>` for .tc files). The
// file path is appended to the arguments unless they contain %s (replaced by
// the path; `< %s` feeds the file on stdin). Files run with
// --verify-diagnostics must exit 0 and have no golden file; the others are
// compared with testdata/golden/<path>.golden, which holds stdout, then
// "// stderr:" and stderr when it is not empty, then "// exit: N" when the
// status is not 0. `go test ./test/... -update` rewrites the golden files.
package test

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sebdah/goldie/v2"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/tools/driver"
)

const (
	testdataDir = "testdata"
	goldenDir   = "testdata/golden"
	// mlirCorpusDir is measured by test/mlircorpus (TestMLIRCorpus).
	mlirCorpusDir = "testdata/mlir-corpus"
)

// inputFiles lists the test inputs under testdata (golden files excluded).
func inputFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(testdataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// mlir-corpus holds upstream MLIR test functions, checked
			// against mlir-opt by test/mlircorpus rather than by goldens.
			if path == goldenDir || path == mlirCorpusDir {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(path) {
		case ".tir", ".mlir", ".tc":
			files = append(files, filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// runLine reads the RUN line of a test input and returns the tc-opt
// arguments and the stdin file ("" for none).
func runLine(path string) (args []string, stdinFile string, err error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	first, _, _ := strings.Cut(string(src), "\n")
	var rest string
	var ok bool
	for _, prefix := range []string{"// RUN: tc-opt", "# RUN: tc-opt"} {
		if rest, ok = strings.CutPrefix(first, prefix); ok {
			break
		}
	}
	if !ok || (rest != "" && rest[0] != ' ') {
		return nil, "", fmt.Errorf("%s: the first line must be `// RUN: tc-opt <args>` (`# RUN: tc-opt <args>` in .tc files)", path)
	}
	words, err := shellSplit(rest)
	if err != nil {
		return nil, "", fmt.Errorf("%s: RUN line: %v", path, err)
	}
	used := false
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "<" && i+1 < len(words) {
			stdinFile = strings.ReplaceAll(words[i+1], "%s", path)
			used = used || strings.Contains(words[i+1], "%s")
			i++
			continue
		}
		if strings.Contains(w, "%s") {
			used = true
			w = strings.ReplaceAll(w, "%s", path)
		}
		args = append(args, w)
	}
	if !used {
		args = append(args, path)
	}
	return args, stdinFile, nil
}

// shellSplit splits a command line as a POSIX shell would for words and
// quotes ('...', "...", backslash escapes); nothing is expanded.
func shellSplit(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unterminated quote")
			}
			inWord = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// runTool runs tc-opt in-process.
func runTool(t *testing.T, args []string, stdinFile string) (code int, stdout, stderr string) {
	t.Helper()
	var in []byte
	if stdinFile != "" {
		var err error
		if in, err = os.ReadFile(stdinFile); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	code = driver.Run(args, bytes.NewReader(in), &out, &errb)
	return code, out.String(), errb.String()
}

func hasArg(args []string, names ...string) bool {
	for _, a := range args {
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") {
				return true
			}
		}
	}
	return false
}

// TestGolden runs every test input and compares with its golden file.
func TestGolden(t *testing.T) {
	for _, path := range inputFiles(t) {
		rel := strings.TrimPrefix(path, testdataDir+"/")
		t.Run(rel, func(t *testing.T) {
			args, stdinFile, err := runLine(path)
			if err != nil {
				t.Fatal(err)
			}
			code, stdout, stderr := runTool(t, args, stdinFile)
			if hasArg(args, "--verify-diagnostics", "-verify-diagnostics") {
				if code != 0 {
					t.Fatalf("tc-opt %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
				}
			} else {
				golden := stdout
				if stderr != "" {
					golden += "// stderr:\n" + stderr
				}
				if code != 0 {
					golden += fmt.Sprintf("// exit: %d\n", code)
				}
				goldie.New(t, goldie.WithFixtureDir(goldenDir), goldie.WithNameSuffix(".golden")).Assert(t, rel, []byte(golden))
			}
			if code == 0 && stdout != "" && !isLLVM(args) && !strings.HasPrefix(stdout, "target datalayout") {
				checkIdempotent(t, stdout, hasArg(args, "--mlir-print-op-generic", "-mlir-print-op-generic"))
			}
		})
	}
}

// isLLVM reports whether the output is something other than IR (LLVM IR,
// a C header, Fortran module or host wrapper, extents, DOT, JSON), which the idempotence
// check cannot parse.
func isLLVM(args []string) bool {
	for _, a := range args {
		switch strings.TrimLeft(a, "-") {
		case "emit=llvm", "emit=c-header", "emit=abi-json", "emit=fortran", "emit=extents", "emit=extents-json", "emit=dot", "emit=launch-json", "emit=cuda-host":
			return true
		}
	}
	return false
}

// checkIdempotent re-parses printed IR (each chunk of a split output) and
// checks that printing it again gives the same text.
func checkIdempotent(t *testing.T, out string, generic bool) {
	t.Helper()
	for i, chunk := range strings.Split(out, "// -----\n") {
		name := fmt.Sprintf("<output chunk %d>", i+1)
		m, diags := parser.Parse(name, chunk)
		if len(diags) > 0 {
			t.Errorf("the output does not parse: %v\n%s", diags, chunk)
			continue
		}
		if err := ir.Verify(m.Op, nil); err != nil {
			t.Errorf("the output does not verify: %v\n%s", err, chunk)
			continue
		}
		if again := printer.Module(m, printer.Options{Generic: generic}); again != chunk {
			t.Errorf("print(parse(output)) differs from the output:\n--- output\n%s--- again\n%s", chunk, again)
		}
	}
}

// TestSharedExamples round-trips ../../shared/examples/*.tir (custom and
// generic form) through tc-opt, skipping files that use ops not registered
// yet.
func TestSharedExamples(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	if len(files) == 0 {
		t.Skip("../../shared/examples not found")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, diags := parser.Parse(f, string(src)); len(diags) > 0 && strings.Contains(diags.Error(), "unknown operation") {
				t.Skipf("uses ops not registered yet: %v", diags)
			}
			for _, generic := range []bool{false, true} {
				args := []string{f}
				if generic {
					args = []string{"--mlir-print-op-generic", f}
				}
				code, stdout, stderr := runTool(t, args, "")
				if code != 0 {
					t.Fatalf("tc-opt %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
				}
				checkIdempotent(t, stdout, generic)
			}
		})
	}
}

// TestVerifyDiagnosticsFailures checks that --verify-diagnostics fails (exit
// 1) on wrong expectations, naming each mismatch at its place.
func TestVerifyDiagnosticsFailures(t *testing.T) {
	const fn = "tir.func @f(%a: !tir.tensor<f32, I[0:4]>, %b: !tir.tensor<f32, I[4:8]>) -> !tir.tensor<f32, I[0:4]> {\n"
	cases := []struct {
		name, src string
		want      []string
	}{
		{"wrong message", fn + "  // expected-error @+1 {{element types differ}}\n  %x = tir.add %a, %b\n  tir.return %x : !tir.tensor<f32, I[0:4]>\n}\n",
			[]string{`:2:6: error: expected error "element types differ" was not produced`, ":3:3: error: unexpected error: empty domain in dimension I"}},
		{"wrong line", fn + "  // expected-error @+2 {{empty domain}}\n  %x = tir.add %a, %b\n  tir.return %x : !tir.tensor<f32, I[0:4]>\n}\n",
			[]string{`:2:6: error: expected error "empty domain" was not produced`, ":3:3: error: unexpected error: empty domain in dimension I"}},
		{"wrong severity", fn + "  // expected-warning @+1 {{empty domain}}\n  %x = tir.add %a, %b\n  tir.return %x : !tir.tensor<f32, I[0:4]>\n}\n",
			[]string{`expected warning "empty domain" was not produced`, "unexpected error: empty domain"}},
		{"nothing emitted", "tir.func @g(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {\n  // expected-error @below {{boom}}\n  tir.return %a : !tir.tensor<f32, I[0:4]>\n}\n",
			[]string{`:2:6: error: expected error "boom" was not produced`}},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".tir")
			if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runTool(t, []string{"--verify-diagnostics", path}, "")
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s", code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
		})
	}
}
