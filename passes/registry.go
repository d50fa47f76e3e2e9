// Package passes holds TIR's pass infrastructure: the one pass table (every
// pass registers a Def: name, summary, anchor op, typed options,
// constructor), from which tc-opt derives its per-pass flags and
// --list-passes, and against which the -O presets (presets.go) are
// checked at start-up; the parser and printer of MLIR's textual
// pipeline syntax; the pass manager (nesting on anchor ops, verification
// after each pass, IR printing, timing, panic recovery); the greedy pattern
// driver; and the generic passes (canonicalize, cse, symbol-dce, print-ir).
//
// Imports flow grammar → dialects → passes → lower → tools: dialect
// packages cannot import this package, so their simplifications reach
// canonicalize through ir.OpDef.Fold; packages above (lower/) register
// extra passes with Register and extra patterns with RegisterCanonicalization.
package passes

import (
	"fmt"
	"sort"
	"strings"

	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/tir"
)

// AnchorAny marks an op-agnostic pass (canonicalize, cse): it runs on
// whatever op its pipeline is anchored on.
const AnchorAny = ""

// Anchors: the names of the ops a pass can be anchored on, as the pipeline
// text spells them, taken from the op values. Any op name is allowed;
// these are the ones TIR uses.
var (
	// AnchorModule is the top-level op.
	AnchorModule = ir.BuiltinModule.Name
	// AnchorFunc is a func.func (affine stage).
	AnchorFunc = fn.Func.Name
	// AnchorTIRFunc is a tir.func (tensor stage).
	AnchorTIRFunc = tir.Func.Name
)

// Pass is one run of a pass on one op (the module, or each op of its
// anchor name). It changes IR only through builders and the rewriter, and
// returns a located error (*ir.Diagnostic or ir.DiagList) when the input
// is wrong; warnings go through ctx.Warn.
type Pass interface {
	Run(op *ir.Operation, ctx *Context) error
}

// PassFunc adapts a function to the Pass interface.
type PassFunc func(op *ir.Operation, ctx *Context) error

// Run implements Pass.
func (f PassFunc) Run(op *ir.Operation, ctx *Context) error { return f(op, ctx) }

// Def is one entry of the pass table.
type Def struct {
	// Name is the pass argument: `--name`, `builtin.module(name{...})`.
	Name string
	// Summary is the one line shown by --list-passes.
	Summary string
	// Title names the pass in IR dump headers and timing reports, like
	// MLIR's pass class names ("CSE", "Canonicalizer"); empty means the
	// name in CamelCase.
	Title string
	// Anchor is the op name the pass runs on (AnchorModule, AnchorFunc,
	// AnchorTIRFunc, ...) or AnchorAny for op-agnostic passes.
	Anchor string
	// Options are the pass's typed options, in the order they are listed
	// and printed.
	Options []OptionSpec
	// New creates the pass from validated option values. It is called once
	// per pipeline run.
	New func(opts Options) Pass
	// Check, if set, validates option values beyond their types when the
	// pipeline is parsed (so a bad value is a usage error, not a pass
	// failure).
	Check func(opts Options) error
}

// DisplayName is the name used in IR dump headers and timing reports.
func (d *Def) DisplayName() string {
	if d.Title != "" {
		return d.Title
	}
	var b strings.Builder
	for _, w := range strings.FieldsFunc(d.Name, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// AnchorText describes the anchor for humans.
func (d *Def) AnchorText() string {
	if d.Anchor == AnchorAny {
		return "any op"
	}
	return "'" + d.Anchor + "'"
}

var table = map[string]*Def{}

// Register adds a pass to the table. Packages that define passes call it
// from init. It panics on a duplicate name or an ill-formed definition:
// those are programming errors found at start-up.
func Register(d *Def) {
	if d.Name == "" || strings.ContainsAny(d.Name, "{}(),= \t?") {
		panic(fmt.Sprintf("passes: invalid pass name %q", d.Name))
	}
	if _, dup := table[d.Name]; dup {
		panic("passes: pass registered twice: " + d.Name)
	}
	if d.New == nil {
		panic("passes: pass " + d.Name + " has no constructor")
	}
	seen := map[string]bool{}
	for _, o := range d.Options {
		if seen[o.Name] {
			panic("passes: pass " + d.Name + " declares option " + o.Name + " twice")
		}
		seen[o.Name] = true
		if err := o.checkDefault(); err != nil {
			panic("passes: pass " + d.Name + ": " + err.Error())
		}
	}
	table[d.Name] = d
}

// Lookup returns the definition of a pass, or nil.
func Lookup(name string) *Def { return table[name] }

// All returns every registered pass sorted by name.
func All() []*Def {
	out := make([]*Def, 0, len(table))
	for _, d := range table {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// closestPass suggests a registered name near a misspelled one ("" if none
// is close).
func closestPass(name string) string {
	var names []string
	for n := range table {
		names = append(names, n)
	}
	return closest(name, names)
}

func closest(name string, candidates []string) string {
	best, bestDist := "", -1
	sort.Strings(candidates)
	// A truncated name ("max-iter") suggests its completion.
	for _, c := range candidates {
		if len(name) >= 3 && strings.HasPrefix(c, name) {
			return c
		}
	}
	for _, c := range candidates {
		d := ir.EditDistance(name, c)
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := len(name) / 3
	if limit < 2 {
		limit = 2
	}
	if bestDist < 0 || bestDist > limit {
		return ""
	}
	return best
}
