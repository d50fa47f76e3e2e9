package test

import (
	"strings"
	"testing"

	"tir/passes"
)

// TestPresets: every -O preset, for every target, names registered passes
// only and runs tir-inline, convert-tir-to-affine, gpu-kernel-outlining
// and convert-to-llvm in that order (tc-opt checks the same at start-up).
func TestPresets(t *testing.T) {
	if err := passes.CheckPresets(); err != nil {
		t.Fatal(err)
	}
	for level := 0; level < passes.OptLevels; level++ {
		for _, gpu := range []bool{false, true} {
			if txt := passes.PresetText(level, gpu); strings.Contains(txt, "?") {
				t.Errorf("-O%d (gpu %v) marks a pass optional: %s", level, gpu, txt)
			}
		}
	}
	for _, bad := range []string{
		"convert-to-llvm,convert-tir-to-affine",
		"builtin.module(convert-tir-to-affine,tir-inline)",
		"convert-tir-to-affine,convert-to-llvm,gpu-kernel-outlining",
	} {
		if _, err := passes.ParsePipeline(bad); err == nil || !strings.Contains(err.Error(), "must come before it") {
			t.Errorf("%s: passes out of order accepted (%v)", bad, err)
		}
	}
	if _, err := passes.ParsePipeline("tir-inline,convert-tir-to-affine,gpu-kernel-outlining,convert-to-llvm"); err != nil {
		t.Errorf("the order itself: %v", err)
	}
}
