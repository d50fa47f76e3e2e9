package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/passes/derivatives"
	"tir/tools/internal/npy"
	"tir/tools/internal/outfile"
	"tir/tools/internal/version"
	"tir/tools/native"
)

// Exit statuses (spec 5.2, 5.3).
const (
	exitOK    = 0
	exitInput = 1 // a diagnosed error in the input program or data
	exitUsage = 2 // bad usage: flags, missing arguments, unknown names
)

// usageError is an error in how the tool was called (exit 2); other errors
// are about the input (exit 1).
type usageError struct {
	msg     string
	noUsage bool // the usage line would not help (a mode that is missing)
}

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// diagError carries diagnostics to be rendered with the source lines.
type diagError struct {
	diags  ir.DiagList
	file   string
	source string
}

func (e *diagError) Error() string { return e.diags.Error() }

// options are the parsed command line.
type options struct {
	file   string
	entry  string
	args   []string
	outs   []string
	interp bool
	random *int64
	check  bool
	bench  int
	// target is the compiled code's target: x86_64 (the CPU) or nvptx64
	// (the GPU, through the CUDA driver); emulate runs the GPU build's
	// kernels on the CPU with the driver emulator of the tests.
	target  string
	emulate bool
	// threads compiles with --threads: the outermost parallel loops run
	// on all cores through libgomp (OMP_NUM_THREADS sets how many).
	threads bool
	// derivatives adds the tangent-linear and adjoint functions of every
	// function (tir-derivatives) before the entry is looked up and before
	// the pipeline.
	derivatives bool
	// level is the -O level of the pipeline (-O2 by default).
	level int
	// mcpu is the CPU the code is for: "native" by default, since the
	// code runs where it is built (tc-opt's --mcpu; "" for the GPU).
	mcpu string
	// contract and reassociate are tc-opt's --fp-contract=fast and
	// --fp-reassociate.
	contract, reassociate bool
	// interpTime is how long the interpreter took (for --bench).
	interpTime time.Duration
}

// runInterp runs the reference interpreter (a variable: the tests check
// when it runs).
var runInterp = interp.Run

// Run is the whole tool: it parses args (without the program name), runs
// the function and returns the exit status. Tests call it directly.
func Run(args []string, stdout, stderr io.Writer) int {
	var opts options
	app := &cli.App{
		Name:  "tc-run",
		Usage: "run a tir function on NumPy .npy inputs",
		UsageText: "tc-run FILE [--entry F] --arg NAME=FILE.npy [--arg N=64] [--random SEED] --out OUT.npy [--out OUT2.npy] [--interp | --check | --bench N]\n" +
			"       [-O0|-O1|-O2|-O3] [--mcpu=native|generic|NAME] [--fp-contract=off|fast] [--fp-reassociate] [--threads]",
		Description: "--arg binds a tensor argument to a .npy file (a 0-d one also to a number), or a size symbol to an integer. " +
			"--random SEED generates every tensor argument not bound by --arg (floats uniform in [-1, 1), " +
			"integers in [-8, 8), i1 random). --out names the result files in order. " +
			"--interp runs the reference interpreter.",
		HideHelpCommand:           true,
		HideVersion:               true,
		DisableSliceFlagSeparator: true,
		Writer:                    stdout,
		ErrWriter:                 stderr,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &usageError{msg: err.Error()}
		},
		Flags: flagSet(),
		Action: func(c *cli.Context) error {
			if c.Bool("version") {
				_, err := io.WriteString(stdout, version.Text("tc-run"))
				return err
			}
			if c.NArg() != 1 {
				return usagef("expected one input file, got %d (%s)", c.NArg(), strings.Join(c.Args().Slice(), " "))
			}
			opts = options{
				file:    c.Args().First(),
				entry:   c.String("entry"),
				args:    c.StringSlice("arg"),
				outs:    c.StringSlice("out"),
				interp:  c.Bool("interp"),
				check:   c.Bool("check"),
				bench:   c.Int("bench"),
				target:  c.String("target"),
				emulate: c.Bool("emulate-gpu"),
				threads: c.Bool("threads"),

				derivatives: c.Bool("derivatives"),
			}
			if opts.target != "x86_64" && opts.target != "nvptx64" {
				return usagef("--target must be x86_64 or nvptx64, not '%s'", opts.target)
			}
			if err := buildFlags(c, &opts); err != nil {
				return err
			}
			if opts.emulate && opts.target != "nvptx64" {
				return usagef("--emulate-gpu needs --target=nvptx64")
			}
			if opts.threads && opts.target != "x86_64" {
				return usagef("--threads applies to the CPU target (x86_64)")
			}
			if c.IsSet("random") {
				seed := c.Int64("random")
				opts.random = &seed
			}
			return execute(&opts, stdout, stderr)
		},
	}
	if err := unknownLevel(args); err != nil {
		return report(err, stderr)
	}
	err := app.Run(append([]string{"tc-run"}, intersperse(args, app.Flags)...))
	return report(err, stderr)
}

// flagSet is the tool's flags (also what intersperse needs to know).
func flagSet() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "entry", Usage: "the function to run (default: the only tir.func of the file)"},
		&cli.BoolFlag{Name: "derivatives", Usage: "add @f_jvp and @f_vjp next to every function first (tc-opt --derivatives), so that --entry may name them"},
		&cli.StringSliceFlag{Name: "arg", Usage: "NAME=FILE.npy binds a tensor argument, NAME=NUMBER a 0-d argument, NAME=INT a size symbol"},
		&cli.StringSliceFlag{Name: "out", Usage: "write the next result to this .npy file"},
		&cli.BoolFlag{Name: "interp", Usage: "run the reference interpreter"},
		&cli.Int64Flag{Name: "random", Usage: "generate unbound tensor arguments from this seed"},
		&cli.BoolFlag{Name: "check", Usage: "run compiled code and the interpreter and report the largest difference"},
		&cli.IntFlag{Name: "bench", Usage: "time N runs of the compiled code"},
		&cli.StringFlag{Name: "target", Value: "x86_64", Usage: "compile for x86_64 (this CPU) or nvptx64 (an NVIDIA GPU, through the CUDA driver)"},
		&cli.BoolFlag{Name: "threads", Usage: "compile with tc-opt --threads: the outermost parallel loops run on all cores through libgomp (OMP_NUM_THREADS sets how many; OMP_WAIT_POLICY is passive unless set)"},
		&cli.BoolFlag{Name: "O0", Usage: "compile with tc-opt -O0"},
		&cli.BoolFlag{Name: "O1", Usage: "compile with tc-opt -O1"},
		&cli.BoolFlag{Name: "O2", Usage: "compile with tc-opt -O2 (the default)"},
		&cli.BoolFlag{Name: "O3", Usage: "compile with tc-opt -O3"},
		&cli.StringFlag{Name: "mcpu", Value: "native", Usage: "the CPU to compile for: native (this machine, the default), generic (portable x86-64) or an LLVM processor name (x86-64-v3, skylake-avx512, znver3, ...), as tc-opt --mcpu"},
		&cli.StringFlag{Name: "fp-contract", Value: "off", Usage: "off (results bitwise the interpreter's) or fast (fused multiply-adds), as tc-opt --fp-contract"},
		&cli.BoolFlag{Name: "fp-reassociate", Usage: "let float sums and products be reordered (vectorized reductions), as tc-opt --fp-reassociate"},
		&cli.BoolFlag{Name: "version", Usage: "print the commit this tc-run was built from and the LLVM and MLIR versions it targets"},
		&cli.BoolFlag{Name: "emulate-gpu", Usage: "with --target=nvptx64: run the GPU build's kernels on the CPU (the CUDA driver emulator of the tests)"},
	}
}

// unknownLevel refuses an -O level other than 0..3 by name (the flag
// parser would call -O4 an undefined flag).
func unknownLevel(args []string) error {
	for _, a := range args {
		if a == "--" {
			return nil
		}
		level := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if len(level) > 1 && level[0] == 'O' && strings.Trim(level[1:], "0123456789") == "" && !(len(level) == 2 && level[1] <= '3') {
			return usagef("unknown optimisation level %s (valid: -O0 to -O3)", a)
		}
	}
	return nil
}

// report prints an error the way its kind asks for and gives the status.
func report(err error, stderr io.Writer) int {
	var ue *usageError
	var de *diagError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "tc-run: %s\n", ue.msg)
		if !ue.noUsage {
			fmt.Fprintln(stderr, "usage: tc-run FILE [--entry F] --arg NAME=FILE.npy [--arg N=64] [--random SEED] --out OUT.npy --interp (see --help)")
		}
		return exitUsage
	case errors.As(err, &de):
		eng := ir.NewDiagEngine()
		eng.AddSource(de.file, de.source)
		for _, d := range de.diags {
			eng.Emit(d)
		}
		fmt.Fprint(stderr, eng.RenderAll())
		return exitInput
	}
	fmt.Fprintf(stderr, "tc-run: error: %v\n", err)
	return exitInput
}

// execute runs one invocation once the flags are parsed.
func execute(o *options, stdout, stderr io.Writer) error {
	fn, src, err := loadEntry(o.file, o.entry, o.derivatives, stderr)
	if err != nil {
		return err
	}
	ft, _ := tir.FuncType(fn)
	if len(o.outs) > len(ft.Results) {
		return usagef("@%s has %d result(s) but %d --out were given", ir.SymbolName(fn), len(ft.Results), len(o.outs))
	}
	for i, t := range ft.Inputs {
		if err := exchangeable(t); err != nil {
			return fmt.Errorf("argument '%s': %v", interp.ArgNames(fn)[i], err)
		}
	}
	// Arrays that cannot fit in memory are refused before they are made.
	if err := preflight(fn, o.args, o.random); err != nil {
		return err
	}
	args, syms, err := bindArgs(fn, o.args, o.random)
	if err != nil {
		return err
	}
	if err := checkMemory(fn, syms); err != nil {
		return err
	}
	if o.interp && (o.check || o.bench > 0) {
		return usagef("--check and --bench run compiled code; they cannot be combined with --interp")
	}
	var results []*interp.Tensor
	// --bench times the compiled code; the interpreter runs only when its
	// results are wanted (it takes seconds where compiled code takes
	// milliseconds).
	if o.interp || o.check {
		start := time.Now()
		ref, err := runInterp(fn, args, syms)
		if err != nil {
			var d *ir.Diagnostic
			if errors.As(err, &d) {
				return &diagError{diags: ir.DiagList{d}, file: o.file, source: src}
			}
			return err
		}
		results = ref
		o.interpTime = time.Since(start)
	}
	if !o.interp {
		compiled, err := runCompiled(o, fn, src, args, syms, results, stdout)
		if err != nil {
			return err
		}
		results = compiled
	}
	if err := writeResults(o.outs, results); err != nil {
		return err
	}
	for i, r := range results {
		dest := ""
		if i < len(o.outs) {
			dest = o.outs[i]
		}
		fmt.Fprintln(stdout, summary(i, dest, r))
	}
	return nil
}

// loadEntry parses and verifies the file and finds the function to run.
// Verifier warnings are printed; errors come back as diagnostics.
func loadEntry(file, entry string, withDerivatives bool, stderr io.Writer) (*ir.Operation, string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, "", err
	}
	src := string(data)
	m, diags := native.Load(file, src)
	if diags.HasErrors() {
		return nil, "", &diagError{diags: diags, file: file, source: src}
	}
	// The warnings of a TC import (preconditions checked at run time,
	// unused bindings) are printed with the verifier's; the run goes on.
	warnings := diags
	if err := ir.Verify(m.Op, func(d *ir.Diagnostic) { warnings = append(warnings, d) }); err != nil {
		var l ir.DiagList
		if !errors.As(err, &l) {
			l = ir.DiagList{ir.AsDiagnostic(err, ir.Location{File: file})}
		}
		return nil, "", &diagError{diags: l, file: file, source: src}
	}
	if len(warnings) > 0 {
		report(&diagError{diags: warnings, file: file, source: src}, stderr)
	}
	if withDerivatives {
		if err := derivatives.Run(m, derivatives.Options{JVP: true, VJP: true}); err != nil {
			return nil, "", &diagError{diags: ir.DiagList{ir.AsDiagnostic(err, ir.Location{File: file})}, file: file, source: src}
		}
	}
	var funcs []string
	var only *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Is(tir.Func) {
			funcs = append(funcs, ir.SymbolName(op))
			only = op
		}
	}
	sort.Strings(funcs)
	if entry == "" {
		if len(funcs) != 1 {
			return nil, "", usagef("%s defines %d functions (%s): choose one with --entry", file, len(funcs), strings.Join(funcs, ", "))
		}
		return only, src, nil
	}
	entry = strings.TrimPrefix(entry, "@")
	fn := m.Lookup(entry)
	if !fn.Is(tir.Func) {
		return nil, "", usagef("%s has no tir.func @%s (functions: %s)", file, entry, strings.Join(funcs, ", "))
	}
	return fn, src, nil
}

// writeResults writes the results that have an --out path as .npy files,
// all or none: every path is checked before the first is written, and a
// failed run leaves no partial file behind.
func writeResults(paths []string, results []*interp.Tensor) error {
	arrays := make([]*npy.Array, len(paths))
	for i := range paths {
		a, err := toNpy(results[i])
		if err != nil {
			return fmt.Errorf("result #%d: %v", i, err)
		}
		arrays[i] = a
	}
	return outfile.WriteAll(paths, func(i int, w io.Writer) error {
		return npy.Write(w, arrays[i])
	})
}
