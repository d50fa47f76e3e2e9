package main

import (
	"fmt"
	"strings"
)

// The derivatives table (issue 23): each adjoint @f_vjp against its @f
// and against the hand-written C adjoint.

// The goals of issue 23 for the adjoints on the CPU.
const (
	adjointOverForward = 3.0 // @f_vjp time / @f time
	adjointOverC       = 1.2 // @f_vjp time / the hand-written C adjoint's
)

// extraMemory is the peak resident memory of variant v of a timed row
// beyond its arguments: the driver's peak at the timed size less its peak
// at the check size, less the growth of the arguments between the two
// sizes. It counts what the call allocates and touches (temporaries,
// column buffers), to a page; -1 when a peak is unknown.
func extraMemory(r *kernelResult, w *row, v int) int64 {
	c, base := w.cells[v], r.check.cells[v]
	if c.rss == 0 || base.rss == 0 {
		return -1
	}
	return max(c.rss-base.rss-(w.bytes-r.check.bytes), 0)
}

// derivTable is the adjoints against their forward functions and the
// hand-written C adjoints.
func (rep *report) derivTable(b *strings.Builder, note func(string) string) {
	if !rep.has(func(k *kernel) bool { return k.of != "" }) {
		return
	}
	smoke := rep.cfg.smoke
	b.WriteString("## Derivatives\n\n")
	if !smoke {
		fmt.Fprintf(b, "Each adjoint `@f_vjp` (tir-derivatives{mode=vjp}, docs/derivatives.md) compiled as ours "+
			"(`tc-opt -O2`, the generic x86-64 ISA, single-threaded), timed against its `@f` compiled the same way at "+
			"the same sizes, the two taking turns (rounds), and against the hand-written C adjoint of test/bench/ref/ "+
			"(`*_vjp.c`: lap3d's transpose as a gather on the zero-padded cotangent, the Thomas algorithm's adjoint "+
			"with per-column buffers, nabla's with the edge cotangents summed in the output buffers and scaled in place) compiled as the forward C references are, gcc generic (`gcc %s`, the ISA of ours) "+
			"and gcc native (`gcc %s`). Cells: median time of one call in ms; ratios by the medians / by the fastest "+
			"calls (> 1: the adjoint, or ours, is slower). Goals of issue 23: `f_vjp` <= %gx `f`, and <= %gx the "+
			"hand-written C adjoint (ours against gcc generic, the same ISA); a goal met by the fastest calls only says "+
			"so. Memory: the driver's peak resident memory beyond the arguments, in MB (peak at the timed size less "+
			"peak at the check size less the arguments' growth; from getrusage, to a page): what the call allocates "+
			"and touches, temporaries and column buffers.\n\n",
			strings.Join(gccGeneric, " "), strings.Join(gccNative, " "), adjointOverForward, adjointOverC)
	}
	head := []string{"kernel", "set", "size", "f", "f_vjp", "f_vjp / f", "C adjoint gcc generic", "f_vjp / C generic",
		"C adjoint gcc native", "f_vjp / C native", "memory f", "memory f_vjp", "memory C adjoint",
		fmt.Sprintf("f_vjp <= %gx f", adjointOverForward), fmt.Sprintf("f_vjp <= %gx C", adjointOverC)}
	if smoke {
		head = []string{"kernel", "size", "f", "f_vjp", "C adjoint gcc generic", "C adjoint gcc native"}
	}
	if smoke {
		tableHead(b, head, 2)
	} else {
		tableHead(b, head, 3)
	}
	ratio := func(a, c cell) (string, float64, float64) {
		if !okCell(a) || !okCell(c) || a.min == 0 || c.min == 0 {
			return "n/a", 0, 0
		}
		med, fast := float64(a.ns)/float64(c.ns), float64(a.min)/float64(c.min)
		return fmt.Sprintf("%.2f / %.2f", med, fast), med, fast
	}
	goal := func(med, fast, bound float64) string {
		switch {
		case med == 0:
			return "n/a"
		case med <= bound:
			return "yes"
		case fast <= bound:
			return "by the fastest calls"
		}
		return "no"
	}
	mem := func(r *kernelResult, w *row, v int) string {
		if r == nil || w == nil || !okCell(w.cells[v]) {
			return "n/a"
		}
		if m := extraMemory(r, w, v); m >= 0 {
			return megabytes(m)
		}
		return "n/a"
	}
	for _, r := range rep.results {
		if r.k.of == "" {
			continue
		}
		fr := rep.result(r.k.of)
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
			var fw *row
			if fr != nil && fr.err == nil {
				if smoke {
					fw = &fr.check
				} else {
					fw = fr.row(w.tier)
				}
			}
			fcell := func(v int) string {
				if fw == nil {
					return "n/a"
				}
				return cellText(fr, fw, v, smoke, note)
			}
			if smoke {
				line := []string{r.k.name, w.size, fcell(vOurs), cellText(r, w, vOurs, true, note),
					cellText(r, w, vGCCGeneric, true, note), cellText(r, w, vGCCNative, true, note)}
				b.WriteString("| " + strings.Join(line, " | ") + " |\n")
				continue
			}
			var f cell
			if fw != nil {
				f = fw.cells[vOurs]
			}
			c := w.cells
			overF, mf, ff := ratio(c[vOurs], f)
			overG, mg, fg := ratio(c[vOurs], c[vGCCGeneric])
			overN, _, _ := ratio(c[vOurs], c[vGCCNative])
			memC := "n/a"
			if r.k.has(vGCCGeneric) {
				memC = mem(r, w, vGCCGeneric)
			}
			line := []string{r.k.name, w.tier, w.size, fcell(vOurs), cellText(r, w, vOurs, false, note), overF,
				cellText(r, w, vGCCGeneric, false, note), overG, cellText(r, w, vGCCNative, false, note), overN,
				mem(fr, fw, vOurs), mem(r, w, vOurs), memC,
				goal(mf, ff, adjointOverForward), goal(mg, fg, adjointOverC)}
			b.WriteString("| " + strings.Join(line, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
}

// cellText is a cell of the derivatives table: ms, or why there is no
// time ("none": the kernel has no such variant).
func cellText(r *kernelResult, w *row, v int, smoke bool, note func(string) string) string {
	c := w.cells[v]
	switch {
	case c.absent || !r.k.has(v):
		return "none"
	case w.skip != "":
		return "n/a " + note(fmt.Sprintf("%s: %s", r.k.name, w.skip))
	case c.wrong != "":
		return "WRONG " + note(fmt.Sprintf("%s, %s: %s", r.k.name, variantTitles[v], c.wrong))
	case c.na != "":
		return "n/a " + note(fmt.Sprintf("%s: %s", variantTitles[v], c.na))
	case smoke:
		return "ok"
	case c.ns == 0:
		return "n/a"
	}
	return ms(c.ns)
}
