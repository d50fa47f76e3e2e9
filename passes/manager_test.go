package passes_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	_ "tir/dialects/tir"
	"tir/passes"
)

func init() {
	passes.Register(&passes.Def{
		Name:    "test-panic",
		Summary: "panics",
		Anchor:  passes.AnchorAny,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(*ir.Operation, *passes.Context) error { panic("boom\nsecond line") })
		},
	})
	passes.Register(&passes.Def{
		Name:    "test-any",
		Summary: "records the names of the ops it runs on",
		Anchor:  passes.AnchorAny,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				anyRuns = append(anyRuns, op.Name)
				return nil
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "test-break-ir",
		Summary: "moves the last non-terminator op of each function to the front",
		Anchor:  passes.AnchorTIRFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				b := op.Regions[0].Blocks[0]
				last := b.Ops[len(b.Ops)-2]
				b.Remove(last)
				b.InsertAt(0, last)
				return nil
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "test-fail",
		Summary: "reports a located error and a warning",
		Anchor:  passes.AnchorTIRFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				ctx.Warn(ir.Warningf(op.Loc, "careful"))
				return ir.Errorf(op.Loc, "cannot handle @%s", ir.SymbolName(op))
			})
		},
	})
}

var anyRuns []string

const twoFuncs = `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = tir.add %a, %a
  %y = tir.add %a, %a
  %z = tir.mul %x, %y
  tir.return %z : !tir.tensor<f32, I[0:4]>
}

tir.func @g(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = tir.add %a, %a
  %dead = tir.mul %x, %x
  %dead2 = tir.exp %dead
  tir.return %x : !tir.tensor<f32, I[0:4]>
}
`

func parse(t *testing.T, src string) *ir.Module {
	t.Helper()
	m, diags := parser.Parse("test.tir", src)
	if len(diags) > 0 {
		t.Fatalf("parse: %v", diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("verify: %v", err)
	}
	return m
}

func run(t *testing.T, pipeline string, m *ir.Module, setup func(*passes.Manager)) error {
	t.Helper()
	p, err := passes.ParsePipeline(pipeline)
	if err != nil {
		t.Fatal(err)
	}
	pm := passes.NewManager(p)
	if setup != nil {
		setup(pm)
	}
	return pm.Run(m)
}

func TestNestedAnchorsRunOnEveryOp(t *testing.T) {
	funcRuns = nil
	m := parse(t, twoFuncs)
	if err := run(t, "tir.func(test-func-pass),test-func-pass", m, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(funcRuns, ","); got != "f,g,f,g" {
		t.Errorf("runs: %s", got)
	}
	// Ops of another anchor name are not visited; op-agnostic passes run
	// on whatever their pipeline is anchored on.
	anyRuns = nil
	if err := run(t, "builtin.module(func.func(test-any),tir.func(test-any),test-any)", m, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(anyRuns, ","); got != "tir.func,tir.func,builtin.module" {
		t.Errorf("runs: %s", got)
	}
}

func TestVerifyFailureNamesThePass(t *testing.T) {
	m := parse(t, twoFuncs)
	err := run(t, "cse,test-break-ir", m, nil)
	var ve *passes.VerifyError
	if !errors.As(err, &ve) {
		t.Fatalf("got %T %v, want a *VerifyError", err, err)
	}
	if ve.Pass != "test-break-ir" || !strings.Contains(err.Error(), "pass 'test-break-ir' produced invalid IR") || !strings.Contains(err.Error(), "does not dominate") {
		t.Errorf("bad error: %v", err)
	}
	d := ve.Diagnostics()
	if len(d) == 0 || !strings.HasPrefix(d[0].Msg, "pass 'test-break-ir' produced invalid IR: ") || d[0].Loc.Line == 0 {
		t.Errorf("bad diagnostics: %v", d)
	}
	// Without verify-each, the broken IR goes through.
	m = parse(t, twoFuncs)
	if err := run(t, "test-break-ir", m, func(pm *passes.Manager) { pm.VerifyEach = false }); err != nil {
		t.Errorf("verify-each=false still verified: %v", err)
	}
}

func TestPanicBecomesInternalError(t *testing.T) {
	m := parse(t, twoFuncs)
	err := run(t, "cse,tir.func(test-panic)", m, nil)
	var ie *passes.InternalError
	if !errors.As(err, &ie) {
		t.Fatalf("got %T %v, want an *InternalError", err, err)
	}
	if ie.Pass != "test-panic" || err.Error() != "internal error in pass 'test-panic': boom" || ie.Stack == "" {
		t.Errorf("bad error: %q", err)
	}
	if ie.Loc.Line != 1 {
		t.Errorf("location %v is not the function's", ie.Loc)
	}
}

func TestPassFailure(t *testing.T) {
	m := parse(t, twoFuncs)
	var warnings []*ir.Diagnostic
	err := run(t, "test-fail", m, func(pm *passes.Manager) {
		pm.Warn = func(d *ir.Diagnostic) { warnings = append(warnings, d) }
	})
	var pe *passes.PassError
	if !errors.As(err, &pe) || pe.Pass != "test-fail" {
		t.Fatalf("got %T %v", err, err)
	}
	d := pe.Diagnostics()
	if len(d) != 1 || d[0].Msg != "cannot handle @f" || d[0].Loc.Line != 1 {
		t.Errorf("diagnostics: %v", d)
	}
	if len(warnings) != 1 || warnings[0].Msg != "careful" {
		t.Errorf("warnings: %v", warnings)
	}
}

func TestPrintIRAndTiming(t *testing.T) {
	m := parse(t, twoFuncs)
	var out bytes.Buffer
	timer := passes.NewTimer("root")
	err := run(t, "canonicalize,tir.func(cse)", m, func(pm *passes.Manager) {
		pm.IROut = &out
		pm.PrintAfterAll = true
		pm.PrintBefore = []string{"cse"}
		pm.Timing = timer
	})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"// -----// IR Dump After Canonicalizer (canonicalize) //----- //\ntir.func @f(",
		"// -----// IR Dump Before CSE (cse) ('tir.func' operation: @f) //----- //\ntir.func @f(",
		"// -----// IR Dump After CSE (cse) ('tir.func' operation: @g) //----- //\ntir.func @g(",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("dump lacks %q:\n%s", want, s)
		}
	}
	var rep bytes.Buffer
	timer.Report(&rep)
	r := rep.String()
	for _, want := range []string{"... Execution time report ...", "Total Execution Time:", "----Wall Time----  ----Name----", "  Canonicalizer\n", "'tir.func' Pipeline\n", "    CSE\n", "(100.0%)  Total\n"} {
		if !strings.Contains(r, want) {
			t.Errorf("report lacks %q:\n%s", want, r)
		}
	}
}

func TestPrintIRPass(t *testing.T) {
	m := parse(t, twoFuncs)
	var out bytes.Buffer
	if err := run(t, "print-ir{label=here}", m, func(pm *passes.Manager) { pm.IROut = &out }); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "// -----// IR Dump here //----- //\ntir.func @f(") {
		t.Errorf("got:\n%s", out.String())
	}
}

func TestCSE(t *testing.T) {
	m := parse(t, twoFuncs)
	if err := run(t, "cse", m, nil); err != nil {
		t.Fatal(err)
	}
	got := printer.Module(m, printer.Options{})
	want := `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = tir.add %a, %a : !tir.tensor<f32, I[0:4]>
  %z = tir.mul %x, %x : !tir.tensor<f32, I[0:4]>
  tir.return %z : !tir.tensor<f32, I[0:4]>
}

tir.func @g(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = tir.add %a, %a : !tir.tensor<f32, I[0:4]>
  %dead = tir.mul %x, %x : !tir.tensor<f32, I[0:4]>
  %dead2 = tir.exp %dead : !tir.tensor<f32, I[0:4]>
  tir.return %x : !tir.tensor<f32, I[0:4]>
}
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestCSEKeepsDifferentOps(t *testing.T) {
	src := `tir.func @f(%a: !tir.tensor<f32, I[0:4]>, %b: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[1:3]> {
  %x = tir.add %a, %b
  %y = tir.add %b, %a
  %s = tir.shift %x [I + 1]
  %t = tir.shift %x [I - 1]
  %u = tir.shift %x [I + 1]
  %p = tir.mul %x, %y
  %q = tir.add %s, %t
  %r = tir.add %q, %u
  %o = tir.add %r, %p
  tir.return %o : !tir.tensor<f32, I[1:3]>
}
`
	m := parse(t, src)
	if err := run(t, "cse", m, nil); err != nil {
		t.Fatal(err)
	}
	got := printer.Module(m, printer.Options{})
	// %u repeats %s; %y has other operands and %t other attributes.
	if strings.Contains(got, "%u") || !strings.Contains(got, "%y") || !strings.Contains(got, "%t") || !strings.Contains(got, "%r = tir.add %q, %s") {
		t.Errorf("got:\n%s", got)
	}
}

func TestCanonicalizeRemovesDeadOps(t *testing.T) {
	m := parse(t, twoFuncs)
	if err := run(t, "canonicalize", m, nil); err != nil {
		t.Fatal(err)
	}
	got := printer.Module(m, printer.Options{})
	if strings.Contains(got, "%dead") {
		t.Errorf("dead ops left:\n%s", got)
	}
	// @f is unchanged: every op is used.
	if !strings.Contains(got, "%y = tir.add %a, %a") {
		t.Errorf("live op removed:\n%s", got)
	}
}

func TestGreedyDriver(t *testing.T) {
	m := parse(t, twoFuncs)
	fn := m.Body().Ops[0]
	// A pattern that applies once: tag each tir.add.
	tag := passes.Pattern{Name: "tag-add", Root: "tir.add", Apply: func(op *ir.Operation, rw *ir.Rewriter) bool {
		if op.Attr("tagged") != nil {
			return false
		}
		op.SetAttr("tagged", ir.UnitAttr{})
		rw.Modified(op)
		return true
	}}
	changed, err := passes.ApplyPatternsGreedily(fn, []passes.Pattern{tag}, passes.GreedyConfig{})
	if err != nil || !changed {
		t.Fatalf("changed=%v err=%v", changed, err)
	}
	tagged := 0
	fn.Walk(func(o *ir.Operation) bool {
		if o.Attr("tagged") != nil {
			tagged++
		}
		return true
	})
	if tagged != 2 {
		t.Errorf("%d ops tagged, want 2", tagged)
	}
	// A pattern that always applies hits the cap.
	flip := passes.Pattern{Name: "flip", Root: "tir.mul", Apply: func(op *ir.Operation, rw *ir.Rewriter) bool {
		op.Operands[0], op.Operands[1] = op.Operands[1], op.Operands[0]
		rw.Modified(op)
		return true
	}}
	_, err = passes.ApplyPatternsGreedily(fn, []passes.Pattern{flip}, passes.GreedyConfig{MaxIterations: 3})
	var ce *passes.ConvergenceError
	if !errors.As(err, &ce) || ce.Iterations != 3 || !strings.Contains(err.Error(), "did not converge after 3 iterations (still applying: flip)") {
		t.Errorf("got %v", err)
	}
}

func TestCanonicalizeUsesRegisteredPatterns(t *testing.T) {
	// Registered once for the whole test binary; it only touches ops
	// carrying a "test.rename" attribute, so other tests are unaffected.
	passes.RegisterCanonicalization(passes.Pattern{Name: "test-drop-attr", Root: "tir.mul", Apply: func(op *ir.Operation, rw *ir.Rewriter) bool {
		if op.Attr("test.rename") == nil {
			return false
		}
		op.Attrs = op.Attrs.Without("test.rename")
		rw.Modified(op)
		return true
	}})
	m := parse(t, twoFuncs)
	fn := m.Body().Ops[0]
	mul := fn.Regions[0].Blocks[0].Ops[2]
	mul.SetAttr("test.rename", ir.UnitAttr{})
	if err := run(t, "canonicalize", m, nil); err != nil {
		t.Fatal(err)
	}
	if mul.Attr("test.rename") != nil {
		t.Errorf("pattern not applied")
	}
}

func TestSymbolDCE(t *testing.T) {
	m := parse(t, twoFuncs)
	m.Body().Ops[1].SetAttr("sym_visibility", ir.StringAttr("private"))
	if err := run(t, "symbol-dce", m, nil); err != nil {
		t.Fatal(err)
	}
	if n := len(m.Body().Ops); n != 1 || ir.SymbolName(m.Body().Ops[0]) != "f" {
		t.Errorf("%d functions left", n)
	}
}
