// Package fuzz holds the fuzz target of the whole tc-opt pipeline
// (FuzzPipeline); the other targets live next to the packages they fuzz
// (dialects/parser, dialects/tc, dialects/sizeexpr, tools/internal/npy).
// `make fuzz` runs them all.
package fuzz

import (
	"bytes"
	"flag"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tir/test/hostile"
	"tir/test/randprog"
	"tir/tools/driver"
	"tir/tools/native"
)

// fuzzing reports whether the test binary runs the fuzzer (-test.fuzz),
// rather than the seed corpus as a unit test.
func fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// llcSample is the share of successful compilations whose LLVM IR goes
// through llc while fuzzing (llc takes 50 ms or more, the pipeline a
// millisecond); llcSeedSample the share when the seed corpus runs as a
// test. The sample is chosen by a hash of the input: a failure reproduces.
const (
	llcSample     = 64
	llcSeedSample = 4
)

func seeds(t testing.TB) (tir, tc []string) {
	read := func(patterns ...string) []string {
		var out []string
		split := regexp.MustCompile(`(?m)^// -----.*$`)
		for _, p := range patterns {
			files, _ := filepath.Glob(p)
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, split.Split(string(b), -1)...)
			}
		}
		return out
	}
	shared := filepath.Join("..", "..", "..", "shared", "examples")
	tir = read(filepath.Join(shared, "*.tir"), filepath.Join("..", "testdata", "*", "*.tir"))
	tc = read(filepath.Join(shared, "*.tc"), filepath.Join("..", "testdata", "tc", "*.tc"))
	// Sizes, offsets and bounds near the ends of int64 (issue 20).
	tir = append(tir, hostile.Seeds("tir")...)
	tc = append(tc, hostile.Seeds("tc")...)
	// Random programs use every op the generator knows.
	for s := int64(1); s <= 16; s++ {
		tir = append(tir, randprog.Generate(s, randprog.DefaultOptions).Text)
	}
	return tir, tc
}

// FuzzPipeline runs tc-opt -O2 (for x86_64, or nvptx64 when gpu is set)
// in-process on mutated programs, .tir or .tc: every outcome is success
// (exit 0) or a diagnosed input error (exit 1 with an error), never an
// internal error (exit 3: a panic, or IR that fails the verifier after a
// pass — --verify-each is on) or a usage error. The LLVM IR of a sample of
// successes (all of them for the seed corpus) must be accepted by llc.
func FuzzPipeline(f *testing.F) {
	tirSeeds, tcSeeds := seeds(f)
	for _, s := range tirSeeds {
		f.Add(s, false, false)
	}
	for _, s := range tirSeeds[:min(len(tirSeeds), 40)] {
		f.Add(s, false, true)
	}
	for _, s := range tcSeeds {
		f.Add(s, true, false)
	}
	llc, llcErr := native.Tool("llc")
	f.Fuzz(func(t *testing.T, src string, tc, gpu bool) {
		// Long inputs are slow for known reasons (issue 10: quadratic
		// time on long chains and deep nesting); the fuzzer looks
		// elsewhere.
		if len(src) > 2048 || strings.Count(src, "(") > 64 {
			t.Skip()
		}
		args := []string{"-O2", "--input-format=tir", "-"}
		if tc {
			args[1] = "--input-format=tc"
		}
		if gpu {
			args = append(args, "--target=nvptx64")
		}
		var out, errb bytes.Buffer
		code := driver.Run(args, strings.NewReader(src), &out, &errb)
		switch code {
		case driver.ExitOK:
		case driver.ExitInput:
			if !strings.Contains(errb.String(), "error:") {
				t.Fatalf("exit 1 without an error message:\n%s", errb.String())
			}
			return
		default:
			t.Fatalf("tc-opt %s exits %d:\n%s", strings.Join(args, " "), code, errb.String())
		}
		if llcErr != nil {
			return
		}
		h := fnv.New32a()
		h.Write([]byte(src))
		if sample := map[bool]uint32{true: llcSample, false: llcSeedSample}[fuzzing()]; h.Sum32()%sample != 0 {
			return
		}
		dir := t.TempDir()
		ll := filepath.Join(dir, "m.ll")
		if err := os.WriteFile(ll, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := []string{"-O2", "-filetype=obj", "-relocation-model=pic", ll, "-o", filepath.Join(dir, "m.o")}
		if gpu {
			cmd = []string{"-O2", "-march=nvptx64", "-mcpu=sm_80", ll, "-o", filepath.Join(dir, "m.ptx")}
		}
		if msg, err := exec.Command(llc, cmd...).CombinedOutput(); err != nil {
			t.Fatalf("tc-opt exits 0 but llc rejects its LLVM IR: %v\n%s", err, msg)
		}
	})
}
