package tirpasses

import (
	"fmt"
	"sort"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// Fused footprints: what fusing a value into its readers costs in
// recomputation. The per-point cost of tir-temporaries counts expensive
// ops only; a stencil applied many times in a row (u1 = f(u0, u0 shifted),
// u2 = f(u1, u1 shifted), ...) is all plain arithmetic, yet fused its
// k-th level needs the level below at k+1 points, so one output point
// recomputes O(k²) ops and the loop body grows as fast: a 1,000-op chain
// made a body of ~170,000 ops (9 s in tc-opt, and as slow to run). The
// footprint counts the distinct (value, point) pairs one point of a value
// evaluates when everything below it is fused — what the lowering computes
// after CSE — and a value read at several points is materialized once
// fusing it would cost more than maxFused evaluations per point.

// fusedPoint is one point a fused value evaluates: a value at an offset
// from the point being computed ("I+1,J-2", by dimension name); reads that
// are not translations (views that scale, gathers, reductions) get a tag
// of their own, so their points never coincide with others.
type fusedPoint struct {
	v   *ir.Value
	off string
}

// footprint is the weighted set of points one point of a value evaluates.
type footprint map[fusedPoint]int

// weight sums the evaluations of a footprint.
func (f footprint) weight() int {
	w := 0
	for _, c := range f {
		w += c
	}
	return w
}

// footprints computes footprints lazily; values marked materialized are
// loads and stop the recursion.
type footprints struct {
	memo     map[*ir.Value]footprint
	sums     map[[2]string]string // addOffsets, memoized: few distinct offsets recur
	costs    map[*ir.Value]int
	maxFused int
}

// of returns v's footprint, capped a little above maxFused (beyond that
// only "too much" matters, and the cap keeps long chains linear).
func (fs *footprints) of(v *ir.Value) footprint {
	if f, ok := fs.memo[v]; ok {
		return f
	}
	op := v.DefiningOp()
	out := footprint{}
	fs.memo[v] = out
	if loaded(op) {
		return out // a load
	}
	total := evalWeight(op, v, fs.costs)
	out[fusedPoint{v, ""}] = total
	if tir.CostOf(op) == tir.CostLoop {
		return out // its cost already counts the points it reads
	}
	acc, ok := tir.AccessOf(op)
	if !ok {
		return out
	}
	limit := 2*fs.maxFused + 2
	for k, r := range acc {
		sub := fs.of(op.Operands[r.Operand])
		off, translation := translationOf(r)
		for p, w := range sub {
			if total > limit {
				return out
			}
			q := fusedPoint{p.v, fs.add(off, p.off)}
			if !translation {
				q.off = fmt.Sprintf("%p/%d:%s", op, k, p.off)
			}
			if _, dup := out[q]; !dup {
				out[q] = w
				total += w
			}
		}
	}
	return out
}

// fusedWeight is what fusing v into its readers evaluates per point of
// theirs: the union of v's footprint placed at every point they read.
func (fs *footprints) fusedWeight(uses ir.UseLists, v *ir.Value) int {
	f := fs.of(v)
	union := footprint{}
	relayedReads(uses, v, func(u *ir.Operation, k int, r *tir.Read, off string, _ int) {
		if r == nil {
			for p, w := range f {
				union[fusedPoint{p.v, fs.add(off, p.off)}] = w
			}
			return
		}
		t, translation := translationOf(*r)
		for p, w := range f {
			q := fusedPoint{p.v, fs.add(addOffsets(off, t), p.off)}
			if !translation {
				q.off = fmt.Sprintf("%p/%d:%s:%s", u, k, off, p.off)
			}
			union[q] = w
		}
	})
	return union.weight()
}

// evalWeight is what evaluating one point of op costs in a fused body:
// data movement is index arithmetic (0), a gather a data-dependent load,
// transcendentals and divisions 8, a reduction its trip count times its
// body, any other op 1.
func evalWeight(op *ir.Operation, v *ir.Value, costs map[*ir.Value]int) int {
	switch c := tir.CostOf(op); {
	case c == tir.CostLoop:
		return max(cost(v, costs), 1)
	case c == tir.CostGather:
		return 4
	case tir.MovesData(op):
		return 0
	case c == tir.CostTranscendental:
		return 8
	}
	return 1
}

// translationOf returns a read's offset when it is a translation along
// every dimension it has (identity, shift: "I+1,J-2"); ok is false for
// other reads.
func translationOf(r tir.Read) (string, bool) {
	if r.Gathered != "" || len(r.Over) > 0 {
		return "", false
	}
	var parts []string
	for d := range r.At {
		off, ok := r.Offset(d)
		if !ok {
			return "", false
		}
		c, ok := off.Const()
		if !ok {
			return "", false
		}
		if c != 0 {
			parts = append(parts, fmt.Sprintf("%s%+d", d, c))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ","), true
}

// add is addOffsets, memoized.
func (fs *footprints) add(a, b string) string {
	if a == "" {
		return b
	}
	k := [2]string{a, b}
	sum, ok := fs.sums[k]
	if !ok {
		sum = addOffsets(a, b)
		fs.sums[k] = sum
	}
	return sum
}

// addOffsets adds two offsets written by translationOf (a tagged offset
// stays tagged: it is unique anyway).
func addOffsets(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	if strings.Contains(b, "/") {
		return a + "+" + b
	}
	sum := map[string]int64{}
	for _, part := range append(strings.Split(a, ","), strings.Split(b, ",")...) {
		i := strings.IndexAny(part[1:], "+-") + 1
		var c int64
		fmt.Sscan(part[i:], &c)
		sum[part[:i]] += c
	}
	var parts []string
	for d, c := range sum {
		if c != 0 {
			parts = append(parts, fmt.Sprintf("%s%+d", d, c))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
