package tollvm

import (
	"fmt"
	"sort"
	"strings"
)

// targetDesc collects everything that differs between code generation
// targets, so that the lowering itself asks questions ("which address space
// do buffers live in?", "does the backend select llvm.maximum?") instead of
// testing target names.
type targetDesc struct {
	// Name is the Options.Target spelling.
	Name string
	// Triple and DataLayout are written into the module: without them
	// LLVM's cost models assume a generic target and refuse to vectorize.
	Triple     string
	DataLayout string
	// GlobalAddrSpace is the address space of buffer pointers (1 on
	// NVPTX, where kernel arguments point to global memory).
	GlobalAddrSpace uint64
	// Kernels is true for GPU targets: outer parallel loop nests become
	// kernels marked in !nvvm.annotations instead of CPU loops.
	Kernels bool
	// HasFMaximum tells whether the backend selects llvm.maximum and
	// llvm.minimum (NaN-propagating max/min, MLIR's arith.maxf semantics).
	// LLVM 14's x86 backend does not ("Cannot select: fmaximum"), so there
	// we expand them into compares and selects.
	HasFMaximum bool
	// FMaximumF32Only limits HasFMaximum to f32 (and narrower): PTX's
	// max.NaN and min.NaN take f32 and f16 only, but LLVM 14's NVPTX
	// backend selects llvm.maximum.f64 as max.NaN.f64, which ptxas
	// refuses ("Illegal modifier '.NaN'").
	FMaximumF32Only bool
	// Emulated is true for GPU kernels emitted for the host CPU, for the
	// tests' CUDA driver emulator (Options.Emulate).
	Emulated bool
}

var targets = map[string]*targetDesc{
	"x86_64": {
		Name:       "x86_64",
		Triple:     "x86_64-unknown-linux-gnu",
		DataLayout: "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128",
	},
	"aarch64": {
		Name:        "aarch64",
		Triple:      "aarch64-unknown-linux-gnu",
		DataLayout:  "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128",
		HasFMaximum: true,
	},
	"nvptx64": {
		Name:            "nvptx64",
		Triple:          "nvptx64-nvidia-cuda",
		DataLayout:      "e-i64:64-i128:128-v16:16-v32:32-n16:32:64",
		GlobalAddrSpace: 1,
		Kernels:         true,
		HasFMaximum:     true,
		FMaximumF32Only: true,
	},
}

// lookupTarget resolves Options.Target ("" means x86_64); emulate selects
// the host emulation of a GPU target's kernels.
func lookupTarget(name string, emulate bool) (*targetDesc, error) {
	if name == "" {
		name = "x86_64"
	}
	t, ok := targets[name]
	if !ok {
		names := make([]string, 0, len(targets))
		for n := range targets {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown target %q (expected one of %s)", name, strings.Join(names, ", "))
	}
	if emulate {
		if !t.Kernels {
			return nil, fmt.Errorf("emulate applies to GPU targets (nvptx64), not %s", name)
		}
		host := *targets["x86_64"]
		host.Name = name + " (emulated on x86_64)"
		host.Kernels, host.Emulated = true, true
		return &host, nil
	}
	return t, nil
}
