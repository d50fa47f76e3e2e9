package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// ParallelBounds are the bounds of every dimension of an affine.parallel
// on one side (lower or upper).
type ParallelBounds struct {
	// Map holds the bound expressions of all dimensions, concatenated.
	Map ir.AffineMap
	// Groups says how many consecutive results of Map belong to each
	// dimension (their max for lower bounds, their min for upper ones).
	Groups []int64
	// Operands are the map operands, dims then symbols.
	Operands []*ir.Value
}

// SingleBounds is one bound per dimension: result i of m for dimension i.
func SingleBounds(m ir.AffineMap, operands []*ir.Value) ParallelBounds {
	g := make([]int64, len(m.Results))
	for i := range g {
		g[i] = 1
	}
	return ParallelBounds{Map: m, Groups: g, Operands: operands}
}

// ConstantBounds is one constant bound per dimension.
func ConstantBounds(cs ...int64) ParallelBounds {
	var rs []sizeexpr.Expr
	for _, c := range cs {
		rs = append(rs, sizeexpr.Const(c))
	}
	return SingleBounds(ir.AffineMap{Results: rs}, nil)
}

func groupsAttr(g []int64) ir.DenseElementsAttr {
	var vs []ir.Attribute
	for _, x := range g {
		vs = append(vs, ir.IntegerAttr{Value: x})
	}
	d, _ := ir.TypedDense(ir.DenseElementsAttr{Values: vs}, ir.RankedTensorType{Shape: []int64{int64(len(g))}, Elem: ir.I32})
	return d
}

func i64Array(xs []int64) ir.ArrayAttr {
	out := ir.ArrayAttr{}
	for _, x := range xs {
		out = append(out, ir.IntegerAttr{Value: x, Type: ir.I64})
	}
	return out
}

// ParallelParts decodes an affine.parallel's bounds, steps and reduction
// kinds (names).
func ParallelParts(op *ir.Operation) (lb, ub ParallelBounds, steps []int64, reductions []string) {
	lbm := op.Attr("lowerBoundsMap").(ir.AffineMapAttr).Map
	ubm := op.Attr("upperBoundsMap").(ir.AffineMapAttr).Map
	nl := lbm.NumDims + lbm.NumSyms
	lb = ParallelBounds{Map: lbm, Groups: denseInts(op.Attr("lowerBoundsGroups")), Operands: op.Operands[:nl]}
	ub = ParallelBounds{Map: ubm, Groups: denseInts(op.Attr("upperBoundsGroups")), Operands: op.Operands[nl:]}
	steps = arrayInts(op.Attr("steps"))
	for _, k := range arrayInts(op.Attr("reductions")) {
		reductions = append(reductions, ReductionKinds[k])
	}
	return lb, ub, steps, reductions
}

// denseInts expands a groups attribute (a splat repeats to the tensor size).
func denseInts(a ir.Attribute) []int64 {
	d, ok := a.(ir.DenseElementsAttr)
	if !ok {
		return nil
	}
	n := 1
	if shape, _, ok := ir.ShapeAndElem(d.Type); ok && len(shape) == 1 {
		n = int(shape[0])
	}
	var out []int64
	for i := 0; i < n; i++ {
		v := d.Values[0]
		if !d.IsSplat() && i < len(d.Values) {
			v = d.Values[i]
		}
		iv, _ := v.(ir.IntegerAttr)
		out = append(out, iv.Value)
	}
	return out
}

func arrayInts(a ir.Attribute) []int64 {
	arr, _ := a.(ir.ArrayAttr)
	var out []int64
	for _, e := range arr {
		iv, _ := e.(ir.IntegerAttr)
		out = append(out, iv.Value)
	}
	return out
}

// parallelShapeError checks what printing and ParallelParts rely on.
func parallelShapeError(op *ir.Operation) error {
	lbm, ok1 := op.Attr("lowerBoundsMap").(ir.AffineMapAttr)
	ubm, ok2 := op.Attr("upperBoundsMap").(ir.AffineMapAttr)
	lg, ok3 := op.Attr("lowerBoundsGroups").(ir.DenseElementsAttr)
	ug, ok4 := op.Attr("upperBoundsGroups").(ir.DenseElementsAttr)
	steps, ok5 := op.Attr("steps").(ir.ArrayAttr)
	reds, ok6 := op.Attr("reductions").(ir.ArrayAttr)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return errf(op, "needs lowerBoundsMap, lowerBoundsGroups, upperBoundsMap, upperBoundsGroups, steps and reductions")
	}
	for _, g := range []ir.DenseElementsAttr{lg, ug} {
		if !ir.TypeEqual(g.Type, ir.RankedTensorType{Shape: []int64{int64(len(steps))}, Elem: ir.I32}) {
			return errf(op, "bound groups must be dense<...> : tensor<%dxi32> (one per dimension)", len(steps))
		}
	}
	for _, a := range append(append(ir.ArrayAttr{}, steps...), reds...) {
		if iv, ok := a.(ir.IntegerAttr); !ok || !ir.TypeEqual(iv.Type, ir.I64) {
			return errf(op, "steps and reductions must be arrays of i64")
		}
	}
	for _, r := range arrayInts(reds) {
		if r < 0 || r >= int64(len(ReductionKinds)) {
			return errf(op, "unknown reduction kind %d", r)
		}
	}
	if len(reds) != len(op.Results) {
		return errf(op, "has %d reductions but %d results", len(reds), len(op.Results))
	}
	n := lbm.Map.NumDims + lbm.Map.NumSyms + ubm.Map.NumDims + ubm.Map.NumSyms
	if n != len(op.Operands) {
		return errf(op, "the bound maps take %d operands but the op has %d", n, len(op.Operands))
	}
	for _, side := range []struct {
		m ir.AffineMap
		g ir.DenseElementsAttr
	}{{lbm.Map, lg}, {ubm.Map, ug}} {
		sum := int64(0)
		for _, x := range denseInts(side.g) {
			if x < 1 {
				return errf(op, "bound groups must be positive")
			}
			sum += x
		}
		if sum != int64(len(side.m.Results)) {
			return errf(op, "bound groups add up to %d but the map has %d results", sum, len(side.m.Results))
		}
	}
	r := op.Regions[0]
	if len(r.Blocks) != 1 || len(r.Blocks[0].Args) != len(steps) {
		return errf(op, "body must be one block with one index argument per dimension (%d)", len(steps))
	}
	for _, a := range r.Blocks[0].Args {
		if !ir.TypeEqual(a.Type, ir.Index) {
			return errf(op, "induction variables must be index values")
		}
	}
	if len(op.Results) == 0 && !arith.IsEmptyTerminator(r.Blocks[0]) {
		return errf(op, "body must end with affine.yield")
	}
	return nil
}
