package passes

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/printer"
)

// Context is what a pass sees besides the op it runs on.
type Context struct {
	// Module is the module being compiled. A module pass may replace
	// Module.Op; later passes see the new op.
	Module *ir.Module
	// Options are this pass instance's option values.
	Options Options
	// Def is the pass's table entry.
	Def *Def
	// IROut receives IR dumps (print-ir); never nil.
	IROut io.Writer
	// PrintOptions are the printing options of tc-opt (generic form).
	PrintOptions printer.Options

	warn func(*ir.Diagnostic)
}

// Warn reports a warning (or remark) without failing the pass.
func (c *Context) Warn(d *ir.Diagnostic) {
	if c.warn != nil {
		c.warn(d)
	}
}

// InternalError is a panic inside a pass (or a pass constructor), turned
// into an error that names the pass. tc-opt exits 3 on it.
type InternalError struct {
	Pass  string
	Msg   string
	Loc   ir.Location // the op the pass ran on
	Stack string      // for bug reports; tc-opt does not print it
}

func (e *InternalError) Error() string {
	return fmt.Sprintf("internal error in pass '%s': %s", e.Pass, e.Msg)
}

// VerifyError is invalid IR after a pass (--verify-each): a bug of the pass,
// reported with the verifier's located diagnostics. tc-opt exits 3 on it.
type VerifyError struct {
	Pass  string
	Diags ir.DiagList
}

func (e *VerifyError) Error() string {
	msg := "pass '" + e.Pass + "' produced invalid IR"
	if len(e.Diags) > 0 {
		msg += ": " + e.Diags[0].Error()
		if len(e.Diags) > 1 {
			msg += fmt.Sprintf(" (and %d more)", len(e.Diags)-1)
		}
	}
	return msg
}

// Diagnostics returns the verifier's diagnostics with messages prefixed by
// "pass 'X' produced invalid IR: ".
func (e *VerifyError) Diagnostics() ir.DiagList {
	var out ir.DiagList
	for _, d := range e.Diags {
		c := *d
		c.Msg = "pass '" + e.Pass + "' produced invalid IR: " + d.Msg
		out = append(out, &c)
	}
	return out
}

// PassError is a pass that reported failure (an input it cannot handle).
// tc-opt exits 1 on it.
type PassError struct {
	Pass string
	Err  error
	Loc  ir.Location // the op the pass ran on
}

func (e *PassError) Error() string { return fmt.Sprintf("pass '%s' failed: %v", e.Pass, e.Err) }

func (e *PassError) Unwrap() error { return e.Err }

// Diagnostics returns the pass's located diagnostics; an unlocated error
// becomes an error at the op the pass ran on, naming the pass.
func (e *PassError) Diagnostics() ir.DiagList {
	switch err := e.Err.(type) {
	case ir.DiagList:
		return err
	case *ir.Diagnostic:
		return ir.DiagList{err}
	}
	return ir.DiagList{ir.Errorf(e.Loc, "pass '%s' failed: %v", e.Pass, e.Err)}
}

// Manager runs a pipeline on a module.
type Manager struct {
	Pipeline *Pipeline
	// VerifyEach runs ir.Verify after every pass (on by default).
	VerifyEach bool
	// PrintBefore/PrintAfter name passes whose input/output IR is dumped
	// to IROut; PrintBeforeAll/PrintAfterAll dump around every pass.
	PrintBefore, PrintAfter       []string
	PrintBeforeAll, PrintAfterAll bool
	// IROut receives IR dumps (stderr in tc-opt); nil means io.Discard.
	IROut io.Writer
	// PrintOptions are used for IR dumps.
	PrintOptions printer.Options
	// Timing, if set, accumulates per-pass wall time under it.
	Timing *Timer
	// Warn receives warnings emitted by passes; nil drops them.
	Warn func(*ir.Diagnostic)

	mod    *ir.Module
	before map[string]bool
	after  map[string]bool
	insts  map[*Element]Pass
}

// NewManager returns a manager for p with verification after each pass.
func NewManager(p *Pipeline) *Manager { return &Manager{Pipeline: p, VerifyEach: true} }

// Run runs the pipeline on mod. The error is an *InternalError (a pass
// panicked), a *VerifyError (a pass produced invalid IR) or a *PassError
// (a pass rejected its input).
func (m *Manager) Run(mod *ir.Module) error {
	m.mod = mod
	if m.IROut == nil {
		m.IROut = io.Discard
	}
	m.before = toSet(m.PrintBefore)
	m.after = toSet(m.PrintAfter)
	m.insts = map[*Element]Pass{}
	if err := m.instantiate(m.Pipeline); err != nil {
		return err
	}
	if m.Pipeline.Anchor != AnchorModule {
		return fmt.Errorf("the root pipeline must be anchored on '%s', not '%s'", AnchorModule, m.Pipeline.Anchor)
	}
	return m.runElems(m.Pipeline, func() *ir.Operation { return m.mod.Op }, m.Timing)
}

func toSet(l []string) map[string]bool {
	s := map[string]bool{}
	for _, n := range l {
		s[n] = true
	}
	return s
}

func (m *Manager) instantiate(p *Pipeline) (err error) {
	for _, e := range p.Elems {
		if e.Nested != nil {
			if err := m.instantiate(e.Nested); err != nil {
				return err
			}
			continue
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = &InternalError{Pass: e.Pass.Name, Msg: "creating the pass: " + panicText(r), Loc: ir.Location{File: m.mod.File}, Stack: string(debug.Stack())}
				}
			}()
			m.insts[e] = e.Pass.New(e.Options)
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

func (m *Manager) runElems(p *Pipeline, get func() *ir.Operation, timer *Timer) error {
	for _, e := range p.Elems {
		if e.Nested != nil {
			t := timer.Child(e, "'"+e.Nested.Anchor+"' Pipeline")
			stop := t.Start()
			for _, c := range DirectChildren(get(), e.Nested.Anchor) {
				c := c
				if err := m.runElems(e.Nested, func() *ir.Operation { return c }, t); err != nil {
					stop()
					return err
				}
			}
			stop()
			continue
		}
		if err := m.runPass(e, get(), timer.Child(e, e.Pass.DisplayName())); err != nil {
			return err
		}
	}
	return nil
}

// DirectChildren returns the ops named name directly inside op's regions.
func DirectChildren(op *ir.Operation, name string) []*ir.Operation {
	var out []*ir.Operation
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				if o.Name == name {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

func (m *Manager) runPass(e *Element, op *ir.Operation, t *Timer) error {
	d := e.Pass
	if m.PrintBeforeAll || m.before[d.Name] {
		m.dump("Before", d, op)
	}
	ctx := &Context{Module: m.mod, Options: e.Options, Def: d, IROut: m.IROut, PrintOptions: m.PrintOptions, warn: m.Warn}
	wasRoot := op == m.mod.Op
	stop := t.Start()
	err := m.safeRun(m.insts[e], d, op, ctx)
	stop()
	if err != nil {
		return err
	}
	// A module pass may have replaced the module op.
	if wasRoot {
		op = m.mod.Op
	}
	if m.PrintAfterAll || m.after[d.Name] {
		m.dump("After", d, op)
	}
	if m.VerifyEach {
		return m.verify(d, op)
	}
	return nil
}

func (m *Manager) safeRun(p Pass, d *Def, op *ir.Operation, ctx *Context) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &InternalError{Pass: d.Name, Msg: panicText(r), Loc: op.Loc, Stack: string(debug.Stack())}
		}
	}()
	if err := p.Run(op, ctx); err != nil {
		if ie, ok := err.(*InternalError); ok {
			return ie
		}
		return &PassError{Pass: d.Name, Err: err, Loc: op.Loc}
	}
	return nil
}

// verify checks the op a pass ran on: itself when its regions are
// isolated (or it is the module), otherwise the whole module, since its
// values may come from outside.
func (m *Manager) verify(d *Def, op *ir.Operation) (err error) {
	root := op
	if op != m.mod.Op && !op.HasTrait(ir.TraitIsolated) {
		root = m.mod.Op
	}
	defer func() {
		if r := recover(); r != nil {
			err = &InternalError{Pass: d.Name, Msg: "the verifier crashed on its output: " + panicText(r), Loc: op.Loc, Stack: string(debug.Stack())}
		}
	}()
	if verr := ir.Verify(root, nil); verr != nil {
		diags, ok := verr.(ir.DiagList)
		if !ok {
			diags = ir.DiagList{ir.AsDiagnostic(verr, op.Loc)}
		}
		return &VerifyError{Pass: d.Name, Diags: diags}
	}
	return nil
}

// dump writes an IR dump with MLIR's header.
func (m *Manager) dump(when string, d *Def, op *ir.Operation) {
	header := fmt.Sprintf("// -----// IR Dump %s %s (%s)", when, d.DisplayName(), d.Name)
	if op != m.mod.Op {
		header += fmt.Sprintf(" ('%s' operation", op.Name)
		if s := ir.SymbolName(op); s != "" {
			header += ": @" + s
		}
		header += ")"
	}
	fmt.Fprintf(m.IROut, "%s //----- //\n%s\n", header, m.printIR(op))
}

func (m *Manager) printIR(op *ir.Operation) (text string) {
	defer func() {
		if r := recover(); r != nil {
			text = fmt.Sprintf("<<the IR cannot be printed: %s>>\n", panicText(r))
		}
	}()
	if op == m.mod.Op {
		return printer.Module(m.mod, m.PrintOptions)
	}
	s := printer.Op(op, m.PrintOptions)
	if !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// panicText is the first line of a panic value.
func panicText(r any) string {
	s := fmt.Sprint(r)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
