package test

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/parser"
	"tir/dialects/tir"
	"tir/tools/driver"
	"tir/tools/native"
)

// TestMutatedExamplesNeverCrash changes integer literals of the shared
// examples (bounds, offsets, constants) at random and runs the whole -O2
// pipeline in-process: every outcome must be success or a diagnosed input
// error, never an internal error (exit 3) or a panic.
func TestMutatedExamplesNeverCrash(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "shared", "examples", "*.tir"))
	ops, _ := filepath.Glob(filepath.Join("testdata", "e2e", "*.tir"))
	files = append(files, ops...)
	if len(files) == 0 {
		t.Skip("no inputs")
	}
	num := regexp.MustCompile(`-?\b[0-9]+\b`)
	rng := rand.New(rand.NewSource(1))
	dir := t.TempDir()
	runs, ok, diagnosed := 0, 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		locs := num.FindAllIndex(src, -1)
		for trial := 0; trial < 25; trial++ {
			// Change one literal by -3..+3 (positions are those of the
			// original text, so one change per program keeps them valid).
			l := locs[rng.Intn(len(locs))]
			v, _ := strconv.Atoi(string(src[l[0]:l[1]]))
			mutated := string(src[:l[0]]) + strconv.Itoa(v+rng.Intn(7)-3) + string(src[l[1]:])
			path := filepath.Join(dir, "m.tir")
			if err := os.WriteFile(path, []byte(mutated), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := driver.Run([]string{"-O2", path}, strings.NewReader(""), &out, &errb)
			runs++
			switch code {
			case 0:
				ok++
				// A sample of the programs that compile is also run and
				// compared with the interpreter (a differential fuzzer).
				if ok%12 == 1 && hasToolchain() {
					differential(t, path, mutated)
				}
			case 1:
				diagnosed++
				if !strings.Contains(errb.String(), "error:") {
					t.Errorf("exit 1 without a diagnostic for a mutation of %s:\n%s", f, mutated)
				}
			default:
				t.Fatalf("exit %d for a mutation of %s:\n%s\n--- stderr ---\n%s", code, f, mutated, errb.String())
			}
		}
	}
	t.Logf("%d mutated programs: %d compiled, %d diagnosed", runs, ok, diagnosed)
}

func hasToolchain() bool {
	_, err := native.Tool("llc")
	return err == nil
}

// differential compiles a program without size symbols, runs it on random
// inputs and compares with the interpreter.
func differential(t *testing.T, path, src string) {
	t.Helper()
	m, diags := parser.Parse(path, src)
	if len(diags) > 0 || strings.Contains(src, "?") {
		return // unknown extents need sizes the mutation does not know
	}
	for _, op := range m.Body().Ops {
		if _, ok := tir.FuncType(op); !ok || len(tir.Symbols(op)) > 0 {
			return
		}
	}
	runE2E(t, path, e2eCase{tol: 1e-6})
}
