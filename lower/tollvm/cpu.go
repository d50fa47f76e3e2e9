package tollvm

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	ll "github.com/llir/llvm/ir"
)

// A CPU (convert-to-llvm{cpu=...}, tc-opt --mcpu) is written into the
// module as the target-cpu and target-features attributes of every
// function, so that `llc -O3` without flags selects that CPU's
// instructions (AVX2, FMA, AVX-512, SVE) as clang -march does, and the
// module says what it was compiled for.

// cpuNames are LLVM 14's processor names (llc -mcpu=help) per target.
var cpuNames = map[string][]string{
	"x86_64": {"alderlake", "amdfam10", "athlon64", "athlon64-sse3", "atom", "barcelona", "bdver1", "bdver2", "bdver3",
		"bdver4", "bonnell", "broadwell", "btver1", "btver2", "cannonlake", "cascadelake", "cooperlake", "core-avx-i",
		"core-avx2", "core2", "corei7", "corei7-avx", "generic", "goldmont", "goldmont-plus", "haswell",
		"icelake-client", "icelake-server", "ivybridge", "k8", "k8-sse3", "knl", "knm", "nehalem", "nocona", "opteron",
		"opteron-sse3", "penryn", "rocketlake", "sandybridge", "sapphirerapids", "silvermont", "skx", "skylake",
		"skylake-avx512", "slm", "tigerlake", "tremont", "westmere", "x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4",
		"znver1", "znver2", "znver3"},
	"aarch64": {"a64fx", "ampere1", "apple-a10", "apple-a11", "apple-a12", "apple-a13", "apple-a14", "apple-a7",
		"apple-a8", "apple-a9", "apple-latest", "apple-m1", "carmel", "cortex-a34", "cortex-a35", "cortex-a510",
		"cortex-a53", "cortex-a55", "cortex-a57", "cortex-a65", "cortex-a65ae", "cortex-a710", "cortex-a72",
		"cortex-a73", "cortex-a75", "cortex-a76", "cortex-a76ae", "cortex-a77", "cortex-a78", "cortex-a78c",
		"cortex-x1", "cortex-x1c", "cortex-x2", "cyclone", "exynos-m3", "exynos-m4", "exynos-m5", "falkor", "generic",
		"kryo", "neoverse-512tvb", "neoverse-e1", "neoverse-n1", "neoverse-n2", "neoverse-v1", "saphira", "thunderx",
		"thunderx2t99", "thunderx3t110", "thunderxt81", "thunderxt83", "thunderxt88", "tsv110"},
}

// CPUNames lists the processor names --mcpu accepts for a target (besides
// "native").
func CPUNames(target string) []string { return cpuNames[normTarget(target)] }

func normTarget(t string) string {
	if t == "" {
		return "x86_64"
	}
	return t
}

// ResolveCPU turns a --mcpu value into the target-cpu and target-features
// attributes for a target. "" means none (generic code); "native" is the
// machine running tc-opt, read from /proc/cpuinfo: the x86-64 level it
// reaches (x86-64-v2, -v3, -v4) plus its other features, so that code for
// a virtual machine that hides some of its processor's features does not
// use them (a model name alone would imply them all).
func ResolveCPU(target, cpu string) (name, features string, err error) {
	target = normTarget(target)
	if cpu == "" {
		return "", "", nil
	}
	if target == "nvptx64" {
		return "", "", fmt.Errorf("cpu=%s: the GPU's architecture is chosen when ptxas or llc compiles the kernels (-mcpu=sm_80), not here", cpu)
	}
	if cpu != "native" {
		for _, n := range cpuNames[target] {
			if n == cpu {
				return cpu, "", nil
			}
		}
		return "", "", fmt.Errorf("unknown %s CPU '%s' (known: native, %s)", target, cpu, strings.Join(cpuNames[target], ", "))
	}
	host := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	if host != target {
		return "", "", fmt.Errorf("cpu=native describes this machine (%s), not the %s target: name a CPU", runtime.GOARCH, target)
	}
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "", "", fmt.Errorf("cpu=native: cannot read the host's features (%v): name a CPU", err)
	}
	flags := cpuinfoFlags(string(info))
	if target == "aarch64" {
		return "generic", aarch64Features(flags), nil
	}
	name, features = x86Level(flags)
	return name, features, nil
}

// cpuinfoFlags collects the words of the first "flags" (x86) or
// "Features" (arm64) line of /proc/cpuinfo.
func cpuinfoFlags(info string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		if k = strings.TrimSpace(k); k == "flags" || k == "Features" {
			for _, f := range strings.Fields(v) {
				out[f] = true
			}
			break
		}
	}
	return out
}

// x86Features maps /proc/cpuinfo flags to LLVM's x86 feature names.
var x86Features = map[string]string{
	"pni": "sse3", "ssse3": "ssse3", "sse4_1": "sse4.1", "sse4_2": "sse4.2", "popcnt": "popcnt", "cx16": "cx16",
	"lahf_lm": "sahf", "avx": "avx", "avx2": "avx2", "fma": "fma", "f16c": "f16c", "bmi1": "bmi", "bmi2": "bmi2",
	"abm": "lzcnt", "movbe": "movbe", "xsave": "xsave", "avx512f": "avx512f", "avx512bw": "avx512bw",
	"avx512cd": "avx512cd", "avx512dq": "avx512dq", "avx512vl": "avx512vl", "avx512_vnni": "avx512vnni",
	"avx512_bf16": "avx512bf16", "avx512ifma": "avx512ifma", "avx512vbmi": "avx512vbmi", "adx": "adx",
	"aes": "aes", "pclmulqdq": "pclmul", "sha_ni": "sha", "rdrand": "rdrnd", "rdseed": "rdseed", "fsgsbase": "fsgsbase",
}

// x86Levels are the x86-64 micro-architecture levels, highest first, with
// the LLVM features each requires (beyond the previous level's).
var x86Levels = []struct {
	name     string
	requires []string
}{
	{"x86-64-v4", []string{"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}},
	{"x86-64-v3", []string{"avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave"}},
	{"x86-64-v2", []string{"cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3"}},
}

// x86Level picks the highest level whose features (and those of every
// level below it) the host has, and lists the host's other features.
func x86Level(flags map[string]bool) (string, string) {
	has := map[string]bool{}
	for flag, feature := range x86Features {
		if flags[flag] {
			has[feature] = true
		}
	}
	name := "x86-64"
	implied := map[string]bool{}
	for i := len(x86Levels) - 1; i >= 0; i-- {
		ok := true
		for _, f := range x86Levels[i].requires {
			ok = ok && has[f]
		}
		if !ok {
			break
		}
		name = x86Levels[i].name
		for _, f := range x86Levels[i].requires {
			implied[f] = true
		}
	}
	var extra []string
	for f := range has {
		if !implied[f] {
			extra = append(extra, "+"+f)
		}
	}
	sort.Strings(extra)
	return name, strings.Join(extra, ",")
}

func aarch64Features(flags map[string]bool) string {
	var out []string
	for flag, feature := range map[string]string{"asimd": "neon", "sve": "sve", "sve2": "sve2", "asimdhp": "fullfp16", "asimddp": "dotprod", "atomics": "lse"} {
		if flags[flag] {
			out = append(out, "+"+feature)
		}
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// applyCPU writes the attributes on every function the module defines.
func applyCPU(mod *ll.Module, name, features string) {
	if name == "" {
		return
	}
	for _, f := range mod.Funcs {
		if len(f.Blocks) == 0 {
			continue
		}
		f.FuncAttrs = append(f.FuncAttrs, ll.AttrPair{Key: "target-cpu", Value: name})
		if features != "" {
			f.FuncAttrs = append(f.FuncAttrs, ll.AttrPair{Key: "target-features", Value: features})
		}
	}
}

// x86AVX512CPUs and x86AVXCPUs are the LLVM 14 x86 processors with
// AVX-512 (32 registers of 512 bits) and with AVX but not AVX-512 (16 of
// 256 bits); the others have 16 SSE registers of 128 bits.
var (
	x86AVX512CPUs = []string{"cannonlake", "cascadelake", "cooperlake", "icelake-client", "icelake-server", "knl", "knm",
		"rocketlake", "sapphirerapids", "skx", "skylake-avx512", "tigerlake", "x86-64-v4"}
	x86AVXCPUs = []string{"alderlake", "bdver1", "bdver2", "bdver3", "bdver4", "broadwell", "btver2", "core-avx-i",
		"core-avx2", "corei7-avx", "haswell", "ivybridge", "sandybridge", "skylake", "x86-64-v3", "znver1", "znver2", "znver3"}
)

// VectorRegisters returns the width in bits and the number of the vector
// registers that code for a CPU (a --mcpu value, as ResolveCPU takes it)
// can use: affine-contraction-tile sizes its register tile with them.
// Generic x86-64 has 16 SSE registers of 128 bits; AVX gives 256 bits,
// AVX-512 32 registers of 512 bits; AArch64 has 32 NEON registers of 128
// bits (SVE's length is not known at compile time).
func VectorRegisters(target, cpu string) (bits, count int, err error) {
	target = normTarget(target)
	name, features, err := ResolveCPU(target, cpu)
	if err != nil {
		return 0, 0, err
	}
	switch target {
	case "aarch64":
		return 128, 32, nil
	case "nvptx64":
		return 0, 0, fmt.Errorf("nvptx64 has no vector registers to tile for")
	}
	has := func(list []string) bool {
		for _, n := range list {
			if n == name {
				return true
			}
		}
		return false
	}
	switch {
	case has(x86AVX512CPUs) || strings.Contains(","+features+",", ",+avx512f,"):
		return 512, 32, nil
	case has(x86AVXCPUs) || strings.Contains(","+features+",", ",+avx,"):
		return 256, 16, nil
	}
	return 128, 16, nil
}
