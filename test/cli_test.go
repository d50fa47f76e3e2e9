package test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"tir/passes"
)

var (
	buildOnce sync.Once
	binDir    string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// tcOpt builds tools/tc-opt once per test binary and returns its path.
func tcOpt(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "tc-opt-test-")
		if buildErr != nil {
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		binPath = filepath.Join(binDir, "tc-opt")
		out, err := exec.Command(goTool, "build", "-o", binPath, "tir/tools/tc-opt").CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building tc-opt: %v", buildErr)
	}
	return binPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// runBin runs the built tc-opt with stdin and returns its exit status and
// outputs.
func runBin(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(tcOpt(t), args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

const goodIR = `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = tir.add %a, %a
  %y = tir.add %a, %a
  %z = tir.mul %x, %y
  tir.return %z : !tir.tensor<f32, I[0:4]>
}
`

const badIR = `tir.func @f(%a: !tir.tensor<f32, I[0:4]>) -> !tir.tensor<f32, I[0:4]> {
  %x = = tir.add %a, %a
  tir.return %x : !tir.tensor<f32, I[0:4]>
}
`

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLIUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "good.tir", goodIR)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--no-such-flag", in}, "flag provided but not defined"},
		{[]string{"--pass-pipeline=builtin.module(cse", in}, "invalid pass pipeline"},
		{[]string{"--pass-pipeline=canonicalise", in}, "did you mean 'canonicalize'?"},
		{[]string{"--canonicalize=max-iterations=x", in}, "expects an int"},
		{[]string{"--convert-tir-to-affine=scan-lanes=0", in}, "scan-lanes must be between 1 and 16, got 0"},
		{[]string{"--convert-tir-to-affine=scan-lanes=17", in}, "scan-lanes must be between 1 and 16, got 17"},
		{[]string{"--tir-temporaries=recompute-above=-1", in}, "recompute-above must not be negative"},
		{[]string{"--gpu-kernel-outlining=coarsen=0", in}, "coarsen must be between 1 and 16, got 0"},
		{[]string{"--gpu-kernel-outlining=coarsen=17", in}, "coarsen must be between 1 and 16, got 17"},
		{[]string{"--cse", "--pass-pipeline=cse", in}, "cannot be combined"},
		{[]string{"--emit=bogus", in}, "unknown --emit value 'bogus'"},
		{[]string{"--emit=c-header", "-O2", in}, "run --emit=c-header without lowering passes"},
		{[]string{"--target=mips", "-O2", in}, "unknown target 'mips'"},
		{[]string{"--mlir-print-ir-after=nope", in}, "unknown pass 'nope'"},
		{[]string{in, in}, "at most one input file"},
	} {
		code, stdout, stderr := runBin(t, "", c.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", c.args, code, stderr)
		}
		if !strings.Contains(stderr, c.want) {
			t.Errorf("%v: stderr lacks %q:\n%s", c.args, c.want, stderr)
		}
		if stdout != "" {
			t.Errorf("%v: stdout not empty:\n%s", c.args, stdout)
		}
	}
}

func TestCLIMalformedInput(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "bad.tir", badIR)
	code, stdout, stderr := runBin(t, "", in)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if stdout != "" {
		t.Errorf("stdout not empty:\n%s", stdout)
	}
	head := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(in) + `:2:8: error: syntax error`)
	caret := regexp.MustCompile(`(?m)^  %x = = tir.add %a, %a\n {7}\^$`)
	if !head.MatchString(stderr) || !caret.MatchString(stderr) {
		t.Errorf("stderr lacks the located error and its caret:\n%s", stderr)
	}
	if strings.Contains(stderr, "goroutine") || strings.Contains(stderr, "panic") {
		t.Errorf("stderr has a Go trace:\n%s", stderr)
	}
	// A missing file is an input error.
	if code, _, stderr := runBin(t, "", filepath.Join(dir, "missing.tir")); code != 1 || !strings.Contains(stderr, "cannot read input file") {
		t.Errorf("missing file: exit %d\n%s", code, stderr)
	}
}

func TestCLIOutputFile(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.tir", goodIR)
	bad := writeFile(t, dir, "bad.tir", badIR)
	out := filepath.Join(dir, "out.tir")

	if code, _, stderr := runBin(t, "", "-o", out, bad); code != 1 {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o created on error (%v)", err)
	}
	// A failing pipeline does not create it either.
	if code, _, _ := runBin(t, "", "--pass-pipeline=nope", "-o", out, good); code != 2 {
		t.Errorf("bad pipeline: exit %d", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o created on a usage error (%v)", err)
	}

	code, stdout, stderr := runBin(t, "", good, "--cse", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if stdout != "" {
		t.Errorf("stdout not empty with -o:\n%s", stdout)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	_, want, _ := runBin(t, "", "--cse", good)
	if string(got) != want || !strings.Contains(want, "%z = tir.mul %x, %x") {
		t.Errorf("-o holds:\n%s\nstdout gives:\n%s", got, want)
	}
	// No temporary file is left behind.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files left in the output directory: %v", names)
	}
	// On error an existing output is left as it was.
	if code, _, _ := runBin(t, "", "-o", out, bad); code != 1 {
		t.Errorf("exit %d", code)
	}
	if again, _ := os.ReadFile(out); string(again) != string(got) {
		t.Errorf("-o overwritten on error")
	}
}

// -o writes through special files and symlinks instead of renaming a
// temporary file over them (as root, that replaced /dev/null with a regular
// file).
func TestCLIOutputSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.tir", goodIR)
	if code, _, stderr := runBin(t, "", good, "-o", os.DevNull); code != 0 {
		t.Errorf("-o %s: exit %d\n%s", os.DevNull, code, stderr)
	}
	if info, err := os.Lstat(os.DevNull); err != nil || info.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a character device (%v)", os.DevNull, err)
	}
	real := writeFile(t, dir, "real.tir", "old")
	link := filepath.Join(dir, "link.tir")
	if err := os.Symlink("real.tir", link); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runBin(t, "", good, "-o", link); code != 0 {
		t.Fatalf("-o symlink: exit %d\n%s", code, stderr)
	}
	if info, _ := os.Lstat(link); info.Mode()&os.ModeSymlink == 0 {
		t.Error("-o replaced the symlink instead of writing its target")
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "tir.func @f") {
		t.Errorf("the symlink's target holds %q", b)
	}
}

func TestCLIStdin(t *testing.T) {
	for _, args := range [][]string{nil, {"-"}} {
		code, stdout, stderr := runBin(t, goodIR, append([]string{"--cse"}, args...)...)
		if code != 0 || !strings.Contains(stdout, "%z = tir.mul %x, %x") {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	code, _, stderr := runBin(t, badIR)
	if code != 1 || !strings.Contains(stderr, "<stdin>:2:8: error:") {
		t.Errorf("stdin error: exit %d\n%s", code, stderr)
	}
}

func TestCLIListPasses(t *testing.T) {
	code, stdout, stderr := runBin(t, "", "--list-passes")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"--canonicalize", "--cse", "max-iterations=<int>", "(default: 10)", "-O2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--list-passes lacks %q:\n%s", want, stdout)
		}
	}
	// Every registered pass is listed.
	for _, d := range passes.All() {
		if !strings.Contains(stdout, "--"+d.Name+" ") {
			t.Errorf("--list-passes lacks %s", d.Name)
		}
	}
}

func TestCLIDumpPassPipeline(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "good.tir", goodIR)
	for _, target := range []string{"", "nvptx64"} {
		args := []string{"-O2", "--dump-pass-pipeline", in}
		want := "builtin.module(tir-inline,canonicalize{max-iterations=10},cse,tir.func(tir-temporaries{threshold=8 max-fused=64 recompute-above=8388608}),convert-tir-to-affine{scan-columns=true scan-lanes=4 scan-rows=true split-pieces=true atomic-scatters=false sweep-riders=true},cse," +
			"func.func(affine-licm,affine-loop-unswitch,affine-scalar-replace,affine-vectorize{width=8 target=x86_64 reassociate=false outer=true},affine-loop-unroll{factor=1 unroll-full-threshold=8},cse,sink-masked-updates),convert-to-llvm{target=x86_64"
		var wants []string
		if target != "" {
			args = append(args, "--target="+target)
			want = "convert-to-llvm{target=" + target
			// GPU targets compute scatter-adds with atomic adds.
			wants = append(wants, "convert-tir-to-affine{scan-columns=false scan-lanes=1 scan-rows=false split-pieces=false atomic-scatters=true sweep-riders=true}")
		}
		code, _, stderr := runBin(t, "", args...)
		if passes.Lookup("convert-tir-to-affine") == nil {
			// Until the lowering registers its passes, -O2 is a clear
			// usage error.
			if code != 2 || !strings.Contains(stderr, "needs pass 'convert-tir-to-affine', which is not registered") {
				t.Errorf("%v: exit %d\n%s", args, code, stderr)
			}
			continue
		}
		for _, w := range append(wants, want) {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", args, w, stderr)
			}
		}
	}
	// The dump is the canonical form, options included.
	code, _, stderr := runBin(t, "", "--dump-pass-pipeline", "--pass-pipeline=tir.func(cse),canonicalize", in)
	if code != 0 || strings.TrimSpace(stderr) != "builtin.module(tir.func(cse),canonicalize{max-iterations=10})" {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

func TestCLIPassFlagsKeepOrder(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "good.tir", goodIR)
	code, _, stderr := runBin(t, "", "--canonicalize", in, "--print-ir=label=one", "--cse", "--canonicalize=max-iterations=2", "--dump-pass-pipeline")
	want := `builtin.module(canonicalize{max-iterations=10},print-ir{label=one},cse,canonicalize{max-iterations=2})`
	if code != 0 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want %s in:\n%s", code, want, stderr)
	}
	if !strings.Contains(stderr, "// -----// IR Dump one //----- //") {
		t.Errorf("print-ir did not print:\n%s", stderr)
	}
}

func TestCLITiming(t *testing.T) {
	code, _, stderr := runBin(t, goodIR, "--cse", "--mlir-timing")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"Execution time report", "Parser", "CSE", "Output", "(100.0%)  Total"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("timing report lacks %q:\n%s", want, stderr)
		}
	}
}

func TestCLIInputFormatTC(t *testing.T) {
	code, stdout, stderr := runBin(t, "def f(float(N) A) -> (B) { B(i) = A(i) }\n", "--input-format=tc")
	if code != 0 || !strings.Contains(stdout, "tir.func @f(%A: !tir.tensor<f32, A_0[0:N]>) -> !tir.tensor<f32, i[0:N]>") {
		t.Errorf("exit %d\n%s%s", code, stdout, stderr)
	}
}
