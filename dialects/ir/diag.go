package ir

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// Severity orders diagnostics as compilers users know them.
type Severity int

const (
	SevError Severity = iota
	SevWarning
	SevNote
	SevRemark
)

func (s Severity) String() string {
	switch s {
	case SevError:
		return "error"
	case SevWarning:
		return "warning"
	case SevNote:
		return "note"
	default:
		return "remark"
	}
}

// Diagnostic is a located message with optional notes pointing at related
// places. It implements error so that functions can return it directly.
type Diagnostic struct {
	Severity Severity
	Loc      Location
	Msg      string
	Notes    []*Diagnostic
}

func (d *Diagnostic) Error() string {
	return d.Loc.String() + ": " + d.Severity.String() + ": " + d.Msg
}

// AddNote attaches a note and returns the diagnostic for chaining.
func (d *Diagnostic) AddNote(loc Location, format string, args ...any) *Diagnostic {
	d.Notes = append(d.Notes, &Diagnostic{Severity: SevNote, Loc: loc, Msg: fmt.Sprintf(format, args...)})
	return d
}

// Errorf builds an error diagnostic.
func Errorf(loc Location, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: SevError, Loc: loc, Msg: fmt.Sprintf(format, args...)}
}

// Warningf builds a warning diagnostic.
func Warningf(loc Location, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: SevWarning, Loc: loc, Msg: fmt.Sprintf(format, args...)}
}

// AsDiagnostic turns any error into a diagnostic, keeping located ones as
// they are and giving others the fallback location.
func AsDiagnostic(err error, fallback Location) *Diagnostic {
	if d, ok := err.(*Diagnostic); ok {
		return d
	}
	if l, ok := err.(DiagList); ok && len(l) > 0 {
		return l[0]
	}
	return Errorf(fallback, "%s", err.Error())
}

// DiagList is a list of diagnostics usable as one error.
type DiagList []*Diagnostic

func (l DiagList) Error() string {
	var parts []string
	for _, d := range l {
		parts = append(parts, d.Error())
	}
	return strings.Join(parts, "\n")
}

// HasErrors reports whether any diagnostic in the list is an error.
func (l DiagList) HasErrors() bool {
	for _, d := range l {
		if d.Severity == SevError {
			return true
		}
	}
	return false
}

// Sort orders diagnostics by position, keeping emission order for ties.
func (l DiagList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Loc, l[j].Loc
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// DiagEngine collects diagnostics and renders them with the source line and
// a caret under the column, the way gcc and clang do.
type DiagEngine struct {
	sources map[string][]string
	Diags   DiagList
}

// NewDiagEngine returns an empty engine.
func NewDiagEngine() *DiagEngine { return &DiagEngine{sources: map[string][]string{}} }

// AddSource registers the text of a file so that diagnostics can quote it.
// Line numbers are relative to text, so a chunk of a split file is added with
// its leading lines blanked out by the caller.
func (e *DiagEngine) AddSource(file, text string) {
	e.sources[file] = strings.Split(text, "\n")
}

// Emit records a diagnostic (and returns it).
func (e *DiagEngine) Emit(d *Diagnostic) *Diagnostic {
	e.Diags = append(e.Diags, d)
	return d
}

// EmitError records any error, turning it into diagnostics.
func (e *DiagEngine) EmitError(err error, fallback Location) {
	if l, ok := err.(DiagList); ok {
		e.Diags = append(e.Diags, l...)
		return
	}
	e.Emit(AsDiagnostic(err, fallback))
}

// HasErrors reports whether an error was emitted.
func (e *DiagEngine) HasErrors() bool { return e.Diags.HasErrors() }

// Render formats one diagnostic and its notes.
func (e *DiagEngine) Render(d *Diagnostic) string {
	var b strings.Builder
	e.render(&b, d)
	for _, n := range d.Notes {
		e.render(&b, n)
	}
	return b.String()
}

func (e *DiagEngine) render(b *strings.Builder, d *Diagnostic) {
	fmt.Fprintf(b, "%s: %s: %s\n", d.Loc, d.Severity, d.Msg)
	lines := e.sources[d.Loc.File]
	if d.Loc.Line >= 1 && d.Loc.Line <= len(lines) {
		line := strings.TrimRight(lines[d.Loc.Line-1], "\r")
		col := d.Loc.Col
		if col < 1 {
			col = 1
		}
		line, col = quoteWindow(line, col)
		b.WriteString(line)
		b.WriteByte('\n')
		// Keep tabs so the caret lines up under the same column.
		var pad strings.Builder
		for i := 0; i < col-1 && i < len(line); i++ {
			if line[i] == '\t' {
				pad.WriteByte('\t')
			} else {
				pad.WriteByte(' ')
			}
		}
		b.WriteString(pad.String())
		b.WriteString("^\n")
	}
}

// quoteWidth bounds how much of a source line a diagnostic quotes on each
// side of its column: a generated program on one line of a megabyte would
// otherwise be copied into every message.
const quoteWidth = 100

// quoteWindow returns the part of line a diagnostic quotes, with "..."
// where it cuts, and the column within it.
func quoteWindow(line string, col int) (string, int) {
	if len(line) <= 2*quoteWidth+40 {
		return line, col
	}
	start, end := max(col-1-quoteWidth, 0), min(col-1+quoteWidth, len(line))
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	out := line[start:end]
	if start > 0 {
		out, col = "..."+out, col-start+3
	}
	if end < len(line) {
		out += "..."
	}
	return out, col
}

// RenderAll formats every collected diagnostic in emission order.
func (e *DiagEngine) RenderAll() string {
	var b strings.Builder
	for _, d := range e.Diags {
		b.WriteString(e.Render(d))
	}
	return b.String()
}
