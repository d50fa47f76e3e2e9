package main

import (
	"fmt"
	"strings"
	"time"

	"tir/tools/native"
)

// benchRow is one line of the --bench table.
type benchRow struct {
	what   string
	runs   int
	median time.Duration
}

// benchTable is what --bench prints: a header with the compulsory
// traffic (every input read once, every result written once) and how the
// code was built (build: what was measured, so that numbers are compared
// knowingly), then one row per code that ran: the number of runs, the
// median time, the throughput and the time relative to the compiled
// code's:
//
//	bench @laplacian: 2520 bytes of compulsory traffic (inputs read once, results written once)
//	  built with -O2 for x86-64-v4 (native: AVX-512, FMA), fp-contract=off, fp-reassociate=off; 1 thread
//	  code          runs    median      GB/s   vs compiled
//	  compiled       100    131 ns      26.9         1.00x
//	  interpreter      1    943 µs   0.00374         7196x
//
// A GPU build adds a row for a device-to-device copy of as many bytes,
// measured in the same run; the interpreter's row is there only when it
// ran (--check).
func benchTable(fn string, bytes int, build string, t native.Timing, interp time.Duration) string {
	rows := []benchRow{{"compiled", t.Reps, t.Median}}
	if t.CopyMedian > 0 {
		rows = append(rows, benchRow{"device copy", t.Reps, t.CopyMedian})
	}
	if interp > 0 {
		rows = append(rows, benchRow{"interpreter", 1, interp})
	}
	cells := [][]string{{"code", "runs", "median", "GB/s", "vs compiled"}}
	for _, r := range rows {
		gbs, rel := "-", "-"
		if s := r.median.Seconds(); s > 0 {
			gbs = fmt.Sprintf("%.3g", float64(bytes)/s/1e9)
			if t.Median > 0 {
				rel = ratio(s / t.Median.Seconds())
			}
		}
		cells = append(cells, []string{r.what, fmt.Sprint(r.runs), shortDuration(r.median), gbs, rel})
	}
	width := make([]int, len(cells[0]))
	for _, row := range cells {
		for k, c := range row {
			width[k] = max(width[k], len(c))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "bench @%s: %d bytes of compulsory traffic (inputs read once, results written once)\n", fn, bytes)
	if build != "" {
		fmt.Fprintf(&b, "  built with %s\n", build)
	}
	for _, row := range cells {
		b.WriteString(" ")
		for k, c := range row {
			if k == 0 {
				fmt.Fprintf(&b, " %-*s", width[k], c) // names left, numbers right
			} else {
				fmt.Fprintf(&b, "   %*s", width[k], c)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ratio prints a time ratio with three significant digits at most, and no
// exponent: 0.731x, 1.00x, 42.5x, 7196x.
func ratio(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0fx", v)
	case v >= 10:
		return fmt.Sprintf("%.1fx", v)
	case v >= 1:
		return fmt.Sprintf("%.2fx", v)
	}
	return fmt.Sprintf("%.3gx", v)
}

// shortDuration prints d with three significant digits and a unit:
// 812 ns, 1.23 µs, 45.6 ms, 2.00 s.
func shortDuration(d time.Duration) string {
	v, unit := float64(d), "ns"
	for _, u := range []struct {
		name  string
		scale float64
	}{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}} {
		if float64(d) >= u.scale {
			v, unit = float64(d)/u.scale, u.name
			break
		}
	}
	switch {
	case v >= 100 || unit == "ns":
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
}

// buildLine says how the measured code was built and how many threads it
// could use: the -O level, the instruction set, the float flags, and for
// --threads libgomp's thread count in the run and its wait policy (openmp:
// the code calls libgomp; a program whose loops are all known to be too
// small to share calls no threads at all).
func buildLine(o *options, t native.Timing, openmp bool, waitPolicy string) string {
	onOff := map[bool]string{false: "off", true: "on"}
	contract := map[bool]string{false: "off", true: "fast"}
	s := fmt.Sprintf("-O%d for %s, fp-contract=%s, fp-reassociate=%s", o.level, isa(o), contract[o.contract], onOff[o.reassociate])
	switch {
	case o.target == "nvptx64":
	case o.threads && !openmp:
		s += "; --threads: 1 thread (no loop is large enough to share)"
	case o.threads:
		s += fmt.Sprintf("; --threads: up to %d %s (%s)", t.Threads, plural(t.Threads, "thread"), waitPolicy)
	default:
		s += "; 1 thread"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
