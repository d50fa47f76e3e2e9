// Package tc imports Tensor Comprehensions (spec 03) into the tir
// dialect: each TC def becomes a tir.func whose types show the result of
// range inference, so that `tc-opt file.tc` prints every inferred range.
//
// The pipeline is: Parse (grammar/tcparser to a small syntax tree), then
// per function and per statement: substitution of `where` bindings
// (let.go), name resolution (names.go), range inference in rounds
// (ranges.go), preconditions (checks.go), and IR construction: one
// tir.view per tensor access (access.go), elementwise ops for arithmetic
// (expr.go), builtins and casts (builtins.go), tir.reduce for reduction
// variables and the output's shape (stmt.go). TC function calls are
// inlined (call.go).
// docs/tc.md describes the language as imported and every decision.
package tc

import (
	"runtime/debug"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	_ "tir/dialects/tir" // registers the ops the importer builds
)

// Import reads a TC file into a tir module. Errors and warnings come back
// located in the TC source, sorted by position; on error the module is
// nil. It never panics: a bug of the importer is reported as an internal
// error.
func Import(file, src string) (m *ir.Module, diags ir.DiagList) {
	defer func() {
		if r := recover(); r != nil {
			m = nil
			diags = append(diags, ir.Errorf(ir.Location{File: file}, "internal error in the TC importer: %v\n%s", r, debug.Stack()))
		}
	}()
	ast, diags := Parse(file, src)
	if ast == nil {
		return nil, diags
	}
	im := newImporter(file, ast)
	m = im.module()
	im.diags.Sort()
	if im.diags.HasErrors() {
		return nil, im.diags
	}
	return m, im.diags
}

// importer holds what is module-wide: the functions by name, the size
// symbols and the diagnostics.
type importer struct {
	file  string
	ast   *Module
	funcs map[string]*Func
	// syms are the size symbols in order of creation, which is the order
	// they first appear in the printed module (parameters are printed in
	// order), so the printed text re-parses to the same canonical forms.
	syms  map[string]sizeexpr.Expr
	diags ir.DiagList
	// ops are the imported functions, nil for one with errors (a call of
	// it reports one error at the call instead of repeating them).
	ops map[string]*ir.Operation
	// stack is the chain of functions being inlined (recursion check).
	stack []string
	// quiet > 0 while inlining: the callee's warnings were already given
	// for its own tir.func.
	quiet int
	// inferred, when set, sees every statement's inferred ranges (tests).
	inferred func(s *Assign, vars []string, rs ranges)
}

func newImporter(file string, ast *Module) *importer {
	return &importer{file: file, ast: ast, funcs: map[string]*Func{}, syms: map[string]sizeexpr.Expr{}, ops: map[string]*ir.Operation{}}
}

func (im *importer) sym(name string) sizeexpr.Expr {
	if e, ok := im.syms[name]; ok {
		return e
	}
	e := sizeexpr.Sym(name, len(im.syms))
	im.syms[name] = e
	return e
}

func (im *importer) warn(d *ir.Diagnostic) {
	if im.quiet == 0 {
		im.diags = append(im.diags, d)
	}
}

// fail records an error returned by statement-level code.
func (im *importer) fail(err error, fallback ir.Location) {
	if l, ok := err.(ir.DiagList); ok {
		im.diags = append(im.diags, l...)
		return
	}
	im.diags = append(im.diags, ir.AsDiagnostic(err, fallback))
}

func errorf(loc ir.Location, format string, args ...any) *ir.Diagnostic {
	return ir.Errorf(loc, format, args...)
}

// module builds the tir module: one tir.func per def, in source order.
func (im *importer) module() *ir.Module {
	m := ir.NewModule(ir.Location{File: im.file, Line: 1, Col: 1})
	for _, f := range im.ast.Funcs {
		if prev, dup := im.funcs[f.Name.Name]; dup {
			im.diags = append(im.diags, errorf(f.Name.Loc, "function '%s' is defined twice", f.Name.Name).
				AddNote(prev.Name.Loc, "the first definition is here"))
			continue
		}
		im.funcs[f.Name.Name] = f
		// Symbols are created in the order they are printed (see syms),
		// whatever order inlining imports the functions in.
		for _, p := range f.Params {
			if p.Type != nil {
				for _, s := range p.Type.Sizes {
					if !s.Const {
						im.sym(s.Name)
					}
				}
			}
		}
	}
	for _, f := range im.ast.Funcs {
		if im.funcs[f.Name.Name] != f {
			continue
		}
		if op := im.ensure(f); op != nil {
			m.Body().Append(op)
		}
	}
	return m
}

// ensure imports a def once (a callee may be needed before its turn);
// nil when it has errors.
func (im *importer) ensure(f *Func) *ir.Operation {
	name := f.Name.Name
	if op, done := im.ops[name]; done {
		return op
	}
	im.ops[name] = nil
	quiet := im.quiet
	im.quiet = 0
	before := len(im.diags)
	op := im.function(f)
	im.quiet = quiet
	if op != nil && !ir.DiagList(im.diags[before:]).HasErrors() {
		im.ops[name] = op
	}
	return im.ops[name]
}

// overflowGuard turns the panic of a size expression whose constants
// overflow int64 into an error at the statement.
func overflowGuard(loc ir.Location, err *error) {
	if r := recover(); r != nil {
		if s, ok := r.(string); ok && strings.HasPrefix(s, "sizeexpr:") {
			*err = errorf(loc, "integer overflow in an index or size expression of this statement")
			return
		}
		panic(r)
	}
}
