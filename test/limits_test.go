package test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Resource limits (docs/tools.md, "Limits"): tc-opt finishes in seconds on
// any input up to 1 MB, with exit 0 or a located error, never a hang, an
// out-of-memory, a stack overflow or an internal error. Input nested more
// than 256 levels deep and expressions with too many terms are refused
// with a located diagnostic; large programs of ordinary depth compile.
// Each case runs the tc-opt binary with bounds of 20 s of CPU time and
// 2 GiB of memory (guards against hangs and blow-ups, not benchmarks: each
// takes well under 5 s and 1 GiB).

// limitCase is one input and what tc-opt must do with it.
type limitCase struct {
	name, ext string
	src       string
	flags     []string
	// want is the start of the first diagnostic (after "FILE:LINE:COL: "),
	// or "" for a success.
	want string
}

func nest(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// sizeType is a function of one argument whose extent expression is e.
func sizeType(e string) string {
	return "tir.func @f(%a: !tir.tensor<f32, I[0:" + e + "]>) -> !tir.tensor<f32, I[0:N]> {\n  tir.return %a : !tir.tensor<f32, I[0:N]>\n}\n"
}

// entries is a dictionary's entries a0 = 0, a1 = 1, ...
func entries(n int) string {
	e := make([]string, n)
	for i := range e {
		e[i] = fmt.Sprintf("a%d = %d", i, i)
	}
	return strings.Join(e, ", ")
}

// opItems is a function whose body holds one op with the given items.
func opItems(items string) string {
	return "tir.func @f(%a: !tir.tensor<f32, I[0:8]>) -> !tir.tensor<f32, I[0:8]> {\n  foo.bar " + items + "\n  tir.return %a : !tir.tensor<f32, I[0:8]>\n}\n"
}

// manyOps is a function of about size bytes: a chain of additions.
func manyOps(size int) string {
	var b strings.Builder
	b.WriteString("tir.func @f(%a: !tir.tensor<f32, I[0:64]>) -> !tir.tensor<f32, I[0:64]> {\n  %v0 = tir.add %a, %a\n")
	i := 0
	for b.Len() < size {
		i++
		fmt.Fprintf(&b, "  %%v%d = tir.add %%v%d, %%a\n", i, i-1)
	}
	fmt.Fprintf(&b, "  tir.return %%v%d : !tir.tensor<f32, I[0:64]>\n}\n", i)
	return b.String()
}

// tcLongSum is a TC function whose statement adds n reads.
func tcLongSum(n int) string {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = "A(i)"
	}
	return "def f(float(N) A) -> (B) {\n  B(i) = " + strings.Join(terms, " + ") + "\n}\n"
}

func tcExpr(e string) string {
	return "def f(float(N) A) -> (B) {\n  B(i) = " + e + "\n}\n"
}

func TestResourceLimits(t *testing.T) {
	bin := tcOpt(t)
	const deep = 10000
	nestingErr := "error: nesting too deep: more than 256 levels"
	cases := []limitCase{
		// Nesting: every kind of recursion of the grammars.
		{name: "parentheses", ext: ".tir", src: sizeType(nest("(", "N", ")", deep)), want: nestingErr},
		{name: "parentheses at 200", ext: ".tir", src: sizeType(nest("(", "N", ")", 200))},
		{name: "modules", ext: ".mlir", src: nest("module {\n", "", "}\n", deep), want: nestingErr},
		{name: "regions", ext: ".mlir", src: nest("\"test.op\"() ({\n", "", "}) : () -> ()\n", deep), want: nestingErr},
		{name: "regions at 40", ext: ".mlir", src: nest("\"test.op\"() ({\n", "", "}) : () -> ()\n", 40)},
		{name: "arrays", ext: ".mlir", src: "\"test.op\"() {a = " + nest("[", "", "]", deep) + "} : () -> ()\n", want: nestingErr},
		{name: "dictionary of 20000 entries", ext: ".mlir", src: "\"test.op\"() {" + entries(20000) + "} : () -> ()\n"},
		{name: "tuple types", ext: ".mlir", src: "\"test.op\"() : () -> " + nest("tuple<", "f32", ">", deep) + "\n", want: nestingErr},
		{name: "function types", ext: ".mlir", src: "\"test.op\"() : () -> " + strings.Repeat("() -> ", 100000) + "()\n", want: nestingErr},
		{name: "unary minus", ext: ".tir", src: sizeType(strings.Repeat("- ", 100000) + "N"), want: nestingErr},
		{name: "colon items", ext: ".tir", src: opItems(strings.Repeat(": ", 100000) + "f32"), want: nestingErr},
		{name: "comma items", ext: ".tir", src: opItems("(" + strings.Repeat(", ", 100000) + "%a)"), want: nestingErr},
		{name: "bindings", ext: ".tir", src: opItems(strings.Repeat("%a = ", 100000) + "%a"), want: nestingErr},
		{name: "group bindings", ext: ".tir", src: opItems(strings.Repeat("() = ", 100000) + "()"), want: nestingErr},
		// Size: a 1 MB sum in one expression, 1 MB of operations.
		{name: "sum of 500000 terms", ext: ".tir", src: sizeType(strings.Repeat("N+", 500000) + "N"), want: "error: expression too large: more than 2000 terms"},
		{name: "sum of 500 terms", ext: ".tir", src: sizeType(strings.Repeat("N+", 499) + "N")},
		{name: "1 MB of operations", ext: ".tir", src: manyOps(1 << 20)},
		{name: "1 MB of operations -O2", ext: ".tir", src: manyOps(1 << 20), flags: []string{"-O2"}},
		// Tensor Comprehensions.
		{name: "tc sum of 5000 terms -O2", ext: ".tc", src: tcLongSum(5000), flags: []string{"-O2"}},
		{name: "tc sum of 200000 terms", ext: ".tc", src: tcLongSum(200000), want: "error: expression too large: more than 50000 terms"},
		{name: "tc parentheses", ext: ".tc", src: tcExpr(nest("(", "A(i)", ")", deep)), want: nestingErr},
		{name: "tc unary minus", ext: ".tc", src: tcExpr(strings.Repeat("-", 100000) + "A(i)"), want: nestingErr},
		{name: "tc conditionals", ext: ".tc", src: tcExpr(strings.Repeat("A(i) > 0 ? A(i) : ", 20000) + "A(i)"), want: nestingErr},
		{name: "tc index parentheses", ext: ".tc", src: tcExpr("A(" + nest("(", "i", ")", deep) + ")"), want: nestingErr},
	}
	dir := t.TempDir()
	located := regexp.MustCompile(`^[^:\n]+:\d+:\d+: `)
	for i, c := range cases {
		path := filepath.Join(dir, fmt.Sprintf("c%d%s", i, c.ext))
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		args := append(append([]string(nil), c.flags...), path)
		if c.ext == ".mlir" && c.want == "" {
			args = append([]string{"--mlir-print-op-generic"}, args...)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// The bound is on CPU time, which other jobs on the machine do
		// not stretch; the wall clock only stops a hang.
		var err error
		select {
		case err = <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			<-done
			t.Errorf("%s (%d bytes): still running after 2 minutes", c.name, len(c.src))
			continue
		}
		elapsed := time.Since(start)
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if cpu > 20*time.Second {
			t.Errorf("%s (%d bytes): %v of CPU time, more than 20 s", c.name, len(c.src), cpu.Round(time.Millisecond))
		}
		var rss int64 // KiB
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			rss = ru.Maxrss
		}
		if rss > 2<<20 {
			t.Errorf("%s (%d bytes): %d MiB of memory, more than 2 GiB", c.name, len(c.src), rss>>10)
		}
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		msg := stderr.String()
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		switch {
		case strings.Contains(stderr.String(), "goroutine ") || strings.Contains(stderr.String(), "internal error"):
			t.Errorf("%s: exit %d with a crash:\n%.2000s", c.name, code, stderr.String())
		case c.want == "" && code != 0:
			t.Errorf("%s: exit %d, want success: %.500s", c.name, code, msg)
		case c.want != "" && (code != 1 || !located.MatchString(msg) || !strings.Contains(msg, c.want)):
			t.Errorf("%s: exit %d, first line %.300q; want exit 1 and a located %q", c.name, code, msg, c.want)
		}
		t.Logf("%s: %d bytes, exit %d in %v (CPU %v, %d MiB)", c.name, len(c.src), code, elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), rss>>10)
	}
}
