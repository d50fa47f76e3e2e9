package passes

import (
	"fmt"
	"strconv"
	"strings"
)

// Pipeline is a pass pipeline anchored on an op name: its elements (passes
// and nested pipelines) run in order on each op of that name. The root
// pipeline is anchored on builtin.module.
type Pipeline struct {
	Anchor string
	Elems  []*Element
}

// Element is a pass with its option values, or a nested pipeline that runs
// on every op of its anchor name directly inside the parent op.
type Element struct {
	Pass    *Def
	Options Options
	Nested  *Pipeline

	implicit bool // a nest created by implicit nesting (merged with the next)
}

// NewPipeline returns an empty pipeline anchored on anchor.
func NewPipeline(anchor string) *Pipeline { return &Pipeline{Anchor: anchor} }

// String prints the pipeline in canonical form, every option shown:
// `builtin.module(canonicalize{max-iterations=10},tir.func(cse))`.
// ParsePipeline(p.String()) gives the same pipeline back.
func (p *Pipeline) String() string {
	var parts []string
	for _, e := range p.Elems {
		if e.Nested != nil {
			parts = append(parts, e.Nested.String())
		} else {
			parts = append(parts, e.Pass.Name+e.Options.Text())
		}
	}
	return p.Anchor + "(" + strings.Join(parts, ",") + ")"
}

// Dump is String, for --dump-pass-pipeline.
func (p *Pipeline) Dump() string { return p.String() }

// NumPasses counts the passes, nested ones included.
func (p *Pipeline) NumPasses() int {
	n := 0
	for _, e := range p.Elems {
		if e.Nested != nil {
			n += e.Nested.NumPasses()
		} else {
			n++
		}
	}
	return n
}

// PassNames lists the names of the passes, nested ones included, in order.
func (p *Pipeline) PassNames() []string {
	var out []string
	for _, e := range p.Elems {
		if e.Nested != nil {
			out = append(out, e.Nested.PassNames()...)
		} else {
			out = append(out, e.Pass.Name)
		}
	}
	return out
}

// SetOption sets an option, written as in a pipeline's braces, of every
// instance of the named pass, nested ones included, and returns how many
// it set: `-O2 --threads` is the -O2 pipeline with
// SetOption("convert-to-llvm", "threads", "omp").
func (p *Pipeline) SetOption(pass, name, value string) (int, error) {
	n := 0
	for _, e := range p.Elems {
		if e.Nested != nil {
			k, err := e.Nested.SetOption(pass, name, value)
			if err != nil {
				return n, err
			}
			n += k
			continue
		}
		if e.Pass.Name != pass {
			continue
		}
		if err := e.Options.setText(e.Pass, name, value, false); err != nil {
			return n, err
		}
		if e.Pass.Check != nil {
			if err := e.Pass.Check(e.Options); err != nil {
				return n, fmt.Errorf("pass '%s': %v", e.Pass.Name, err)
			}
		}
		n++
	}
	return n, nil
}

// AddPass appends a pass by name with its options written as in a
// pipeline's braces ("target=nvptx64 fast=true"; "" for defaults). A pass
// anchored on another op than a module pipeline's is nested implicitly
// (`--tir-temporaries` becomes `builtin.module(tir.func(tir-temporaries))`),
// as mlir-opt does for per-pass flags.
func (p *Pipeline) AddPass(name, options string) error {
	d := Lookup(name)
	if d == nil {
		return unknownPassError(name)
	}
	opts, err := parseOptions(d, options, 0)
	if err != nil {
		return err
	}
	return p.add(d, opts, true)
}

func (p *Pipeline) add(d *Def, opts Options, implicit bool) error {
	if d.Anchor == AnchorAny || d.Anchor == p.Anchor {
		p.Elems = append(p.Elems, &Element{Pass: d, Options: opts})
		return nil
	}
	if implicit && p.Anchor == AnchorModule && d.Anchor != AnchorModule {
		if n := len(p.Elems); n > 0 && p.Elems[n-1].implicit && p.Elems[n-1].Nested.Anchor == d.Anchor {
			return p.Elems[n-1].Nested.add(d, opts, false)
		}
		nest := NewPipeline(d.Anchor)
		nest.Elems = append(nest.Elems, &Element{Pass: d, Options: opts})
		p.Elems = append(p.Elems, &Element{Nested: nest, implicit: true})
		return nil
	}
	if p.Anchor == AnchorModule {
		return fmt.Errorf("pass '%s' runs on '%s' ops, not on '%s'; nest it: %s(%s(%s))", d.Name, d.Anchor, p.Anchor, p.Anchor, d.Anchor, d.Name)
	}
	return fmt.Errorf("pass '%s' runs on '%s' ops and cannot run inside '%s(...)'", d.Name, d.Anchor, p.Anchor)
}

// PipelineError is a syntax or name error in a textual pipeline. Pos is the
// byte offset of the offending element in Text (-1 when unknown).
type PipelineError struct {
	Text string
	Pos  int
	Msg  string
	// UnknownPass is set when the error is an unregistered pass name.
	UnknownPass string
}

func (e *PipelineError) Error() string {
	if e.Text == "" || e.Pos < 0 {
		return "invalid pass pipeline: " + e.Msg
	}
	return fmt.Sprintf("invalid pass pipeline at column %d: %s\n  %s\n  %s^", e.Pos+1, e.Msg, e.Text, strings.Repeat(" ", e.Pos))
}

func unknownPassError(name string) *PipelineError {
	msg := fmt.Sprintf("unknown pass '%s'", name)
	if c := closestPass(name); c != "" {
		msg += fmt.Sprintf("; did you mean '%s'?", c)
	} else {
		msg += " (see --list-passes)"
	}
	return &PipelineError{Pos: -1, Msg: msg, UnknownPass: name}
}

// ParsePipeline reads MLIR's textual pipeline syntax:
//
//	builtin.module(canonicalize,cse{},affine-loop-tile{sizes=32,8},func.func(cse))
//
// Options are written `{k=v k2=v2}`, space separated; a value may hold
// commas (lists), be quoted ("a b") or braced ({...}); a bare `{k}` sets a
// bool option. The short form `a,b,func.func(c)` is anchored on
// builtin.module and nests passes anchored on other ops implicitly. The
// passes that must run in order (passOrder: tir-inline,
// convert-tir-to-affine, gpu-kernel-outlining, convert-to-llvm) may not
// appear out of it.
func ParsePipeline(text string) (*Pipeline, error) {
	pp := &pipeParser{text: text}
	raws, err := pp.list(0)
	if err != nil {
		return nil, err
	}
	var p *Pipeline
	if len(raws) == 1 && raws[0].nested != nil && raws[0].name == AnchorModule {
		p, err = pp.build(AnchorModule, raws[0].nested, false)
	} else {
		p, err = pp.build(AnchorModule, raws, true)
	}
	if err != nil {
		return nil, err
	}
	if err := checkOrder(p); err != nil {
		return nil, &PipelineError{Text: text, Pos: 0, Msg: err.Error()}
	}
	return p, nil
}

type rawElem struct {
	name    string
	pos     int
	opts    string // inside the braces
	optsPos int
	nested  []rawElem // non-nil for `name(...)`
}

type pipeParser struct {
	text string
	pos  int
}

func (pp *pipeParser) errAt(pos int, format string, args ...any) *PipelineError {
	return &PipelineError{Text: pp.text, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

func (pp *pipeParser) peek() byte {
	if pp.pos < len(pp.text) {
		return pp.text[pp.pos]
	}
	return 0
}

func (pp *pipeParser) skipSpace() {
	for pp.pos < len(pp.text) && isSpace(pp.text[pp.pos]) {
		pp.pos++
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '$'
}

func describe(c byte) string {
	if c == 0 {
		return "end of pipeline"
	}
	return "'" + string(c) + "'"
}

// list reads elements separated by commas up to closing (0 = end of text).
func (pp *pipeParser) list(closing byte) ([]rawElem, error) {
	out := []rawElem{}
	pp.skipSpace()
	if pp.peek() == closing {
		return out, nil
	}
	for {
		e, err := pp.elem()
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		pp.skipSpace()
		switch c := pp.peek(); {
		case c == ',':
			pp.pos++
			pp.skipSpace()
		case c == closing:
			return out, nil
		case closing == 0:
			return nil, pp.errAt(pp.pos, "expected ',' between passes, got %s", describe(c))
		default:
			return nil, pp.errAt(pp.pos, "expected ',' or %s, got %s", describe(closing), describe(c))
		}
	}
}

func (pp *pipeParser) elem() (rawElem, error) {
	start := pp.pos
	for pp.pos < len(pp.text) && isNameChar(pp.text[pp.pos]) {
		pp.pos++
	}
	e := rawElem{name: pp.text[start:pp.pos], pos: start}
	if e.name == "" {
		return e, pp.errAt(start, "expected a pass name or an op name, got %s", describe(pp.peek()))
	}
	pp.skipSpace()
	switch pp.peek() {
	case '(':
		pp.pos++
		l, err := pp.list(')')
		if err != nil {
			return e, err
		}
		if pp.peek() != ')' {
			return e, pp.errAt(pp.pos, "expected ')' to close '%s('", e.name)
		}
		pp.pos++
		e.nested = l
		return e, nil
	}
	if pp.peek() == '{' {
		open := pp.pos
		body, err := pp.braced()
		if err != nil {
			return e, err
		}
		e.opts, e.optsPos = body, open+1
	}
	return e, nil
}

// braced reads `{...}` with nested braces and quotes; it returns the text
// inside.
func (pp *pipeParser) braced() (string, error) {
	open := pp.pos
	end, err := matchBrace(pp.text, open)
	if err != nil {
		return "", pp.errAt(open, "%v", err)
	}
	pp.pos = end + 1
	return pp.text[open+1 : end], nil
}

// matchBrace returns the index of the '}' closing the '{' at open.
func matchBrace(s string, open int) (int, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i, nil
			}
		case '"', '\'':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return 0, fmt.Errorf("unterminated quoted value")
			}
			i += j + 1
		}
	}
	return 0, fmt.Errorf("unbalanced '{': missing '}'")
}

func (pp *pipeParser) build(anchor string, raws []rawElem, implicit bool) (*Pipeline, error) {
	p := NewPipeline(anchor)
	for _, r := range raws {
		if r.nested != nil {
			child, err := pp.build(r.name, r.nested, false)
			if err != nil {
				return nil, err
			}
			p.Elems = append(p.Elems, &Element{Nested: child})
			continue
		}
		d := Lookup(r.name)
		if d == nil {
			e := unknownPassError(r.name)
			e.Text, e.Pos = pp.text, r.pos
			return nil, e
		}
		opts, err := parseOptions(d, r.opts, r.optsPos)
		if err != nil {
			if pe, ok := err.(*PipelineError); ok {
				pe.Text = pp.text
				return nil, pe
			}
			return nil, err
		}
		if err := p.add(d, opts, implicit); err != nil {
			return nil, pp.errAt(r.pos, "%v", err)
		}
	}
	return p, nil
}

// parseOptions reads `k=v k2=v2` (the inside of the braces) for pass d.
// base is the offset of text inside the whole pipeline, for error columns.
func parseOptions(d *Def, text string, base int) (Options, error) {
	opts := DefaultOptions(d)
	i := 0
	fail := func(pos int, err error) (Options, error) {
		return Options{}, &PipelineError{Pos: base + pos, Msg: err.Error()}
	}
	for {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i >= len(text) {
			break
		}
		start := i
		for i < len(text) && !isSpace(text[i]) && text[i] != '=' {
			i++
		}
		key := text[start:i]
		if key == "" {
			return fail(start, fmt.Errorf("expected an option name before '='"))
		}
		if i >= len(text) || text[i] != '=' {
			if err := opts.setText(d, key, "", true); err != nil {
				return fail(start, err)
			}
			continue
		}
		i++ // '='
		var val string
		switch {
		case i < len(text) && (text[i] == '"' || text[i] == '\''):
			q := text[i]
			j := strings.IndexByte(text[i+1:], q)
			if j < 0 {
				return fail(i, fmt.Errorf("unterminated quoted value of option '%s'", key))
			}
			raw := text[i : i+j+2]
			val = raw[1 : len(raw)-1]
			if q == '"' {
				if u, err := strconv.Unquote(raw); err == nil {
					val = u
				}
			}
			i += j + 2
		case i < len(text) && text[i] == '{':
			end, err := matchBrace(text, i)
			if err != nil {
				return fail(i, err)
			}
			val = text[i+1 : end]
			i = end + 1
		default:
			vs := i
			for i < len(text) && !isSpace(text[i]) {
				i++
			}
			val = text[vs:i]
		}
		if err := opts.setText(d, key, val, false); err != nil {
			return fail(start, err)
		}
	}
	if d.Check != nil {
		if err := d.Check(opts); err != nil {
			return fail(0, fmt.Errorf("pass '%s': %v", d.Name, err))
		}
	}
	return opts, nil
}
