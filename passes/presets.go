package passes

import (
	"fmt"
	"strings"
)

// The -O pipelines, as data: each level is a list of steps built from the
// ones below it, and everything else (the text --dump-pass-pipeline and
// --list-passes print, the parsed pipeline tc-opt runs) is derived from
// the steps. Every pass a preset names must be registered, and the passes
// of passOrder appear in its order: CheckPresets verifies both, and tc-opt
// calls it at start-up, so a misspelt or reordered preset fails every run
// (and TestPresets) instead of being skipped.

// Step is one element of a preset: a pass with its options (as written in
// braces, TargetPlaceholder standing for the target), or a pipeline nested
// on an op (Anchor and Nested).
type Step struct {
	Pass, Options string
	Anchor        string
	Nested        []Step
}

// pass is a step running the named pass with the given options.
func pass(name string, options ...string) Step {
	return Step{Pass: name, Options: strings.Join(options, " ")}
}

// on is a pipeline nested on the ops named anchor.
func on(anchor string, steps ...Step) Step { return Step{Anchor: anchor, Nested: steps} }

// text writes steps in the pipeline syntax.
func text(steps []Step) string {
	parts := make([]string, len(steps))
	for i, s := range steps {
		switch {
		case s.Nested != nil:
			parts[i] = s.Anchor + "(" + text(s.Nested) + ")"
		case s.Options != "":
			parts[i] = s.Pass + "{" + s.Options + "}"
		default:
			parts[i] = s.Pass
		}
	}
	return strings.Join(parts, ",")
}

// recomputeAbove is the size above which the CPU pipelines recompute a
// temporary read through a neighbour table whose points cost loads only
// (tir-temporaries{recompute-above}; docs/decisions.md, nabla).
const recomputeAbove = "recompute-above=8388608"

// presetSteps are the steps of -O<level> for CPU or GPU targets.
func presetSteps(level int, gpu bool) []Step {
	llvm := pass("convert-to-llvm", "target="+TargetPlaceholder)
	if gpu {
		// The loop nests become kernels (gpu-kernel-outlining), which
		// canonicalize and cse tidy, instead of being vectorized.
		// Scatter-adds sweep the table's entries in parallel with atomic
		// adds instead of in one thread.
		lower := pass("convert-tir-to-affine", "scan-columns=false", "atomic-scatters=true")
		if level == 0 {
			return []Step{pass("tir-inline"), lower, pass("gpu-kernel-outlining"), llvm}
		}
		steps := []Step{pass("tir-inline"), pass("canonicalize"), pass("cse"), on(AnchorTIRFunc, pass("tir-temporaries")), lower}
		outline := pass("gpu-kernel-outlining")
		if level >= 2 {
			steps = append(steps, on(AnchorFunc, pass("affine-licm"), pass("affine-scalar-replace")))
			outline = pass("gpu-kernel-outlining", "coarsen=4")
		}
		return append(steps, outline, pass("canonicalize"), pass("cse"), llvm)
	}
	switch level {
	case 0:
		return []Step{pass("tir-inline"), pass("convert-tir-to-affine"), llvm}
	case 1:
		return []Step{pass("tir-inline"), pass("canonicalize"), pass("cse"), on(AnchorTIRFunc, pass("tir-temporaries")),
			pass("convert-tir-to-affine"), pass("cse"), llvm}
	}
	var loops []Step
	if level >= 3 {
		loops = append(loops, pass("affine-contraction-tile"))
	}
	unroll := "factor=1"
	if level >= 3 {
		unroll = "factor=2"
	}
	loops = append(loops, pass("affine-licm"), pass("affine-loop-unswitch"), pass("affine-scalar-replace"),
		pass("affine-vectorize", "width=8", "target="+TargetPlaceholder),
		pass("affine-loop-unroll", unroll, "unroll-full-threshold=8"),
		pass("cse"), pass("sink-masked-updates"))
	return []Step{pass("tir-inline"), pass("canonicalize"), pass("cse"), on(AnchorTIRFunc, pass("tir-temporaries", recomputeAbove)),
		pass("convert-tir-to-affine", "scan-lanes=4", "scan-rows=true", "split-pieces=true"), pass("cse"),
		on(AnchorFunc, loops...), llvm}
}

// OptLevels is the number of -O levels (-O0 to -O3).
const OptLevels = 4

// PresetText is the -O<level> pipeline of CPU (gpu false) or GPU targets
// in the pipeline syntax, with TargetPlaceholder for the target.
func PresetText(level int, gpu bool) string {
	return "builtin.module(" + text(presetSteps(level, gpu)) + ")"
}

// passOrder lists passes that must run in this order in any pipeline that
// holds several of them: inlining before the lowering that cannot lower a
// call, the lowering of tir before the outlining of its loop nests, and
// LLVM emission last.
var passOrder = []string{"tir-inline", "tir-temporaries", "convert-tir-to-affine", "gpu-kernel-outlining", "convert-to-llvm"}

// checkOrder reports a pass of passOrder that p runs after one that must
// follow it.
func checkOrder(p *Pipeline) error {
	last, lastName := -1, ""
	var walk func(p *Pipeline) error
	walk = func(p *Pipeline) error {
		for _, e := range p.Elems {
			if e.Nested != nil {
				if err := walk(e.Nested); err != nil {
					return err
				}
				continue
			}
			for i, name := range passOrder {
				if e.Pass.Name != name {
					continue
				}
				if i < last {
					return fmt.Errorf("pass '%s' runs after '%s', but must come before it", name, lastName)
				}
				last, lastName = i, name
			}
		}
		return nil
	}
	return walk(p)
}

// CheckPresets parses every preset for every target and checks the order
// of its passes: an error names the level, the target and what is wrong.
func CheckPresets() error {
	for level := 0; level < OptLevels; level++ {
		for _, target := range Targets {
			if _, err := OptPipeline(level, target); err != nil {
				return fmt.Errorf("preset -O%d for %s: %v", level, target, err)
			}
		}
	}
	return nil
}
