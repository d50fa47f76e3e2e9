package grammar_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMLIRCorpusUnambiguous parses the MLIR corpus (what mlir-opt prints
// and upstream test functions, test/testdata/mlir-corpus) in exact
// ambiguity detection mode: MLIR's syntax must not make any decision of
// the grammar ambiguous. Files are split at `// -----` lines.
func TestMLIRCorpusUnambiguous(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "test", "testdata", "mlir-corpus", "*", "*.mlir"))
	if len(files) == 0 {
		t.Skip("no MLIR corpus")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, chunk := range strings.Split(string(src), "\n// -----\n") {
			x := parse(chunk, true)
			if len(x.rec.ambigs) > 0 {
				t.Errorf("%s chunk %d: ambiguous decisions:\n  %s", f, i, strings.Join(x.rec.ambigs, "\n  "))
			}
		}
	}
}
