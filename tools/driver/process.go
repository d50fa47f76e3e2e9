package driver

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/passes"
	"tir/tools/emit"
	"tir/tools/internal/outfile"
)

// frontend reads a source text into a module; errors come back located.
type frontend func(file, src string) (*ir.Module, ir.DiagList)

// frontends by --input-format.
var frontends = map[string]frontend{
	"tir":  parser.Parse,
	"mlir": parser.Parse,
	// Tensor Comprehensions (spec document 3, docs/tc.md).
	"tc": tc.Import,
}

// splitMarker separates the chunks of --split-input-file.
const splitMarker = "// -----"

// splitChunks cuts src at lines that are exactly "// -----" (trailing
// blanks allowed). Each chunk is prefixed with as many newlines as lines
// precede it, so positions in it are those of the original file.
func splitChunks(src string) []string {
	var chunks []string
	var cur strings.Builder
	start := 0
	lines := strings.SplitAfter(src, "\n")
	for i, l := range lines {
		if strings.TrimRight(l, " \t\r\n") == splitMarker {
			chunks = append(chunks, strings.Repeat("\n", start)+cur.String())
			cur.Reset()
			start = i + 1
			continue
		}
		cur.WriteString(l)
	}
	return append(chunks, strings.Repeat("\n", start)+cur.String())
}

type chunkResult struct {
	out   string
	ok    bool // out is valid
	diags ir.DiagList
	code  int
}

// process runs every chunk, renders or checks diagnostics, and writes the
// output.
func process(cfg *config, pipeline *passes.Pipeline, fe frontend, file, src string, stdout, stderr io.Writer) int {
	start := time.Now()
	var timer *passes.Timer
	if cfg.timing {
		timer = passes.NewTimer("tc-opt")
	}
	engine := ir.NewDiagEngine()
	engine.AddSource(file, src)
	chunks := []string{src}
	if cfg.split {
		chunks = splitChunks(src)
	}
	code := ExitOK
	var outs []string
	for _, text := range chunks {
		res := processChunk(cfg, pipeline, fe, file, text, timer, stderr)
		c := res.code
		if cfg.verifyDiag {
			mismatches := verifyDiagnostics(file, text, res.diags)
			for _, d := range mismatches {
				io.WriteString(stderr, engine.Render(d))
			}
			if c == ExitInput {
				c = ExitOK
			}
			if len(mismatches) > 0 {
				c = max(c, ExitInput)
			}
		} else {
			for _, d := range res.diags {
				io.WriteString(stderr, engine.Render(d))
			}
		}
		code = max(code, c)
		if res.ok {
			outs = append(outs, res.out)
		}
	}
	output := strings.Join(outs, splitMarker+"\n")
	if cfg.output == "-" || cfg.output == "" {
		io.WriteString(stdout, output)
	} else if code == ExitOK {
		if err := outfile.WriteFile(cfg.output, []byte(output)); err != nil {
			fmt.Fprintf(stderr, "tc-opt: error: cannot write the output: %v\n", err)
			code = ExitInput
		}
	}
	if timer != nil {
		timer.Elapsed = time.Since(start)
		timer.Report(stderr)
	}
	return code
}

// processChunk parses, verifies, runs the pipeline and prints one chunk.
func processChunk(cfg *config, pipeline *passes.Pipeline, fe frontend, file, text string, timer *passes.Timer, stderr io.Writer) (res chunkResult) {
	warn := func(d *ir.Diagnostic) { res.diags = append(res.diags, d) }
	stop := timer.Child("parser", "Parser").Start()
	m, diags := fe(file, text)
	for i, d := range diags {
		// A parser panic: report it on one line, as an internal error.
		if strings.HasPrefix(d.Msg, "internal error") {
			c := *d
			c.Msg = firstLine(d.Msg)
			diags[i] = &c
			res.code = ExitInternal
		}
	}
	res.diags = append(res.diags, diags...)
	if diags.HasErrors() || m == nil {
		stop()
		res.code = max(res.code, ExitInput)
		return res
	}
	// The input must be valid before any pass runs.
	verr := ir.Verify(m.Op, warn)
	stop()
	if verr != nil {
		res.diags = append(res.diags, asDiagList(verr, file)...)
		res.code = ExitInput
		return res
	}
	pm := passes.NewManager(pipeline)
	pm.VerifyEach = cfg.verifyEach
	pm.PrintBefore, pm.PrintAfter = cfg.printBefore, cfg.printAfter
	pm.PrintBeforeAll, pm.PrintAfterAll = cfg.printBeforeAll, cfg.printAfterAll
	pm.IROut = stderr
	pm.PrintOptions = printer.Options{Generic: cfg.generic}
	pm.Timing = timer
	pm.Warn = warn
	if err := pm.Run(m); err != nil {
		switch e := err.(type) {
		case *passes.InternalError:
			res.diags = append(res.diags, ir.Errorf(ir.Location{File: file}, "%s", firstLine(e.Error())))
			res.code = ExitInternal
		case *passes.VerifyError:
			res.diags = append(res.diags, e.Diagnostics()...)
			res.code = ExitInternal
		case *passes.PassError:
			res.diags = append(res.diags, e.Diagnostics()...)
			res.code = ExitInput
		default:
			res.diags = append(res.diags, ir.Errorf(ir.Location{File: file}, "%v", err))
			res.code = ExitInput
		}
		return res
	}
	stop = timer.Child("output", "Output").Start()
	defer stop()
	// A pipeline that ends in LLVM IR prints it unless asked otherwise.
	_, hasLLVM := m.Op.Attr(LLVMAttr).(ir.StringAttr)
	if cfg.emit == "llvm" || (!cfg.emitGiven && hasLLVM) {
		a, ok := m.Op.Attr(LLVMAttr).(ir.StringAttr)
		if !ok {
			res.diags = append(res.diags, ir.Errorf(ir.Location{File: file}, "--emit=llvm: the module holds no LLVM IR; run a pipeline that ends with convert-to-llvm (for example -O2)"))
			res.code = ExitUsage
			return res
		}
		res.out = string(a)
		if !strings.HasSuffix(res.out, "\n") {
			res.out += "\n"
		}
	} else if gen := emitterOf(cfg.emit); gen != nil {
		out, err := gen(m, cfg, file)
		if err != nil {
			switch {
			case errors.Is(err, emit.ErrNoTirFuncs):
				res.diags = append(res.diags, ir.Errorf(ir.Location{File: file}, "--emit=%s: the module has no tir.func (it describes tir.func signatures and domains); run --emit=%s without lowering passes", cfg.emit, cfg.emit))
				res.code = ExitUsage
				return res
			case errors.As(err, new(*emit.SizeError)):
				res.diags = append(res.diags, ir.Errorf(ir.Location{File: file}, "%v", err))
				res.code = ExitUsage
				return res
			case errors.Is(err, emit.ErrNotOutlined):
				res.diags = append(res.diags, ir.Errorf(ir.Location{File: file}, "--emit=%s describes the GPU build: run it with -O2 --target=nvptx64 (or a pipeline with gpu-kernel-outlining)", cfg.emit))
				res.code = ExitUsage
				return res
			}
			res.diags = append(res.diags, asDiagList(err, file)...)
			res.code = ExitInput
			return res
		}
		res.out = out
	} else {
		res.out = printer.Module(m, printer.Options{Generic: cfg.generic})
	}
	res.ok = true
	return res
}

// emitKind is one --emit value: its name and, for the kinds that describe
// the module instead of printing it (every kind but ir and llvm), the
// function that writes the description.
type emitKind struct {
	name  string
	print func(m *ir.Module, cfg *config, file string) (string, error)
}

// emitTable is every --emit kind, in the order --help lists them: the
// tir-level descriptions (c-header, abi-json, fortran, extents, dot) read
// the module before lowering, launch-json and cuda-host the GPU build
// after gpu-kernel-outlining.
var emitTable = []emitKind{
	{name: "ir"},
	{name: "llvm"},
	{"c-header", func(m *ir.Module, _ *config, _ string) (string, error) { return emit.CHeader(m) }},
	{"abi-json", func(m *ir.Module, _ *config, _ string) (string, error) { return emit.ABIJSON(m) }},
	{"fortran", func(m *ir.Module, _ *config, _ string) (string, error) { return emit.Fortran(m) }},
	{"launch-json", func(m *ir.Module, _ *config, _ string) (string, error) { return emit.LaunchJSON(m) }},
	{"cuda-host", func(m *ir.Module, cfg *config, file string) (string, error) {
		opts := emit.CUDAHostOptions{Source: file}
		if cfg.ptxFile != "" {
			b, err := os.ReadFile(cfg.ptxFile)
			if err != nil {
				return "", fmt.Errorf("--ptx: %v", err)
			}
			opts.PTX = string(b)
		}
		return emit.CUDAHost(m, opts)
	}},
	{"extents", func(m *ir.Module, _ *config, _ string) (string, error) { return emit.Extents(m) }},
	{"dot", func(m *ir.Module, _ *config, _ string) (string, error) { return emit.Dot(m) }},
	// The extent analysis as JSON, its quantities evaluated for the size
	// symbols --size binds (docs/tools.md).
	{"extents-json", func(m *ir.Module, cfg *config, _ string) (string, error) { return emit.ExtentsJSON(m, cfg.sizes) }},
}

// emitKindNames lists the --emit values.
func emitKindNames() []string {
	names := make([]string, len(emitTable))
	for i, k := range emitTable {
		names[i] = k.name
	}
	return names
}

// emitterOf returns the description writer of an --emit kind, nil for ir
// and llvm.
func emitterOf(name string) func(m *ir.Module, cfg *config, file string) (string, error) {
	for _, k := range emitTable {
		if k.name == name {
			return k.print
		}
	}
	return nil
}

func asDiagList(err error, file string) ir.DiagList {
	if l, ok := err.(ir.DiagList); ok {
		return l
	}
	return ir.DiagList{ir.AsDiagnostic(err, ir.Location{File: file})}
}
