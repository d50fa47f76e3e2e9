package mlircorpus

import (
	"bufio"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var (
	corpusDir = flag.String("mlir-corpus", "../testdata/mlir-corpus",
		"directory whose *.mlir files (searched recursively) are measured")
	corpusAll = flag.Bool("mlir-corpus-report", false,
		"log every unit that does not round-trip, with the reason")
)

// TestMLIRCorpus splits the corpus (upstream MLIR 16 test files and a few
// written for tc-opt, see testdata/mlir-corpus/README.md) into functions
// and requires every function mlir-opt 16 accepts to round-trip through
// tc-opt, except those listed in unsupported.txt. It logs the counts per
// file: go test ./test/mlircorpus -run TestMLIRCorpus -v [-mlir-corpus-report].
func TestMLIRCorpus(t *testing.T) {
	opt := MLIROpt()
	if opt == "" {
		t.Skipf("mlir-opt 16 is not installed (%s; make deps, or set MLIR_OPT): the corpus is measured against it", MLIROptPath)
	}
	var files []string
	err := filepath.WalkDir(*corpusDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".mlir") {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("no .mlir files under %s: %v", *corpusDir, err)
	}
	sort.Strings(files)
	known := readUnsupported(t, filepath.Join(*corpusDir, "unsupported.txt"))
	totalAcc, totalSame := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(*corpusDir, f)
		rs := CheckAll(opt, Split(rel, string(src)))
		acc, same := Tally(rs)
		totalAcc += acc
		totalSame += same
		t.Logf("%-24s %3d/%3d functions round-trip (%d units, %d rejected by mlir-opt 16)", rel, same, acc, len(rs), len(rs)-acc)
		for _, r := range rs {
			key := rel + " " + r.Unit.Name
			switch {
			case r.Status == Rejected || r.Status == Same:
				if r.Status == Same && known[key] != "" {
					t.Logf("  %s now round-trips: remove it from unsupported.txt", key)
				}
			case known[key] != "":
				if *corpusAll {
					t.Logf("  %s:%d %s (known: %s): %s", rel, r.Unit.Line, r.Unit.Name, known[key], r.Detail)
				}
			default:
				t.Errorf("%s:%d %s: %s: %s", rel, r.Unit.Line, r.Unit.Name, r.Status, r.Detail)
			}
		}
	}
	t.Logf("TOTAL %d/%d functions accepted by mlir-opt 16 round-trip through tc-opt (%.1f%%)", totalSame, totalAcc, 100*float64(totalSame)/float64(max(totalAcc, 1)))
	if *corpusDir == "../testdata/mlir-corpus" && totalSame*10 < totalAcc*9 {
		t.Errorf("fewer than 90%% of the corpus round-trips")
	}
}

// readUnsupported reads `FILE @name: reason` lines.
func readUnsupported(t *testing.T, path string) map[string]string {
	m := map[string]string{}
	f, err := os.Open(path)
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		key, reason, ok := strings.Cut(l, ": ")
		if !ok {
			t.Fatalf("%s: malformed line %q (want `FILE @name: reason`)", path, l)
		}
		m[key] = reason
	}
	return m
}
