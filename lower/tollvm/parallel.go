package tollvm

import (
	"fmt"
	"math"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/ir"
)

// emitAffineParallel lowers affine.parallel to nested sequential loops (the
// CPU strategy; with threads=omp, one without reductions that is not inside
// another parallel loop has its first dimension split among threads,
// threads.go). Attributes, as MLIR 16 prints them: lowerBoundsMap and
// upperBoundsMap hold the bound expressions of all dimensions concatenated;
// lowerBoundsGroups / upperBoundsGroups say how many results belong to each
// dimension (max of a lower group, min of an upper group); steps is an
// array of integers; reductions an array of arith::AtomicRMWKind values,
// one per result. Operands are the lower map's operands then the upper
// map's. Each result is the reduction of the values the body yields, over
// all iterations, starting from the kind's identity.
func emitAffineParallel(fe *fnEmitter, op *ir.Operation) error {
	if fe.outlines(op) {
		if done, err := fe.emitOutlined(op); done || err != nil {
			return err
		}
	}
	return fe.emitAffineParallelRange(op, nil)
}

// parallelOp is the parsed form of an affine.parallel.
type parallelOp struct {
	blk                *ir.Block
	lbMap, ubMap       ir.AffineMap
	lbGroups, ubGroups []int64
	steps              []int64
	kinds              []int64
	nlb                int // operands of the lower bound map
}

// readAffineParallel checks and parses the attributes of an affine.parallel.
func readAffineParallel(op *ir.Operation) (*parallelOp, error) {
	lbMap, err := mapAttr(op, "lowerBoundsMap")
	if err != nil {
		return nil, err
	}
	ubMap, err := mapAttr(op, "upperBoundsMap")
	if err != nil {
		return nil, err
	}
	blk, err := singleBlock(op, 0)
	if err != nil || blk == nil {
		return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel needs a body")
	}
	n := len(blk.Args)
	lbGroups, err := groupsAttr(op, "lowerBoundsGroups", n, len(lbMap.Results))
	if err != nil {
		return nil, err
	}
	ubGroups, err := groupsAttr(op, "upperBoundsGroups", n, len(ubMap.Results))
	if err != nil {
		return nil, err
	}
	steps := make([]int64, n)
	for i := range steps {
		steps[i] = 1
	}
	if a := op.Attr(affine.AttrSteps); a != nil {
		s, ok := intList(a)
		if !ok || len(s) != n {
			return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel steps %s do not match its %d dimensions", a, n)
		}
		steps = s
	}
	for _, s := range steps {
		if s <= 0 {
			return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel steps must be positive")
		}
	}
	var kinds []int64
	if a := op.Attr(affine.AttrReductions); a != nil {
		k, ok := intList(a)
		if !ok {
			return nil, ir.Errorf(op.Loc, "tollvm: cannot read affine.parallel reductions %s", a)
		}
		kinds = k
	}
	if len(kinds) != len(op.Results) {
		return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel has %d results but %d reductions", len(op.Results), len(kinds))
	}
	nlb := lbMap.NumDims + lbMap.NumSyms
	if len(op.Operands) != nlb+ubMap.NumDims+ubMap.NumSyms {
		return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel operands do not match its bound maps")
	}
	return &parallelOp{blk: blk, lbMap: lbMap, ubMap: ubMap, lbGroups: lbGroups, ubGroups: ubGroups, steps: steps, kinds: kinds, nlb: nlb}, nil
}

// bounds evaluates the bounds of every dimension in the current block,
// with args the LLVM values of the op's operands.
func (p *parallelOp) bounds(fe *fnEmitter, args []value.Value) (lbs, ubs []value.Value, err error) {
	if lbs, err = fe.applyMap(p.lbMap, args[:p.nlb]); err != nil {
		return nil, nil, err
	}
	if ubs, err = fe.applyMap(p.ubMap, args[p.nlb:]); err != nil {
		return nil, nil, err
	}
	return lbs, ubs, nil
}

// dimBounds reduces the bounds of dimension d (max of its lower group, min
// of its upper group) from the results of bounds.
func (p *parallelOp) dimBounds(fe *fnEmitter, lbs, ubs []value.Value, d int) (lb, ub value.Value) {
	lo, uo := int64(0), int64(0)
	for k := 0; k < d; k++ {
		lo += p.lbGroups[k]
		uo += p.ubGroups[k]
	}
	return fe.reduceBounds(lbs[lo:lo+p.lbGroups[d]], true), fe.reduceBounds(ubs[uo:uo+p.ubGroups[d]], false)
}

// emitAffineParallelRange lowers affine.parallel; outer, when not nil,
// replaces the bounds of the first dimension (an outlined part of it).
func (fe *fnEmitter) emitAffineParallelRange(op *ir.Operation, outer []value.Value) error {
	p, err := readAffineParallel(op)
	if err != nil {
		return err
	}
	blk, n, kinds := p.blk, len(p.blk.Args), p.kinds
	lbGroups, ubGroups, steps := p.lbGroups, p.ubGroups, p.steps
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	lbs, ubs, err := p.bounds(fe, args)
	if err != nil {
		return wrapErr(op, err)
	}
	resTypes := make([]types.Type, len(op.Results))
	inits := make([]value.Value, len(op.Results))
	for i := range op.Results {
		if resTypes[i], err = resultType(op, i); err != nil {
			return err
		}
		if inits[i], err = reductionIdentity(kinds[i], resTypes[i]); err != nil {
			return wrapErr(op, err)
		}
	}
	ivs := make([]value.Value, n)
	var nest func(d int, lbs, ubs []value.Value, accs []value.Value) ([]value.Value, error)
	nest = func(d int, lbRest, ubRest []value.Value, accs []value.Value) ([]value.Value, error) {
		if d == n {
			if err := fe.bindRegionArgs(op, blk, ivs); err != nil {
				return nil, err
			}
			ys, err := fe.emitBlock(blk)
			if err != nil {
				return nil, err
			}
			if len(ys) != len(accs) {
				return nil, fmt.Errorf("body yields %d values for %d reductions", len(ys), len(accs))
			}
			out := make([]value.Value, len(accs))
			for i := range accs {
				if out[i], err = fe.combine(kinds[i], accs[i], ys[i]); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		var lb, ub value.Value
		if d == 0 && outer != nil {
			lb, ub = outer[0], outer[1]
		} else {
			lb = fe.reduceBounds(lbRest[:lbGroups[d]], true)
			ub = fe.reduceBounds(ubRest[:ubGroups[d]], false)
		}
		return fe.emitCountedLoop(fe.ivName(blk.Args[d]), lb, ub, i64(steps[d]), accs, func(iv value.Value, iters []value.Value) ([]value.Value, error) {
			ivs[d] = iv
			return nest(d+1, lbRest[lbGroups[d]:], ubRest[ubGroups[d]:], iters)
		})
	}
	// All bounds are computed before the outermost loop (they cannot
	// depend on the parallel op's own induction variables), but each
	// group is reduced where its loop starts; both are loop-invariant.
	res, err := nest(0, lbs, ubs, inits)
	if err != nil {
		return wrapErr(op, err)
	}
	for i, r := range op.Results {
		fe.bind(r, res[i], "")
	}
	return nil
}

// groupsAttr reads lowerBoundsGroups / upperBoundsGroups (a dense i32
// elements attribute in MLIR 16); absent means one bound per dimension.
func groupsAttr(op *ir.Operation, name string, n, total int) ([]int64, error) {
	a := op.Attr(name)
	if a == nil {
		if total != n {
			return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel without %s needs one bound per dimension", name)
		}
		g := make([]int64, n)
		for i := range g {
			g[i] = 1
		}
		return g, nil
	}
	g, ok := intList(a)
	if !ok || len(g) != n {
		return nil, ir.Errorf(op.Loc, "tollvm: cannot read affine.parallel %s %s for %d dimensions", name, a, n)
	}
	sum := int64(0)
	for _, x := range g {
		if x <= 0 {
			return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel %s has an empty group", name)
		}
		sum += x
	}
	if sum != int64(total) {
		return nil, ir.Errorf(op.Loc, "tollvm: affine.parallel %s covers %d bounds, the map has %d", name, sum, total)
	}
	return g, nil
}

// intList reads an array of integers: an ArrayAttr of IntegerAttr
// (steps = [1, 2], reductions = [0]), MLIR's `array<i32: 1, 2>`
// (DenseArrayAttr) or `dense<[1, 2]> : tensor<2xi32>` (DenseElementsAttr,
// possibly a splat), the spellings of affine.parallel's bound groups.
func intList(a ir.Attribute) ([]int64, bool) {
	switch a := a.(type) {
	case ir.ArrayAttr:
		out := make([]int64, len(a))
		for i, e := range a {
			ia, ok := e.(ir.IntegerAttr)
			if !ok {
				return nil, false
			}
			out[i] = ia.Value
		}
		return out, true
	case ir.DenseArrayAttr:
		return a.Values, true
	case ir.DenseElementsAttr:
		shape, _, ok := ir.ShapeAndElem(a.Type)
		if !ok || len(shape) != 1 {
			return nil, false
		}
		out := make([]int64, shape[0])
		for i := range out {
			v := a.Values[0]
			if !a.IsSplat() {
				if i >= len(a.Values) {
					return nil, false
				}
				v = a.Values[i]
			}
			ia, ok := v.(ir.IntegerAttr)
			if !ok {
				return nil, false
			}
			out[i] = ia.Value
		}
		return out, true
	}
	return nil, false
}

// AtomicRMWKind values of MLIR 16's arith dialect, as affine.parallel's
// reductions attribute stores them.
const (
	rmwAddF = 0
	rmwAddI = 1
	rmwMaxF = 3
	rmwMaxS = 4
	rmwMaxU = 5
	rmwMinF = 6
	rmwMinS = 7
	rmwMinU = 8
	rmwMulF = 9
	rmwMulI = 10
	rmwOrI  = 11
	rmwAndI = 12
)

// reductionIdentity is the neutral element of a reduction kind.
func reductionIdentity(kind int64, t types.Type) (value.Value, error) {
	st := scalarOf(t)
	if ft, ok := st.(*types.FloatType); ok {
		var v float64
		switch kind {
		case rmwAddF:
			v = 0
		case rmwMulF:
			v = 1
		case rmwMaxF:
			v = math.Inf(-1)
		case rmwMinF:
			v = math.Inf(1)
		default:
			return nil, fmt.Errorf("reduction kind %d is not a float reduction", kind)
		}
		return splat(t, floatConst(ft, v)), nil
	}
	it, ok := st.(*types.IntType)
	if !ok {
		return nil, fmt.Errorf("reduction over type %s", t)
	}
	bits := it.BitSize
	var v int64
	switch kind {
	case rmwAddI, rmwOrI, rmwMaxU:
		v = 0
	case rmwMulI:
		v = 1
	case rmwAndI, rmwMinU:
		v = -1
	case rmwMaxS:
		v = -1 << (bits - 1)
	case rmwMinS:
		v = 1<<(bits-1) - 1
	default:
		return nil, fmt.Errorf("reduction kind %d is not an integer reduction", kind)
	}
	return intConst(t, v), nil
}

// combine applies a reduction kind to the accumulator and a new value.
func (fe *fnEmitter) combine(kind int64, acc, x value.Value) (value.Value, error) {
	b := fe.cur
	switch kind {
	case rmwAddF:
		return b.NewFAdd(acc, x), nil
	case rmwMulF:
		return b.NewFMul(acc, x), nil
	case rmwMaxF:
		return fe.floatMinMax(acc, x, true), nil
	case rmwMinF:
		return fe.floatMinMax(acc, x, false), nil
	case rmwAddI:
		return b.NewAdd(acc, x), nil
	case rmwMulI:
		return b.NewMul(acc, x), nil
	case rmwOrI:
		return b.NewOr(acc, x), nil
	case rmwAndI:
		return b.NewAnd(acc, x), nil
	case rmwMaxS:
		return b.NewSelect(b.NewICmp(enum.IPredSGT, acc, x), acc, x), nil
	case rmwMinS:
		return b.NewSelect(b.NewICmp(enum.IPredSLT, acc, x), acc, x), nil
	case rmwMaxU:
		return b.NewSelect(b.NewICmp(enum.IPredUGT, acc, x), acc, x), nil
	case rmwMinU:
		return b.NewSelect(b.NewICmp(enum.IPredULT, acc, x), acc, x), nil
	}
	return nil, fmt.Errorf("unsupported reduction kind %d", kind)
}
