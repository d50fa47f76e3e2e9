package main

import (
	"fmt"
	"sort"
	"strings"
)

type report struct {
	machine []string
	cfg     config
	tools   toolset
	results []*kernelResult
}

// failures are what makes the run fail: a kernel that could not be run,
// a variant with wrong results, ours or gcc not built or not run. An MLIR
// variant that cannot be built or run is only reported (n/a).
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
				case c.na != "" && v < vMLIR:
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
	b.WriteString("\n")
	if !smoke {
		fmt.Fprintf(&b, "Each cell: median time of one call in ms (GB/s of compulsory traffic: every input read once, "+
			"every output written once). Each variant is called once untimed (warm-up), then N times, N such that "+
			"the N calls last at least %v in all (N >= 5, at most %d). Ratios are time ratios ours/other: "+
			"> 1 means ours is slower. Sizes: L3 = a working set above the L2 caches that fits in L3; DRAM = "+
			"2.3 to 3.5 times L3 (sizes of this machine).\n\n", rep.cfg.minTime, rep.cfg.maxReps)
	}

	// Notes collect the n/a reasons and wrong results, numbered.
	var notes []string
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
	head := []string{"kernel", "set", "size", "traffic MB"}
	for v := 0; v < numVariants; v++ {
		head = append(head, variantTitles[v])
	}
	if !smoke {
		head = append(head, "ours/gcc native", "ours/gcc generic", "ours/mlir+llc", "ours/mlir JIT")
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
	for _, r := range rep.results {
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
			for v := 0; v < numVariants; v++ {
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
				ours := w.cells[vOurs]
				for v := vGCCNative; v < numVariants; v++ {
					c := w.cells[v]
					if ours.ns == 0 || c.ns == 0 || ours.wrong != "" || c.wrong != "" || ours.na != "" || c.na != "" {
						line = append(line, "n/a")
						continue
					}
					line = append(line, fmt.Sprintf("%.2f", float64(ours.ns)/float64(c.ns)))
				}
			}
			b.WriteString("| " + strings.Join(line, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
	for i, n := range notes {
		fmt.Fprintf(&b, "%d. %s\n", i+1, n)
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}

	b.WriteString("## Verification\n\n")
	b.WriteString("Before any timing, every variant runs at a small odd size (remainder loops, halos) and its results " +
		"are compared element by element with the reference interpreter (dialects/tir/interp); the results of every " +
		"timed run are compared again with the interpreter's at that size (outputs are filled with NaN before the " +
		"first call, so an unwritten element shows). A variant that differs by more than 1e-12 relative (f64; 1e-5 " +
		"for f32) is reported WRONG and fails the run.\n\n")
	for _, r := range rep.results {
		if r.err != nil {
			continue
		}
		byVerdict := map[string][]string{}
		for v := 0; v < numVariants; v++ {
			var parts []string
			for _, w := range append([]*row{&r.check}, r.rows...) {
				c := w.cells[v]
				if c.na != "" || c.wrong != "" {
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
	fmt.Fprintf(&b, "- **ours**: `tc-opt -O2` (in-process, `native.Compile`, target x86_64), then `llc-14 %s` "+
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
	b.WriteString("- The driver (test/bench/cdriver.go, `gcc -O2`) allocates every buffer 64-byte aligned, reads the " +
		"inputs, fills the outputs with NaN, and times each call with `clock_gettime(CLOCK_MONOTONIC)`.\n")
	return b.String()
}
