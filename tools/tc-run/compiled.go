package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower" // registers the conversion passes; LLVMAttr
	"tir/tools/native"
)

// runCompiled compiles the file with the -O pipeline of the options (for
// this machine's CPU unless --mcpu says otherwise; --threads: parallel
// loops through libgomp, which the build then links), llc and gcc,
// runs the entry function on the same inputs, and with --check compares
// with the interpreter's results (ref), with --bench reports timings.
func runCompiled(o *options, fn *ir.Operation, src string, args []*interp.Tensor, syms map[string]int64, ref []*interp.Tensor, stdout io.Writer) ([]*interp.Tensor, error) {
	diagnosed := func(err error) error {
		var l ir.DiagList
		if errors.As(err, &l) {
			return &diagError{diags: l, file: o.file, source: src}
		}
		return err
	}
	dir, err := os.MkdirTemp("", "tc-run-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var prog *native.Program
	m, err := compileModule(o.file, src, o)
	if err != nil {
		return nil, diagnosed(err)
	}
	if o.target == "nvptx64" {
		if prog, err = native.BuildGPU(m, fn, dir, native.GPUOptions{Emulate: o.emulate}); err != nil {
			return nil, err
		}
	} else {
		llvm, ok := m.Op.Attr(lower.LLVMAttr).(ir.StringAttr)
		if !ok {
			return nil, fmt.Errorf("the -O%d pipeline produced no LLVM IR", o.level)
		}
		if prog, err = native.Build(string(llvm), fn, dir); err != nil {
			return nil, err
		}
	}
	reps := o.bench
	if reps < 1 {
		reps = 1
	}
	got, timing, err := prog.Run(args, syms, reps)
	if err != nil {
		return nil, fmt.Errorf("compiled @%s: %v", ir.SymbolName(fn), err)
	}
	if o.check {
		d, err := native.Compare(got, ref)
		if err != nil {
			return nil, err
		}
		line, ok := checkLine(d, reorders(o))
		fmt.Fprintln(stdout, line)
		if !ok {
			return nil, fmt.Errorf("compiled code disagrees with the interpreter beyond the tolerance (a relative difference of %g)", checkTolerance)
		}
	}
	if o.bench > 0 {
		bytes := 0
		for _, t := range append(append([]*interp.Tensor(nil), args...), got...) {
			bytes += t.Len() * int(ir.StorageBytes(t.Elem))
		}
		wait, _ := native.WaitPolicy(append(os.Environ(), prog.Env...))
		fmt.Fprint(stdout, benchTable(ir.SymbolName(fn), bytes, buildLine(o, timing, prog.OpenMP(), wait), timing, o.interpTime))
	}
	return got, nil
}

// checkTolerance is the largest relative difference |got - want| / |want|
// between compiled code and the interpreter that --check accepts (math
// functions of the C library and of Go may differ in the last bit).
const checkTolerance = 1e-5

// checkLine is what --check prints, and whether the difference is within
// checkTolerance. Every element counts; the masked ones, compared with the
// 0 they are defined to hold, are said to be among them, so that a count
// smaller than the result's is never read as a complete check.
//
// reorder names the flags that let the compiled code round differently
// from the interpreter (--fp-contract=fast, --fp-reassociate), or is "".
// A fused multiply-add or a reordered sum changes a result by a few
// roundings of the values it combines, which is large relative to a
// result that cancels to near 0: with those flags the difference is
// measured against the larger of the element's magnitude and its
// result's largest (MaxNorm), not against the element's alone.
func checkLine(d native.Diff, reorder string) (line string, ok bool) {
	masked := ""
	if d.Masked > 0 {
		masked = fmt.Sprintf(" (%d masked points compared with 0)", d.Masked)
	}
	if d.Mismatch == 0 {
		if masked != "" {
			masked = fmt.Sprintf(" (%d masked points compared with 0; largest difference 0)", d.Masked)
		} else {
			masked = " (largest difference 0)"
		}
		return fmt.Sprintf("check: compiled code matches the interpreter on all %d elements%s", d.Compared, masked), true
	}
	measure := fmt.Sprintf("relative %.3g", d.MaxRel)
	tolerance := fmt.Sprintf("relative %g", checkTolerance)
	ok = d.MaxRel <= checkTolerance // false for NaN
	if reorder != "" {
		measure += fmt.Sprintf(", %.3g of the result's largest magnitude", d.MaxNorm)
		tolerance = fmt.Sprintf("%g of the result's largest magnitude, for %s", checkTolerance, reorder)
		ok = d.MaxNorm <= checkTolerance
	}
	verdict := "within"
	if !ok {
		verdict = "beyond"
	}
	return fmt.Sprintf("check: %d of %d elements differ%s; largest difference %.3g (%s) at %s: %s the tolerance (%s)",
		d.Mismatch, d.Compared, masked, d.MaxAbs, measure, d.Where, verdict, tolerance), ok
}

// reorders names the options under which compiled results may round
// differently from the interpreter's (checkLine), or "".
func reorders(o *options) string {
	var fs []string
	if o.contract {
		fs = append(fs, "--fp-contract=fast")
	}
	if o.reassociate {
		fs = append(fs, "--fp-reassociate")
	}
	return strings.Join(fs, " ")
}

// compileModule runs the pipeline of the options on the source (native's
// one load-verify-compile sequence). The module is loaded again because the
// passes rewrite it, and fn belongs to the one the interpreter runs.
func compileModule(file, src string, o *options) (*ir.Module, error) {
	p, err := pipeline(o)
	if err != nil {
		return nil, err
	}
	return native.RunPipeline(file, src, p)
}
