// Package driver is tc-opt: command-line parsing (urfave/cli), pipeline
// selection (--pass-pipeline, per-pass flags, -O levels, all from the pass
// table of package passes), input splitting, diagnostics rendering and
// checking (--verify-diagnostics), and output. tools/tc-opt/main.go only
// calls Run, so tests can run the tool in-process.
package driver

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"tir/passes"
	"tir/tools/internal/version"

	// Dialects register their ops from init.
	_ "tir/dialects/affine"
	_ "tir/dialects/arith"
	_ "tir/dialects/cf"
	_ "tir/dialects/fn"
	_ "tir/dialects/mathd"
	_ "tir/dialects/memref"
	_ "tir/dialects/scf"
	_ "tir/dialects/tir"
	// The conversion passes register into the pass table from init.
	"tir/lower"
)

// Exit statuses.
const (
	ExitOK       = 0 // success
	ExitInput    = 1 // a diagnosed error in the input
	ExitUsage    = 2 // bad usage: unknown flag, bad pipeline, ...
	ExitInternal = 3 // a bug: a pass panicked or produced invalid IR
)

// LLVMAttr is the module attribute that carries the LLVM IR text
// convert-to-llvm emitted; tc-opt prints it.
const LLVMAttr = lower.LLVMAttr

// valueFlags are the driver flags that take a value (possibly as the next
// argument); every other flag is a switch or takes `=value`.
var valueFlags = map[string]bool{
	"o": true, "pass-pipeline": true, "target": true, "emit": true, "input-format": true, "ptx": true,
	"mlir-print-ir-before": true, "mlir-print-ir-after": true, "size": true, "mcpu": true,
	"fp-contract": true,
}

type config struct {
	input, output     string
	split, verifyDiag bool
	generic           bool
	pipelineText      string
	pipelineSet       bool
	passFlags         []passFlag
	optLevel          int // -1: none
	derivatives       bool
	target            string
	threads           bool
	mcpu              string
	fpContract        string
	fpReassociate     bool
	emit              string
	emitGiven         bool // --emit was on the command line
	inputFormat       string
	ptxFile           string
	listPasses        bool
	dumpPipeline      bool
	printBeforeAll    bool
	printAfterAll     bool
	printBefore       []string
	printAfter        []string
	timing            bool
	verifyEach        bool
	sizeArgs          []string         // --size NAME=INT (extents_json.go)
	sizes             map[string]int64 // parsed by parseSizes
	version           bool
}

type passFlag struct{ name, options string }

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// Run runs tc-opt with args (without the program name) and returns the
// exit status. It never panics.
func Run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "tc-opt: internal error: %s\n", firstLine(fmt.Sprint(r)))
			code = ExitInternal
		}
	}()
	// The -O presets are data checked here, at every start: a pass they
	// name that is not registered, or passes out of order, is a bug of
	// tc-opt, not something to skip quietly.
	if err := passes.CheckPresets(); err != nil {
		fmt.Fprintf(stderr, "tc-opt: internal error: %v\n", err)
		return ExitInternal
	}
	flagArgs, positional := splitArgs(args)
	cfg := &config{optLevel: -1}
	code = ExitOK
	app := newApp(stdout, stderr, func(c *cli.Context) error {
		if err := readFlags(c, cfg, flagArgs); err != nil {
			return err
		}
		code = run(cfg, stdin, stdout, stderr)
		return nil
	})
	argv := append([]string{"tc-opt"}, flagArgs...)
	argv = append(argv, "--")
	argv = append(argv, positional...)
	if err := app.Run(argv); err != nil {
		fmt.Fprintf(stderr, "tc-opt: error: %s\n(run 'tc-opt --help' for usage)\n", err)
		return ExitUsage
	}
	return code
}

// splitArgs separates flags (with their values) from positional arguments,
// so that flags may follow the input file, as in mlir-opt.
func splitArgs(args []string) (flags, positional []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if len(a) > 1 && a[0] == '-' {
			flags = append(flags, a)
			if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && valueFlags[name] && i+1 < len(args) {
				flags = append(flags, args[i+1])
				i++
			}
			continue
		}
		positional = append(positional, a)
	}
	return flags, positional
}

// passFlagValue lets `--cse` (no value) and `--convert-to-llvm=target=x`
// both parse: the flag package treats it as a switch that also accepts
// `=value`. The values are read in command-line order by readFlags.
type passFlagValue struct{}

func (*passFlagValue) Set(string) error { return nil }
func (*passFlagValue) String() string   { return "" }
func (*passFlagValue) IsBoolFlag() bool { return true }

func newApp(stdout, stderr io.Writer, action cli.ActionFunc) *cli.App {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "o", Usage: "write the output to `FILE` (atomically; nothing is written on error)", Value: "-"},
		&cli.StringFlag{Name: "pass-pipeline", Usage: "run a textual pipeline, e.g. 'builtin.module(canonicalize,tir.func(cse))'"},
		&cli.BoolFlag{Name: "O0", Usage: "the default pipeline at level 0 (down to LLVM IR)"},
		&cli.BoolFlag{Name: "O1", Usage: "the default pipeline at level 1"},
		&cli.BoolFlag{Name: "O2", Usage: "the default pipeline at level 2"},
		&cli.BoolFlag{Name: "O3", Usage: "the default pipeline at level 3"},
		&cli.BoolFlag{Name: "derivatives", Usage: "add @f_jvp and @f_vjp next to every function before the rest of the pipeline (tir-derivatives with its defaults; docs/derivatives.md)"},
		&cli.StringFlag{Name: "target", Usage: "target of the -O pipelines: " + strings.Join(passes.Targets, "|") + " (default " + passes.DefaultTarget + ")"},
		&cli.StringFlag{Name: "mcpu", Usage: "with -O0..-O3 on a CPU target: the processor to generate code for, native or an LLVM name (x86-64-v3, znver3, skylake-avx512, neoverse-n1, ...), written into the LLVM IR so that plain llc -O3 uses its instructions (convert-to-llvm{cpu=...})"},
		&cli.StringFlag{Name: "fp-contract", Value: "off", Usage: "with -O0..-O3: off keeps every float multiply and add rounded separately (results bitwise those of the interpreter); fast lets llc fuse them into FMA instructions (convert-to-llvm{contract=true}; results may differ in the last bits)"},
		&cli.BoolFlag{Name: "fp-reassociate", Usage: "with -O0..-O3: let float sums and products be reordered, so that affine-vectorize vectorizes addf and mulf reductions (a partial result per vector lane, folded as a tree); results may differ from the interpreter's in the last bits (affine-vectorize{reassociate=true}, convert-to-llvm{reassociate-fp-reductions=true})"},
		&cli.BoolFlag{Name: "threads", Usage: "with -O0..-O3 on a CPU target: run the outermost parallel loops on all cores through GNU OpenMP's runtime (convert-to-llvm{threads=omp}; link with gcc -fopenmp or -lgomp)"},
		&cli.StringFlag{Name: "emit", Value: "ir", Usage: "what to print: " + strings.Join(emitKindNames(), "|")},
		&cli.StringFlag{Name: "input-format", Usage: "tir|tc (default: from the file extension)"},
		&cli.StringFlag{Name: "ptx", Usage: "with --emit=cuda-host: embed the kernels' PTX read from `FILE` (llc -march=nvptx64 output) in the host wrapper"},
		&cli.BoolFlag{Name: "split-input-file", Usage: "split the input on '// -----' lines and process the chunks independently"},
		&cli.BoolFlag{Name: "verify-diagnostics", Usage: "check the diagnostics against the expected-* comments of the input"},
		&cli.BoolFlag{Name: "mlir-print-op-generic", Usage: "print every op in the generic form"},
		&cli.BoolFlag{Name: "list-passes", Usage: "list the registered passes and their options"},
		&cli.BoolFlag{Name: "dump-pass-pipeline", Usage: "print the pipeline to stderr before running it"},
		&cli.BoolFlag{Name: "mlir-print-ir-before-all", Usage: "print the IR before every pass (stderr)"},
		&cli.BoolFlag{Name: "mlir-print-ir-after-all", Usage: "print the IR after every pass (stderr)"},
		&cli.StringSliceFlag{Name: "mlir-print-ir-before", Usage: "print the IR before the named passes (stderr)"},
		&cli.StringSliceFlag{Name: "mlir-print-ir-after", Usage: "print the IR after the named passes (stderr)"},
		&cli.BoolFlag{Name: "mlir-timing", Usage: "print a per-pass wall time report (stderr)"},
		&cli.BoolFlag{Name: "verify-each", Value: true, Usage: "verify the IR after each pass"},
		&cli.StringSliceFlag{Name: "size", Usage: "with --emit=extents-json: bind a size symbol, `NAME=INT` (repeat, or N=64,M=48), to give every quantity its value"},
		&cli.BoolFlag{Name: "version", Usage: "print the commit this tc-opt was built from and the LLVM and MLIR versions it targets"},
	}
	for _, d := range passes.All() {
		usage := d.Summary
		if len(d.Options) > 0 {
			var opts []string
			for _, o := range d.Options {
				opts = append(opts, o.Name+"="+o.TypeText())
			}
			usage += " (options: " + strings.Join(opts, " ") + ")"
		}
		flags = append(flags, &cli.GenericFlag{Name: d.Name, Category: "passes (run in command-line order; --NAME or --NAME='opt=v ...')", Usage: usage, Value: &passFlagValue{}})
	}
	return &cli.App{
		Name:            "tc-opt",
		Usage:           "the TIR optimizer: parse, transform and print TIR modules",
		UsageText:       "tc-opt [options] [input]   (input: a .tir, .mlir or .tc file; stdin if absent or '-')",
		HideHelpCommand: true,
		HideVersion:     true,
		Flags:           flags,
		Writer:          stdout,
		ErrWriter:       stderr,
		Action:          action,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return &usageError{err.Error()}
		},
		ExitErrHandler: func(*cli.Context, error) {},
	}
}

// readFlags fills cfg from the parsed flags; pass flags and -O levels are
// read from the raw arguments, whose order urfave/cli does not keep.
func readFlags(c *cli.Context, cfg *config, flagArgs []string) error {
	cfg.output = c.String("o")
	cfg.pipelineText = c.String("pass-pipeline")
	cfg.pipelineSet = c.IsSet("pass-pipeline")
	cfg.target = c.String("target")
	cfg.threads = c.Bool("threads")
	cfg.derivatives = c.Bool("derivatives")
	cfg.mcpu = c.String("mcpu")
	cfg.fpContract = c.String("fp-contract")
	cfg.fpReassociate = c.Bool("fp-reassociate")
	cfg.emit = c.String("emit")
	cfg.emitGiven = c.IsSet("emit")
	cfg.inputFormat = c.String("input-format")
	cfg.ptxFile = c.String("ptx")
	cfg.split = c.Bool("split-input-file")
	cfg.verifyDiag = c.Bool("verify-diagnostics")
	cfg.generic = c.Bool("mlir-print-op-generic")
	cfg.listPasses = c.Bool("list-passes")
	cfg.dumpPipeline = c.Bool("dump-pass-pipeline")
	cfg.printBeforeAll = c.Bool("mlir-print-ir-before-all")
	cfg.printAfterAll = c.Bool("mlir-print-ir-after-all")
	cfg.printBefore = c.StringSlice("mlir-print-ir-before")
	cfg.printAfter = c.StringSlice("mlir-print-ir-after")
	cfg.timing = c.Bool("mlir-timing")
	cfg.verifyEach = c.Bool("verify-each")
	cfg.sizeArgs = c.StringSlice("size")
	cfg.version = c.Bool("version")
	switch args := c.Args().Slice(); len(args) {
	case 0:
		cfg.input = "-"
	case 1:
		cfg.input = args[0]
	default:
		return usagef("expected at most one input file, got %d: %s", len(args), strings.Join(args, " "))
	}
	for i := 0; i < len(flagArgs); i++ {
		a := flagArgs[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if valueFlags[name] && !hasVal {
			i++
			continue
		}
		switch {
		case name == "O0" || name == "O1" || name == "O2" || name == "O3":
			if !hasVal || val == "true" {
				cfg.optLevel = int(name[1] - '0')
			}
		case passes.Lookup(name) != nil:
			if hasVal && val == "false" {
				continue
			}
			if val == "true" {
				val = ""
			}
			cfg.passFlags = append(cfg.passFlags, passFlag{name, val})
		}
	}
	return nil
}

// buildPipeline picks the pipeline from --pass-pipeline, the per-pass
// flags or -O, which are mutually exclusive.
func buildPipeline(cfg *config) (*passes.Pipeline, error) {
	var sources []string
	if cfg.pipelineSet {
		sources = append(sources, "--pass-pipeline")
	}
	if len(cfg.passFlags) > 0 {
		sources = append(sources, "per-pass flags (--"+cfg.passFlags[0].name+")")
	}
	if cfg.optLevel >= 0 {
		sources = append(sources, fmt.Sprintf("-O%d", cfg.optLevel))
	}
	if len(sources) > 1 {
		return nil, usagef("%s cannot be combined", strings.Join(sources, " and "))
	}
	if cfg.target != "" && !passes.ValidTarget(cfg.target) {
		return nil, usagef("unknown target '%s' (valid: %s)", cfg.target, strings.Join(passes.Targets, ", "))
	}
	switch {
	case cfg.pipelineSet:
		p, err := passes.ParsePipeline(cfg.pipelineText)
		if err != nil {
			return nil, usagef("%v", err)
		}
		return p, nil
	case cfg.optLevel >= 0:
		p, err := passes.OptPipeline(cfg.optLevel, cfg.target)
		if err != nil {
			return nil, usagef("%v", err)
		}
		if cfg.mcpu != "" {
			if passes.IsGPUTarget(cfg.target) {
				return nil, usagef("--mcpu applies to CPU targets, not %s (the GPU architecture is given to llc or ptxas)", cfg.target)
			}
			if err := lower.WithCPU(p, cfg.target, cfg.mcpu); err != nil {
				return nil, usagef("--mcpu: %v", err)
			}
		}
		switch cfg.fpContract {
		case "off":
		case "fast":
			if err := lower.WithContract(p); err != nil {
				return nil, usagef("%v", err)
			}
		default:
			return nil, usagef("--fp-contract=%s: expected off or fast", cfg.fpContract)
		}
		if cfg.fpReassociate {
			if err := lower.WithReassociate(p); err != nil {
				return nil, usagef("%v", err)
			}
		}
		if cfg.threads {
			if passes.IsGPUTarget(cfg.target) {
				return nil, usagef("--threads applies to CPU targets, not %s", cfg.target)
			}
			if err := passes.WithThreads(p); err != nil {
				return nil, usagef("%v", err)
			}
		}
		return p, nil
	}
	if cfg.mcpu != "" {
		return nil, usagef("--mcpu goes with -O0..-O3 (in a pipeline, write convert-to-llvm{cpu=...})")
	}
	if cfg.fpContract != "off" {
		return nil, usagef("--fp-contract goes with -O0..-O3 (in a pipeline, write convert-to-llvm{contract=true})")
	}
	if cfg.fpReassociate {
		return nil, usagef("--fp-reassociate goes with -O0..-O3 (in a pipeline, write affine-vectorize{reassociate=true} and convert-to-llvm{reassociate-fp-reductions=true})")
	}
	if cfg.threads {
		return nil, usagef("--threads goes with -O0..-O3 (in a pipeline, write convert-to-llvm{threads=omp})")
	}
	p := passes.NewPipeline(passes.AnchorModule)
	for _, f := range cfg.passFlags {
		if err := p.AddPass(f.name, f.options); err != nil {
			msg := err.Error()
			if pe, ok := err.(*passes.PipelineError); ok {
				msg = pe.Msg
			}
			return nil, usagef("--%s: %s", f.name, msg)
		}
	}
	return p, nil
}

func checkPassNames(flag string, names []string) error {
	for _, n := range names {
		if passes.Lookup(n) == nil {
			return usagef("--%s: unknown pass '%s' (see --list-passes)", flag, n)
		}
	}
	return nil
}

// run does the work once the flags are parsed.
func run(cfg *config, stdin io.Reader, stdout, stderr io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintf(stderr, "tc-opt: error: %s\n", err)
		if _, ok := err.(*usageError); ok {
			return ExitUsage
		}
		return ExitInput
	}
	if cfg.version {
		io.WriteString(stdout, version.Text("tc-opt"))
		return ExitOK
	}
	if cfg.listPasses {
		listPasses(stdout)
		return ExitOK
	}
	if !contains(emitKindNames(), cfg.emit) {
		return fail(usagef("unknown --emit value '%s' (valid: %s)", cfg.emit, strings.Join(emitKindNames(), ", ")))
	}
	if err := parseSizes(cfg); err != nil {
		return fail(err)
	}
	if cfg.ptxFile != "" && cfg.emit != "cuda-host" {
		return fail(usagef("--ptx only applies to --emit=cuda-host"))
	}
	pipeline, err := buildPipeline(cfg)
	if err != nil {
		return fail(err)
	}
	if cfg.derivatives {
		if pipeline, err = withDerivatives(pipeline); err != nil {
			return fail(err)
		}
	}
	if err := checkPassNames("mlir-print-ir-before", cfg.printBefore); err != nil {
		return fail(err)
	}
	if err := checkPassNames("mlir-print-ir-after", cfg.printAfter); err != nil {
		return fail(err)
	}
	format := cfg.inputFormat
	if format == "" {
		format = "tir"
		if strings.HasSuffix(cfg.input, ".tc") {
			format = "tc"
		}
	}
	frontend, ok := frontends[format]
	if !ok {
		var names []string
		for n := range frontends {
			names = append(names, n)
		}
		sort.Strings(names)
		return fail(usagef("unknown --input-format '%s' (valid: %s)", format, strings.Join(names, ", ")))
	}
	if cfg.dumpPipeline {
		fmt.Fprintln(stderr, pipeline.Dump())
	}
	file, src, err := readInput(cfg.input, stdin)
	if err != nil {
		return fail(err)
	}
	return process(cfg, pipeline, frontend, file, src, stdout, stderr)
}

func readInput(name string, stdin io.Reader) (file, src string, err error) {
	if name == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			return "", "", fmt.Errorf("cannot read stdin: %v", err)
		}
		return "<stdin>", string(b), nil
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return "", "", fmt.Errorf("cannot read input file: %v", err)
	}
	return name, string(b), nil
}

// listPasses prints the pass table and the default pipelines.
func listPasses(w io.Writer) {
	all := passes.All()
	width := 0
	for _, d := range all {
		width = max(width, len(d.Name)+2)
		for _, o := range d.Options {
			width = max(width, len(o.Name)+len(o.TypeText())+5)
		}
	}
	fmt.Fprintln(w, "Available passes (as --NAME[='opt=v ...'] flags, run in command-line order, or in --pass-pipeline):")
	for _, d := range all {
		fmt.Fprintf(w, "  %-*s  %s [on %s]\n", width, "--"+d.Name, d.Summary, d.AnchorText())
		for _, o := range d.Options {
			fmt.Fprintf(w, "  %-*s  %s (default: %s)\n", width, "    "+o.Name+"="+o.TypeText(), o.Help, o.DefaultText())
		}
	}
	fmt.Fprintf(w, "\nDefault pipelines (%s is --target, default %s):\n", passes.TargetPlaceholder, passes.DefaultTarget)
	for lvl := 0; lvl < passes.OptLevels; lvl++ {
		fmt.Fprintf(w, "  -O%d  %s\n", lvl, passes.PresetText(lvl, false))
	}
	fmt.Fprintf(w, "GPU targets (%s):\n", strings.Join(passes.GPUTargets, ", "))
	for lvl := 0; lvl < passes.OptLevels; lvl++ {
		fmt.Fprintf(w, "  -O%d  %s\n", lvl, passes.PresetText(lvl, true))
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
