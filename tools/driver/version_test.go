package driver

import (
	"bytes"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Run([]string{"--version"}, strings.NewReader(""), &out, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, w := range []string{"tc-opt commit ", "targets LLVM 14 IR", "MLIR 16"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("--version lacks %q:\n%s", w, out.String())
		}
	}
}
