package tc

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
)

// TestDamagedInputs imports every TC test input cut at every token
// boundary and with random characters deleted or duplicated: the importer
// must answer with diagnostics or a module, never panic or report an
// internal error; a module it returns must verify.
func TestDamagedInputs(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "test", "testdata", "tc", "*.tc"))
	if len(files) == 0 {
		t.Skip("no test inputs")
	}
	rng := rand.New(rand.NewSource(1))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		var variants []string
		for i := 0; i < len(src); i++ {
			if i == 0 || strings.ContainsRune(" \n(),", rune(src[i-1])) {
				variants = append(variants, src[:i])
			}
		}
		for k := 0; k < 200; k++ {
			i := rng.Intn(len(src))
			variants = append(variants, src[:i]+src[i+1:], src[:i]+src[i:i+1]+src[i:])
		}
		for _, v := range variants {
			m, diags := Import("d.tc", v)
			for _, d := range diags {
				if strings.Contains(d.Msg, "internal error") {
					t.Fatalf("%s: %s\ninput:\n%s", f, d.Msg, v)
				}
			}
			if m == nil && !diags.HasErrors() {
				t.Fatalf("%s: no module and no error\ninput:\n%s", f, v)
			}
			// What the importer accepts, the dialect's verifier accepts.
			if m != nil {
				if err := ir.Verify(m.Op, nil); err != nil {
					t.Fatalf("%s: invalid IR: %v\ninput:\n%s", f, err, v)
				}
			}
		}
	}
}
