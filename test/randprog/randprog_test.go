package randprog

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"tir/tools/native"
)

// The differential test: random programs (gen.go) run by the interpreter
// and compiled in every mode (harness.go), compared bit for bit on every
// point, a masked one with the 0 it holds (floats included: the arithmetic
// of spec 2.7 is the same in every mode and the generator uses no math
// library function; reductions and scans run in the order the interpreter
// runs them, see the notes in TestRandomPrograms). `make test` runs a
// fixed sample; `make fuzz` runs RANDPROGS programs from another seed.

var (
	flagN     = flag.Int("randprog.n", 64, "number of random programs")
	flagSeed  = flag.Int64("randprog.seed", 1, "seed of the first program (program k has seed SEED+k)")
	flagBatch = flag.Int("randprog.batch", 32, "programs compiled together as one module")
	flagModes = flag.String("randprog.modes", "", "comma-separated modes to run (default: all of "+modeNames()+")")
	flagKeep  = flag.String("randprog.keep", "", "write each mismatching program (and a minimized one) into this directory")
)

func modeNames() string {
	var n []string
	for _, m := range Modes {
		n = append(n, m.Name)
	}
	return strings.Join(n, ",")
}

func needToolchain(t *testing.T) {
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("needs LLVM 14's llc (make deps): %v", err)
	}
	if _, err := os.Stat("/usr/bin/gcc"); err != nil {
		t.Skip("needs gcc (make deps)")
	}
}

func selectedModes(t *testing.T) []Mode {
	if *flagModes == "" {
		return Modes
	}
	var out []Mode
	for _, name := range strings.Split(*flagModes, ",") {
		found := false
		for _, m := range Modes {
			if m.Name == name {
				out = append(out, m)
				found = true
			}
		}
		if !found {
			t.Fatalf("unknown mode %q (modes: %s)", name, modeNames())
		}
	}
	return out
}

// finding is one disagreement: a program that a mode does not compile,
// crashes on, or computes differently.
type finding struct {
	seed int64
	mode string
	what string
	text string
}

type stats struct {
	mu       sync.Mutex
	compared map[string]int
	elapsed  map[string]time.Duration
	findings []finding
	ops      map[string]int
}

func (s *stats) add(f finding) {
	s.mu.Lock()
	s.findings = append(s.findings, f)
	s.mu.Unlock()
}

// tcEvery: one seed in tcEvery also gives a TC program (GenerateTC, named
// c<seed>), run in the same batch as the tir ones.
const tcEvery = 4

// TestRandomPrograms generates -randprog.n programs (and a TC program for
// every tcEvery-th seed) and compares every mode with the interpreter.
func TestRandomPrograms(t *testing.T) {
	needToolchain(t)
	n := *flagN
	if testing.Short() && n > 32 {
		n = 32
	}
	modes := selectedModes(t)
	st := &stats{compared: map[string]int{}, elapsed: map[string]time.Duration{}, ops: map[string]int{}}
	var batches [][2]int64
	for k := 0; k < n; k += *flagBatch {
		batches = append(batches, [2]int64{*flagSeed + int64(k), *flagSeed + int64(min(k+*flagBatch, n))})
	}
	root := t.TempDir()
	start := time.Now()
	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < max(runtime.GOMAXPROCS(0), 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				runBatch(t, st, modes, filepath.Join(root, fmt.Sprint(i)), batches[i][0], batches[i][1])
			}
		}()
	}
	for i := range batches {
		work <- i
	}
	close(work)
	wg.Wait()
	var summary []string
	for _, m := range modes {
		summary = append(summary, fmt.Sprintf("%s %d (%v)", m.Name, st.compared[m.Name], st.elapsed[m.Name].Round(time.Second)))
	}
	tcs := 0
	for s := *flagSeed; s < *flagSeed+int64(n); s++ {
		if s%tcEvery == 0 {
			tcs++
		}
	}
	t.Logf("%d programs and %d TC programs (seeds %d..%d) in %v; compared with the interpreter: %s", n, tcs, *flagSeed, *flagSeed+int64(n)-1, time.Since(start).Round(time.Second), strings.Join(summary, ", "))
	var kinds []string
	for k, c := range st.ops {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, c))
	}
	sort.Strings(kinds)
	t.Logf("ops generated: %s", strings.Join(kinds, ", "))
	sort.Slice(st.findings, func(i, j int) bool { return st.findings[i].seed < st.findings[j].seed })
	for _, f := range st.findings {
		t.Errorf("seed %d, %s: %s\n%s", f.seed, f.mode, f.what, f.text)
		if *flagKeep != "" {
			keep(t, f)
		}
	}
}

// runBatch generates the programs of seeds [from, to), runs them in every
// mode and records what disagrees.
func runBatch(t *testing.T, st *stats, modes []Mode, dir string, from, to int64) {
	var cases []*Case
	for s := from; s < to; s++ {
		progs := []*Program{Generate(s, DefaultOptions)}
		if s%tcEvery == 0 {
			progs = append(progs, GenerateTC(s))
		}
		for _, p := range progs {
			c, err := NewCase(p)
			if err != nil {
				st.add(finding{seed: s, mode: "interpreter", what: err.Error(), text: p.Text})
				continue
			}
			st.mu.Lock()
			for _, op := range p.Ops {
				st.ops[op]++
			}
			st.mu.Unlock()
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return
	}
	b := &Batch{Cases: cases, Dir: dir}
	for _, m := range modes {
		t0 := time.Now()
		outs, fails, err := b.Run(m)
		st.mu.Lock()
		st.elapsed[m.Name] += time.Since(t0)
		st.mu.Unlock()
		for _, f := range fails {
			st.add(finding{seed: f.Case.P.Seed, mode: m.Name, what: "does not compile: " + f.Err.Error(), text: f.Case.P.Text})
		}
		if err != nil {
			st.add(finding{seed: from, mode: m.Name, what: fmt.Sprintf("batch %d..%d: %v", from, to-1, err)})
			continue
		}
		compared := 0
		for i, o := range outs {
			if o == nil {
				continue
			}
			compared++
			if v := cases[i].Verdict(o); v != "" {
				st.add(finding{seed: cases[i].P.Seed, mode: m.Name, what: v, text: cases[i].P.Text})
			}
		}
		st.mu.Lock()
		st.compared[m.Name] += compared
		st.mu.Unlock()
	}
	os.RemoveAll(dir)
}

// keep writes a finding's program to the -randprog.keep directory.
func keep(t *testing.T, f finding) {
	if err := os.MkdirAll(*flagKeep, 0o755); err != nil {
		t.Log(err)
		return
	}
	name := filepath.Join(*flagKeep, fmt.Sprintf("seed%d_%s.tir", f.seed, f.mode))
	text := fmt.Sprintf("// %s\n%s", strings.ReplaceAll(f.what, "\n", "\n// "), f.text)
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Log(err)
	}
}

var flagMinimize = flag.String("randprog.minimize", "", "SEED:MODE,...: minimize what these programs disagree on and print the results")

// TestMinimize shrinks findings given by -randprog.minimize (a tool for
// turning a finding into a regression test).
func TestMinimize(t *testing.T) {
	if *flagMinimize == "" {
		t.Skip("no -randprog.minimize")
	}
	needToolchain(t)
	for _, item := range strings.Split(*flagMinimize, ",") {
		seed, mode, _ := strings.Cut(item, ":")
		var s int64
		if _, err := fmt.Sscan(seed, &s); err != nil {
			t.Fatalf("bad item %q", item)
		}
		var m *Mode
		for i := range Modes {
			if Modes[i].Name == mode {
				m = &Modes[i]
			}
		}
		if m == nil {
			t.Fatalf("unknown mode %q", mode)
		}
		p := Generate(s, DefaultOptions)
		q, verdict := MinimizeFinding(p, *m, t.TempDir())
		t.Logf("seed %d, %s: %d ops -> %d\n%s", s, mode, len(p.units), len(q.units), q.Repro(*m, verdict))
	}
}
