package tiraffine

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Loops split at the pieces of concats.
//
// A fused concat picks, at each point, the piece whose interval holds it:
// a test on the loop variable (readPieces), and an scf.if whose arms each
// compute their piece. The adjoint functions of tir-derivatives are full
// of them: every cotangent is padded with zeros to its value's domain, so
// a stencil's adjoint reads concats of zeros and a cotangent at every
// offset of the stencil, and each test sits in the innermost loop around
// arms that recompute what the other arms compute too (an arm's values
// are not shared with its siblings), and keeps the loop from being
// vectorized. hdiff's adjoint ran 70 times slower than hdiff.
//
// The tests compare the loop variable with bounds a constant away from
// the loop's own (a padding is a few points wide): where the variable's
// range lies on one side of a bound the test is decided when the code is
// built. So a nest whose tests are not all decided is built again with
// each such loop in three: the points below the highest lower bound and
// those above the lowest upper bound keep the tests (a few rows or
// columns), and the range between them, where every test is decided,
// computes the pieces it reads with no branch, shares their values, and
// vectorizes like any stencil. Only the range between is split further
// along the inner dimensions. Bounds that are not a constant away from
// the loop's (a concat of two halves of a symbolic domain) stay tests.

// ivName is the name of the loop variable of nest level k over dim.
func ivName(k int, dim string) string { return fmt.Sprintf("iv%d_%s", k, dim) }

// below decides x < hi, a concat's test, from the ranges of the loop
// variables: known is false when x is not one loop variable plus an
// offset free of loop variables, or when its range lies on both sides of
// the bound; the bound is then recorded as a cut when n records them.
func (n *nest) below(x, hi sizeexpr.Expr) (yes, known bool) {
	var iv sizeexpr.Var
	found := 0
	for _, v := range x.Vars() {
		if v.Kind == sizeexpr.DimVar {
			iv = v
			found++
		}
	}
	r, ok := n.ranges[iv.Name]
	if found != 1 || !ok || n.dynamic[iv.Name] {
		return false, false
	}
	off := sizeexpr.Sub(x, iv.Expr())
	for _, v := range off.Vars() {
		if v.Kind == sizeexpr.DimVar {
			return false, false
		}
	}
	t := sizeexpr.Sub(hi, off) // x < hi is iv < t
	switch {
	case sizeexpr.ProveLE(t, r.Lo):
		return false, true
	case sizeexpr.ProveGE(t, r.Hi):
		return true, true
	}
	if n.cuts != nil {
		n.cuts[iv.Name] = append(n.cuts[iv.Name], t)
	}
	return false, false
}

// inside returns the range of iv between its cuts: above every cut a
// constant away from its lower bound, below every cut a constant away from
// its upper bound. ok is false when no cut is.
func inside(iv sizeexpr.Interval, cuts []sizeexpr.Expr) (in sizeexpr.Interval, ok bool) {
	var a, b int64
	for _, t := range cuts {
		lo, okLo := sizeexpr.Sub(t, iv.Lo).Const()
		hi, okHi := sizeexpr.Sub(iv.Hi, t).Const()
		switch {
		case okLo && (!okHi || lo <= hi):
			a = max(a, lo)
		case okHi:
			b = max(b, hi)
		}
	}
	return sizeexpr.Span(sizeexpr.Add(iv.Lo, sizeexpr.Const(a)), sizeexpr.Sub(iv.Hi, sizeexpr.Const(b))), a > 0 || b > 0
}

// splitNest builds the nest of outT's dimensions from level k on inside
// b, splitting each loop at its cuts: below the range between them, the
// range (split further inside), and above it.
func (fl *funcLowering) splitNest(outs []output, outT tir.TensorType, n *nest, b builder, cuts map[string][]sizeexpr.Expr, pt point, k int, loc ir.Location) error {
	if k == len(outT.Dims) {
		return fl.computeAt(outs, outT, n, b, pt, loc)
	}
	d := outT.Dims[k]
	in, ok := inside(d.Interval, cuts[ivName(k, d.Name)])
	if !ok {
		in = d.Interval
	}
	edge := func(iv sizeexpr.Interval) error {
		p := pt.with(d.Name, sizeexpr.Expr{})
		body, err := fl.openLoop(n, b, d, iv, p, k)
		if err != nil {
			return err
		}
		p, bodies, err := fl.loopNestFrom(n, body, outT.Dims[k+1:], p, k+1)
		if err != nil {
			return err
		}
		if err := fl.computeAt(outs, outT, n, bodies[len(bodies)-1], p, loc); err != nil {
			return err
		}
		closeNest(bodies)
		body.yield()
		return nil
	}
	if !in.Lo.Equal(d.Lo) {
		if err := edge(sizeexpr.Span(d.Lo, sizeexpr.Min(in.Lo, d.Hi))); err != nil {
			return err
		}
	}
	p := pt.with(d.Name, sizeexpr.Expr{})
	body, err := fl.openLoop(n, b, d, in, p, k)
	if err != nil {
		return err
	}
	if err := fl.splitNest(outs, outT, n, body, cuts, p, k+1, loc); err != nil {
		return err
	}
	body.yield()
	if !in.Hi.Equal(d.Hi) {
		return edge(sizeexpr.Span(sizeexpr.Max(in.Lo, in.Hi), d.Hi))
	}
	return nil
}
