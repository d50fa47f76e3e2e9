package test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tir/test/hostile"
	"tir/tools/driver"
)

// sweepModes are the ways each program is compiled: every emitter, the
// CPU pipeline and the GPU one.
var sweepModes = [][]string{
	nil,
	{"-O2"},
	{"-O2", "--target=nvptx64"},
	{"--emit=c-header"},
	{"--emit=extents"},
	{"--emit=extents-json"},
	{"--emit=dot"},
	{"-O2", "--target=nvptx64", "--emit=launch-json"},
	{"-O2", "--target=nvptx64", "--emit=cuda-host"},
}

var locatedError = regexp.MustCompile(`(?m)^[^ :]+:\d+:\d+: error: `)

// TestOverflowSweep puts every hostile integer in every interval, offset,
// coefficient and size of programs that use each op taking one, and
// compiles them every way tc-opt can: each outcome is a clean run, or a
// located error with exit 1. Never an internal error, exit 3, a Go trace,
// or an error without a line and column.
func TestOverflowSweep(t *testing.T) {
	dir := t.TempDir()
	runs, located := 0, 0
	for _, p := range hostile.Programs {
		for _, src := range p.Instances() {
			path := filepath.Join(dir, "sweep."+p.Ext)
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			parsed := true
			for _, mode := range sweepModes {
				// A program refused by the plain run is refused the same
				// way by every mode; only the first mode needs to see it.
				if !parsed && len(mode) > 0 {
					break
				}
				// Upstream dialects have no tir function to emit.
				if p.Ext == "mlir" && len(mode) > 0 && strings.HasPrefix(mode[len(mode)-1], "--emit") {
					continue
				}
				args := append(append([]string{}, mode...), path)
				var out, errb bytes.Buffer
				code := driver.Run(args, strings.NewReader(""), &out, &errb)
				runs++
				msg := errb.String()
				what := fmt.Sprintf("%s, tc-opt %s", p.Name, strings.Join(mode, " "))
				switch {
				case strings.Contains(msg, "internal error") || strings.Contains(msg, "goroutine "):
					t.Errorf("%s: internal error (exit %d):\n%s\n%s", what, code, src, firstLines(msg, 6))
				case code == 0:
				case code == 1 && locatedError.MatchString(msg):
					located++
					if mode == nil {
						parsed = false
					}
				case code == 1 && len(mode) > 0 && !strings.Contains(mode[len(mode)-1], "emit"):
					// A compile error of the pipeline itself (a GPU
					// limitation, say) must be located too.
					t.Errorf("%s: exit 1 without a located error:\n%s\n%s", what, src, firstLines(msg, 6))
				default:
					t.Errorf("%s: exit %d:\n%s\n%s", what, code, src, firstLines(msg, 6))
				}
			}
		}
	}
	t.Logf("%d runs, %d located errors", runs, located)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}
