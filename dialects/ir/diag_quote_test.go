package ir

import (
	"strings"
	"testing"
)

// A diagnostic on a very long line (a generated program on one line)
// quotes a window around its column, caret under it, not the whole line.
func TestRenderLongLine(t *testing.T) {
	line := strings.Repeat("a", 5000) + "BAD" + strings.Repeat("b", 5000)
	e := NewDiagEngine()
	e.AddSource("long.tir", "first\n"+line+"\n")
	out := e.Render(Errorf(Location{File: "long.tir", Line: 2, Col: 5001}, "here"))
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("want message, quote and caret, got:\n%s", out)
	}
	quote, caret := lines[1], lines[2]
	if len(quote) > 2*quoteWidth+10 || !strings.HasPrefix(quote, "...") || !strings.HasSuffix(quote, "...") {
		t.Errorf("the quote is not a window of the line (%d bytes): %.80s", len(quote), quote)
	}
	if i := strings.Index(caret, "^"); i < 0 || quote[i:i+3] != "BAD" {
		t.Errorf("the caret is not under the column:\n%s\n%s", quote, caret)
	}
	// A short line is quoted whole.
	e.AddSource("short.tir", "x = BAD\n")
	if out := e.Render(Errorf(Location{File: "short.tir", Line: 1, Col: 5}, "here")); !strings.Contains(out, "\nx = BAD\n    ^\n") {
		t.Errorf("short line:\n%s", out)
	}
}
