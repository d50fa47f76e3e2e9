package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Domains come from types: every value is evaluated on exactly the domain
// its (inferred) type gives, with the size expressions of the bounds
// evaluated at the run's symbol values.

// evalExpr evaluates a size expression; dims gives index-variable values
// (nil when the expression may only use size symbols).
func evalExpr(e sizeexpr.Expr, syms map[string]int64, dims map[string]int64) (int64, error) {
	for _, v := range e.Vars() {
		if v.Kind == sizeexpr.SymbolVar {
			if _, ok := syms[v.Name]; !ok {
				return 0, fmt.Errorf("size symbol %s is unbound", v.Name)
			}
		} else if _, ok := dims[v.Name]; !ok {
			return 0, fmt.Errorf("no value for dimension %s in %s", v.Name, e)
		}
	}
	return e.Eval(func(v sizeexpr.Var) (int64, bool) {
		if v.Kind == sizeexpr.SymbolVar {
			x, ok := syms[v.Name]
			return x, ok
		}
		x, ok := dims[v.Name]
		return x, ok
	})
}

// EvalDims evaluates the dimensions of a tensor type.
func EvalDims(t tir.TensorType, syms map[string]int64) ([]Dim, error) {
	out := make([]Dim, len(t.Dims))
	for i, d := range t.Dims {
		lo, err := evalExpr(d.Lo, syms, nil)
		if err != nil {
			return nil, fmt.Errorf("dimension %s: %v", d.Name, err)
		}
		hi, err := evalExpr(d.Hi, syms, nil)
		if err != nil {
			return nil, fmt.Errorf("dimension %s: %v", d.Name, err)
		}
		out[i] = Dim{Name: d.Name, Lo: lo, Hi: hi}
	}
	return out, nil
}

// typeDomain is the element type and concrete domain of a tensor type.
func typeDomain(t ir.Type, syms map[string]int64) (ir.Type, []Dim, error) {
	tt, ok := tir.AsTensor(t)
	if !ok {
		return nil, nil, fmt.Errorf("%s is not a !tir.tensor type", t)
	}
	if _, err := kindOf(tt.Elem); err != nil {
		return nil, nil, err
	}
	dims, err := EvalDims(tt, syms)
	return tt.Elem, dims, err
}

// sameDims reports whether two boxes are identical (names, order, bounds).
func sameDims(a, b []Dim) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// without drops the named dimensions.
func without(dims []Dim, names ...string) []Dim {
	var out []Dim
	for _, d := range dims {
		drop := false
		for _, n := range names {
			drop = drop || d.Name == n
		}
		if !drop {
			out = append(out, d)
		}
	}
	return out
}
