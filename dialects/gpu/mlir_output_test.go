package gpu_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/internal/dialecttest"
)

// TestMLIROutput reads text exactly as mlir-opt 16 prints it
// (testdata/mlir-opt/*.mlir, made with `mlir-opt FILE`; laplacian.mlir is
// the outlined Laplacian). MLIR's spelling differs from our canonical one
// in three ways only: `return` for func.return inside a func.func, a blank
// at the end of a gpu.launch_func without args, and a blank line at the end
// of the file. So our print must be MLIR's text with those normalised, and
// mlir-opt must print our print back as its own text.
func TestMLIROutput(t *testing.T) {
	files, _ := filepath.Glob("testdata/mlir-opt/*.mlir")
	if len(files) == 0 {
		t.Fatal("no files in testdata/mlir-opt")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(raw)
		t.Run(filepath.Base(f), func(t *testing.T) {
			m := dialecttest.Parse(t, f, src)
			out := dialecttest.CheckModule(t, f, m)
			if want := ourSpelling(src); out != want {
				t.Errorf("our print differs from MLIR's text beyond the known spellings:\n%s", dialecttest.Diff(want, out))
			}
			opt := dialecttest.MLIROpt()
			if opt == "" {
				t.Skip("mlir-opt not installed: not checking that it prints our text as its own")
			}
			theirs, err := dialecttest.RunMLIROpt(opt, out)
			if err != nil {
				t.Fatalf("mlir-opt rejects our print: %v", err)
			}
			if theirs != src {
				t.Errorf("mlir-opt prints our print differently from the file:\n%s", dialecttest.Diff(src, theirs))
			}
		})
	}
}

// ourSpelling rewrites MLIR's text into the canonical form our printer
// writes (see TestMLIROutput).
func ourSpelling(src string) string {
	lines := strings.Split(strings.TrimRight(src, "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		body := strings.TrimLeft(l, " ")
		if body == "return" || strings.HasPrefix(body, "return ") {
			l = l[:len(l)-len(body)] + "func." + body
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n") + "\n"
}
