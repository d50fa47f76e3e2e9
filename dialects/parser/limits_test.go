package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/internal/limits"
	"tir/grammar/tirparser"
)

// TestNestingHeadroom: the nesting limit leaves ordinary input far from it:
// no .tir or .mlir file of the repository and the shared examples (the
// upstream MLIR corpus included) nests more than 20 levels as
// limits.Nesting counts them, a tenth of limits.MaxNesting. And the limit
// holds at its value: one level more than it is refused, at the token
// that goes over.
func TestNestingHeadroom(t *testing.T) {
	var files []string
	for _, root := range []string{"../..", "../../../shared/examples"} {
		filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && (strings.HasSuffix(p, ".tir") || strings.HasSuffix(p, ".mlir")) {
				files = append(files, p)
			}
			return nil
		})
	}
	if len(files) < 50 {
		t.Fatalf("only %d input files found", len(files))
	}
	deepest, where := 0, ""
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lexer := tirparser.NewTIRLexer(antlr.NewInputStream(string(src)))
		lexer.RemoveErrorListeners()
		tokens := antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel)
		tokens.Fill()
		if d := limits.Depth(tokens.GetAllTokens(), tirTokens); d > deepest {
			deepest, where = d, f
		}
	}
	t.Logf("deepest: %d levels (%s)", deepest, where)
	if deepest > 20 || deepest < 5 {
		t.Errorf("the deepest of %d files nests %d levels (%s); the documentation says at most 20", len(files), deepest, where)
	}
	// `() -> !tir.tensor<f32, I[0:(((N)))]>`: the result type is one
	// level below the `->`, its `<` one more, `[` another, and each
	// parenthesis one more; the first parenthesis is at column 42.
	for _, c := range []struct {
		parens int
		ok     bool
	}{{limits.MaxNesting - 3, true}, {limits.MaxNesting - 2, false}} {
		src := "\"test.op\"() : () -> !tir.tensor<f32, I[0:" + strings.Repeat("(", c.parens) + "N" + strings.Repeat(")", c.parens) + "]>\n"
		_, diags := Parse("deep.mlir", src)
		refused := len(diags) > 0 && strings.Contains(diags[0].Msg, "nesting too deep")
		if refused == c.ok {
			t.Errorf("%d parentheses: diagnostics %v", c.parens, diags)
		}
		if refused {
			if want := 41 + c.parens; diags[0].Loc.Line != 1 || diags[0].Loc.Col != want {
				t.Errorf("%d parentheses: refused at %v, want column %d", c.parens, diags[0].Loc, want)
			}
		}
	}
}
