package driver

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/passes"
)

func init() {
	passes.Register(&passes.Def{
		Name:    "test-driver-panic",
		Summary: "panics",
		Anchor:  passes.AnchorTIRFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(*ir.Operation, *passes.Context) error {
				var m map[string]int
				m["x"] = 1 // a runtime error, as a real bug would be
				return nil
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "test-driver-break",
		Summary: "moves each function's return to the front",
		Anchor:  passes.AnchorTIRFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, _ *passes.Context) error {
				b := op.Regions[0].Blocks[0]
				ret := b.Ops[len(b.Ops)-1]
				b.Remove(ret)
				b.InsertAt(0, ret)
				return nil
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "test-driver-warn",
		Summary: "warns at each function and fails on @bad",
		Anchor:  passes.AnchorTIRFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				ctx.Warn(ir.Warningf(op.Loc, "looking at @%s", ir.SymbolName(op)))
				if ir.SymbolName(op) == "bad" {
					return ir.Errorf(op.Loc, "cannot handle @bad")
				}
				return nil
			})
		},
	})
}

const src = `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = tir.add %a, %a
  tir.return %x : !tir.tensor<f32, I[0:4]>
}
`

func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestPanicInPassExits3(t *testing.T) {
	code, stdout, stderr := runIn(t, src, "--test-driver-panic")
	if code != ExitInternal {
		t.Errorf("exit %d, want 3", code)
	}
	want := "<stdin>: error: internal error in pass 'test-driver-panic': assignment to entry in nil map\n"
	if stdout != "" || stderr != want {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}
}

func TestInvalidIRAfterPassExits3(t *testing.T) {
	code, _, stderr := runIn(t, src, "--test-driver-break")
	if code != ExitInternal || !strings.Contains(stderr, "<stdin>:3:3: error: pass 'test-driver-break' produced invalid IR: 'tir.return' must be the last operation of its block") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	// --verify-each=false lets it through.
	if code, _, stderr := runIn(t, src, "--test-driver-break", "--verify-each=false"); code != 0 {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

func TestPassDiagnostics(t *testing.T) {
	in := src + "\ntir.func @bad(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {\n  tir.return %a : !tir.tensor<f32, I[0:4]>\n}\n"
	code, stdout, stderr := runIn(t, in, "--test-driver-warn")
	if code != ExitInput || stdout != "" {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	for _, want := range []string{"<stdin>:1:1: warning: looking at @f\n", "<stdin>:6:1: warning: looking at @bad\n", "<stdin>:6:1: error: cannot handle @bad\n"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Warnings alone do not fail.
	if code, stdout, stderr := runIn(t, src, "--test-driver-warn"); code != 0 || stdout == "" || !strings.Contains(stderr, "warning: looking at @f") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}

func TestSplitArgs(t *testing.T) {
	flags, pos := splitArgs([]string{"in.tir", "-o", "out", "--cse", "--emit", "ir", "--target=x", "-", "--", "-weird"})
	if strings.Join(flags, " ") != "-o out --cse --emit ir --target=x" || strings.Join(pos, " ") != "in.tir - -weird" {
		t.Errorf("flags %q, positional %q", flags, pos)
	}
}

func TestSplitChunks(t *testing.T) {
	chunks := splitChunks("a\n// -----\nb\nc\n//   -----\n// ----- \nd")
	want := []string{"a\n", "\n\nb\nc\n//   -----\n", "\n\n\n\n\n\nd"}
	if len(chunks) != len(want) {
		t.Fatalf("got %q", chunks)
	}
	for i := range want {
		if chunks[i] != want[i] {
			t.Errorf("chunk %d: %q, want %q", i, chunks[i], want[i])
		}
	}
}

func TestParseExpectations(t *testing.T) {
	text := strings.Join([]string{
		"op1",                                      // 1
		"// expected-error @above {{a}}",           // 2 -> 1
		"// expected-note@above {{b}}",             // 3 -> 1
		"// expected-warning @below {{c}}",         // 4 -> 9 (6 to 8 hold expectations)
		"// expected-remark @below {{d}}",          // 5 -> 9
		"op2 // expected-error {{e}}",              // 6 -> 6
		"// expected-error @-2 {{f {{g}} h}}",      // 7 -> 5
		"// expected-error @+1 {{i}}",              // 8 -> 9
		"op3",                                      // 9
		"// expected-note @unknown {{j}}",          // 10 -> unknown
		"// expected-error @+100 {{out}}",          // 11: bad
		"// not an expectation: expected-error {{", // 12
	}, "\n")
	exps, bad := parseExpectations("f", text)
	type got struct {
		sev  ir.Severity
		line int
		msg  string
	}
	want := []got{{ir.SevError, 1, "a"}, {ir.SevNote, 1, "b"}, {ir.SevWarning, 9, "c"}, {ir.SevRemark, 9, "d"}, {ir.SevError, 6, "e"}, {ir.SevError, 5, "f {{g}} h"}, {ir.SevError, 9, "i"}, {ir.SevNote, 0, "j"}}
	if len(exps) != len(want) {
		t.Fatalf("%d expectations, want %d", len(exps), len(want))
	}
	for i, w := range want {
		e := exps[i]
		if e.sev != w.sev || e.line != w.line || e.msg != w.msg {
			t.Errorf("#%d: got %v line %d %q, want %v line %d %q", i, e.sev, e.line, e.msg, w.sev, w.line, w.msg)
		}
	}
	if !exps[7].unknown {
		t.Errorf("@unknown not recorded")
	}
	if len(bad) != 1 || bad[0].Loc.Line != 11 {
		t.Errorf("bad designators: %v", bad)
	}
}

func TestVerifyDiagnosticsMatching(t *testing.T) {
	text := "x\n// expected-error @above {{boom}}\n// expected-note @unknown {{why}}\n"
	d := ir.Errorf(ir.Location{File: "f", Line: 1, Col: 2}, "big boom here")
	d.Notes = append(d.Notes, &ir.Diagnostic{Severity: ir.SevNote, Msg: "why not"})
	if m := verifyDiagnostics("f", text, ir.DiagList{d}); len(m) != 0 {
		t.Errorf("mismatches: %v", m)
	}
	// The same diagnostic cannot satisfy two expectations.
	text2 := "x\n// expected-error @above {{boom}}\n// expected-error @above {{boom}}\n"
	m := verifyDiagnostics("f", text2, ir.DiagList{ir.Errorf(ir.Location{File: "f", Line: 1, Col: 1}, "boom")})
	if len(m) != 1 || !strings.Contains(m[0].Msg, `expected error "boom" was not produced`) || m[0].Loc.Line != 3 {
		t.Errorf("mismatches: %v", m)
	}
}

func TestOutputFileAtomic(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.tir")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sub", "out.tir")
	// The directory does not exist: an error, and nothing is created.
	if code, _, stderr := runIn(t, "", in, "-o", out); code != ExitInput || !strings.Contains(stderr, "cannot write the output") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	out = filepath.Join(dir, "out.tir")
	if code, _, stderr := runIn(t, "", in, "-o", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "tir.add %a, %a") {
		t.Errorf("output: %q %v", b, err)
	}
}
