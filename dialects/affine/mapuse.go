package affine

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Maps and sets applied to operands: `affine_map<(d0)[s0] -> (d0 + s0)>(%i)[%N]`
// (or a #alias for the map). The printer always writes maps inline.

// parseDimsAndSyms reads `(%d, ...)` and an optional `[%s, ...]`, checking
// the counts against the map or set.
func parseDimsAndSyms(p *ir.OpParser, nd, ns int, loc ir.Location) ([]*ir.Value, error) {
	g, err := p.Group()
	if err != nil {
		return nil, err
	}
	dims, err := valueList(g)
	if err != nil {
		return nil, err
	}
	var syms []*ir.Value
	if p.IsBrackets() {
		entries, _, _ := p.Brackets()
		for _, e := range entries {
			if e.Form != ir.EntryExpr || e.E.Kind != ir.ExprValue {
				return nil, ir.Errorf(e.Loc, "expected an SSA value")
			}
			v, err := p.Host.ResolveValue(e.E.Name, e.E.Loc)
			if err != nil {
				return nil, err
			}
			syms = append(syms, v)
		}
	}
	if len(dims) != nd || len(syms) != ns {
		return nil, ir.Errorf(loc, "the map or set takes %d dims and %d symbols, got %d and %d", nd, ns, len(dims), len(syms))
	}
	return append(dims, syms...), nil
}

func valueList(g *ir.OpParser) ([]*ir.Value, error) {
	var vs []*ir.Value
	for !g.AtEnd() {
		v, err := g.Operand()
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
		if !g.Punct(",") {
			break
		}
	}
	return vs, g.ExpectEnd()
}

// parseMapUse reads `MAP(dims)[syms]`.
func parseMapUse(p *ir.OpParser) (ir.AffineMap, []*ir.Value, error) {
	it := p.Peek()
	if it == nil || it.Kind != ir.ItemAttr {
		return ir.AffineMap{}, nil, p.Errorf("expected an affine map")
	}
	ma, ok := it.Attr.(ir.AffineMapAttr)
	if !ok {
		return ir.AffineMap{}, nil, p.Errorf("expected an affine map, found %s", it.Attr)
	}
	p.Next()
	ops, err := parseDimsAndSyms(p, ma.Map.NumDims, ma.Map.NumSyms, it.Loc)
	return ma.Map, ops, err
}

// printDimsAndSyms writes `(dims)` and, with symbols, `[syms]`.
func printDimsAndSyms(p ir.OpPrinter, nd int, ops []*ir.Value) {
	if nd > len(ops) {
		nd = len(ops)
	}
	p.Write("(")
	p.Values(ops[:nd])
	p.Write(")")
	if len(ops) > nd {
		p.Write("[")
		p.Values(ops[nd:])
		p.Write("]")
	}
}

// printMapUse writes ` MAP(dims)[syms]`.
func printMapUse(p ir.OpPrinter, m ir.AffineMap, ops []*ir.Value) {
	p.Write(" ")
	p.Attr(ir.AffineMapAttr{Map: m})
	printDimsAndSyms(p, m.NumDims, ops)
}

// parseBound reads an affine.for bound: an integer, a symbol %N, or
// [max|min] MAP(dims)[syms]; keyword is "max" for lower bounds, "min" for
// upper ones.
func parseBound(p *ir.OpParser, keyword string) (ir.AffineMap, []*ir.Value, error) {
	loc := p.CurLoc()
	if p.IsValue() {
		v, err := p.Operand()
		if err != nil {
			return ir.AffineMap{}, nil, err
		}
		return SymbolMap(), []*ir.Value{v}, nil
	}
	if it := p.Peek(); it != nil && (it.Kind == ir.ItemInt || it.Kind == ir.ItemPunct && it.Text == "-") {
		c, err := p.Integer()
		if err != nil {
			return ir.AffineMap{}, nil, err
		}
		// As in an affine expression (ssaMap.expr): the loop passes
		// derive trip counts and chunks from the bounds.
		if err := sizeexpr.Const(c).CheckLimit(); err != nil {
			return ir.AffineMap{}, nil, ir.Errorf(loc, "loop bound %v", err)
		}
		return ConstantMap(c), nil, nil
	}
	hasKeyword := p.Word(keyword)
	m, ops, err := parseMapUse(p)
	if err != nil {
		return m, nil, err
	}
	if len(m.Results) == 0 {
		return m, nil, ir.Errorf(loc, "a loop bound map needs at least one result")
	}
	if len(m.Results) > 1 && !hasKeyword {
		return m, nil, ir.Errorf(loc, "a loop bound map with several results needs the '%s' keyword", keyword)
	}
	return m, ops, nil
}

// printBound writes a bound the way MLIR does: a constant map as the
// integer, ()[s0] -> (s0) as the symbol operand, otherwise the map with a
// max/min keyword when it has several results.
func printBound(p ir.OpPrinter, m ir.AffineMap, ops []*ir.Value, keyword string) {
	if len(m.Results) == 1 && m.NumDims == 0 {
		if c, ok := m.Results[0].Const(); ok && m.NumSyms == 0 {
			p.Write(itoa(c))
			return
		}
		if v, ok := m.Results[0].AsVar(); ok && m.NumSyms == 1 && v.Kind == sizeexpr.SymbolVar && len(ops) == 1 {
			p.Value(ops[0])
			return
		}
	}
	if len(m.Results) > 1 {
		p.Write(keyword + " ")
	}
	p.Attr(ir.AffineMapAttr{Map: m})
	printDimsAndSyms(p, m.NumDims, ops)
}

// ConstantMap is `() -> (c)`.
func ConstantMap(c int64) ir.AffineMap {
	return ir.AffineMap{Results: []sizeexpr.Expr{sizeexpr.Const(c)}}
}

// SymbolMap is `()[s0] -> (s0)`: a bound given by one symbol operand.
func SymbolMap() ir.AffineMap {
	return ir.AffineMap{NumSyms: 1, Results: []sizeexpr.Expr{ir.MapSym(0)}}
}

// DimMap is `(d0) -> (d0)`: a bound given by one dimension operand (an
// outer induction variable).
func DimMap() ir.AffineMap {
	return ir.AffineMap{NumDims: 1, Results: []sizeexpr.Expr{ir.MapDim(0)}}
}

// MapOf builds (d0..d{nd-1})[s0..s{ns-1}] -> (results); build results with
// ir.MapDim and ir.MapSym.
func MapOf(nd, ns int, results ...sizeexpr.Expr) ir.AffineMap {
	return ir.AffineMap{NumDims: nd, NumSyms: ns, Results: results}
}

func itoa(c int64) string { return sizeexpr.Const(c).String() }
