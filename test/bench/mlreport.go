package main

import (
	"fmt"
	"strings"
)

// The ML table and the formulation families' tables.

// okCell reports whether a cell holds a time.
func okCell(c cell) bool { return !c.absent && c.na == "" && c.wrong == "" && c.ns > 0 }

// blasOf is the OpenBLAS variant an ML kernel has (forced where this CPU
// has a kernel to force), or -1.
func blasOf(k *kernel) int {
	for _, v := range []int{vBLASForced, vBLAS} {
		if k.has(v) {
			return v
		}
	}
	return -1
}

// timeText is a timed cell: ms, then GFLOP/s for the kernels that count
// their operations or GB/s of compulsory traffic for the others, then the
// OpenBLAS kernel that ran.
func timeText(r *kernelResult, w *row, v int, smoke bool, note func(string) string) string {
	c := w.cells[v]
	text := ""
	switch {
	case c.absent:
		return ""
	case w.skip != "":
		text = "n/a " + note(fmt.Sprintf("%s: %s", r.k.name, w.skip))
	case c.wrong != "":
		text = "WRONG " + note(fmt.Sprintf("%s, %s: %s", r.k.name, variantTitles[v], c.wrong))
	case c.na != "":
		text = "n/a " + note(fmt.Sprintf("%s: %s", variantTitles[v], c.na))
	case smoke:
		text = "ok"
	case !r.k.timed(v):
		return ""
	case r.k.flops != nil:
		text = fmt.Sprintf("%s (%.1f)", ms(c.ns), r.k.flops(w.syms)/float64(c.ns))
	default:
		text = fmt.Sprintf("%s (%.1f)", ms(c.ns), float64(w.bytes)/float64(c.ns))
	}
	if c.core != "" {
		text += " [" + c.core + "]"
	}
	return text
}

// oursVariants are our variants in the ML and family tables.
var oursVariants = []int{vOurs, vOursNative, vOursFMA}

// mlTable compares the ML kernels with NumPy and OpenBLAS.
func (rep *report) mlTable(b *strings.Builder, note func(string) string) {
	if !rep.has(func(k *kernel) bool { return k.ml }) {
		return
	}
	smoke := rep.cfg.smoke
	core := blasCoreType()
	b.WriteString("## ML kernels against NumPy and OpenBLAS\n\n")
	b.WriteString("f32, single-threaded: each cell the median time of one call in ms (GFLOP/s for the contractions, " +
		"GB/s of compulsory traffic for softmax and layernorm), the OpenBLAS kernel that ran in brackets. " +
		"ours is `tc-opt -O2` (`-O3` for the contractions) for the generic x86-64 ISA (SSE2), ours native adds " +
		"`--mcpu=native`, ours native fma `--fp-contract=fast` too. numpy is the function of test/bench/ref/ml.py " +
		"(what a NumPy user writes: im2col by a sliding-window view for the convolutions, np.tensordot), run by " +
		"/usr/bin/python3 with OPENBLAS_NUM_THREADS=OMP_NUM_THREADS=1; openblas is the C of " +
		"test/bench/ref/*_blas.c: cblas_sgemm on one thread, with im2col (conv2d), the transposing copies NumPy's " +
		"tensordot makes (tensordot), a softmax with glibc's expf (attention) or the bias and ReLU (linear) around it. ")
	if core != "" {
		fmt.Fprintf(b, "Both run OpenBLAS with OPENBLAS_CORETYPE=%s, the kernel of this CPU's vector ISA, and the run "+
			"fails unless the kernel OpenBLAS reports (`openblas_get_corename()`) is that one. ", core)
	} else {
		b.WriteString("This CPU has neither AVX-512 nor AVX2: OpenBLAS runs the kernel it picks. ")
	}
	b.WriteString("The ratios are time ratios (> 1: ours is slower), best ours being the fastest of our three " +
		"columns, by the medians / by the fastest calls (on the shared machine the fastest calls are the less " +
		"disturbed by other work); the goal is issue 21's bound for the kernel, judged on the medians.\n\n")
	head := []string{"kernel", "size", "ours", "ours native", "ours native fma", "numpy", "openblas"}
	if !smoke {
		head = append(head, "best ours / numpy", "best ours / openblas", "goal")
	}
	tableHead(b, head, 2)
	for _, r := range rep.results {
		if !r.k.ml {
			continue
		}
		if r.err != nil {
			fmt.Fprintf(b, "| %s | | error %s |\n", r.k.name, note(fmt.Sprintf("%s: %v", r.k.name, r.err)))
			continue
		}
		rows := r.rows
		if smoke {
			rows = []*row{&r.check}
		}
		bv := blasOf(r.k)
		for _, w := range rows {
			line := []string{r.k.name, w.size}
			for _, v := range append(append([]int(nil), oursVariants...), vNumPy, bv) {
				if v < 0 {
					line = append(line, "")
					continue
				}
				line = append(line, timeText(r, w, v, smoke, note))
			}
			if !smoke {
				// The best of ours by the medians and by the fastest calls.
				var best, fast int64
				for _, v := range oursVariants {
					if c := w.cells[v]; okCell(c) {
						if best == 0 || c.ns < best {
							best = c.ns
						}
						if fast == 0 || c.min < fast {
							fast = c.min
						}
					}
				}
				ratio := func(ref int) string {
					if ref < 0 || best == 0 || !okCell(w.cells[ref]) {
						return "n/a"
					}
					c := w.cells[ref]
					return fmt.Sprintf("%.2f / %.2f", float64(best)/float64(c.ns), float64(fast)/float64(c.min))
				}
				line = append(line, ratio(vNumPy), ratio(bv), goalText(r.k, w))
			}
			b.WriteString("| " + strings.Join(line, " | ") + " |\n")
		}
	}
	b.WriteString("\n")
}

// goalText checks a row against its kernel's goal.
func goalText(k *kernel, w *row) string {
	g := k.goal
	if g == nil {
		return ""
	}
	ref, refName := vNumPy, "numpy"
	if g.blas {
		ref, refName = blasOf(k), "openblas"
	}
	text := fmt.Sprintf("%s <= %.2gx %s", variantTitles[g.v], g.max, refName)
	if ref < 0 || !okCell(w.cells[g.v]) || !okCell(w.cells[ref]) {
		return text + ": n/a"
	}
	ratio := float64(w.cells[g.v].ns) / float64(w.cells[ref].ns)
	fast := float64(w.cells[g.v].min) / float64(w.cells[ref].min)
	verdict := "met"
	if ratio > g.max {
		verdict = "**not met**"
	}
	return fmt.Sprintf("%s: %.2fx (fastest calls %.2fx), %s", text, ratio, fast, verdict)
}

// family is the kernels of one family, in table order.
type family struct {
	name    string
	members []*kernelResult
}

func (rep *report) families() []*family {
	// -only ml: the ML kernels that head a family, alone; -only
	// derivatives: the adjoint families.
	only := rep.cfg.suites != nil && !rep.cfg.suites["families"]
	var fs []*family
	byName := map[string]*family{}
	for _, r := range rep.results {
		if r.k.family == "" || only && (r.k.of == "" || !rep.cfg.suites["derivatives"]) {
			continue
		}
		f := byName[r.k.family]
		if f == nil {
			f = &family{name: r.k.family}
			byName[f.name] = f
			fs = append(fs, f)
		}
		f.members = append(f.members, r)
	}
	return fs
}

// columns are our variants that some member of f has.
func (f *family) columns() []int {
	var cols []int
	for _, v := range oursVariants {
		for _, r := range f.members {
			if r.k.has(v) {
				cols = append(cols, v)
				break
			}
		}
	}
	return cols
}

// tiers are the size classes some member was timed at, in order.
func (f *family) tiers() []string {
	var ts []string
	seen := map[string]bool{}
	for _, r := range f.members {
		for _, w := range r.rows {
			if !seen[w.tier] {
				seen[w.tier] = true
				ts = append(ts, w.tier)
			}
		}
	}
	return ts
}

// spread is slowest / fastest of variant v over the members' rows of
// tier t by their medians, the same by their fastest calls (fast), and
// the size; ok is false unless every member has a time.
func (f *family) spread(t string, v int) (ratio, fast float64, size string, ok bool) {
	lo, hi := int64(0), int64(0)
	flo, fhi := int64(0), int64(0)
	for _, r := range f.members {
		var w *row
		for _, x := range r.rows {
			if x.tier == t {
				w = x
			}
		}
		if w == nil || r.err != nil || !okCell(w.cells[v]) || w.cells[v].min <= 0 {
			return 0, 0, "", false
		}
		size = w.size
		c := w.cells[v]
		if lo == 0 || c.ns < lo {
			lo = c.ns
		}
		if flo == 0 || c.min < flo {
			flo = c.min
		}
		hi, fhi = max(hi, c.ns), max(fhi, c.min)
	}
	return float64(hi) / float64(lo), float64(fhi) / float64(flo), size, lo > 0
}

// familyTables give every formulation's time, and per family and size
// slowest / fastest.
func (rep *report) familyTables(b *strings.Builder, note func(string) string) {
	fs := rep.families()
	if len(fs) == 0 {
		return
	}
	smoke := rep.cfg.smoke
	b.WriteString("## Formulation families\n\n")
	fmt.Fprintf(b, "Each family computes one thing written 2 to 4 equivalent ways (operand order, where a "+
		"tuple_get sits, statements split or fused, defs or tir.call, TC or .tir), each checked against the "+
		"interpreter (NumPy at the contractions' timed sizes) like every kernel here. If performance did not "+
		"depend on how a program is written, slowest / fastest would be 1 in every column; the goal is <= %.2f. "+
		"Cells as in the tables above: ms (GFLOP/s or GB/s), ours `tc-opt -O2` (`-O3` for the contractions) "+
		"generic x86-64, ours native `--mcpu=native`, ours native fma also `--fp-contract=fast` (contractions). "+
		"The summary gives slowest / fastest by the medians, on which the goal is judged, then by each formulation's "+
		"fastest call: on the shared machine a ratio that only the medians show is likely noise, one that both show "+
		"is the compiler's.\n\n", familyGoal)
	if !smoke {
		head := []string{"family", "size", "formulations", "ours", "ours native", "ours native fma", "goal"}
		tableHead(b, head, 3)
		for _, f := range fs {
			cols := f.columns()
			for _, t := range f.tiers() {
				line := []string{f.name, "", fmt.Sprint(len(f.members))}
				met, known := true, false
				for _, v := range oursVariants {
					if !containsInt(cols, v) {
						line = append(line, "")
						continue
					}
					ratio, fast, size, ok := f.spread(t, v)
					if !ok {
						line = append(line, "n/a")
						continue
					}
					line[1], known = size, true
					text := fmt.Sprintf("%.2f", ratio)
					if ratio > familyGoal {
						text, met = "**"+text+"**", false
					}
					line = append(line, fmt.Sprintf("%s / %.2f", text, fast))
				}
				switch {
				case !known:
					line = append(line, "n/a")
				case met:
					line = append(line, "met")
				default:
					line = append(line, "**not met**")
				}
				b.WriteString("| " + strings.Join(line, " | ") + " |\n")
			}
		}
		b.WriteString("\n")
	}
	for _, f := range fs {
		cols := f.columns()
		fmt.Fprintf(b, "### %s\n\n", f.name)
		head := []string{"kernel", "formulation", "file", "size"}
		for _, v := range cols {
			head = append(head, variantTitles[v])
		}
		tableHead(b, head, 4)
		tiers := f.tiers()
		if smoke {
			tiers = []string{"check"}
		}
		for _, t := range tiers {
			for _, r := range f.members {
				if r.err != nil {
					fmt.Fprintf(b, "| %s | %s | %s | | error %s |\n", r.k.name, r.k.form, r.k.file, note(fmt.Sprintf("%s: %v", r.k.name, r.err)))
					continue
				}
				w := &r.check
				if !smoke {
					w = nil
					for _, x := range r.rows {
						if x.tier == t {
							w = x
						}
					}
					if w == nil {
						continue
					}
				}
				line := []string{r.k.name, r.k.form, "`" + r.k.file + "`", w.size}
				for _, v := range cols {
					line = append(line, timeText(r, w, v, smoke, note))
				}
				b.WriteString("| " + strings.Join(line, " | ") + " |\n")
			}
			if smoke {
				continue
			}
			line := []string{"", "**slowest / fastest**", "", ""}
			for _, v := range cols {
				ratio, _, size, ok := f.spread(t, v)
				if !ok {
					line = append(line, "n/a")
					continue
				}
				line[3] = size
				line = append(line, fmt.Sprintf("**%.2f**", ratio))
			}
			b.WriteString("| " + strings.Join(line, " | ") + " |\n")
		}
		b.WriteString("\n")
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
