package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Re-indexing ops: tir.shift (read at offset) and tir.view (affine).

func init() {
	register("tir.shift", evalShift)
	register("tir.view", evalView)
}

// evalShift: y(I) = x(I + off). The result domain is the operand's moved
// by -off (from the result type); reading outside x is an interpreter
// error, since inference guarantees it cannot happen.
func evalShift(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	offs, ok := op.Attr("offsets").(tir.OffsetsAttr)
	if !ok {
		return nil, fmt.Errorf("needs an offsets attribute")
	}
	_, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	by := map[string]int64{}
	for i, d := range offs.Dims {
		v, err := evalExpr(offs.Offsets[i], ev.syms, nil)
		if err != nil {
			return nil, fmt.Errorf("offset of %s: %v", d, err)
		}
		by[d] = v
	}
	out, err := shifted(in[0], dims, by)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// evalView: y(p) = x(d = expr_d(p)) for every dimension d of x, with the
// expressions of the "map" attribute (a tir.ViewAttr) over the result's
// dimensions and size symbols. A point that reads outside x is the failure
// of the view's run-time precondition (spec 2.6): an error, never a read.
func evalView(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	m, ok := op.Attr("map").(tir.ViewAttr)
	if !ok {
		return nil, fmt.Errorf("needs a map attribute")
	}
	_, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	x := in[0]
	axes := make([]axisMap, len(x.Dims))
	for k, d := range x.Dims {
		e, ok := m.Expr(d.Name)
		if !ok {
			return nil, fmt.Errorf("no expression for dimension %s of the operand", d.Name)
		}
		if axes[k], err = viewAxis(e, dims, ev.syms); err != nil {
			return nil, fmt.Errorf("dimension %s: %v", d.Name, err)
		}
	}
	idx, bad, err := indexMap(x.Dims, dims, axes, ev.syms)
	if err != nil {
		return nil, err
	}
	if bad != nil {
		return nil, fmt.Errorf("view precondition fails: %s", bad.describe(x.Dims, dims))
	}
	return []*Tensor{take(x, dims, idx)}, nil
}

// viewAxis turns a view expression into an index map axis: linear in the
// result dimensions after substituting the symbols (the fast path), or
// evaluated per point (floordiv, mod, min, max).
func viewAxis(e sizeexpr.Expr, dims []Dim, syms map[string]int64) (axisMap, error) {
	e = e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
		if x, ok := syms[v.Name]; ok && v.Kind == sizeexpr.SymbolVar {
			return sizeexpr.Const(x), true
		}
		return sizeexpr.Expr{}, false
	})
	for _, v := range e.Vars() {
		if v.Kind == sizeexpr.SymbolVar {
			return axisMap{}, fmt.Errorf("size symbol %s is unbound", v.Name)
		}
		if findDim(dims, v.Name) < 0 {
			return axisMap{}, fmt.Errorf("%s is not a dimension of the result", v.Name)
		}
	}
	terms, c, ok := e.Linear()
	if !ok {
		return axisMap{expr: &e}, nil
	}
	a := axisMap{c: c}
	for _, t := range terms {
		a.terms = append(a.terms, axisTerm{from: findDim(dims, t.Var.Name), coef: t.Coef})
	}
	return a, nil
}
