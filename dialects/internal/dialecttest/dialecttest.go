// Package dialecttest holds the checks that the test corpora of the upstream
// dialect packages (fn, arith, mathd, memref, affine, scf) share:
//
//   - round trip: parse, verify, print is the input itself (corpora are
//     written in canonical form) and a fixed point;
//   - generic form: printing generically and parsing back gives the same IR;
//   - MLIR: when mlir-opt 16 is installed, it accepts the custom and the
//     generic print, and its own generic form of our text, parsed by us,
//     prints exactly as ours (same operands, attributes and their kinds,
//     regions and block arguments; value names aside);
//   - diagnostics: bad inputs give located errors.
//
// Test files blank-import the dialects their corpus uses.
package dialecttest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
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

// RunCorpus checks every file matching pattern (e.g. "testdata/*.mlir").
func RunCorpus(t *testing.T, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no corpus files match %s", pattern)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(f), func(t *testing.T) { CheckText(t, f, string(src)) })
	}
}

// Parse parses and verifies src, failing the test on any diagnostic.
func Parse(t *testing.T, name, src string) *ir.Module {
	t.Helper()
	m, diags := parser.Parse(name, src)
	if len(diags) > 0 {
		t.Fatalf("parse %s:\n%v", name, diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("verify %s:\n%v\n%s", name, err, src)
	}
	return m
}

// CheckText runs the round-trip, generic-form and MLIR checks on src, which
// must be in canonical form.
func CheckText(t *testing.T, name, src string) {
	t.Helper()
	m := Parse(t, name, src)
	if out := printer.Module(m, printer.Options{}); out != src {
		t.Errorf("print(parse(x)) != x:\n%s", Diff(src, out))
	}
	CheckModule(t, name, m)
}

// CheckModule runs the checks on a module (parsed, or built by builders):
// it verifies, its print is a fixed point of parse+print, its generic form
// reads back to the same IR, and MLIR agrees. It returns the custom print.
func CheckModule(t *testing.T, name string, m *ir.Module) string {
	t.Helper()
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("verify %s: %v", name, err)
	}
	out := printer.Module(m, printer.Options{})
	out2 := printer.Module(Parse(t, name+" (printed)", out), printer.Options{})
	if out2 != out {
		t.Errorf("not a fixed point:\n%s", Diff(out, out2))
	}
	generic := printer.Module(m, printer.Options{Generic: true})
	fromGeneric := Parse(t, name+" (generic)", generic)
	if g := printer.Module(fromGeneric, printer.Options{}); g != out {
		t.Errorf("generic form reads back differently:\n%s\ngeneric:\n%s", Diff(out, g), generic)
	}
	if g2 := printer.Module(fromGeneric, printer.Options{Generic: true}); g2 != generic {
		t.Errorf("generic form is not a fixed point:\n%s", Diff(generic, g2))
	}
	t.Run("mlir-opt", func(t *testing.T) { CheckMLIR(t, name, m) })
	return out
}

// CheckMLIR feeds the custom and generic prints of m to mlir-opt, and
// compares MLIR's generic form of our custom print with ours (that is, with
// the IR our parser builds from the same text). It skips the test when
// mlir-opt is not installed.
func CheckMLIR(t *testing.T, name string, m *ir.Module) {
	t.Helper()
	opt := MLIROpt()
	if opt == "" {
		t.Skipf("mlir-opt not installed (%s; apt-get install mlir-16-tools, or set MLIR_OPT): MLIR acceptance not checked", MLIROptPath)
	}
	custom := printer.Module(m, printer.Options{})
	generic := printer.Module(m, printer.Options{Generic: true})
	if _, err := RunMLIROpt(opt, custom); err != nil {
		t.Errorf("mlir-opt rejects the custom form: %v\n%s", err, custom)
	}
	if _, err := RunMLIROpt(opt, generic); err != nil {
		t.Errorf("mlir-opt rejects the generic form: %v\n%s", err, generic)
	}
	theirs, err := RunMLIROpt(opt, custom, "--mlir-print-op-generic")
	if err != nil {
		return
	}
	mm, diags := parser.Parse(name+" (mlir-opt generic)", theirs)
	if len(diags) > 0 {
		t.Errorf("cannot read mlir-opt's generic form: %v\n%s", diags, theirs)
		return
	}
	if err := ir.Verify(mm.Op, nil); err != nil {
		t.Errorf("mlir-opt's generic form does not verify: %v\n%s", err, theirs)
		return
	}
	ours := Parse(t, name+" (printed)", custom)
	if err := Equivalent(ours.Body(), mm.Body()); err != nil {
		t.Errorf("MLIR's representation differs from ours: %v\nours:\n%s\nMLIR's, read back:\n%s", err,
			printer.Module(ours, printer.Options{Generic: true}), printer.Module(mm, printer.Options{Generic: true}))
	}
}

// Equivalent compares two blocks structurally: op names, attributes (by
// their printed form, so kinds count: 1 : i64 is not 1 : index), operands
// (by definition order), result types, successors (by block position),
// regions and block arguments. Value names do not matter.
func Equivalent(a, b *ir.Block) error {
	c := &comparer{ids: map[*ir.Value]int{}, jds: map[*ir.Value]int{}}
	return c.block(a, b, "")
}

type comparer struct {
	ids, jds map[*ir.Value]int
	next     int
}

func (c *comparer) define(a, b *ir.Value) {
	c.ids[a], c.jds[b] = c.next, c.next
	c.next++
}

func (c *comparer) block(a, b *ir.Block, where string) error {
	if !ir.TypesEqual(types(a.Args), types(b.Args)) {
		return fmt.Errorf("%s: block arguments (%s) vs (%s)", where, ir.JoinTypes(types(a.Args)), ir.JoinTypes(types(b.Args)))
	}
	for i := range a.Args {
		c.define(a.Args[i], b.Args[i])
	}
	if len(a.Ops) != len(b.Ops) {
		return fmt.Errorf("%s: %d ops vs %d", where, len(a.Ops), len(b.Ops))
	}
	for i := range a.Ops {
		if err := c.op(a.Ops[i], b.Ops[i], where+"/"+a.Ops[i].Name); err != nil {
			return err
		}
	}
	return nil
}

func (c *comparer) op(a, b *ir.Operation, where string) error {
	if a.Name != b.Name {
		return fmt.Errorf("%s: op %s vs %s", where, a.Name, b.Name)
	}
	if a.Attrs.String() != b.Attrs.String() {
		return fmt.Errorf("%s: attributes %s vs %s", where, a.Attrs, b.Attrs)
	}
	if len(a.Operands) != len(b.Operands) {
		return fmt.Errorf("%s: %d operands vs %d", where, len(a.Operands), len(b.Operands))
	}
	for i := range a.Operands {
		ia, oka := c.ids[a.Operands[i]]
		ib, okb := c.jds[b.Operands[i]]
		if !oka || !okb || ia != ib {
			return fmt.Errorf("%s: operand #%d differs", where, i)
		}
	}
	if !ir.TypesEqual(types(a.Results), types(b.Results)) {
		return fmt.Errorf("%s: results (%s) vs (%s)", where, ir.JoinTypes(types(a.Results)), ir.JoinTypes(types(b.Results)))
	}
	if len(a.Successors) != len(b.Successors) {
		return fmt.Errorf("%s: %d successors vs %d", where, len(a.Successors), len(b.Successors))
	}
	for i := range a.Successors {
		if a.Successors[i].Index() != b.Successors[i].Index() {
			return fmt.Errorf("%s: successor #%d is block %d vs %d", where, i, a.Successors[i].Index(), b.Successors[i].Index())
		}
	}
	if len(a.Regions) != len(b.Regions) {
		return fmt.Errorf("%s: %d regions vs %d", where, len(a.Regions), len(b.Regions))
	}
	for i := range a.Regions {
		ra, rb := a.Regions[i], b.Regions[i]
		if len(ra.Blocks) != len(rb.Blocks) {
			return fmt.Errorf("%s: region #%d has %d blocks vs %d", where, i, len(ra.Blocks), len(rb.Blocks))
		}
		for j := range ra.Blocks {
			if err := c.block(ra.Blocks[j], rb.Blocks[j], where); err != nil {
				return err
			}
		}
	}
	for i := range a.Results {
		c.define(a.Results[i], b.Results[i])
	}
	return nil
}

func types(vs []*ir.Value) []ir.Type {
	ts := make([]ir.Type, len(vs))
	for i, v := range vs {
		ts[i] = v.Type
	}
	return ts
}

// RunMLIROpt pipes src through mlir-opt with args and returns its output.
func RunMLIROpt(opt, src string, args ...string) (string, error) {
	cmd := exec.Command(opt, args...)
	cmd.Stdin = strings.NewReader(src)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", &mlirError{err: err, stderr: errb.String()}
	}
	return out.String(), nil
}

type mlirError struct {
	err    error
	stderr string
}

func (e *mlirError) Error() string { return e.err.Error() + "\n" + e.stderr }

// Diff shows the first differing line of two texts with some context.
func Diff(want, got string) string {
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
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + a + "\n  got:  " + b + "\nfull output:\n" + got
		}
	}
	return "(equal)"
}

// DiagCase is a bad input and a fragment of the error it must produce.
type DiagCase struct {
	Name, Src, Want string
	// Line is the 1-based line the error must point at.
	Line int
}

// CheckDiagnostics parses and verifies each case and requires a located
// error (at the given line) whose message contains Want; panics fail.
func CheckDiagnostics(t *testing.T, cases []DiagCase) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			m, diags := parser.Parse(c.Name+".mlir", c.Src)
			var err error = diags
			if len(diags) == 0 {
				if err = ir.Verify(m.Op, nil); err == nil {
					t.Fatalf("no error for:\n%s", c.Src)
				}
			}
			var list ir.DiagList
			if l, ok := err.(ir.DiagList); ok {
				list = l
			} else {
				list = ir.DiagList{ir.AsDiagnostic(err, ir.UnknownLoc)}
			}
			d := list[0]
			if !strings.Contains(d.Msg, c.Want) {
				t.Errorf("error %q does not mention %q", d.Error(), c.Want)
			}
			if d.Loc.Line != c.Line || d.Loc.Col < 1 {
				t.Errorf("error %q is not located at line %d", d.Error(), c.Line)
			}
			t.Log(d.Error())
		})
	}
}

// CheckSyntaxIsDeclarative fails for each op of ops whose custom syntax is
// written by hand (no Format) unless handWritten gives the reason a
// format cannot say it, and for each listed op that has a Format now. A
// new op with hand-written Parse and Print fails here: give it a format
// (ir.Format), adding a directive for a piece of syntax the dialect lacks.
func CheckSyntaxIsDeclarative(t *testing.T, ops []*ir.OpDef, handWritten map[*ir.OpDef]string) {
	t.Helper()
	listed := map[*ir.OpDef]bool{}
	for _, o := range ops {
		listed[o] = true
		why, ok := handWritten[o]
		switch {
		case o.Format == nil && !ok:
			t.Errorf("%s: hand-written syntax; give it a Format (ir.Format) or list it with the reason", o.Name)
		case o.Format == nil && why == "":
			t.Errorf("%s: listed as hand-written without a reason", o.Name)
		case o.Format != nil && ok:
			t.Errorf("%s: has a Format now; drop it from the hand-written list", o.Name)
		}
	}
	for o := range handWritten {
		if !listed[o] {
			t.Errorf("%s: listed as hand-written but not an op of the dialect", o.Name)
		}
	}
}
