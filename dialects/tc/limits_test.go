package tc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/antlr4-go/antlr/v4"

	"tir/dialects/internal/limits"
	"tir/grammar/tcparser"
)

// TestNestingHeadroom: no TC file of the tests and the shared examples
// nests more than 20 levels as limits.Nesting counts them, and the
// limits hold: a long sum is flat, deep parentheses are refused at the
// token that goes over.
func TestNestingHeadroom(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "test", "testdata", "tc", "*.tc"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "examples", "*.tc"))
	files = append(files, more...)
	if len(files) < 10 {
		t.Fatalf("only %d TC files found", len(files))
	}
	deepest, where := 0, ""
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lexer := tcparser.NewTCLexer(antlr.NewInputStream(string(src)))
		lexer.RemoveErrorListeners()
		tokens := antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel)
		tokens.Fill()
		if d := limits.Depth(tokens.GetAllTokens(), tcTokens()); d > deepest {
			deepest, where = d, f
		}
	}
	t.Logf("deepest: %d levels (%s)", deepest, where)
	if deepest > 20 || deepest < 3 {
		t.Errorf("the deepest of %d files nests %d levels (%s)", len(files), deepest, where)
	}
	sum := "def f(float(N) A) -> (B) {\n  B(i) = " + strings.Repeat("A(i) - -A(i) + ", 2000) + "A(i)\n}\n"
	if _, diags := Parse("sum.tc", sum); len(diags) > 0 {
		t.Errorf("a sum of 4000 reads: %v", diags)
	}
	// The body's `{` follows `->` (2 levels), `B(i) =` is one more and
	// each parenthesis one more: the 254th, at column 263, is the 257th
	// level.
	deep := "def f(float(N) A) -> (B) {\n  B(i) = " + strings.Repeat("(", 255) + "A(i)" + strings.Repeat(")", 255) + "\n}\n"
	_, diags := Parse("deep.tc", deep)
	if len(diags) != 1 || !strings.Contains(diags[0].Msg, "nesting too deep") || diags[0].Loc.Line != 2 || diags[0].Loc.Col != 263 {
		t.Fatalf("got %v", diags)
	}
	// With 252, A's own parenthesis is the 256th level.
	shallow := "def f(float(N) A) -> (B) {\n  B(i) = " + strings.Repeat("(", 252) + "A(i)" + strings.Repeat(")", 252) + "\n}\n"
	if _, diags := Parse("shallow.tc", shallow); len(diags) > 0 {
		t.Fatalf("252 parentheses: %v", diags)
	}
}
