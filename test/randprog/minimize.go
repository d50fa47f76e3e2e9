package randprog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Check runs one program in one mode and returns how it disagrees with
// the interpreter: "" when it agrees, "invalid: ..." when the program does
// not compile for the interpreter, "does not compile: ..." when the mode
// rejects it, else the verdict.
func Check(p *Program, m Mode, dir string) string {
	c, err := NewCase(p)
	if err != nil {
		return "invalid: " + err.Error()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "invalid: " + err.Error()
	}
	d, err := os.MkdirTemp(dir, "check")
	if err != nil {
		return "invalid: " + err.Error()
	}
	defer os.RemoveAll(d)
	b := &Batch{Cases: []*Case{c}, Dir: d}
	outs, fails, err := b.Run(m)
	switch {
	case len(fails) > 0:
		return "does not compile: " + fails[0].Err.Error()
	case err != nil:
		return "harness: " + err.Error()
	}
	return c.Verdict(outs[0])
}

// Class is the kind of a verdict, which minimizing keeps: "crash",
// "mismatch", "errors differ", "does not compile: <message>" (without its
// location), "" when there is nothing to keep.
func Class(verdict string) string {
	switch {
	case verdict == "" || strings.HasPrefix(verdict, "invalid: ") || strings.HasPrefix(verdict, "harness: "):
		return ""
	case strings.HasPrefix(verdict, "crash: "):
		return "crash"
	case strings.HasPrefix(verdict, "errors differ"):
		return "errors differ"
	case strings.HasPrefix(verdict, "does not compile: "):
		msg := strings.TrimPrefix(verdict, "does not compile: ")
		// Drop "FILE:LINE:COL: " and keep the first line.
		if i := strings.Index(msg, ": error: "); i >= 0 {
			msg = msg[i+2:]
		}
		return "does not compile: " + strings.SplitN(msg, "\n", 2)[0]
	}
	return "mismatch"
}

func (p *Program) clone() *Program {
	q := *p
	q.args = append([]argSpec(nil), p.args...)
	q.units = append([]string(nil), p.units...)
	q.results = append([]string(nil), p.results...)
	q.helpers = append([]string(nil), p.helpers...)
	return &q
}

// Minimize shrinks a program while fails holds: it drops returned values,
// ops and arguments one at a time, to a fixed point. Dropping an op that
// something uses gives a program that does not parse, for which fails
// must be false.
func Minimize(p *Program, fails func(*Program) bool) *Program {
	if p.isTC() {
		return p // an import, not ops the minimizer can drop
	}
	cur := p.clone()
	try := func(q *Program) bool {
		q.render()
		if fails(q) {
			cur = q
			return true
		}
		return false
	}
	for changed := true; changed; {
		changed = false
		for i := 0; len(cur.results) > 1 && i < len(cur.results); {
			q := cur.clone()
			q.results = append(q.results[:i], q.results[i+1:]...)
			if try(q) {
				changed = true
			} else {
				i++
			}
		}
		for i := len(cur.units) - 1; i >= 0; i-- {
			q := cur.clone()
			q.units = append(q.units[:i], q.units[i+1:]...)
			if try(q) {
				changed = true
			}
		}
		for i := len(cur.args) - 1; i >= 0; i-- {
			if usesName(cur, cur.args[i].name) {
				continue
			}
			q := cur.clone()
			q.args = append(q.args[:i], q.args[i+1:]...)
			if try(q) {
				changed = true
			}
		}
	}
	return cur
}

// usesName reports whether a program reads the value %name anywhere.
func usesName(p *Program, name string) bool {
	text := strings.Join(p.units, "")
	for _, r := range p.results {
		text += " %" + r + " "
	}
	for _, sep := range []string{" ", ",", "]", ")", "\n", "["} {
		if strings.Contains(text, "%"+name+sep) {
			return true
		}
	}
	return false
}

// MinimizeFinding shrinks a program that mode m disagrees on, keeping the
// class of the disagreement, and returns it with its verdict.
func MinimizeFinding(p *Program, m Mode, dir string) (*Program, string) {
	class := Class(Check(p, m, dir))
	if class == "" {
		return p, ""
	}
	q := Minimize(p, func(q *Program) bool { return Class(Check(q, m, dir)) == class })
	return q, Check(q, m, filepath.Join(dir, "final"))
}

// Repro is a program's text with what a regression test needs to rerun
// it: its seed, symbol values and the mode.
func (p *Program) Repro(m Mode, verdict string) string {
	return fmt.Sprintf("// seed %d, mode %s, symbols %v\n// %s\n%s", p.Seed, m.Name, p.Syms, strings.ReplaceAll(verdict, "\n", "\n// "), p.Text)
}
