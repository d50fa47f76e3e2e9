package native

import (
	"errors"
	"fmt"
	"math"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower" // registers the conversion passes; LLVMAttr
	"tir/passes"
)

// Compile runs the default pipeline (-O level, target) on a source file
// and returns the LLVM IR text.
func Compile(file, src string, level int, target string) (string, error) {
	p, err := passes.OptPipeline(level, target)
	if err != nil {
		return "", err
	}
	return CompileWith(file, src, p)
}

// CompileWith runs a pipeline that ends in convert-to-llvm on a source
// file and returns the LLVM IR text.
func CompileWith(file, src string, p *passes.Pipeline) (string, error) {
	m, err := RunPipeline(file, src, p)
	if err != nil {
		return "", err
	}
	text, ok := m.Op.Attr(lower.LLVMAttr).(ir.StringAttr)
	if !ok {
		return "", fmt.Errorf("the pipeline produced no LLVM IR (it must end with convert-to-llvm)")
	}
	return string(text), nil
}

// RunPipeline loads a source file, verifies it and runs a pipeline on it:
// the one load-verify-compile sequence of tc-run, the Python package's
// builds through tc-run, the tests, the bench and the random programs
// (tc-opt's driver adds its flags around the same steps). Warnings of the
// import do not stop it, as they do not stop tc-opt: a TC import that
// warns about a precondition checked at run time still compiles; callers
// that show warnings read them from Load.
func RunPipeline(file, src string, p *passes.Pipeline) (*ir.Module, error) {
	m, diags := Load(file, src)
	if diags.HasErrors() {
		return nil, diags
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		return nil, err
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

// Diff is the comparison of compiled results with the interpreter's.
type Diff struct {
	Compared int     // elements compared: every element of every result
	Masked   int     // of those, the reference's masked points, compared with 0
	MaxAbs   float64 // largest absolute difference
	MaxRel   float64 // largest relative difference (|a-b| / max(|b|, tiny))
	Where    string  // the first element with the largest difference
	Mismatch int     // elements that differ at all
	// MaxNorm is the largest difference relative to the larger of the
	// element's magnitude and the largest magnitude of its result: the
	// measure for code that may round differently (fused multiply-adds,
	// reordered sums), whose error follows the size of the values
	// combined, not that of a result that cancels to near 0.
	MaxNorm float64
}

// Compare compares results element by element against the reference,
// every element: a point the reference masks must hold 0, the value a
// masked point of a result is defined to have (docs/tir.md), whatever the
// reference's data holds there.
func Compare(got, want []*interp.Tensor) (Diff, error) {
	var d Diff
	if len(got) != len(want) {
		return d, fmt.Errorf("%d results, expected %d", len(got), len(want))
	}
	for r := range want {
		g, w := got[r], want[r]
		if g.Len() != w.Len() {
			return d, fmt.Errorf("result #%d has %d elements, expected %d", r, g.Len(), w.Len())
		}
		scale := 0.0 // the largest finite magnitude of the result
		for i := 0; i < w.Len(); i++ {
			v := 0.0
			switch {
			case w.Masked(i):
			case w.F64 != nil:
				v = w.F64[i]
			default:
				v = float64(w.I64[i])
			}
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				scale = math.Max(scale, math.Abs(v))
			}
		}
		for i := 0; i < w.Len(); i++ {
			d.Compared++
			var a, b float64
			if w.F64 != nil {
				a, b = g.F64[i], w.F64[i]
			} else {
				a, b = float64(g.I64[i]), float64(w.I64[i])
			}
			if w.Masked(i) {
				d.Masked++
				b = 0
			}
			if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
				continue
			}
			d.Mismatch++
			abs := math.Abs(a - b)
			rel := abs / math.Max(math.Abs(b), 1e-300)
			if abs > d.MaxAbs || math.IsNaN(abs) {
				d.MaxAbs, d.Where = abs, fmt.Sprintf("result #%d element %d: got %v, want %v", r, i, a, b)
			}
			d.MaxRel = math.Max(d.MaxRel, rel)
			d.MaxNorm = math.Max(d.MaxNorm, abs/math.Max(math.Max(math.Abs(b), scale), 1e-300))
		}
	}
	return d, nil
}
