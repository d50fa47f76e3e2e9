package affinepasses

import (
	"fmt"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/passes"
)

// affine-loop-tile: tile the band of perfectly nested affine.for loops at
// the top of every loop nest. sizes[k] is the tile size of the k-th loop of
// the band (outermost first); the band is as deep as the nest is perfect
// and as len(sizes), and a size of 0 or 1 leaves its loop untiled. A band
//
//	for %i = LBi to UBi step s { for %j = LBj to UBj { body } }
//
// becomes, with sizes Ti, Tj,
//
//	for %it = LBi to UBi step s*Ti { for %jt = LBj to UBj step Tj {
//	  for %i = %it to min(%it + s*Ti, UBi) step s { for %j = %jt to min(%jt + Tj, UBj) { body } } } }
//
// (the min is left out when the tile size divides a constant trip count; a
// loop whose constant trip count fits in one tile is not tiled). Bounds may
// be symbolic and have several results; the band stops before a loop whose
// bounds use the band's induction variables (it must be rectangular) or
// that carries iter_args.
//
// Legality: tiling runs the band's iterations in another order, which is
// correct when the band is fully permutable: every dependence between two
// accesses of the nest (at least one a write) has a distance vector along
// the band whose non-zero components all have one sign. The distance test
// is dependence.go's; an unknown component is only accepted when it is the
// only non-zero one (then either order of the pair is lexicographically
// positive and componentwise of one sign).
func init() {
	passes.Register(&passes.Def{
		Name:    "affine-loop-tile",
		Title:   "AffineLoopTile",
		Summary: "Tile perfectly nested affine.for bands (rectangular, fully permutable) with the given tile sizes",
		Anchor:  passes.AnchorFunc,
		Options: []passes.OptionSpec{
			{Name: "sizes", Type: passes.OptIntList, Default: []int{32, 8}, Help: "tile size of each loop of the band, outermost first (0 or 1: not tiled)"},
		},
		Check: func(o passes.Options) error {
			for _, s := range o.Ints("sizes") {
				if s < 0 {
					return fmt.Errorf("tile sizes must not be negative")
				}
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			sizes := o.Ints("sizes")
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				x := newValueExprs()
				rw := &ir.Rewriter{Root: fn}
				var roots []*ir.Operation
				fn.Walk(func(op *ir.Operation) bool {
					if op.Is(affine.For) {
						roots = append(roots, op)
						return false
					}
					return true
				})
				for _, root := range roots {
					tileBand(x, rw, band(root, len(sizes)), sizes)
				}
				return nil
			})
		},
	})
}

// band returns the perfectly nested loops from root down, at most max of
// them, stopping at a loop with iter_args.
func band(root *ir.Operation, max int) []*ir.Operation {
	var out []*ir.Operation
	for l := root; l != nil && len(out) < max && len(l.Results) == 0; {
		out = append(out, l)
		ops := bodyOps(l)
		if len(ops) != 1 || !ops[0].Is(affine.For) {
			break
		}
		l = ops[0]
	}
	return out
}

// tileBand tiles a band if it is rectangular and fully permutable.
func tileBand(x *valueExprs, rw *ir.Rewriter, loops []*ir.Operation, sizes []int) bool {
	if len(loops) == 0 {
		return false
	}
	root := loops[0]
	var tiled []int
	var ivs []*ir.Value
band:
	for k, l := range loops {
		lbs, ubs, ok := loopBounds(x, l)
		if !ok {
			return false
		}
		for _, e := range append(append([]sizeexpr.Expr(nil), lbs...), ubs...) {
			for _, w := range e.Vars() {
				if v := x.value(w); v == nil || ir.DefinedInside(v, root) {
					break band // not rectangular: the band stops here
				}
			}
		}
		ivs = append(ivs, affine.InductionVar(l))
		// A loop that fits in one tile is left alone.
		if n, known := constTripCount(x, l); sizes[k] > 1 && (!known || n > int64(sizes[k])) {
			tiled = append(tiled, k)
		}
	}
	if len(tiled) == 0 || !fullyPermutable(x, root, ivs) {
		return false
	}
	// The tile loops, nested, around the original band.
	var outer, inner *ir.Operation
	tileIVs := map[int]*ir.Value{}
	for _, k := range tiled {
		l := loops[k]
		lbs, ubs, _ := loopBounds(x, l)
		t, ok := newFor(x, l.Loc, lbs, ubs, loopStep(l)*int64(sizes[k]), nil)
		if !ok {
			return false
		}
		if affine.IsParallel(l) {
			t.SetAttr(affine.ParallelAttr, ir.UnitAttr{}) // tiles of a parallel loop are independent
		}
		iv := affine.InductionVar(t)
		iv.NameHint = ivs[k].NameHint + "t"
		tileIVs[k] = iv
		if outer == nil {
			outer = t
		} else {
			affine.ForBody(inner).Append(t)
			affine.ForBody(inner).Append(affine.NewYield(l.Loc))
		}
		inner = t
	}
	rw.InsertBefore(root, outer)
	root.Erase()
	affine.ForBody(inner).Append(root)
	affine.ForBody(inner).Append(affine.NewYield(root.Loc))
	// The original loops become the point loops.
	for _, k := range tiled {
		l := loops[k]
		lbs, ubs, _ := loopBounds(x, l)
		width := loopStep(l) * int64(sizes[k])
		t := x.varOf(tileIVs[k]).Expr()
		end := sizeexpr.Add(t, sizeexpr.Const(width))
		newUBs := append([]sizeexpr.Expr{end}, ubs...)
		if lb, ub, ok := constBounds(lbs, ubs); ok {
			switch {
			case (ub-lb)%width == 0:
				newUBs = []sizeexpr.Expr{end}
			}
		}
		setBounds(x, rw, l, []sizeexpr.Expr{t}, newUBs, nil)
	}
	return true
}

// fullyPermutable checks the dependences between the accesses nested in
// root along the band's induction variables ivs.
func fullyPermutable(x *valueExprs, root *ir.Operation, ivs []*ir.Value) bool {
	accs, unknown := effects(x, root)
	if unknown {
		return false
	}
	side := depSide{ivs: ivs, scope: root}
	for _, p := range conflicts(accs, accs, true) {
		indep, d := distance(x, p[0], p[1], side, side)
		if indep {
			continue
		}
		nonzero, unknownDist, pos, neg := 0, false, false, false
		for _, c := range d {
			switch {
			case !c.known:
				nonzero++
				unknownDist = true
			case c.d > 0:
				nonzero++
				pos = true
			case c.d < 0:
				nonzero++
				neg = true
			}
		}
		if nonzero > 1 && (unknownDist || (pos && neg)) {
			return false
		}
	}
	return true
}
