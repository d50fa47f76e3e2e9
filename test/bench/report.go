package main

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
)

// ratios are the ratio columns: the time of variant num over that of den.
// The speedups put the single-threaded variant first (> 1: threads help).
var ratios = []struct {
	title    string
	num, den int
}{
	{"ours native/gcc native", vOursNative, vGCCNative},
	{"ours/gcc generic", vOurs, vGCCGeneric},
	{"ours/gcc native", vOurs, vGCCNative},
	{"ours/mlir+llc", vOurs, vMLIR},
	{"ours/mlir JIT", vOurs, vMLIRJIT},
	{"ours threads speedup", vOurs, vOursThreads},
	{"ours threads/gcc omp", vOursThreads, vGCCOMP},
	{"gcc omp speedup", vGCCGeneric, vGCCOMP},
}

// essential reports whether a variant that cannot be built or run fails
// the run: all but the MLIR and BLAS ones (their tools and libraries are
// optional).
func essential(v int) bool { return v != vMLIR && v != vMLIRJIT && !blasVariant(v) && v != vNumPy }

type report struct {
	machine []string
	// loadStart and loadEnd are /proc/loadavg's 1-minute load before
	// the run and after it: how busy the shared machine was.
	loadStart, loadEnd string
	cfg                config
	tools              toolset
	results            []*kernelResult
}

// failures are what makes the run fail: a kernel that could not be run,
// a variant with wrong results, ours or gcc not built or not run. An MLIR,
// BLAS or NumPy variant that cannot be built or run is only reported
// (n/a), and so is a size left untimed for want of NumPy as its reference.
func (rep *report) failures() []string {
	var bad []string
	for _, r := range rep.results {
		if r.err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", r.k.name, r.err))
			continue
		}
		seen := map[string]bool{}
		for _, w := range append([]*row{&r.check}, r.rows...) {
			for v, c := range w.cells {
				msg := ""
				switch {
				case c.wrong != "":
					msg = fmt.Sprintf("%s/%s: WRONG RESULTS %s", r.k.name, variantTitles[v], c.wrong)
				case c.na != "" && essential(v):
					msg = fmt.Sprintf("%s/%s: %s", r.k.name, variantTitles[v], c.na)
				}
				if msg != "" && !seen[msg] {
					seen[msg] = true
					bad = append(bad, msg)
				}
			}
		}
	}
	return bad
}

// threadsTable compares the threaded variants with the single-threaded
// ones by the median and by the fastest call.
func (rep *report) threadsTable(b *strings.Builder) {
	fmt.Fprintf(b, "## Threads\n\nThe threaded variants on OMP_NUM_THREADS=%d threads against the single-threaded ones: "+
		"time of one call in ms, median / fastest of the timed calls, and the ratios of both (speedup: single-threaded "+
		"time / threaded time). A parallel region waits until every thread it wakes gets a CPU: on a machine shared "+
		"with other work the medians carry scheduling delays (multiples of the kernel's 4 ms tick), while the fastest "+
		"call shows what the threads achieve when they have the CPUs.\n\n", rep.cfg.threads)
	b.WriteString("| kernel | set | ours | ours threads | gcc generic | gcc omp | ours speedup | gcc speedup | ours threads/gcc omp |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	ok := func(c cell) bool { return c.ns > 0 && c.min > 0 && c.na == "" && c.wrong == "" }
	pair := func(c cell) string {
		if !ok(c) {
			return "n/a"
		}
		return ms(c.ns) + " / " + ms(c.min)
	}
	ratio := func(a, c cell) string {
		if !ok(a) || !ok(c) {
			return "n/a"
		}
		return fmt.Sprintf("%.2f / %.2f", float64(a.ns)/float64(c.ns), float64(a.min)/float64(c.min))
	}
	for _, r := range rep.results {
		if !r.k.classic() || r.forward {
			continue
		}
		if r.err != nil {
			continue
		}
		for _, w := range r.rows {
			c := w.cells
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.k.name, w.tier,
				pair(c[vOurs]), pair(c[vOursThreads]), pair(c[vGCCGeneric]), pair(c[vGCCOMP]),
				ratio(c[vOurs], c[vOursThreads]), ratio(c[vGCCGeneric], c[vGCCOMP]), ratio(c[vOursThreads], c[vGCCOMP]))
		}
	}
	b.WriteString("\n")
}

func ms(ns int64) string { return fmt.Sprintf("%.3f", float64(ns)/1e6) }

func megabytes(n int64) string {
	if n < 100000 {
		return fmt.Sprintf("%.3f", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f", float64(n)/1e6)
}

func (rep *report) markdown() string {
	var b strings.Builder
	smoke := rep.cfg.smoke
	b.WriteString("# TIR kernel benchmarks\n\n")
	if smoke {
		b.WriteString("**Smoke mode**: small sizes, one call per variant, correctness only (no timing).\n\n")
	}
	for _, m := range rep.machine {
		fmt.Fprintf(&b, "- %s\n", m)
	}
	if rep.loadStart != "" && rep.loadEnd != "" {
		fmt.Fprintf(&b, "- load average (1 minute) before the run %s, after it %s, on %d CPUs\n", rep.loadStart, rep.loadEnd, runtime.NumCPU())
	}
	b.WriteString("\n")
	if !smoke {
		fmt.Fprintf(&b, "The machine is a shared virtual machine: other work runs on its cores, and a time can come "+
			"from a slow spell of it. Each variant is called once untimed (warm-up), then N times, N such that "+
			"the N calls last at least %v in all (N >= 5, or 3 for the contractions; at most %d); the variants of a size take turns at this, %d times "+
			"(rounds; once for a variant whose calls last over %g s), and each cell keeps the variant's lowest median: the machine's speed drifts over longer spells than "+
			"one variant's calls, and a single pass can time one variant in a slow spell and the next in a quick one. "+
			"Even so, ratios between two runs move by 0.1 to 0.3 (more for the threaded variants).\n\n",
			rep.cfg.minTime, rep.cfg.maxReps, rep.cfg.rounds, longCall.Seconds())
	}

	// Notes collect the n/a reasons and wrong results, numbered; each
	// section prints the ones it added.
	var notes []string
	printed := 0
	note := func(s string) string {
		s = strings.ReplaceAll(s, "\n", " ")
		for i, n := range notes {
			if n == s {
				return fmt.Sprintf("[%d]", i+1)
			}
		}
		notes = append(notes, s)
		return fmt.Sprintf("[%d]", len(notes))
	}
	flush := func() {
		if printed == len(notes) {
			return
		}
		for ; printed < len(notes); printed++ {
			fmt.Fprintf(&b, "%d. %s\n", printed+1, notes[printed])
		}
		b.WriteString("\n")
	}

	if rep.hasResult(func(r *kernelResult) bool { return r.k.classic() && !r.forward }) {
		rep.mainTable(&b, note)
		flush()
		rep.blasTable(&b, note)
		flush()
		if !smoke {
			rep.threadsTable(&b)
		}
	}
	rep.mlTable(&b, note)
	flush()
	rep.familyTables(&b, note)
	flush()
	rep.derivTable(&b, note)
	flush()
	b.WriteString("## Verification\n\n")
	b.WriteString("Before any timing, every variant runs at a small odd size (remainder loops, halos) and its results " +
		"are compared element by element with the reference interpreter (dialects/tir/interp); the results of every " +
		"timed run are compared again with the interpreter's at that size (outputs are filled with NaN before the " +
		"first call, so an unwritten element shows). A variant that differs by more than 1e-12 relative (f64; 1e-5 " +
		"for f32) is reported WRONG and fails the run. Where the interpreter cannot run at the timed sizes (matmul: " +
		"the 1024^3 product it would materialize), the kernel's own reference (float32 sums in the order of k, " +
		"test/bench/kernels.go) stands in for it; at the check size both run and must agree bit for bit. For the ML " +
		"contractions and their families (linear, matmul, conv2d, attention, bmm, tensordot) NumPy's results stand in " +
		"at the timed sizes, computed once before the timing; at the check size NumPy is checked against the " +
		"interpreter like every variant. The variants " +
		fmt.Sprintf("that round differently (ours native fma, openblas, numpy), and every variant where NumPy is the "+
			"reference, must agree within %g of the largest result (normwise).\n\n", inexactTolerance))
	for _, r := range rep.results {
		if r.err != nil {
			continue
		}
		byVerdict := map[string][]string{}
		for v := 0; v < numVariants; v++ {
			var parts []string
			for _, w := range append([]*row{&r.check}, r.rows...) {
				c := w.cells[v]
				if c.absent || c.na != "" || c.wrong != "" {
					parts = nil
					break
				}
				parts = append(parts, fmt.Sprintf("%s (%s): %s", w.tier, w.size, c.check))
			}
			if parts != nil {
				s := strings.Join(parts, "; ")
				byVerdict[s] = append(byVerdict[s], variantTitles[v])
			}
		}
		var lines []string
		for s, vs := range byVerdict {
			lines = append(lines, fmt.Sprintf("%s — %s", strings.Join(vs, ", "), s))
		}
		sort.Strings(lines)
		fmt.Fprintf(&b, "- %s: %s\n", r.k.name, strings.Join(lines, "; "))
	}
	b.WriteString("\n## Variants\n\n")
	fmt.Fprintf(&b, "- **ours**: `tc-opt -O2` (`-O3` for matmul, where affine-contraction-tile blocks the product for "+
		"registers and caches; in-process, target x86_64), then `llc-14 %s` "+
		"(no `-mcpu`: generic x86-64, SSE2), called through the C ABI of docs/abi.md (descriptor pointers, size symbols; "+
		"the extent checks run on every call).\n", strings.Join(llcFlags, " "))
	fmt.Fprintf(&b, "- **gcc -march=native / gcc generic**: the hand-written C of test/bench/ref/ with `gcc %s` and `gcc %s` "+
		"(x86-64 baseline, SSE2); same data layout and the same ABI as ours, same operations in the same order. "+
		"`-ffp-contract=off` keeps gcc from fusing multiply-adds into FMAs, so that every variant computes bitwise the "+
		"same values (ours does not contract either).\n", strings.Join(gccNative, " "), strings.Join(gccGeneric, " "))
	fmt.Fprintf(&b, "- **mlir + llc**: `tc-opt --convert-tir-to-affine` (our affine output), upstream `mlir-opt %s`, "+
		"`mlir-translate --mlir-to-llvmir` (MLIR 16 prints opaque pointers), `llc-14 %s`: the same backend and flags as "+
		"ours, no LLVM middle-end optimization either. The function takes its memref descriptors unpacked "+
		"(allocated, aligned, offset, sizes, strides) and has no extent checks.\n",
		strings.Join(mlirLowering, " "), strings.Join(mlirLLCFlags, " "))
	fmt.Fprintf(&b, "- **mlir JIT -O3**: the same lowered module run by `mlir-cpu-runner %s` (LLVM 16's -O3 pipeline, "+
		"loop vectorizer included, code generated for the host CPU); a `main` appended to the module passes the "+
		"kernel's address to the driver (built as a shared library), which times it exactly as the others. "+
		"`opt-14 -opaque-pointers` crashes on MLIR 16's IR (LoopAccessAnalysis), hence the JIT for the optimized MLIR path.\n",
		strings.Join(mlirJITFlags, " "))
	fmt.Fprintf(&b, "- **ours threads**: `tc-opt -O2 --threads` (`-O3` for matmul) (`convert-to-llvm{threads=omp}`: the outermost parallel loop "+
		"of every nest runs through libgomp's `GOMP_parallel` with a static schedule, docs/abi.md), the function renamed "+
		"`threads_<name>` to link next to ours, `llc-14 %s`.\n", strings.Join(llcFlags, " "))
	fmt.Fprintf(&b, "- **gcc omp**: the same C with `gcc %s`: `#pragma omp parallel for` on the outer loop "+
		"(tridiag: one pair of scratch columns per thread, tridiag_kout: one pair of K x M slabs per thread); the generic ISA, as ours.\n", strings.Join(gccOMP, " "))
	fmt.Fprintf(&b, "- **ours native / ours native fma**: ours with `--mcpu=native` "+
		"(`convert-to-llvm{cpu=native}`, and affine-contraction-tile sized for this CPU's vector registers), the "+
		"instruction set of gcc -march=native, and (kernels with a BLAS reference) with "+
		"`--fp-contract=fast` too (`convert-to-llvm{contract=true}`: multiplies and adds fused into FMAs), the functions "+
		"renamed `native_<name>` and `fma_<name>`, `llc-14 %s`.\n", strings.Join(llcFlags, " "))
	fmt.Fprintf(&b, "- **openblas / openblas forced**: the BLAS reference of test/bench/ref/ (`cblas_sgemm`, "+
		"`openblas_set_num_threads(1)` and `OPENBLAS_NUM_THREADS=1`) compiled with `gcc %s` and linked with "+
		"`-lopenblas` (Debian libopenblas-dev) in a driver of its own; forced sets `OPENBLAS_CORETYPE`, and the kernel "+
		"OpenBLAS reports must be the one forced. The ML kernels run the forced one only (where this CPU has one to force).\n", strings.Join(gccBLAS, " "))
	b.WriteString("- **numpy**: the function of test/bench/ref/ml.py called by test/bench/ref/numpy_driver.py, which reads " +
		"the driver's inputs and times the calls as the C driver does (`time.perf_counter_ns`, one warm-up call, the " +
		"same minimum time and count), under `OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1` and the " +
		"forced `OPENBLAS_CORETYPE`; it reports the OpenBLAS kernel NumPy's BLAS runs (`openblas_get_corename()` through " +
		"ctypes). The interpreter is `$TIR_BENCH_PYTHON`, else /usr/bin/python3 (Debian's python3-numpy).\n")
	b.WriteString("- **ML kernels and families**: ours only (no C reference, MLIR or threads); a file with several functions " +
		"(TC defs, tir.call) has every function renamed for the native and fma builds.\n")
	b.WriteString("- The driver (tools/cdriver's, of the variants in test/bench/cdriver.go; `gcc -O2`, linked with `-fopenmp`) allocates every buffer 64-byte aligned, reads the " +
		"inputs, fills the outputs with NaN, and times each call with `clock_gettime(CLOCK_MONOTONIC)`; a variant whose " +
		fmt.Sprintf("warm-up call lasts more than %.0f s is timed by that one call.\n", float64(maxCallNs)/1e9))
	return b.String()
}

// blasVariants are the columns of the BLAS table.
var blasVariants = []int{vOurs, vOursNative, vOursFMA, vGCCNative, vBLAS, vBLASForced}

// blasTable compares the kernels that have a BLAS reference with
// OpenBLAS, in GFLOP/s. note numbers the n/a reasons (shared with the main
// table's notes).
func (rep *report) blasTable(b *strings.Builder, note func(string) string) {
	var rs []*kernelResult
	for _, r := range rep.results {
		if r.err == nil && r.k.blas != "" && r.k.classic() {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return
	}
	smoke := rep.cfg.smoke
	b.WriteString("## Against BLAS\n\n")
	b.WriteString("Single-threaded, each cell the median time of one call in ms (GFLOP/s), with the OpenBLAS kernel " +
		"that ran in brackets. openblas is the library as installed, with the kernel its run-time dispatch picks for this " +
		"CPU; openblas forced sets OPENBLAS_CORETYPE to the kernel of this CPU's vector ISA (SkylakeX for AVX-512, " +
		"Haswell for AVX2), for the processors the installed OpenBLAS does not recognize. The last columns give ours' " +
		"throughput as a share of the faster OpenBLAS variant's. ours is the generic x86-64 ISA (SSE2), ours native " +
		"`--mcpu=native` (bitwise the interpreter's results), ours native fma also `--fp-contract=fast` (fused " +
		"multiply-adds: not bitwise, within the rounding of a dot product).\n\n")
	head := []string{"kernel", "set", "size"}
	for _, v := range blasVariants {
		head = append(head, variantTitles[v])
	}
	if !smoke {
		head = append(head, "ours native / openblas", "ours native fma / openblas")
	}
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i < 3 {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	ok := func(c cell) bool { return !c.absent && c.na == "" && c.wrong == "" && c.ns > 0 }
	for _, r := range rs {
		rows := r.rows
		if smoke {
			rows = []*row{&r.check}
		}
		for _, w := range rows {
			flops := 0.0
			if r.k.flops != nil {
				flops = r.k.flops(w.syms)
			}
			line := []string{r.k.name, w.tier, w.size}
			for _, v := range blasVariants {
				c := w.cells[v]
				text := ""
				switch {
				case c.wrong != "":
					text = "WRONG " + note(fmt.Sprintf("%s, %s: %s", r.k.name, variantTitles[v], c.wrong))
				case c.na != "":
					text = "n/a " + note(fmt.Sprintf("%s: %s", variantTitles[v], c.na))
				case smoke:
					text = "ok"
				case flops > 0:
					text = fmt.Sprintf("%s (%.1f)", ms(c.ns), flops/float64(c.ns))
				default:
					text = ms(c.ns)
				}
				if c.core != "" {
					text += " [" + c.core + "]"
				}
				line = append(line, text)
			}
			if !smoke {
				best := cell{}
				for _, v := range []int{vBLAS, vBLASForced} {
					if c := w.cells[v]; ok(c) && (best.ns == 0 || c.ns < best.ns) {
						best = c
					}
				}
				for _, v := range []int{vOursNative, vOursFMA} {
					if c := w.cells[v]; ok(c) && best.ns > 0 {
						line = append(line, fmt.Sprintf("%.0f%%", 100*float64(best.ns)/float64(c.ns)))
					} else {
						line = append(line, "n/a")
					}
				}
			}
			b.WriteString("| " + strings.Join(line, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
}

// has reports whether the run includes a kernel that pred accepts.
func (rep *report) has(pred func(*kernel) bool) bool {
	return rep.hasResult(func(r *kernelResult) bool { return pred(r.k) })
}

// hasResult reports whether the run includes a kernel that pred accepts.
func (rep *report) hasResult(pred func(*kernelResult) bool) bool {
	for _, r := range rep.results {
		if pred(r) {
			return true
		}
	}
	return false
}

// mainTable is the classic kernels against C and MLIR.
func (rep *report) mainTable(b *strings.Builder, note func(string) string) {
	smoke := rep.cfg.smoke
	b.WriteString("## Bandwidth kernels and matmul\n\n")
	if !smoke {
		fmt.Fprintf(b, "Each cell: median time of one call in ms (GB/s of compulsory traffic: every input read once, "+
			"every output written once). Ratios are time ratios ours/other: "+
			"> 1 means ours is slower; the speedups are single-threaded time / threaded time (> 1: the threads help), "+
			"the threaded variants running on OMP_NUM_THREADS=%d threads. Sizes: L3 = a working set above the L2 caches that fits in L3; DRAM = "+
			"2.3 to 3.5 times L3 (sizes of this machine), and 256x256x80 columns (210 MB) for the tridiagonal solvers.\n\n", rep.cfg.threads)
	}
	head := []string{"kernel", "set", "size", "traffic MB"}
	for _, v := range mainVariants {
		head = append(head, variantTitles[v])
	}
	if !smoke {
		for _, r := range ratios {
			head = append(head, r.title)
		}
	}
	tableHead(b, head, 3)
	for _, r := range rep.results {
		if !r.k.classic() || r.forward {
			continue
		}
		if r.err != nil {
			row := []string{r.k.name, "", "", "", "error " + note(fmt.Sprintf("%s: %v", r.k.name, r.err))}
			b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			continue
		}
		rows := r.rows
		if smoke {
			rows = []*row{&r.check}
		}
		for _, w := range rows {
			line := []string{r.k.name, w.tier, w.size, megabytes(w.bytes)}
			for _, v := range mainVariants {
				c := w.cells[v]
				switch {
				case c.wrong != "":
					line = append(line, "WRONG "+note(fmt.Sprintf("%s, %s: %s", r.k.name, variantTitles[v], c.wrong)))
				case c.na != "":
					line = append(line, "n/a "+note(fmt.Sprintf("%s: %s", variantTitles[v], c.na)))
				case smoke:
					line = append(line, "ok")
				default:
					line = append(line, fmt.Sprintf("%s (%.1f)", ms(c.ns), float64(w.bytes)/float64(c.ns)))
				}
			}
			if !smoke {
				for _, r := range ratios {
					a, c := w.cells[r.num], w.cells[r.den]
					if a.ns == 0 || c.ns == 0 || a.wrong != "" || c.wrong != "" || a.na != "" || c.na != "" {
						line = append(line, "n/a")
						continue
					}
					line = append(line, fmt.Sprintf("%.2f", float64(a.ns)/float64(c.ns)))
				}
			}
			b.WriteString("| " + strings.Join(line, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
}

// tableHead writes a Markdown table's head, the first left columns
// left-aligned and the others right-aligned.
func tableHead(b *strings.Builder, head []string, left int) {
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for i := range head {
		if i < left {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
}
