package tiraffine

import (
	"fmt"
	"slices"

	"tir/dialects/ir"
	"tir/dialects/scf"
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
// its upper bound. ok is false when no cut is. lows and highs are the
// cuts' distances from the lower and from the upper bound, ascending, the
// bounds of the edge pieces (the last of each is in's distance).
func inside(iv sizeexpr.Interval, cuts []sizeexpr.Expr) (in sizeexpr.Interval, lows, highs []int64, ok bool) {
	var a, b int64
	for _, t := range cuts {
		lo, okLo := sizeexpr.Sub(t, iv.Lo).Const()
		hi, okHi := sizeexpr.Sub(iv.Hi, t).Const()
		switch {
		case okLo && (!okHi || lo <= hi):
			a = max(a, lo)
			lows = addCut(lows, lo)
		case okHi:
			b = max(b, hi)
			highs = addCut(highs, hi)
		}
	}
	return sizeexpr.Span(sizeexpr.Add(iv.Lo, sizeexpr.Const(a)), sizeexpr.Sub(iv.Hi, sizeexpr.Const(b))), lows, highs, a > 0 || b > 0
}

// addCut inserts a positive distance into the ascending set cs.
func addCut(cs []int64, c int64) []int64 {
	if c <= 0 || slices.Contains(cs, c) {
		return cs
	}
	cs = append(cs, c)
	slices.Sort(cs)
	return cs
}

// maxEdgePieces bounds the copies of a nest's body that splitting its
// outer edges at every cut makes (the product of the outer levels'
// pieces); a nest that would need more keeps the tests in its edges.
const maxEdgePieces = 32

// splitNest builds the nest of outT's dimensions from level k on inside
// b, splitting each loop at its cuts: below the range between them, the
// range (split further inside), and above it. At the outer levels the
// edges are split at every cut too and split further inside like the
// range between (an edge row is as long as the rows inside: its tests
// would keep it from vectorizing), as long as the copies of the body
// that makes (copies so far, times the pieces) stay within
// maxEdgePieces; the innermost level's edges, a few points per row, keep
// their tests.
func (fl *funcLowering) splitNest(outs []output, outT tir.TensorType, n *nest, b builder, cuts map[string][]sizeexpr.Expr, pt point, k, copies int, loc ir.Location) error {
	if k == len(outT.Dims) {
		return fl.computeAt(outs, outT, n, b, pt, loc)
	}
	d := outT.Dims[k]
	name := ivName(k, d.Name)
	in, lows, highs, ok := inside(d.Interval, cuts[name])
	if !ok {
		in = d.Interval
		lows, highs = nil, nil
	}
	if pieces := len(lows) + 1 + len(highs); ok && k+1 < len(outT.Dims) && copies*pieces <= maxEdgePieces {
		// The pieces lie side by side when the domain is at least as
		// wide as its edges; a narrower one (a few rows) keeps the tests.
		var need int64
		if len(lows) > 0 {
			need += lows[len(lows)-1]
		}
		if len(highs) > 0 {
			need += highs[len(highs)-1]
		}
		width := sizeexpr.Sub(d.Hi, d.Lo)
		if sizeexpr.ProveGE(width, sizeexpr.Const(need)) {
			return fl.splitAtEveryCut(outs, outT, n, b, cuts, pt, k, copies*pieces, in, lows, highs, loc)
		}
		if !sizeexpr.ProveLT(width, sizeexpr.Const(need)) {
			ev := fl.newEvaluator(n, b)
			wide := cmpi(b, cmpiSGE, ev.index(width), fl.indexConst(need))
			ifOp := b.op(scf.If, []*ir.Value{wide}, nil, ir.DictAttr{}.With(tir.SplitWidthAttr, ir.UnitAttr{}))
			then := builder{block: ifOp.AddRegion().AddBlock(), loc: b.loc}
			if err := fl.splitAtEveryCut(outs, outT, n, then, cuts, pt, k, copies*pieces, in, lows, highs, loc); err != nil {
				return err
			}
			then.op(scf.Yield, nil, nil, nil)
			els := builder{block: ifOp.AddRegion().AddBlock(), loc: b.loc}
			defer els.op(scf.Yield, nil, nil, nil)
			b = els
		}
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
	if err := fl.splitNest(outs, outT, n, body, cuts, p, k+1, copies, loc); err != nil {
		return err
	}
	body.yield()
	if !in.Hi.Equal(d.Hi) {
		return edge(sizeexpr.Span(sizeexpr.Max(in.Lo, in.Hi), d.Hi))
	}
	return nil
}

// splitAtEveryCut builds level k of a split nest as one loop per piece
// between consecutive cuts (lows: distances from d's lower bound, highs:
// from its upper bound, ascending; in, the range between), each split
// further inside. The caller has made sure that the domain is at least
// as wide as the edges: the pieces lie side by side. The range each
// piece's tests are decided on says so too (a lower piece ends below
// in.Hi, an upper one starts above in.Lo), so that a test against a bound
// at the other end is decided as well.
func (fl *funcLowering) splitAtEveryCut(outs []output, outT tir.TensorType, n *nest, b builder, cuts map[string][]sizeexpr.Expr, pt point, k, copies int, in sizeexpr.Interval, lows, highs []int64, loc ir.Location) error {
	d := outT.Dims[k]
	piece := func(bounds, decided sizeexpr.Interval) error {
		p := pt.with(d.Name, sizeexpr.Expr{})
		body, err := fl.openLoop(n, b, d, bounds, p, k)
		if err != nil {
			return err
		}
		n.ranges[ivName(k, d.Name)] = decided
		if err := fl.splitNest(outs, outT, n, body, cuts, p, k+1, copies, loc); err != nil {
			return err
		}
		body.yield()
		return nil
	}
	at := func(base sizeexpr.Expr, c int64) sizeexpr.Expr { return sizeexpr.Add(base, sizeexpr.Const(c)) }
	prev := int64(0)
	for _, c := range lows {
		lo, hi := at(d.Lo, prev), at(d.Lo, c)
		if err := piece(sizeexpr.Span(lo, hi), sizeexpr.Span(lo, sizeexpr.Min(hi, in.Hi))); err != nil {
			return err
		}
		prev = c
	}
	if err := piece(in, in); err != nil {
		return err
	}
	for i := len(highs) - 1; i >= 0; i-- {
		next := int64(0)
		if i > 0 {
			next = highs[i-1]
		}
		lo, hi := at(d.Hi, -highs[i]), at(d.Hi, -next)
		if err := piece(sizeexpr.Span(lo, hi), sizeexpr.Span(sizeexpr.Max(in.Lo, lo), hi)); err != nil {
			return err
		}
	}
	return nil
}
