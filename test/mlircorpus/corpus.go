// Package mlircorpus measures how much of what MLIR 16 prints tc-opt reads
// back: it splits .mlir test files into units (one per top-level function),
// keeps those mlir-opt 16 accepts, runs each through tc-opt (parse, verify,
// print) and compares mlir-opt's generic form of our output with mlir-opt's
// generic form of the original.
package mlircorpus

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"tir/dialects/fn"
	"tir/tools/driver"
)

// MLIROptPath is where Debian's mlir-16-tools installs mlir-opt; the
// MLIR_OPT environment variable overrides it.
const MLIROptPath = "/usr/lib/llvm-16/bin/mlir-opt"

// MLIROpt returns the mlir-opt binary, or "" when it is not installed.
func MLIROpt() string {
	p := MLIROptPath
	if env := os.Getenv("MLIR_OPT"); env != "" {
		p = env
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Unit is one function of a corpus file (or one other top-level op), with
// the declarations of its chunk it may refer to.
type Unit struct {
	File string
	Name string // @name of the function, or the op's first line
	Line int    // 1-based line of the op in File
	Text string // the context declarations followed by the op
}

var splitLine = regexp.MustCompile(`(?m)^// -----\s*$`)

// Split cuts src at `// -----` lines, then each chunk into its top-level
// ops. Each function (a func.func with a body) becomes one unit; the
// chunk's other top-level ops (aliases, globals, declarations) are put in
// front of every function of the chunk, and are units of their own too.
func Split(file, src string) []Unit {
	var units []Unit
	line := 1
	for _, chunk := range splitLine.Split(src, -1) {
		tops := topLevel(chunk)
		for i, t := range tops {
			if t.alias {
				continue
			}
			u := Unit{File: file, Name: t.name, Line: line + t.line, Text: context(tops, i) + t.text + "\n"}
			units = append(units, u)
		}
		line += strings.Count(chunk, "\n") + 1
	}
	return units
}

type top struct {
	text   string
	name   string
	line   int // 0-based line within the chunk
	isFunc bool
	alias  bool
	key    string // the symbol or alias it defines
}

// context returns the other top-level ops of the chunk that tops[i] refers
// to (by symbol or alias name, transitively), in chunk order; functions
// with a body are only included when called.
func context(tops []top, i int) string {
	need := map[int]bool{i: true}
	for changed := true; changed; {
		changed = false
		for j, t := range tops {
			if need[j] || t.key == "" {
				continue
			}
			for k := range need {
				if refers(tops[k].text, t.key) {
					need[j], changed = true, true
					break
				}
			}
		}
	}
	var b strings.Builder
	for j, t := range tops {
		if j != i && need[j] {
			b.WriteString(t.text + "\n")
		}
	}
	return b.String()
}

// refers reports whether text uses name (@f, #map, !t) other than as a
// prefix of a longer name.
func refers(text, name string) bool {
	for off := 0; ; {
		k := strings.Index(text[off:], name)
		if k < 0 {
			return false
		}
		end := off + k + len(name)
		if end == len(text) || !isNameChar(text[end]) {
			return true
		}
		off = end
	}
}

func isNameChar(c byte) bool {
	return c == '_' || c == '.' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

var symName = regexp.MustCompile(`@[A-Za-z0-9_.$]+`)

// topLevel finds the top-level ops of a chunk: an op starts on a line that
// begins in column 0 with neither a comment nor a closing brace, and runs
// until the next such line (braces balanced).
func topLevel(chunk string) []top {
	lines := strings.Split(chunk, "\n")
	var tops []top
	var cur *top
	depth := 0
	var b strings.Builder
	flush := func() {
		if cur != nil {
			cur.text = strings.TrimRight(b.String(), "\n ")
			tops = append(tops, *cur)
			cur = nil
		}
		b.Reset()
	}
	for i, l := range lines {
		trim := strings.TrimSpace(l)
		if depth == 0 && trim != "" && !strings.HasPrefix(trim, "//") && l[0] != ' ' && l[0] != '\t' && l[0] != '}' && l[0] != ')' && l[0] != '^' && l[0] != '{' {
			flush()
			cur = &top{line: i, name: firstLine(trim)}
			if strings.HasPrefix(trim, "#") || strings.HasPrefix(trim, "!") {
				cur.alias = true
				cur.key, _, _ = strings.Cut(trim, " ")
				cur.name = cur.key
			}
			if strings.HasPrefix(trim, fn.Func.Name) && !strings.Contains(trim, "private") {
				cur.isFunc = true
			}
			if m := symName.FindString(trim); m != "" && !cur.alias {
				cur.name, cur.key = m, m
			}
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(trim, "//") {
			b.WriteString("\n")
			continue
		}
		b.WriteString(l + "\n")
		depth += strings.Count(stripStrings(l), "{") - strings.Count(stripStrings(l), "}")
	}
	flush()
	return tops
}

func stripStrings(l string) string {
	var b strings.Builder
	in := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		if c == '"' && (i == 0 || l[i-1] != '\\') {
			in = !in
			continue
		}
		if !in {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 60 {
		s = s[:60]
	}
	return s
}

// Status is the outcome of one unit.
type Status int

const (
	// Rejected: mlir-opt 16 does not accept the unit; it is not counted.
	Rejected Status = iota
	// ParseError: tc-opt fails on the unit.
	ParseError
	// Differs: tc-opt reads and prints it, but MLIR reads our print as
	// different IR (or does not accept it).
	Differs
	// Same: the round trip keeps the IR.
	Same
)

func (s Status) String() string {
	return [...]string{"rejected by mlir-opt 16", "tc-opt fails", "differs", "round-trips"}[s]
}

// Result is the outcome of one unit with the reason when it failed.
type Result struct {
	Unit   Unit
	Status Status
	Detail string
}

// normalise prints src in MLIR's generic form with aliases inlined, so
// that two texts of the same IR compare equal.
func normalise(opt, src string) (string, error) {
	return mlirOpt(opt, src, "--mlir-print-op-generic", "--mlir-print-local-scope")
}

// mlirOpt runs mlir-opt (unregistered dialects allowed) on src.
func mlirOpt(opt, src string, args ...string) (string, error) {
	cmd := exec.Command(opt, append([]string{"--allow-unregistered-dialect"}, args...)...)
	cmd.Stdin = strings.NewReader(src)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%v: %s", err, firstLines(errb.String(), 3))
	}
	return out.String(), nil
}

func firstLines(s string, n int) string {
	ls := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, " | ")
}

var tcOptMu sync.Mutex

// TCOpt runs tc-opt in process on src and returns its output.
func TCOpt(src string, args ...string) (string, error) {
	tcOptMu.Lock()
	defer tcOptMu.Unlock()
	var out, errb bytes.Buffer
	if code := driver.Run(append(args, "-"), strings.NewReader(src), &out, &errb); code != 0 {
		return "", fmt.Errorf("exit %d: %s", code, firstLines(errb.String(), 2))
	}
	return out.String(), nil
}

// Check runs one unit in three spellings: as written, as mlir-opt prints
// it, and in mlir-opt's generic form. The unit round-trips when each of
// them, read and printed by tc-opt, is the same IR for MLIR.
func Check(opt string, u Unit) Result {
	r := Result{Unit: u}
	want, err := normalise(opt, u.Text)
	if err != nil {
		r.Status, r.Detail = Rejected, err.Error()
		return r
	}
	custom, err := mlirOpt(opt, u.Text)
	if err != nil {
		r.Status, r.Detail = Rejected, err.Error()
		return r
	}
	for _, form := range []struct{ name, text string }{{"as written", u.Text}, {"as mlir-opt prints it", custom}, {"generic", want}} {
		if r = checkText(opt, u, form.text, want); r.Status != Same {
			r.Detail = form.name + ": " + r.Detail
			return r
		}
	}
	return r
}

func checkText(opt string, u Unit, text, want string) Result {
	r := Result{Unit: u}
	ours, err := TCOpt(text)
	if err != nil {
		r.Status, r.Detail = ParseError, err.Error()
		return r
	}
	// Our print is a fixed point of tc-opt (spec 01: round trip).
	if again, err := TCOpt(ours); err != nil || again != ours {
		r.Status, r.Detail = Differs, fmt.Sprintf("tc-opt's print is not a fixed point (%v):\n%s\nthen:\n%s", err, ours, again)
		return r
	}
	got, err := normalise(opt, ours)
	if err != nil {
		r.Status, r.Detail = Differs, "mlir-opt rejects our print: "+err.Error()+"\n"+ours
		return r
	}
	if got != want {
		r.Status, r.Detail = Differs, firstDiff(want, got)+"\nours:\n"+ours
		return r
	}
	r.Status = Same
	return r
}

func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("generic line %d:\n  MLIR's: %s\n  ours:   %s", i+1, strings.TrimSpace(a), strings.TrimSpace(b))
		}
	}
	return "(equal)"
}

// CheckAll runs units in parallel and returns results in input order.
func CheckAll(opt string, units []Unit) []Result {
	res := make([]Result, len(units))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(runtime.NumCPU(), 2))
	for i, u := range units {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res[i] = Check(opt, u)
		}()
	}
	wg.Wait()
	return res
}

// Tally counts results per status.
func Tally(rs []Result) (accepted, same int) {
	for _, r := range rs {
		if r.Status != Rejected {
			accepted++
		}
		if r.Status == Same {
			same++
		}
	}
	return accepted, same
}
