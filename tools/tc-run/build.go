package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"tir/lower"
	"tir/lower/tollvm"
	"tir/passes"
)

// buildFlags reads the flags that choose how the compiled code is built
// (-O, --mcpu, --fp-contract, --fp-reassociate) into o and checks them.
// The code runs on this machine, so unlike tc-opt, whose output may go
// anywhere, the CPU defaults to native; --mcpu=generic builds what tc-opt
// builds without --mcpu.
func buildFlags(c *cli.Context, o *options) error {
	o.level = 2
	var levels []string
	for l := 0; l <= 3; l++ {
		if name := fmt.Sprintf("O%d", l); c.Bool(name) {
			levels = append(levels, "-"+name)
			o.level = l
		}
	}
	if len(levels) > 1 {
		return usagef("%s cannot be combined: give one optimisation level", strings.Join(levels, " and "))
	}
	switch fc := c.String("fp-contract"); fc {
	case "off":
	case "fast":
		o.contract = true
	default:
		return usagef("--fp-contract=%s: expected off or fast", fc)
	}
	o.reassociate = c.Bool("fp-reassociate")
	if o.interp {
		for _, f := range []string{"O0", "O1", "O2", "O3", "mcpu", "fp-contract", "fp-reassociate", "threads"} {
			if c.IsSet(f) {
				dashes := "--"
				if f[0] == 'O' {
					dashes = "-"
				}
				return usagef("%s%s sets how the compiled code is built; --interp runs the interpreter only", dashes, f)
			}
		}
	}
	o.mcpu = c.String("mcpu")
	if o.target == "nvptx64" {
		if c.IsSet("mcpu") {
			return usagef("--mcpu applies to the CPU target (x86_64); the GPU build targets sm_80")
		}
		o.mcpu = ""
		return nil
	}
	if o.mcpu == "" {
		return usagef("--mcpu needs a CPU: native, generic or an LLVM processor name")
	}
	if _, _, err := tollvm.ResolveCPU(o.target, o.mcpu); err != nil {
		return usagef("--mcpu=%s: %v", o.mcpu, err)
	}
	return nil
}

// pipeline is the -O pipeline for the options, with tc-opt's --mcpu,
// --fp-contract, --fp-reassociate and --threads applied.
func pipeline(o *options) (*passes.Pipeline, error) {
	p, err := passes.OptPipeline(o.level, o.target)
	if err != nil {
		return nil, err
	}
	if o.mcpu != "" {
		if err := lower.WithCPU(p, o.target, o.mcpu); err != nil {
			return nil, err
		}
	}
	if o.contract {
		if err := lower.WithContract(p); err != nil {
			return nil, err
		}
	}
	if o.reassociate {
		if err := lower.WithReassociate(p); err != nil {
			return nil, err
		}
	}
	if o.threads {
		if err := passes.WithThreads(p); err != nil {
			return nil, err
		}
	}
	if o.derivatives {
		// The derivative functions first, as loadEntry made them for the
		// interpreter.
		q := passes.NewPipeline(passes.AnchorModule)
		if err := q.AddPass("tir-derivatives", ""); err != nil {
			return nil, err
		}
		q.Elems = append(q.Elems, p.Elems...)
		p = q
	}
	return p, nil
}

// isa describes the instruction set the code was built for, for --bench:
// the CPU name tc-opt wrote into the code and the vector extension that
// matters for its speed.
func isa(o *options) string {
	if o.target == "nvptx64" {
		if o.emulate {
			return "nvptx64 (sm_80, emulated on the CPU)"
		}
		return "nvptx64 (sm_80)"
	}
	name, features, err := tollvm.ResolveCPU(o.target, o.mcpu)
	if err != nil || name == "" {
		return o.mcpu
	}
	bits, _, err := tollvm.VectorRegisters(o.target, o.mcpu)
	vec := "SSE2"
	feats := "," + features + ","
	switch {
	case err != nil:
		vec = "?"
	case bits == 512:
		vec = "AVX-512"
	case bits == 256 && (avx2CPUs[name] || strings.Contains(feats, ",+avx2,")):
		vec = "AVX2"
	case bits == 256:
		vec = "AVX"
	}
	if strings.Contains(feats, ",+fma,") || fmaCPUs[name] || avx2CPUs[name] || bits == 512 {
		vec += ", FMA"
	}
	if o.mcpu == "native" {
		return fmt.Sprintf("%s (native: %s)", name, vec)
	}
	return fmt.Sprintf("%s (%s)", name, vec)
}

// avx2CPUs are the LLVM 14 x86 processors with 256-bit AVX2 (and FMA),
// fmaCPUs those with FMA and 256-bit AVX but not AVX2; every AVX-512 one
// has FMA.
var (
	avx2CPUs = map[string]bool{"x86-64-v3": true, "core-avx2": true, "haswell": true, "broadwell": true, "skylake": true,
		"alderlake": true, "znver1": true, "znver2": true, "znver3": true, "bdver4": true}
	fmaCPUs = map[string]bool{"bdver2": true, "bdver3": true}
)
