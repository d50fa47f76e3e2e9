// Command bench times the kernels of kernels/ compiled by tc-opt against
// hand-written C (gcc) and against upstream MLIR 16's lowering of our
// affine output, after checking every variant against the reference
// interpreter. `make bench` runs it; -write also writes RESULTS.md.
//
//	go run ./test/bench [-write] [-smoke] [-min-time 200ms] [-rounds 3] [-only classic,ml,families,derivatives] [-kernels lap3d_f32,hdiff] [-keep] [-v]
package main

import (
	"embed"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"time"
)

//go:embed kernels/*.tir kernels/*.tc ref/*.c ref/*.h ref/*.py
var sources embed.FS

type config struct {
	smoke   bool          // check sizes only, one call per variant, no timing
	minTime time.Duration // timed calls per variant fill at least this
	maxReps int64
	only    map[string]bool // kernels to run (all when empty)
	suites  map[string]bool // classic, ml, families, derivatives (all when empty)
	tiers   []tier          // size classes timed
	keep    bool            // keep the work directory
	verbose bool            // print every build command and its output
	threads int             // OMP_NUM_THREADS of the threaded variants (0: all CPUs)
	rounds  int             // times every variant of a row is timed, the rows' variants taking turns
	log     io.Writer       // progress and build logs
}

// cell is one variant of one kernel at one size.
type cell struct {
	// absent: the variant does not exist for this kernel (the BLAS
	// variants of a kernel without a BLAS reference); it is not reported.
	absent bool
	na     string  // why the variant was not built or run (n/a)
	wrong  string  // the variant ran but its results are wrong
	ns     int64   // median time of one call (the lowest of the rounds' medians)
	min    int64   // the fastest call
	rss    int64   // the driver's peak resident memory in bytes (the largest of the rounds')
	reps   int64   // timed calls, all rounds
	check  verdict // comparison with the interpreter
	core   string  // the OpenBLAS kernel (BLAS variants)
}

// A tier is a class of sizes timed.
type tier struct {
	name  string
	sizes func(*kernel) map[string]int64
	seed  int64
}

var tiers = []tier{
	{"L3", func(k *kernel) map[string]int64 { return k.l3 }, 2},
	{"DRAM", func(k *kernel) map[string]int64 { return k.dram }, 3},
}

type kernelResult struct {
	k     *kernel
	b     *build
	err   error // the kernel could not be built or checked at all
	check row   // the check size
	rows  []*row
	// forward: the kernel is in the run only as the f of the derivatives
	// table (an adjoint was selected, the kernel itself was not): ours
	// alone is timed, and the other tables leave it out.
	forward bool
}

// row is one size of one kernel.
type row struct {
	tier  string
	size  string
	syms  map[string]int64
	bytes int64
	ds    *dataset
	cells [numVariants]cell
	// skip says why the row was not timed (no reference to check it).
	skip string
}

// tolerance is the relative difference allowed: the variants compute the
// same operations in the same order, so they are expected to be bitwise
// equal; the tolerance only covers a reassociating compiler.
func tolerance(b *build) float64 {
	for _, p := range b.params {
		if p.out && p.ctype == "float" {
			return 1e-5
		}
	}
	return 1e-12
}

func main() {
	var cfg config
	write := flag.Bool("write", false, "also write the table as Markdown to test/bench/RESULTS.md")
	out := flag.String("out", "", "the Markdown file -write writes (default: RESULTS.md next to this program's sources)")
	flag.BoolVar(&cfg.smoke, "smoke", false, "small sizes, one call per variant, correctness checks only")
	flag.DurationVar(&cfg.minTime, "min-time", 200*time.Millisecond, "timed calls of each variant last at least this long in all")
	flag.Int64Var(&cfg.maxReps, "max-reps", 100000, "at most this many timed calls per variant")
	only := flag.String("kernels", "", "comma-separated kernels to run (default: all)")
	suites := flag.String("only", "", "comma-separated parts to run: classic (the bandwidth kernels and matmul), ml (against NumPy and OpenBLAS), families (equivalent formulations), derivatives (each kernel's @f_vjp against @f and hand-written C adjoints) (default: all)")
	sizes := flag.String("sizes", "l3,dram", "comma-separated size classes to time: l3 (8-13 MB), dram (75-111 MB; the tridiagonal solvers 210 MB)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the work directory (sources, objects, drivers, data)")
	flag.BoolVar(&cfg.verbose, "v", false, "print the build commands and their output")
	flag.IntVar(&cfg.threads, "threads", runtime.NumCPU(), "OMP_NUM_THREADS of the threaded variants (ours threads, gcc omp)")
	flag.IntVar(&cfg.rounds, "rounds", 3, "time the variants of each size this many times in turn, and keep each variant's lowest median")
	flag.Parse()
	cfg.log = os.Stderr
	debug.SetGCPercent(50) // the interpreter's intermediates at the DRAM sizes are large
	for _, t := range strings.Split(*sizes, ",") {
		found := false
		for _, tr := range tiers {
			if strings.EqualFold(tr.name, strings.TrimSpace(t)) {
				cfg.tiers, found = append(cfg.tiers, tr), true
			}
		}
		if !found {
			fmt.Fprintf(os.Stderr, "bench: unknown size class %q (l3, dram)\n", t)
			os.Exit(2)
		}
	}
	if cfg.rounds < 1 {
		fmt.Fprintf(os.Stderr, "bench: -rounds %d: at least 1\n", cfg.rounds)
		os.Exit(2)
	}
	if *only != "" {
		cfg.only = map[string]bool{}
		for _, k := range strings.Split(*only, ",") {
			cfg.only[strings.TrimSpace(k)] = true
		}
	}
	if *suites != "" {
		cfg.suites = map[string]bool{}
		for _, p := range strings.Split(*suites, ",") {
			p = strings.TrimSpace(p)
			if p != "classic" && p != "ml" && p != "families" && p != "derivatives" {
				fmt.Fprintf(os.Stderr, "bench: -only %s: the parts are classic, ml, families and derivatives\n", p)
				os.Exit(2)
			}
			cfg.suites[p] = true
		}
	}
	// RESULTS.md holds every table; a partial run would drop the others.
	if *write && *out == "" && (cfg.only != nil || cfg.suites != nil || cfg.smoke || len(cfg.tiers) < len(tiers)) {
		fmt.Fprintln(os.Stderr, "bench: -write rewrites RESULTS.md, which holds a full run: with -kernels, -only, -sizes or -smoke, give -out FILE")
		os.Exit(2)
	}
	rep, err := runAll(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
	md := rep.markdown()
	fmt.Print(md)
	if *write {
		path := *out
		if path == "" {
			path = filepath.Join(sourceDir(), "RESULTS.md")
		}
		if err := os.WriteFile(path, []byte(md), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "wrote", path)
	}
	if bad := rep.failures(); len(bad) > 0 {
		fmt.Fprintln(os.Stderr, "bench: FAILED:\n  "+strings.Join(bad, "\n  "))
		os.Exit(1)
	}
}

// sourceDir is test/bench (where this file was compiled from), or the
// working directory's test/bench when the path is not available.
func sourceDir() string {
	if _, file, _, ok := runtime.Caller(0); ok {
		if _, err := os.Stat(file); err == nil {
			return filepath.Dir(file)
		}
	}
	return filepath.Join("test", "bench")
}

// runAll builds and checks every kernel (concurrently), then times them
// one at a time.
func runAll(cfg config) (*report, error) {
	if cfg.threads < 1 {
		cfg.threads = runtime.NumCPU()
	}
	tools := findTools()
	if tools.llcErr != nil {
		return nil, tools.llcErr
	}
	if tools.gccErr != nil {
		return nil, tools.gccErr
	}
	work, err := os.MkdirTemp("", "tir-bench-")
	if err != nil {
		return nil, err
	}
	if cfg.keep {
		fmt.Fprintln(cfg.log, "work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	if err := tools.buildRSSWrap(work); err != nil {
		return nil, err
	}
	rep := &report{machine: machineInfo(tools), cfg: cfg, tools: tools, loadStart: loadAverage()}
	defer func() { rep.loadEnd = loadAverage() }()
	for i := range allKernels {
		if cfg.selects(&allKernels[i]) {
			rep.results = append(rep.results, &kernelResult{k: &allKernels[i]})
		}
	}
	if len(rep.results) == 0 {
		return nil, fmt.Errorf("no kernel selected")
	}
	// An adjoint is timed against its f: add the f of every adjoint
	// selected alone.
	for _, r := range rep.results {
		if r.k.of != "" && rep.result(r.k.of) == nil {
			for i := range allKernels {
				if allKernels[i].name == r.k.of {
					rep.results = append(rep.results, &kernelResult{k: &allKernels[i], forward: true})
				}
			}
		}
	}

	// Build, check at the small size and prepare the timed inputs (the
	// interpreter's results included), NumCPU kernels at a time.
	var wg sync.WaitGroup
	var mu sync.Mutex
	sem := make(chan struct{}, runtime.NumCPU())
	for _, r := range rep.results {
		wg.Add(1)
		go func(r *kernelResult) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			r.err = r.prepare(cfg, tools, work)
			mu.Lock()
			defer mu.Unlock()
			if cfg.verbose && r.b != nil {
				fmt.Fprint(cfg.log, r.b.log.String())
			}
			status := "ok"
			if r.err != nil {
				status = r.err.Error()
			}
			fmt.Fprintf(cfg.log, "%-10s built, checked and prepared in %.1fs: %s\n", r.k.name, time.Since(start).Seconds(), status)
		}(r)
	}
	wg.Wait()

	// Time, one variant at a time, nothing else running. The machine's
	// speed drifts (other tenants, frequency) over seconds to minutes,
	// longer than one variant's timed calls: a single pass can put one
	// variant in a slow spell and the next in a quick one. So the variants
	// of a size take turns, rounds times, and each keeps its lowest
	// median: the time it takes when the machine is not busy elsewhere.
	// An adjoint and its f take turns too (same size, same round), so
	// that the ratio of their times compares like with like.
	for _, group := range rep.timingGroups() {
		for _, t := range cfg.tiers {
			var rows []*row
			var rs []*kernelResult
			for _, r := range group {
				if w := r.row(t.name); w != nil && r.err == nil && w.skip == "" {
					rows, rs = append(rows, w), append(rs, r)
				}
			}
			for round := 0; round < cfg.rounds; round++ {
				for i, r := range rs {
					for v := 0; v < numVariants; v++ {
						if !r.forward || v == vOurs {
							r.time(cfg, rows[i], v, round)
						}
					}
				}
			}
			for _, w := range rows {
				w.ds = nil // the interpreter's results are no longer needed
			}
		}
	}
	return rep, nil
}

// result is the kernel named name in the run, or nil.
func (rep *report) result(name string) *kernelResult {
	for _, r := range rep.results {
		if r.k.name == name {
			return r
		}
	}
	return nil
}

// row is the timed size of the size class tier, or nil.
func (r *kernelResult) row(tier string) *row {
	for _, w := range r.rows {
		if w.tier == tier {
			return w
		}
	}
	return nil
}

// timingGroups are the kernels timed together: each kernel alone, but an
// adjoint with its f (in the place of the f).
func (rep *report) timingGroups() [][]*kernelResult {
	var groups [][]*kernelResult
	at := map[string]int{}
	for _, r := range rep.results {
		if r.k.of == "" {
			at[r.k.name] = len(groups)
			groups = append(groups, []*kernelResult{r})
		}
	}
	for _, r := range rep.results {
		if r.k.of == "" {
			continue
		}
		if i, ok := at[r.k.of]; ok {
			groups[i] = append(groups[i], r)
		} else {
			groups = append(groups, []*kernelResult{r})
		}
	}
	return groups
}

// selects reports whether the run includes k (-kernels, -only).
func (cfg *config) selects(k *kernel) bool {
	if cfg.only != nil && !cfg.only[k.name] {
		return false
	}
	if cfg.suites == nil {
		return true
	}
	return (k.classic() && cfg.suites["classic"]) || (k.ml && cfg.suites["ml"]) || (k.family != "" && k.of == "" && cfg.suites["families"]) ||
		(k.of != "" && cfg.suites["derivatives"])
}

// longCall is the time of one call above which a variant is timed in the
// first round only: its calls already span seconds of the machine's
// drift, and the upstream MLIR variants of the matrix product (5 to 50 s
// a call) would triple the run for nothing.
const longCall = 2 * time.Second

// time runs variant v of row w once more (round: 0 for the first time),
// checks its results, and keeps the lower median and the fastest call.
func (r *kernelResult) time(cfg config, w *row, v, round int) {
	c := &w.cells[v]
	if c.absent || c.na != "" || c.wrong != "" || !r.k.timed(v) {
		return
	}
	if round > 0 && c.ns > longCall.Nanoseconds() {
		return
	}
	minReps := r.k.minReps
	if minReps == 0 {
		minReps = 5
	}
	t, err := r.b.run(v, w.ds, cfg.minTime.Nanoseconds(), minReps, cfg.maxReps)
	if err != nil {
		c.na = "failed at the " + w.tier + " size: " + err.Error()
		return
	}
	if err := checkCore(v, t.core); err != nil {
		c.na = err.Error()
		return
	}
	if round == 0 || t.ns < c.ns {
		c.ns, c.core = t.ns, t.core
	}
	if round == 0 || t.min < c.min {
		c.min = t.min
	}
	c.rss = max(c.rss, t.rss)
	c.reps += t.reps
	if c.check, err = compare(t.outs, w.ds.want, w.ds.mask); err != nil {
		c.wrong = err.Error()
	} else if !r.acceptable(v, c.check, w.ds.approx) {
		c.wrong = fmt.Sprintf("at the %s size: %v (%s)", w.tier, c.check, c.check.where)
	}
	fmt.Fprintf(cfg.log, "%-10s %-4s %-18s %9.3f ms  x%d  (round %d)\n", r.k.name, w.tier, variantTitles[v], float64(t.ns)/1e6, t.reps, round+1)
}

var bigPrepare sync.Mutex

// prepare builds every variant, checks each against the interpreter at
// the kernel's check size, and prepares the inputs of every size timed.
func (r *kernelResult) prepare(cfg config, tools toolset, work string) error {
	dir := filepath.Join(work, r.k.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := compileKernel(r.k, tools, dir)
	r.b = b
	if err != nil {
		return err
	}
	b.threads = cfg.threads
	ds, err := prepare(b, r.k.check, "check", 1, true)
	if err != nil {
		return err
	}
	r.check = row{tier: "check", size: sizeText(r.k.check, b.syms), syms: r.k.check, bytes: ds.bytes}
	for v := 0; v < numVariants; v++ {
		c := &r.check.cells[v]
		if b.failed[v] == errAbsent {
			c.absent = true
			continue
		}
		if b.failed[v] != nil {
			c.na = b.failed[v].Error()
			continue
		}
		if v == vBLASForced && r.check.cells[vBLAS].core == blasCoreType() {
			c.na = "OpenBLAS already runs its " + blasCoreType() + " kernel here"
			continue
		}
		t, err := b.run(v, ds, 0, 1, 1)
		if err != nil {
			c.na = "failed at the check size: " + err.Error()
			continue
		}
		c.core, c.rss = t.core, t.rss
		if err := checkCore(v, t.core); err != nil {
			c.na = err.Error()
			continue
		}
		if c.check, err = compare(t.outs, ds.want, ds.mask); err != nil {
			c.wrong = err.Error()
		} else if !r.acceptable(v, c.check, false) {
			c.wrong = fmt.Sprintf("at the check size: %v (%s)", c.check, c.check.where)
		}
	}
	if cfg.smoke {
		return nil
	}
	// The reference at the timed sizes: the interpreter, or NumPy once it
	// has matched the interpreter at the check size.
	noRef := r.k.untimed
	if r.k.numpyRef {
		if c := r.check.cells[vNumPy]; c.na != "" || c.wrong != "" {
			noRef = "no reference at the timed sizes: NumPy, which stands in for the interpreter there, is not available or failed at the check size"
		}
	}
	for _, t := range cfg.tiers {
		syms := t.sizes(r.k)
		if syms == nil {
			continue // not timed at this size class
		}
		if noRef != "" {
			w := &row{tier: t.name, size: sizeText(syms, b.syms), syms: syms, skip: noRef}
			for v := range w.cells {
				w.cells[v].absent = r.check.cells[v].absent
			}
			r.rows = append(r.rows, w)
			continue
		}
		// One interpreter run at a large size at a time: it holds every
		// intermediate tensor (about 2 GB for 10M points).
		bigPrepare.Lock()
		ds, err := prepare(b, syms, strings.ToLower(t.name), t.seed, false)
		runtime.GC()
		bigPrepare.Unlock()
		if err != nil {
			return fmt.Errorf("%s size: %v", t.name, err)
		}
		w := &row{tier: t.name, size: sizeText(syms, b.syms), syms: syms, bytes: ds.bytes, ds: ds}
		for v := range w.cells {
			// What failed at the check size is not timed.
			w.cells[v].absent, w.cells[v].na, w.cells[v].wrong = r.check.cells[v].absent, r.check.cells[v].na, r.check.cells[v].wrong
		}
		r.rows = append(r.rows, w)
	}
	return nil
}

// acceptable reports whether variant v's results are close enough to the
// reference (approx: NumPy's): a hand-written adjoint that computes in
// another order (kernel.refNorm) within its normwise tolerance, every
// other variant as acceptable says.
func (r *kernelResult) acceptable(v int, c verdict, approx bool) bool {
	if r.k.refNorm > 0 && (v == vGCCNative || v == vGCCGeneric || v == vGCCOMP) {
		return c.normRel() <= r.k.refNorm
	}
	return acceptable(v, c, tolerance(r.b), approx)
}
