package affinepasses

import (
	"sort"
	"strconv"

	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// valueExprs writes affine expressions over SSA values instead of map
// positions. Two accesses written through different maps (A[%i + 1] as
// (d0) -> (d0 + 1) of %i, or as (d0) -> (d0) of an affine.apply of %i)
// become the same expression, so dependence tests and address comparisons
// can subtract them. Each value is a Dim variable: the prover then assumes
// nothing about its sign, which MLIR's symbols do not guarantee either.
type valueExprs struct {
	vars map[*ir.Value]sizeexpr.Var
	vals map[string]*ir.Value
}

func newValueExprs() *valueExprs {
	return &valueExprs{vars: map[*ir.Value]sizeexpr.Var{}, vals: map[string]*ir.Value{}}
}

// varOf returns the variable standing for v.
func (x *valueExprs) varOf(v *ir.Value) sizeexpr.Var {
	if w, ok := x.vars[v]; ok {
		return w
	}
	n := len(x.vars)
	w := sizeexpr.Var{Name: "%" + strconv.Itoa(n), Order: n, Kind: sizeexpr.DimVar}
	x.vars[v] = w
	x.vals[w.Name] = v
	return w
}

// value returns the SSA value a variable stands for (nil for variables
// that are not values, such as the fresh ones dependence tests add).
func (x *valueExprs) value(w sizeexpr.Var) *ir.Value { return x.vals[w.Name] }

// of returns v as an expression: an affine.apply is replaced by its map
// applied to its operands, an index constant by its value.
func (x *valueExprs) of(v *ir.Value) sizeexpr.Expr {
	if op := v.DefiningOp(); op != nil {
		switch op.Def {
		case affine.Apply:
			if a, ok := op.Attr(affine.AttrMap).(ir.AffineMapAttr); ok && len(a.Map.Results) == 1 {
				if es, ok := x.apply(a.Map, op.Operands); ok {
					return es[0]
				}
			}
		case arith.Constant:
			if c, ok := op.Attr(arith.AttrValue).(ir.IntegerAttr); ok && ir.TypeEqual(c.Type, ir.Index) {
				return sizeexpr.Const(c.Value)
			}
		}
	}
	return x.varOf(v).Expr()
}

// apply returns the results of m applied to operands; false when the
// operand count does not match the map.
func (x *valueExprs) apply(m ir.AffineMap, operands []*ir.Value) ([]sizeexpr.Expr, bool) {
	if len(operands) != m.NumDims+m.NumSyms {
		return nil, false
	}
	ok := true
	sub := func(w sizeexpr.Var) (sizeexpr.Expr, bool) {
		k, err := strconv.Atoi(w.Name[1:])
		if err != nil {
			ok = false
			return sizeexpr.Expr{}, false
		}
		switch {
		case w.Kind == sizeexpr.DimVar && w.Name[0] == 'd' && k < m.NumDims:
			return x.of(operands[k]), true
		case w.Kind == sizeexpr.SymbolVar && w.Name[0] == 's' && k < m.NumSyms:
			return x.of(operands[m.NumDims+k]), true
		}
		ok = false
		return sizeexpr.Expr{}, false
	}
	out := make([]sizeexpr.Expr, len(m.Results))
	for i, r := range m.Results {
		out[i] = r.Subst(sub)
	}
	return out, ok
}

// mapOf is the map attribute `name` of op applied to its operands.
func (x *valueExprs) mapOf(op *ir.Operation, name string, operands []*ir.Value) ([]sizeexpr.Expr, bool) {
	a, ok := op.Attr(name).(ir.AffineMapAttr)
	if !ok {
		return nil, false
	}
	return x.apply(a.Map, operands)
}

// toMap turns expressions over values back into an affine map and its
// operands: values that are valid affine symbols become symbols, the
// others dimensions. It fails on a variable that is not a value.
func (x *valueExprs) toMap(es []sizeexpr.Expr) (ir.AffineMap, []*ir.Value, bool) {
	seen := map[sizeexpr.Var]bool{}
	var vars []sizeexpr.Var
	for _, e := range es {
		for _, w := range e.Vars() {
			if !seen[w] {
				seen[w] = true
				vars = append(vars, w)
			}
		}
	}
	sort.Slice(vars, func(i, j int) bool { return vars[i].Order < vars[j].Order })
	var dims, syms []*ir.Value
	for _, w := range vars {
		v := x.value(w)
		if v == nil {
			return ir.AffineMap{}, nil, false
		}
		if affine.IsValidSymbol(v) {
			syms = append(syms, v)
		} else {
			dims = append(dims, v)
		}
	}
	pos := map[*ir.Value]sizeexpr.Expr{}
	for i, v := range dims {
		pos[v] = ir.MapDim(i)
	}
	for i, v := range syms {
		pos[v] = ir.MapSym(i)
	}
	results := make([]sizeexpr.Expr, len(es))
	for i, e := range es {
		results[i] = e.Subst(func(w sizeexpr.Var) (sizeexpr.Expr, bool) {
			r, ok := pos[x.value(w)]
			return r, ok
		})
	}
	return ir.AffineMap{NumDims: len(dims), NumSyms: len(syms), Results: results}, append(dims, syms...), true
}

// renameValues substitutes, in e, the variables of the values f maps.
func (x *valueExprs) renameValues(e sizeexpr.Expr, f func(*ir.Value) (sizeexpr.Expr, bool)) sizeexpr.Expr {
	return e.Subst(func(w sizeexpr.Var) (sizeexpr.Expr, bool) {
		if v := x.value(w); v != nil {
			return f(v)
		}
		return sizeexpr.Expr{}, false
	})
}

// exprsEqual compares two lists of expressions as sets (bound maps are
// max or min of their results, so order does not matter).
func exprsEqual(a, b []sizeexpr.Expr) bool {
	contains := func(l []sizeexpr.Expr, e sizeexpr.Expr) bool {
		for _, f := range l {
			if f.Equal(e) {
				return true
			}
		}
		return false
	}
	for _, e := range a {
		if !contains(b, e) {
			return false
		}
	}
	for _, e := range b {
		if !contains(a, e) {
			return false
		}
	}
	return true
}
