package test

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// docsDotImage is the rendered --emit=dot example of docs/tools.md, made
// with the command the test prints when it is out of date.
const docsDotImage = "../docs/images/laplacian-dot.svg"

// TestDocsDotImage checks that the SVG in the docs shows what
// `tc-opt --emit=dot laplacian.tir` prints today: the same text (node,
// edge and cluster labels), line by line. Graphviz is not needed.
func TestDocsDotImage(t *testing.T) {
	lap := filepath.Join("..", "..", "shared", "examples", "laplacian.tir")
	if _, err := os.Stat(lap); err != nil {
		t.Skip("../shared/examples not found")
	}
	code, dot, stderr := runTool(t, []string{"--emit=dot", lap}, "")
	if code != 0 {
		t.Fatalf("tc-opt --emit=dot: exit %d\n%s", code, stderr)
	}
	var want []string
	for _, m := range regexp.MustCompile(`label="((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(dot, -1) {
		for _, line := range strings.Split(m[1], `\n`) {
			want = append(want, strings.ReplaceAll(strings.ReplaceAll(line, `\"`, `"`), `\\`, `\`))
		}
	}
	svg, err := os.ReadFile(docsDotImage)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindAllStringSubmatch(string(svg), -1) {
		got = append(got, html.UnescapeString(m[1]))
	}
	if len(want) < 10 {
		t.Fatalf("found %d labels in the DOT output:\n%s", len(want), dot)
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s is out of date; render it again (Debian's graphviz):\n"+
			"  bin/tc-opt --emit=dot ../shared/examples/laplacian.tir | dot -Tsvg -o docs/images/laplacian-dot.svg\n"+
			"svg text:\n  %s\nlabels:\n  %s", docsDotImage, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
