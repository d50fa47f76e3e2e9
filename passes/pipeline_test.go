package passes_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/passes"
)

// Test-only passes, registered in the same table as the real ones.
func init() {
	passes.Register(&passes.Def{
		Name:    "test-opts",
		Summary: "a pass with one option of each type",
		Anchor:  passes.AnchorAny,
		Options: []passes.OptionSpec{
			{Name: "n", Type: passes.OptInt, Default: 4, Help: "an int"},
			{Name: "flag", Type: passes.OptBool, Help: "a bool"},
			{Name: "name", Type: passes.OptString, Default: "x", Help: "a string"},
			{Name: "sizes", Type: passes.OptIntList, Default: []int{1, 2}, Help: "a list"},
			{Name: "target", Type: passes.OptString, Default: "x86_64", Choices: passes.Targets, Help: "a choice"},
		},
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(*ir.Operation, *passes.Context) error { return nil })
		},
	})
	passes.Register(&passes.Def{
		Name:    "test-func-pass",
		Summary: "counts the tir.func ops it runs on",
		Anchor:  passes.AnchorTIRFunc,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				funcRuns = append(funcRuns, ir.SymbolName(op))
				return nil
			})
		},
	})
}

var funcRuns []string

func TestParsePipelineGood(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", "builtin.module()"},
		{"builtin.module()", "builtin.module()"},
		{"cse", "builtin.module(cse)"},
		{"canonicalize,cse", "builtin.module(canonicalize{max-iterations=10},cse)"},
		{"builtin.module(cse,canonicalize{max-iterations=3})", "builtin.module(cse,canonicalize{max-iterations=3})"},
		{"  cse , tir.func( cse ,canonicalize )  ", "builtin.module(cse,tir.func(cse,canonicalize{max-iterations=10}))"},
		{"builtin.module(tir.func(cse),func.func(cse))", "builtin.module(tir.func(cse),func.func(cse))"},
		{"builtin.module(cse{})", "builtin.module(cse)"},
		{"test-opts", `builtin.module(test-opts{n=4 flag=false name=x sizes=1,2 target=x86_64})`},
		{`test-opts{n=-3 flag sizes=32,8 name="a b" target=nvptx64}`, `builtin.module(test-opts{n=-3 flag=true name="a b" sizes=32,8 target=nvptx64})`},
		{`test-opts{flag=false name='q' sizes=}`, `builtin.module(test-opts{n=4 flag=false name=q sizes= target=x86_64})`},
		{`test-opts{name={a b}}`, `builtin.module(test-opts{n=4 flag=false name="a b" sizes=1,2 target=x86_64})`},
		// Implicit nesting in the short form, merged for neighbours.
		{"test-func-pass,test-func-pass,cse,test-func-pass", "builtin.module(tir.func(test-func-pass,test-func-pass),cse,tir.func(test-func-pass))"},
		// A short-form nested pipeline.
		{"tir.func(test-func-pass)", "builtin.module(tir.func(test-func-pass))"},
	}
	for _, c := range cases {
		p, err := passes.ParsePipeline(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if got := p.String(); got != c.want {
			t.Errorf("%q: got %s, want %s", c.in, got, c.want)
		}
		// The canonical form parses back to itself.
		p2, err := passes.ParsePipeline(p.Dump())
		if err != nil {
			t.Errorf("%q: reparse of %s: %v", c.in, p.Dump(), err)
		} else if p2.String() != p.String() {
			t.Errorf("%q: not a fixed point: %s vs %s", c.in, p.String(), p2.String())
		}
	}
}

func TestParsePipelineBad(t *testing.T) {
	cases := []struct{ in, want string }{
		// No pass is optional (the presets once marked some with '?' and
		// dropped them when not registered): '?' is no syntax.
		{"cse,no-such-pass?", "expected ',' between passes, got '?'"},
		{"canonicalise", "unknown pass 'canonicalise'; did you mean 'canonicalize'?"},
		{"builtin.module(cse,frobnicate)", "unknown pass 'frobnicate' (see --list-passes)"},
		{"cse{x=1}", "pass 'cse' has no options"},
		{"canonicalize{max-iter=3}", "pass 'canonicalize' has no option 'max-iter'; did you mean 'max-iterations'? (valid options: max-iterations)"},
		{"canonicalize{max-iterations=abc}", "option 'max-iterations' of pass 'canonicalize' expects an int, got 'abc'"},
		{"canonicalize{max-iterations=0}", "max-iterations must be at least 1"},
		{"test-opts{n}", "option 'n' of pass 'test-opts' needs a value"},
		{"test-opts{flag=maybe}", "expects a bool"},
		{"test-opts{sizes=1,x}", "expects a comma-separated list of ints"},
		{"test-opts{target=arm}", "expects one of x86_64, aarch64, nvptx64, got 'arm'"},
		{`test-opts{name="abc}`, "unterminated"},
		{"canonicalize{max-iterations=1", "missing '}'"},
		{"builtin.module(cse", "expected ',' or ')', got end of pipeline"},
		{"cse cse", "expected ',' between passes"},
		{"cse,,cse", "expected a pass name or an op name, got ','"},
		{"cse)", "expected ',' between passes, got ')'"},
		{"builtin.module(test-func-pass)", "pass 'test-func-pass' runs on 'tir.func' ops, not on 'builtin.module'; nest it: builtin.module(tir.func(test-func-pass))"},
		{"builtin.module(tir.func(symbol-dce))", "pass 'symbol-dce' runs on 'builtin.module' ops and cannot run inside 'tir.func(...)'"},
		{"tir.func(test-func-pass),func.func(test-func-pass)", "cannot run inside 'func.func(...)'"},
	}
	for _, c := range cases {
		_, err := passes.ParsePipeline(c.in)
		if err == nil {
			t.Errorf("%q: no error", c.in)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %q does not contain %q", c.in, err, c.want)
		}
		var pe *passes.PipelineError
		if !errors.As(err, &pe) {
			t.Errorf("%q: %T is not a *PipelineError", c.in, err)
		}
	}
	// The column points at the offending pass.
	_, err := passes.ParsePipeline("cse,frob")
	if want := "at column 5"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v does not contain %q", err, want)
	}
}

func TestOptions(t *testing.T) {
	p, err := passes.ParsePipeline("test-opts{n=7 sizes=3,4,5}")
	if err != nil {
		t.Fatal(err)
	}
	o := p.Elems[0].Options
	if o.Int("n") != 7 || o.Bool("flag") || o.String("name") != "x" || fmt.Sprint(o.Ints("sizes")) != "[3 4 5]" || o.String("target") != "x86_64" {
		t.Errorf("bad values: %s", o.Text())
	}
	if !o.IsSet("n") || o.IsSet("flag") {
		t.Errorf("IsSet wrong")
	}
	d := passes.DefaultOptions(passes.Lookup("test-opts"))
	if d.Int("n") != 4 || fmt.Sprint(d.Ints("sizes")) != "[1 2]" {
		t.Errorf("bad defaults: %s", d.Text())
	}
}

func TestAddPass(t *testing.T) {
	p := passes.NewPipeline(passes.AnchorModule)
	for _, s := range [][2]string{{"cse", ""}, {"test-func-pass", ""}, {"test-func-pass", ""}, {"test-opts", "n=2 flag"}} {
		if err := p.AddPass(s[0], s[1]); err != nil {
			t.Fatal(err)
		}
	}
	want := "builtin.module(cse,tir.func(test-func-pass,test-func-pass),test-opts{n=2 flag=true name=x sizes=1,2 target=x86_64})"
	if p.String() != want {
		t.Errorf("got %s, want %s", p, want)
	}
	if n := p.NumPasses(); n != 4 {
		t.Errorf("NumPasses = %d", n)
	}
	if err := p.AddPass("test-opts", "bogus=1"); err == nil || !strings.Contains(err.Error(), "has no option 'bogus'") {
		t.Errorf("bad option accepted: %v", err)
	}
	if err := p.AddPass("nope", ""); err == nil || !strings.Contains(err.Error(), "unknown pass 'nope'") {
		t.Errorf("unknown pass accepted: %v", err)
	}
}

func TestListedPassesAreDocumented(t *testing.T) {
	for _, name := range []string{"canonicalize", "cse", "symbol-dce", "print-ir"} {
		d := passes.Lookup(name)
		if d == nil {
			t.Fatalf("%s not registered", name)
		}
		if d.Summary == "" {
			t.Errorf("%s has no summary", name)
		}
	}
	all := passes.All()
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Errorf("All not sorted: %s, %s", all[i-1].Name, all[i].Name)
		}
	}
}

func TestOptPipelines(t *testing.T) {
	txt, err := passes.OptPipelineText(2, "nvptx64")
	if err != nil || !strings.Contains(txt, "convert-to-llvm{target=nvptx64}") {
		t.Errorf("got %q, %v", txt, err)
	}
	txt, err = passes.OptPipelineText(0, "")
	if err != nil || !strings.Contains(txt, "target=x86_64") {
		t.Errorf("got %q, %v", txt, err)
	}
	if _, err := passes.OptPipelineText(2, "mips"); err == nil || !strings.Contains(err.Error(), "unknown target 'mips'") {
		t.Errorf("bad target accepted: %v", err)
	}
	if _, err := passes.OptPipelineText(5, ""); err == nil {
		t.Errorf("-O5 accepted")
	}
	p, err := passes.OptPipeline(2, "aarch64")
	if passes.Lookup("convert-tir-to-affine") == nil {
		if err == nil || !strings.Contains(err.Error(), "needs pass 'tir-inline', which is not registered") {
			t.Errorf("missing lowering not reported: %v", err)
		}
	} else if err != nil {
		t.Errorf("-O2: %v", err)
	} else if !strings.Contains(p.String(), "target=aarch64") {
		t.Errorf("-O2: %s", p)
	}
}
