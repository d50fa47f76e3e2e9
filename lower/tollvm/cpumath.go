package tollvm

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/mathd"
	"tir/passes/mathexpand"
)

// Math functions on CPU targets (Options.Math).
//
// llc turns llvm.exp, llvm.log, llvm.sin, llvm.pow and the libm functions
// of mathOps (tanhf, erff, ...) into calls of the C library's scalar
// functions, one call per lane for a vector: a vectorized softmax spends
// its time in eight expf calls per vector. expand-math's expansions are
// bit manipulation, fma and selects (docs/gpu-math.md), which a CPU with
// FMA instructions computes in its vector registers. Without FMA
// instructions llc calls fmaf for every llvm.fma, slower than the libm
// function it replaces: there only exp is expanded, by its variant
// without fma (what softmax, sigmoid and the like are made of), and the
// other functions stay calls.
//
// Scalar ops are expanded as well as vector ones: a vectorized loop's
// scalar remainder then computes an element exactly as the vector body
// would, so a result does not depend on where its element lies
// (alignment, the length of a row). The functions llc selects
// natively (sqrt, fma, floor, roundeven, ...) are never expanded.

// MathModes are the values of Options.Math (convert-to-llvm{math=...}).
var MathModes = []string{"auto", "expand", "libm", "libdevice"}

// x86FMACPUs are the LLVM 14 x86 processors with FMA3 instructions
// (bdver1 has only AMD's FMA4, which llc does not use for llvm.fma).
var x86FMACPUs = []string{"alderlake", "bdver2", "bdver3", "bdver4", "broadwell", "cannonlake", "cascadelake",
	"cooperlake", "core-avx2", "haswell", "icelake-client", "icelake-server", "knl", "knm", "rocketlake",
	"sapphirerapids", "skx", "skylake", "skylake-avx512", "tigerlake", "x86-64-v3", "x86-64-v4", "znver1",
	"znver2", "znver3"}

// HasFMA reports whether code for the CPU (a --mcpu value as ResolveCPU
// takes it; "" is the target's generic processor) has fused multiply-add
// instructions: every AArch64 processor, and x86-64 from x86-64-v3 (or a
// native CPU reporting fma).
func HasFMA(target, cpu string) (bool, error) {
	target = normTarget(target)
	name, features, err := ResolveCPU(target, cpu)
	if err != nil {
		return false, err
	}
	switch target {
	case "aarch64":
		return true, nil
	case "x86_64":
		for _, n := range x86FMACPUs {
			if n == name {
				return true, nil
			}
		}
		return strings.Contains(","+features+",", ",+fma,"), nil
	}
	return false, nil
}

// ExpandsCPUMath reports how CPU code built with the math mode and the
// CPU computes exp, log, sin, ...: with expand-math's expansions (expand:
// "auto" on a CPU with FMA, or "expand"), with only exp expanded without
// fma ("auto" elsewhere: noFMA), or with libm calls ("libm").
func ExpandsCPUMath(target, mode, cpu string) (expand, noFMA bool, err error) {
	switch mode {
	case "", "auto":
		fma, err := HasFMA(target, cpu)
		return true, !fma, err
	case "expand":
		return true, false, nil
	case "libm":
		return false, false, nil
	}
	return false, false, fmt.Errorf("math=%s applies to nvptx64 (CPU targets take auto, expand or libm)", mode)
}

// cpuExpanded tells the ops expanded on CPU targets: every op expand-math
// knows but roundeven, which x86 with SSE4.1 (every CPU with FMA) and
// AArch64 select as one instruction.
func cpuExpanded(name string) bool { return name != mathd.RoundEven.Name }

// expandCPUMath returns m, or a copy of it whose math ops are expanded
// when they are to be (emitting leaves the caller's module as it was).
func expandCPUMath(m *ir.Module, opts Options) (*ir.Module, error) {
	expand, noFMA, err := ExpandsCPUMath(opts.Target, opts.Math, opts.CPU)
	if err != nil || !expand {
		return m, err
	}
	expandable := map[string]bool{}
	for _, n := range mathexpand.Ops() {
		expandable[n] = cpuExpanded(n)
	}
	if noFMA {
		expandable = map[string]bool{}
		for _, n := range mathexpand.NoFMAOps() {
			expandable[n] = true
		}
	}
	found := false
	m.Op.Walk(func(op *ir.Operation) bool {
		found = found || expandable[op.Name]
		return !found
	})
	if !found {
		return m, nil
	}
	c := *m
	c.Op = m.Op.Clone(map[*ir.Value]*ir.Value{})
	if err := mathexpand.ExpandWith(c.Op, mathexpand.Options{Keep: cpuExpanded, NoFMA: noFMA}); err != nil {
		return nil, err
	}
	return &c, nil
}
