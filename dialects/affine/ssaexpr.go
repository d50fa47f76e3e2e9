package affine

import (
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Affine expressions written over SSA values, as in `%m[%i + 1,
// symbol(%N) - 1]` and affine.parallel bounds. Reading one builds a map:
// each distinct value used plainly becomes a dimension d_k, each
// symbol(%x) a symbol s_k, numbered by first appearance; the map operands
// are the dimensions then the symbols (MLIR's parseAffineMapOfSSAIds).

// ssaMap collects the operands of a map being read. A value keeps the
// variable of its first use: `%N + symbol(%N)` is d0 + d0, as in MLIR.
type ssaMap struct {
	host       ir.ParserHost
	dims, syms []*ir.Value
	seen       map[*ir.Value]sizeexpr.Expr
}

func (m *ssaMap) value(n *ir.ExprNode) (*ir.Value, error) {
	v, err := m.host.ResolveValue(n.Name, n.Loc)
	if err != nil {
		return nil, err
	}
	if !ir.TypeEqual(v.Type, ir.Index) {
		return nil, ir.Errorf(n.Loc, "'%%%s' has type %s; affine subscripts and bounds need index values", n.Name, v.Type)
	}
	return v, nil
}

func (m *ssaMap) remember(v *ir.Value, e sizeexpr.Expr) sizeexpr.Expr {
	if m.seen == nil {
		m.seen = map[*ir.Value]sizeexpr.Expr{}
	}
	m.seen[v] = e
	return e
}

func (m *ssaMap) resolve(n *ir.ExprNode) (sizeexpr.Expr, error) {
	switch {
	case n.Kind == ir.ExprValue:
		v, err := m.value(n)
		if err != nil {
			return sizeexpr.Expr{}, err
		}
		if e, ok := m.seen[v]; ok {
			return e, nil
		}
		m.dims = append(m.dims, v)
		return m.remember(v, ir.MapDim(len(m.dims)-1)), nil
	case n.Kind == ir.ExprCall && n.Name == "symbol" && len(n.Args) == 1 && n.Args[0].Kind == ir.ExprValue:
		v, err := m.value(n.Args[0])
		if err != nil {
			return sizeexpr.Expr{}, err
		}
		if e, ok := m.seen[v]; ok {
			return e, nil
		}
		m.syms = append(m.syms, v)
		return m.remember(v, ir.MapSym(len(m.syms)-1)), nil
	}
	return sizeexpr.Expr{}, ir.Errorf(n.Loc, "expected an SSA value (%%i) or symbol(%%N) in an affine expression, found '%s'", n)
}

// expr converts one expression, which must be affine (no min or max).
func (m *ssaMap) expr(n *ir.ExprNode) (sizeexpr.Expr, error) {
	e, err := n.ToIndexExpr(m.resolve)
	if err != nil {
		return e, err
	}
	if !e.IsAffine() {
		return e, ir.Errorf(n.Loc, "'%s' is not an affine expression (min and max are only allowed as whole bounds)", n)
	}
	return e, nil
}

// operands returns the map operands: dims then symbols.
func (m *ssaMap) operands() []*ir.Value {
	return append(append([]*ir.Value(nil), m.dims...), m.syms...)
}

// parseSubscripts reads `[e0, e1, ...]` into a map and its operands.
func parseSubscripts(p *ir.OpParser) (ir.AffineMap, []*ir.Value, ir.Location, error) {
	entries, loc, err := p.Brackets()
	if err != nil {
		return ir.AffineMap{}, nil, loc, err
	}
	m := &ssaMap{host: p.Host}
	var results []sizeexpr.Expr
	for _, e := range entries {
		if e.Form != ir.EntryExpr {
			return ir.AffineMap{}, nil, loc, ir.Errorf(e.Loc, "expected an affine expression of SSA values")
		}
		x, err := m.expr(e.E)
		if err != nil {
			return ir.AffineMap{}, nil, loc, err
		}
		results = append(results, x)
	}
	return ir.AffineMap{NumDims: len(m.dims), NumSyms: len(m.syms), Results: results}, m.operands(), loc, nil
}

// canonicalSSA returns the results and operands that reading back the
// printed form of (results over dims then syms of ops) builds: variables
// numbered by first appearance in the printed text, a value used several
// times merged into its first use (as dim or symbol, whichever comes first,
// as MLIR's parser does), unused operands dropped. Printing this form makes
// print(parse(x)) a fixed point whatever map a pass built.
func canonicalSSA(results []sizeexpr.Expr, numDims int, ops []*ir.Value) ([]sizeexpr.Expr, []*ir.Value, []*ir.Value) {
	if numDims > len(ops) {
		return results, ops, nil // malformed; the verifier reports it
	}
	dims, syms := ops[:numDims], ops[numDims:]
	// Renumber until stable: the order of non-linear terms depends on the
	// variable names, so one renumbering may not be enough.
	for iter := 0; iter < 16; iter++ {
		sub := map[string]sizeexpr.Expr{}
		assigned := map[*ir.Value]sizeexpr.Expr{}
		var nd, ns []*ir.Value
		changed := false
		for _, r := range results {
			r.Format(func(v sizeexpr.Var) string {
				if _, done := sub[v.Name]; done {
					return v.Name
				}
				k, _ := strconv.Atoi(v.Name[1:])
				list := syms
				if v.Kind == sizeexpr.DimVar {
					list = dims
				}
				if k >= len(list) {
					return v.Name // malformed; left as is
				}
				val := list[k]
				e, ok := assigned[val]
				switch {
				case ok:
				case v.Kind == sizeexpr.DimVar:
					e = ir.MapDim(len(nd))
					nd = append(nd, val)
				default:
					e = ir.MapSym(len(ns))
					ns = append(ns, val)
				}
				assigned[val] = e
				sub[v.Name] = e
				if w, _ := e.AsVar(); w.Name != v.Name {
					changed = true
				}
				return v.Name
			})
		}
		if !changed && len(nd) == len(dims) && len(ns) == len(syms) {
			break
		}
		results, dims, syms = substAll(results, sub), nd, ns
	}
	return results, dims, syms
}

func substAll(es []sizeexpr.Expr, sub map[string]sizeexpr.Expr) []sizeexpr.Expr {
	out := make([]sizeexpr.Expr, len(es))
	for i, e := range es {
		out[i] = e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			r, ok := sub[v.Name]
			return r, ok
		})
	}
	return out
}

// printSSAExpr writes e with d_k printed as %dims[k] and s_k as
// symbol(%syms[k]).
func printSSAExpr(p ir.OpPrinter, e sizeexpr.Expr, dims, syms []*ir.Value) {
	const mark = "\x00"
	text := e.Format(func(v sizeexpr.Var) string { return mark + v.Name + mark })
	parts := strings.Split(text, mark)
	for i, part := range parts {
		if i%2 == 0 {
			p.Write(part)
			continue
		}
		k, _ := strconv.Atoi(part[1:])
		if part[0] == 'd' && k < len(dims) {
			p.Value(dims[k])
		} else if part[0] == 's' && k < len(syms) {
			p.Write("symbol(")
			p.Value(syms[k])
			p.Write(")")
		} else {
			p.Write("<<bad map operand " + part + ">>")
		}
	}
}

// printSubscripts writes `[e0, e1]` for a map applied to its operands.
func printSubscripts(p ir.OpPrinter, m ir.AffineMap, ops []*ir.Value) {
	results, dims, syms := canonicalSSA(m.Results, m.NumDims, ops)
	p.Write("[")
	for i, r := range results {
		if i > 0 {
			p.Write(", ")
		}
		printSSAExpr(p, r, dims, syms)
	}
	p.Write("]")
}
