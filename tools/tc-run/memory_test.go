package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"tir/tools/internal/memory"
)

// TestRefusesBeyondMemory: sizes whose arrays cannot fit in memory are
// refused with a message (exit 1) before anything is allocated, whether
// they come from size symbols (generated arguments, results) or from a
// .npy file (a sparse 1 TiB file); sizes that fit run.
func TestRefusesBeyondMemory(t *testing.T) {
	if _, ok := memory.Available(); !ok {
		t.Skip("the available memory is unknown here (not Linux): nothing is refused")
	}
	lap := example(t, "laplacian_symbolic.tir")
	nabla := example(t, "nabla.tir")
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.npy")
	header := npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1048576, 1048576), }")
	if err := os.WriteFile(huge, header, 0o644); err != nil {
		t.Fatal(err)
	}
	sparse := true
	if err := os.Truncate(huge, int64(len(header))+1<<43); err != nil {
		sparse = false // the file stays truncated: refused as such
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{lap, "--arg", "N=1000000", "--arg", "M=1000000", "--random", "1", "--interp"},
			"tc-run: error: the arguments and results of @laplacian (M = 1000000, N = 1000000) need 43.7 TiB, more than the "},
		{[]string{lap, "--arg", "N=1000000", "--arg", "M=1000000", "--random", "1"},
			"need 43.7 TiB, more than the "},
		{[]string{nabla, "--arg", "NV=9223372036854775807", "--arg", "NE=5", "--random", "1"},
			"tc-run: error: the arguments and results of @nabla (NE = 5, NV = 9223372036854775807) need "},
		{[]string{lap, "--arg", "inp=" + huge, "--interp"}, map[bool]string{
			true:  "tc-run: error: argument 'inp' (" + huge + "): npy: shape [1048576 1048576] of float64 needs 24.0 TiB to read, more than the ",
			false: "truncated data"}[sparse]},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		code, _, stderr := runTool(c.args...)
		runtime.ReadMemStats(&after)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and %q", c.args[1:], code, stderr, c.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<28 {
			t.Errorf("%v: refusing allocated %d MiB", c.args[1:], grew>>20)
		}
	}
	// Within memory, the same program runs.
	if code, _, stderr := runTool(lap, "--arg", "N=64", "--arg", "M=48", "--random", "1", "--interp"); code != 0 {
		t.Errorf("N = 64, M = 48: exit %d: %s", code, stderr)
	}
}

// npyHeader is a version 1.0 .npy header (magic, version, length, dict
// padded to 64 bytes) without data.
func npyHeader(dict string) []byte {
	n := 10 + len(dict) + 1
	pad := (64 - n%64) % 64
	h := dict + strings.Repeat(" ", pad) + "\n"
	return append([]byte{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, byte(len(h)), byte(len(h) >> 8)}, h...)
}
