package passes

import (
	"fmt"
	"strings"
)

// Targets are the values of --target; DefaultTarget is used when none is
// given.
var Targets = []string{"x86_64", "aarch64", "nvptx64"}

// DefaultTarget is the target of the -O pipelines when --target is absent.
const DefaultTarget = "x86_64"

// TargetPlaceholder stands for the target in the presets' steps.
const TargetPlaceholder = "TARGET"

// GPUTargets are the targets whose code is kernels launched by host code;
// their -O pipelines (GPUOptPipelines) outline the loop nests into
// kernels instead of vectorizing them.
var GPUTargets = []string{"nvptx64"}

// IsGPUTarget reports whether t is a GPU target.
func IsGPUTarget(t string) bool { return contains(GPUTargets, t) }

// ValidTarget reports whether t is a known target.
func ValidTarget(t string) bool { return contains(Targets, t) }

// OptPipelineText returns the -O<level> pipeline text for a target ("" for
// the default target).
func OptPipelineText(level int, target string) (string, error) {
	if level < 0 || level >= OptLevels {
		return "", fmt.Errorf("unknown optimisation level -O%d (valid: -O0 to -O%d)", level, OptLevels-1)
	}
	if target == "" {
		target = DefaultTarget
	}
	if !ValidTarget(target) {
		return "", fmt.Errorf("unknown target '%s' (valid: %s)", target, strings.Join(Targets, ", "))
	}
	return strings.ReplaceAll(PresetText(level, IsGPUTarget(target)), TargetPlaceholder, target), nil
}

// OptPipeline parses the -O<level> pipeline for a target. A pass the
// pipeline needs but nobody registered gives an error naming it.
func OptPipeline(level int, target string) (*Pipeline, error) {
	text, err := OptPipelineText(level, target)
	if err != nil {
		return nil, err
	}
	p, err := ParsePipeline(text)
	if err != nil {
		if pe, ok := err.(*PipelineError); ok && pe.UnknownPass != "" {
			return nil, fmt.Errorf("the -O%d pipeline needs pass '%s', which is not registered (the lowering passes are registered by package tir/lower): %s", level, pe.UnknownPass, text)
		}
		return nil, fmt.Errorf("the -O%d pipeline: %v", level, err)
	}
	if err := checkOrder(p); err != nil {
		return nil, fmt.Errorf("the -O%d pipeline: %v", level, err)
	}
	return p, nil
}

// WithThreads makes a pipeline ending in convert-to-llvm run the outermost
// parallel loops on all cores through GNU OpenMP's runtime: tc-opt's
// --threads, convert-to-llvm{threads=omp}. The lowering then leaves the
// results it would compute in a scatter-add's sequential sweep to
// parallel nests of their own (convert-tir-to-affine{sweep-riders=false}).
func WithThreads(p *Pipeline) error {
	if err := p.SetLLVMOption("--threads", "threads", "omp"); err != nil {
		return err
	}
	if _, err := p.SetOption("convert-tir-to-affine", "sweep-riders", "false"); err != nil {
		return err
	}
	return nil
}

// SetLLVMOption sets an option of the pipeline's convert-to-llvm, for the
// command-line flag that asks for it; a pipeline without convert-to-llvm
// is an error naming the flag.
func (p *Pipeline) SetLLVMOption(flag, name, value string) error {
	n, err := p.SetOption("convert-to-llvm", name, value)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s needs a pipeline that ends in convert-to-llvm", flag)
	}
	return nil
}
