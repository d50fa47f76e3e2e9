package interp

import (
	"fmt"

	"tir/dialects/sizeexpr"
)

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
