package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower" // registers the conversion passes; LLVMAttr
	"tir/passes"
	"tir/tools/native"
)

// runCompiled compiles the file with the -O2 CPU pipeline (--threads:
// parallel loops through libgomp, which the build then links), llc and gcc,
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
	m, err := compileModule(o.file, src, 2, o.target, o.threads)
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
			return nil, fmt.Errorf("the -O2 pipeline produced no LLVM IR")
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
		line, ok := checkLine(d)
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
		fmt.Fprint(stdout, benchTable(ir.SymbolName(fn), bytes, timing, o.interpTime))
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
func checkLine(d native.Diff) (line string, ok bool) {
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
	ok = d.MaxRel <= checkTolerance // false for NaN
	verdict := "within"
	if !ok {
		verdict = "beyond"
	}
	return fmt.Sprintf("check: %d of %d elements differ%s; largest difference %.3g (relative %.3g) at %s: %s the tolerance (relative %g)",
		d.Mismatch, d.Compared, masked, d.MaxAbs, d.MaxRel, d.Where, verdict, checkTolerance), ok
}

// compileModule is native.CompileModule, except that the warnings of the
// import (loadEntry printed them) do not stop it: a TC import that warns
// about a precondition checked at run time still compiles. The module is
// loaded again because the passes rewrite it, and fn belongs to the one
// the interpreter runs.
func compileModule(file, src string, level int, target string, threads bool) (*ir.Module, error) {
	m, diags := native.Load(file, src)
	if diags.HasErrors() {
		return nil, diags
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		return nil, err
	}
	p, err := passes.OptPipeline(level, target)
	if err != nil {
		return nil, err
	}
	if threads {
		if err := passes.WithThreads(p); err != nil {
			return nil, err
		}
	}
	if err := passes.NewManager(p).Run(m); err != nil {
		var pe interface{ Diagnostics() ir.DiagList }
		if errors.As(err, &pe) {
			return nil, pe.Diagnostics()
		}
		return nil, err
	}
	return m, nil
}
