package parser

import (
	"github.com/antlr4-go/antlr/v4"

	"math"
	"sort"
	"strconv"
	"strings"

	"tir/dialects/internal/limits"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/grammar/tirparser"
)

func (b *builder) typ(ctx tirparser.IType_Context) (ir.Type, error) {
	switch c := ctx.(type) {
	case *tirparser.NamedTypeContext:
		if t := ir.BuiltinScalar(c.GetText()); t != nil {
			return t, nil
		}
		return nil, ir.Errorf(b.locOf(c), "unknown type '%s'", c.GetText())
	case *tirparser.CompositeTypeAltContext:
		return b.compositeType(c.CompositeType())
	case *tirparser.FuncTypeContext:
		return b.functionType(c.FunctionType())
	}
	return nil, ir.Errorf(b.locOf(ctx), "expected a type")
}

func (b *builder) typeList(l tirparser.ITypeListContext) ([]ir.Type, error) {
	if l == nil {
		return nil, nil
	}
	var ts []ir.Type
	for _, t := range l.AllType_() {
		tt, err := b.typ(t)
		if err != nil {
			return nil, err
		}
		ts = append(ts, tt)
	}
	return ts, nil
}

func (b *builder) functionType(c tirparser.IFunctionTypeContext) (ir.FunctionType, error) {
	ins, err := b.typeList(c.GetIns())
	if err != nil {
		return ir.FunctionType{}, err
	}
	var outs []ir.Type
	if c.GetOut() != nil {
		t, err := b.typ(c.GetOut())
		if err != nil {
			return ir.FunctionType{}, err
		}
		outs = []ir.Type{t}
	} else if outs, err = b.typeList(c.GetOuts()); err != nil {
		return ir.FunctionType{}, err
	}
	return ir.FunctionType{Inputs: ins, Results: outs}, nil
}

func (b *builder) compositeType(ctx tirparser.ICompositeTypeContext) (ir.Type, error) {
	loc := b.locOf(ctx)
	switch c := ctx.(type) {
	case *tirparser.ParametricTypeContext:
		name := c.Identifier().GetText()
		params, err := b.typeParams(c.AllTypeParam())
		if err != nil {
			return nil, err
		}
		return b.builtinParametric(name, loc, params)
	case *tirparser.DialectTypeContext:
		name := c.BANG_ID().GetText()[1:]
		if c.LANGLE() == nil {
			if t, ok := b.typeAlias[name]; ok {
				return t, nil
			}
			if !strings.Contains(name, ".") {
				return nil, ir.Errorf(loc, "undefined type alias !%s", name)
			}
			if f := ir.LookupType(name); f != nil {
				return f(&ir.TypeParams{Name: name, Loc: loc, Host: b})
			}
			return ir.OpaqueType{Name: name}, nil
		}
		f := ir.LookupType(name)
		if f == nil {
			// Keep unknown dialect types verbatim.
			text := sourceText(c)
			open := strings.Index(text, "<")
			return ir.OpaqueType{Name: name, Body: text[open+1 : len(text)-1]}, nil
		}
		params, err := b.typeParams(c.AllTypeParam())
		if err != nil {
			return nil, err
		}
		return f(&ir.TypeParams{Name: name, Loc: loc, Params: params, Host: b})
	}
	return nil, ir.Errorf(loc, "expected a type")
}

func (b *builder) typeParams(ps []tirparser.ITypeParamContext) ([]ir.TypeParam, error) {
	var out []ir.TypeParam
	for _, pc := range ps {
		p := ir.TypeParam{Loc: b.locOf(pc)}
		var err error
		switch c := pc.(type) {
		case *tirparser.ShapeParamContext:
			p.Kind = ir.ParamType
			for _, child := range c.GetChildren() {
				var s string
				var dloc ir.Location
				switch d := child.(type) {
				case antlr.TerminalNode:
					if d.GetSymbol().GetTokenType() != tirparser.TIRParserSHAPE_DIM {
						continue
					}
					s, dloc = strings.TrimSuffix(d.GetText(), "x"), b.loc(d.GetSymbol())
				case *tirparser.SpacedDimContext:
					if d.Identifier().GetText() != "x" {
						return nil, ir.Errorf(b.locOf(d.Identifier()), "expected 'x' after a dimension, got '%s'", d.Identifier().GetText())
					}
					s, dloc = strings.TrimSuffix(strings.TrimSuffix(d.GetText(), d.Identifier().GetText()), " "), b.locOf(d)
				default:
					continue
				}
				scalable := strings.HasPrefix(s, "[")
				if scalable {
					s = strings.Trim(s, "[]")
					if p.Scalable == nil {
						p.Scalable = []bool{}
					}
					for len(p.Scalable) < len(p.List) {
						p.Scalable = append(p.Scalable, false)
					}
				}
				if p.Scalable != nil {
					p.Scalable = append(p.Scalable, scalable)
				}
				if s == "?" {
					p.List = append(p.List, &ir.ExprNode{Kind: ir.ExprUnknown, Loc: dloc})
					continue
				}
				v, perr := strconv.ParseInt(s, 10, 64)
				if perr != nil {
					return nil, ir.Errorf(dloc, "dimension %s is out of range", s)
				}
				p.List = append(p.List, &ir.ExprNode{Kind: ir.ExprInt, Int: v, Loc: dloc})
			}
			p.Type, err = b.typ(c.Type_())
		case *tirparser.UnrankedParamContext:
			p.Kind, p.Unranked = ir.ParamType, true
			w := c.Identifier().GetText()
			if !strings.HasPrefix(w, "x") || ir.BuiltinScalar(w[1:]) == nil {
				return nil, ir.Errorf(p.Loc, "expected *xT with a scalar element type T, got *%s", w)
			}
			p.Type = ir.BuiltinScalar(w[1:])
		case *tirparser.AffineMapParamContext:
			p.Kind = ir.ParamAttr
			m, merr := b.affineMap(c.AffineMapAttr())
			if merr != nil {
				return nil, merr
			}
			p.Attr = ir.AffineMapAttr{Map: m}
		case *tirparser.AttrAliasParamContext:
			p.Kind = ir.ParamAttr
			p.Attr, err = b.attrAliasRef(c.HASH_ID().GetSymbol())
		case *tirparser.DimParamContext:
			p.Kind, p.Name = ir.ParamDim, c.Identifier().GetText()
			if c.GetHi() != nil {
				if p.Lo, err = b.expr(c.GetLo()); err == nil {
					p.Hi, err = b.expr(c.GetHi())
				}
			} else {
				p.Hi, err = b.expr(c.GetLo())
			}
		case *tirparser.ListParamContext:
			p.Kind = ir.ParamExprList
			for _, e := range c.AllExpr() {
				n, eerr := b.expr(e)
				if eerr != nil {
					return nil, eerr
				}
				p.List = append(p.List, n)
			}
		case *tirparser.KeyParamContext:
			p.Kind, p.Name = ir.ParamKeyValue, c.Identifier().GetText()
			p.Hi, err = b.expr(c.Expr())
		case *tirparser.IntParamContext:
			p.Kind = ir.ParamExpr
			v, perr := parseInt(c.INT().GetText(), 10, c.GetNeg() != nil)
			if perr != nil {
				return nil, ir.Errorf(p.Loc, "integer out of range")
			}
			p.Hi = &ir.ExprNode{Kind: ir.ExprInt, Int: v, Loc: p.Loc}
		default:
			return nil, ir.Errorf(p.Loc, "unsupported type parameter '%s'", pc.GetText())
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

func staticDims(list []*ir.ExprNode) []int64 {
	out := make([]int64, len(list))
	for i, n := range list {
		if n.Kind == ir.ExprUnknown {
			out[i] = ir.Dynamic
		} else {
			out[i] = n.Int
		}
	}
	return out
}

func (b *builder) builtinParametric(name string, loc ir.Location, ps []ir.TypeParam) (ir.Type, error) {
	switch name {
	case "tuple":
		var es []ir.Type
		for _, p := range ps {
			if p.Kind != ir.ParamType || len(p.List) > 0 {
				return nil, ir.Errorf(p.Loc, "tuple elements must be types")
			}
			es = append(es, p.Type)
		}
		return ir.TupleType{Elems: es}, nil
	case "memref", "vector", "tensor":
		if len(ps) == 0 || ps[0].Kind != ir.ParamType {
			return nil, ir.Errorf(loc, "%s needs a shape and an element type", name)
		}
		shape := staticDims(ps[0].List)
		if name == "tensor" {
			if len(ps) != 1 {
				return nil, ir.Errorf(loc, "tensor takes a shape and an element type only")
			}
			return ir.RankedTensorType{Shape: shape, Elem: ps[0].Type}, nil
		}
		if ps[0].Unranked && name != "memref" {
			return nil, ir.Errorf(loc, "only memref types can be unranked")
		}
		if name == "vector" {
			if len(ps) != 1 {
				return nil, ir.Errorf(loc, "vector takes a shape and an element type only")
			}
			return ir.VectorType{Shape: shape, Elem: ps[0].Type, Scalable: ps[0].Scalable}, nil
		}
		if ps[0].Scalable != nil {
			return nil, ir.Errorf(loc, "only vector types have scalable dimensions")
		}
		t := ir.MemRefType{Shape: shape, Elem: ps[0].Type, Unranked: ps[0].Unranked}
		rest := ps[1:]
		// An optional layout (not for unranked memrefs), then an optional
		// memory space.
		if len(rest) > 0 && !t.Unranked {
			if l, ok := rest[0].Type.(ir.StridedLayout); ok && rest[0].Kind == ir.ParamType {
				if len(l.Strides) != len(shape) {
					return nil, ir.Errorf(rest[0].Loc, "strided layout has %d strides for a rank-%d memref", len(l.Strides), len(shape))
				}
				t.Layout = &l
				rest = rest[1:]
			} else if ma, ok := rest[0].Attr.(ir.AffineMapAttr); ok && rest[0].Kind == ir.ParamAttr {
				if ma.Map.NumDims != len(shape) {
					return nil, ir.Errorf(rest[0].Loc, "memref layout map has %d dimensions for a rank-%d memref", ma.Map.NumDims, len(shape))
				}
				if !isIdentity(ma.Map) {
					m := ma.Map
					t.Map = &m
				}
				rest = rest[1:]
			}
		}
		if len(rest) > 0 {
			switch rest[0].Kind {
			case ir.ParamExpr:
				if rest[0].Hi.Kind != ir.ExprInt {
					return nil, ir.Errorf(rest[0].Loc, "expected an integer memory space")
				}
				// MLIR drops the default memory space 0.
				if rest[0].Hi.Int != 0 {
					t.MemorySpace = ir.IntegerAttr{Value: rest[0].Hi.Int}
				}
			case ir.ParamAttr:
				t.MemorySpace = rest[0].Attr
			default:
				return nil, ir.Errorf(rest[0].Loc, "expected a memref layout (strided<...> or affine_map<...>) or a memory space")
			}
			rest = rest[1:]
		}
		if len(rest) > 0 {
			return nil, ir.Errorf(rest[0].Loc, "unexpected memref parameter")
		}
		return t, nil
	case "strided":
		if len(ps) == 0 || ps[0].Kind != ir.ParamExprList {
			return nil, ir.Errorf(loc, "strided<[...]> needs a stride list")
		}
		l := ir.StridedLayout{}
		for _, n := range ps[0].List {
			v, err := staticInt(n)
			if err != nil {
				return nil, err
			}
			l.Strides = append(l.Strides, v)
		}
		if len(ps) > 1 {
			if ps[1].Kind != ir.ParamKeyValue || ps[1].Name != "offset" {
				return nil, ir.Errorf(ps[1].Loc, "expected 'offset: N'")
			}
			v, err := staticInt(ps[1].Hi)
			if err != nil {
				return nil, err
			}
			l.Offset = v
		}
		return l, nil
	}
	return nil, ir.Errorf(loc, "unknown type '%s'", name)
}

func staticInt(n *ir.ExprNode) (int64, error) {
	switch n.Kind {
	case ir.ExprUnknown:
		return ir.Dynamic, nil
	case ir.ExprInt:
		return n.Int, nil
	case ir.ExprNeg:
		if n.Args[0].Kind == ir.ExprInt {
			return -n.Args[0].Int, nil
		}
	}
	return 0, ir.Errorf(n.Loc, "expected an integer or '?'")
}

// ---- attributes ----

func (b *builder) attr(ctx tirparser.IAttributeContext) (ir.Attribute, error) {
	loc := b.locOf(ctx)
	switch c := ctx.(type) {
	case *tirparser.NumberAttrContext:
		var t ir.Type
		if c.Type_() != nil {
			var err error
			if t, err = b.typ(c.Type_()); err != nil {
				return nil, err
			}
		}
		text := c.GetValue().GetText()
		neg := c.GetNeg() != nil
		switch {
		case c.FLOAT() != nil || (t != nil && ir.IsFloat(t) && c.INT() != nil):
			v, err := strconv.ParseFloat(text, 64)
			if err != nil && !math.IsInf(v, 0) {
				return nil, ir.Errorf(loc, "bad float literal %s", text)
			}
			if neg {
				v = -v
			}
			if t == nil {
				t = ir.F64
			}
			return ir.FloatAttr{Value: v, Type: t}, nil
		case c.HEX() != nil && t != nil && ir.IsFloat(t):
			bits, err := strconv.ParseUint(text[2:], 16, 64)
			if err != nil {
				return nil, ir.Errorf(loc, "bad hexadecimal literal %s", text)
			}
			v := math.Float64frombits(bits)
			if t.(ir.FloatType).Bits() == 32 {
				v = float64(math.Float32frombits(uint32(bits)))
			}
			return ir.FloatAttr{Value: v, Type: t}, nil
		default:
			base := 10
			if c.HEX() != nil {
				base, text = 16, text[2:]
			}
			v, err := parseInt(text, base, neg)
			if err != nil {
				return nil, ir.Errorf(loc, "integer literal out of range")
			}
			if t == nil {
				t = ir.I64
			}
			return ir.IntegerAttr{Value: v, Type: t}, nil
		}
	case *tirparser.StringAttrContext:
		s, err := unquote(c.STRING().GetText())
		if err != nil {
			return nil, ir.Errorf(loc, "%v", err)
		}
		return ir.StringAttr(s), nil
	case *tirparser.BoolAttrContext:
		return ir.BoolAttr(c.GetText() == "true"), nil
	case *tirparser.ArrayAttrContext:
		out := ir.ArrayAttr{}
		for _, e := range c.AllAttribute() {
			a, err := b.attr(e)
			if err != nil {
				return nil, err
			}
			out = append(out, a)
		}
		return out, nil
	case *tirparser.DictAttributeContext:
		return b.dict(c.DictAttr())
	case *tirparser.AffineMapAttributeContext:
		m, err := b.affineMap(c.AffineMapAttr())
		return ir.AffineMapAttr{Map: m}, err
	case *tirparser.AffineSetAttributeContext:
		s, err := b.affineSet(c.AffineSetAttr())
		return ir.AffineSetAttr{Set: s}, err
	case *tirparser.DialectAttributeContext:
		return b.dialectAttr(c.DialectAttr())
	case *tirparser.AttrAliasRefContext:
		return b.attrAliasRef(c.HASH_ID().GetSymbol())
	case *tirparser.SymbolRefAttrContext:
		path, err := symbolPath(c.SYMBOL_REF().GetText())
		if err != nil {
			return nil, ir.Errorf(loc, "%v", err)
		}
		return ir.SymbolRef(path...), nil
	case *tirparser.TypeAttrContext:
		return b.typeAttr(c)
	}
	return nil, ir.Errorf(loc, "expected an attribute")
}

func (b *builder) dict(ctx tirparser.IDictAttrContext) (ir.DictAttr, error) {
	d := &dictBuilder{}
	for _, e := range ctx.AllDictEntry() {
		if err := b.addEntry(d, e, e.DictKey().GetText(), e.Attribute()); err != nil {
			return nil, err
		}
	}
	return d.done(), nil
}

// dictBuilder collects the entries of a dictionary, sorted once at the
// end: adding them one by one with DictAttr.With, which copies and sorts,
// would take time quadratic in their number.
type dictBuilder struct {
	entries ir.DictAttr
	seen    map[string]bool
}

func (d *dictBuilder) done() ir.DictAttr {
	out := append(ir.DictAttr{}, d.entries...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// bareDict reads a dictionary written after a region (grammar: bareDict).
func (b *builder) bareDict(ctx tirparser.IBareDictContext) (ir.DictAttr, error) {
	d := &dictBuilder{}
	var err error
	for _, c := range ctx.GetChildren() {
		switch c := c.(type) {
		case tirparser.IKeyedEntryContext:
			err = b.addEntry(d, c, c.DictKey().GetText(), c.Attribute())
		case tirparser.IUnitEntryContext:
			err = b.addEntry(d, c, c.GetText(), nil)
		case tirparser.IPlainKeyContext:
			err = b.addEntry(d, c, c.GetText(), nil)
		case tirparser.IDictEntryContext:
			err = b.addEntry(d, c, c.DictKey().GetText(), c.Attribute())
		}
		if err != nil {
			return nil, err
		}
	}
	return d.done(), nil
}

// addEntry adds key = value (a unit attribute without value) to d.
func (b *builder) addEntry(d *dictBuilder, at antlr.ParserRuleContext, key string, value tirparser.IAttributeContext) error {
	if strings.HasPrefix(key, "\"") {
		k, err := unquote(key)
		if err != nil {
			return ir.Errorf(b.locOf(at), "%v", err)
		}
		key = k
	}
	if d.seen[key] {
		return ir.Errorf(b.locOf(at), "duplicate attribute '%s'", key)
	}
	var v ir.Attribute = ir.UnitAttr{}
	if value != nil {
		var err error
		if v, err = b.attr(value); err != nil {
			return err
		}
	}
	if d.seen == nil {
		d.seen = map[string]bool{}
	}
	d.seen[key] = true
	d.entries = append(d.entries, ir.NamedAttr{Name: key, Value: v})
	return nil
}

func (b *builder) dialectAttr(c tirparser.IDialectAttrContext) (ir.Attribute, error) {
	name := c.HASH_ID().GetText()[1:]
	loc := b.locOf(c)
	f := ir.LookupAttr(name)
	if f == nil {
		text := sourceText(c)
		open := strings.Index(text, "<")
		return ir.OpaqueAttr{Name: name, Body: text[open+1 : len(text)-1]}, nil
	}
	var items []ir.Item
	for _, e := range c.AllGroupElem() {
		its, err := b.groupElem(e)
		if err != nil {
			return nil, err
		}
		items = append(items, its...)
	}
	return f(ir.NewOpParser(b, loc, items))
}

func (b *builder) dimSyms(c tirparser.IDimSymListsContext) (map[string]sizeexpr.Expr, int, int, error) {
	names := map[string]sizeexpr.Expr{}
	nd, ns := 0, 0
	add := func(l tirparser.IIdentListContext, sym bool) error {
		if l == nil {
			return nil
		}
		for _, id := range l.AllIdentifier() {
			n := id.GetText()
			if _, dup := names[n]; dup {
				return ir.Errorf(b.locOf(id), "duplicate identifier '%s'", n)
			}
			if sym {
				names[n] = ir.MapSym(ns)
				ns++
			} else {
				names[n] = ir.MapDim(nd)
				nd++
			}
		}
		return nil
	}
	if err := add(c.GetDims(), false); err != nil {
		return nil, 0, 0, err
	}
	if err := add(c.GetSyms(), true); err != nil {
		return nil, 0, 0, err
	}
	return names, nd, ns, nil
}

func mapResolver(names map[string]sizeexpr.Expr) ir.Resolver {
	return func(n *ir.ExprNode) (sizeexpr.Expr, error) {
		if n.Kind == ir.ExprName {
			if e, ok := names[n.Name]; ok {
				return e, nil
			}
			return sizeexpr.Expr{}, ir.Errorf(n.Loc, "'%s' is neither a dimension nor a symbol of the map", n.Name)
		}
		return sizeexpr.Expr{}, ir.Errorf(n.Loc, "'%s' is not allowed in an affine map", n)
	}
}

func (b *builder) affineMap(c tirparser.IAffineMapAttrContext) (ir.AffineMap, error) {
	names, nd, ns, err := b.dimSyms(c.DimSymLists())
	if err != nil {
		return ir.AffineMap{}, err
	}
	m := ir.AffineMap{NumDims: nd, NumSyms: ns}
	for _, e := range c.AllExpr() {
		n, err := b.expr(e)
		if err != nil {
			return m, err
		}
		x, err := n.ToIndexExpr(mapResolver(names))
		if err != nil {
			return m, err
		}
		m.Results = append(m.Results, x)
	}
	return m, nil
}

func (b *builder) affineSet(c tirparser.IAffineSetAttrContext) (ir.AffineSet, error) {
	names, nd, ns, err := b.dimSyms(c.DimSymLists())
	if err != nil {
		return ir.AffineSet{}, err
	}
	s := ir.AffineSet{NumDims: nd, NumSyms: ns}
	for _, k := range c.AllConstraint() {
		l, err := b.expr(k.GetLhs())
		if err != nil {
			return s, err
		}
		r, err := b.expr(k.GetRhs())
		if err != nil {
			return s, err
		}
		le, err := l.ToIndexExpr(mapResolver(names))
		if err != nil {
			return s, err
		}
		re, err := r.ToIndexExpr(mapResolver(names))
		if err != nil {
			return s, err
		}
		switch k.GetOp().GetText() {
		case ">=":
			s.Constraints = append(s.Constraints, ir.AffineConstraint{Expr: sizeexpr.Sub(le, re)})
		case "<=":
			s.Constraints = append(s.Constraints, ir.AffineConstraint{Expr: sizeexpr.Sub(re, le)})
		default:
			s.Constraints = append(s.Constraints, ir.AffineConstraint{Expr: sizeexpr.Sub(le, re), Eq: true})
		}
	}
	return s, nil
}

// ---- expressions ----

// minInt64Abs is 2^63, the one integer literal that fits in 64 bits only
// after a minus sign.
const minInt64Abs = "9223372036854775808"

// expr builds a size or affine expression, of at most
// limits.MaxSizeExprTerms terms.
func (b *builder) expr(ctx tirparser.IExprContext) (*ir.ExprNode, error) {
	if b.exprDepth == 0 {
		b.exprTerms, b.exprLoc = 0, b.locOf(ctx)
	}
	if b.exprTerms++; b.exprTerms > limits.MaxSizeExprTerms {
		return nil, limits.ExprError(b.exprLoc, limits.MaxSizeExprTerms)
	}
	b.exprDepth++
	defer func() { b.exprDepth-- }()
	return b.exprNode(ctx)
}

func (b *builder) exprNode(ctx tirparser.IExprContext) (*ir.ExprNode, error) {
	loc := b.locOf(ctx)
	switch c := ctx.(type) {
	case *tirparser.NegExprContext:
		// -9223372036854775808 is how MLIR writes a dynamic stride or
		// offset: the literal after the sign is 2^63, which fits only
		// negated.
		if atom, ok := c.Expr().(*tirparser.AtomExprContext); ok && atom.GetText() == minInt64Abs {
			return &ir.ExprNode{Kind: ir.ExprInt, Int: math.MinInt64, Loc: loc}, nil
		}
		a, err := b.expr(c.Expr())
		if err != nil {
			return nil, err
		}
		if a.Kind == ir.ExprInt {
			if a.Int == math.MinInt64 {
				return nil, ir.Errorf(loc, "integer overflow: -(%d) does not fit in 64 bits", a.Int)
			}
			return &ir.ExprNode{Kind: ir.ExprInt, Int: -a.Int, Loc: loc}, nil
		}
		return &ir.ExprNode{Kind: ir.ExprNeg, Loc: loc, Args: []*ir.ExprNode{a}}, nil
	case *tirparser.MulExprContext:
		kind := map[string]ir.ExprKind{"*": ir.ExprMul, "floordiv": ir.ExprFloorDiv, "ceildiv": ir.ExprCeilDiv, "mod": ir.ExprMod}[c.GetOp().GetText()]
		return b.binary(kind, loc, c.Expr(0), c.Expr(1))
	case *tirparser.AddExprContext:
		kind := ir.ExprAdd
		if c.GetOp().GetText() == "-" {
			kind = ir.ExprSub
		}
		return b.binary(kind, loc, c.Expr(0), c.Expr(1))
	case *tirparser.AtomExprContext:
		return b.atom(c.Atom())
	}
	return nil, ir.Errorf(loc, "expected an expression")
}

func (b *builder) binary(k ir.ExprKind, loc ir.Location, l, r tirparser.IExprContext) (*ir.ExprNode, error) {
	a, err := b.expr(l)
	if err != nil {
		return nil, err
	}
	c, err := b.expr(r)
	if err != nil {
		return nil, err
	}
	return &ir.ExprNode{Kind: k, Loc: loc, Args: []*ir.ExprNode{a, c}}, nil
}

func (b *builder) atom(ctx tirparser.IAtomContext) (*ir.ExprNode, error) {
	loc := b.locOf(ctx)
	switch c := ctx.(type) {
	case *tirparser.IntAtomContext:
		v, err := strconv.ParseInt(c.GetText(), 10, 64)
		if err != nil {
			return nil, ir.Errorf(loc, "integer literal %s does not fit in 64 bits", c.GetText())
		}
		return &ir.ExprNode{Kind: ir.ExprInt, Int: v, Loc: loc}, nil
	case *tirparser.IdAtomContext:
		return &ir.ExprNode{Kind: ir.ExprName, Name: c.GetText(), Loc: loc}, nil
	case *tirparser.ValueAtomContext:
		return &ir.ExprNode{Kind: ir.ExprValue, Name: c.GetText()[1:], Loc: loc}, nil
	case *tirparser.UnknownAtomContext:
		// `?` alone, or `?name` for an unknown extent named after the
		// argument and dimension it was declared on.
		n := &ir.ExprNode{Kind: ir.ExprUnknown, Loc: loc}
		if c.Identifier() != nil {
			n.Name = "?" + c.Identifier().GetText()
		}
		return n, nil
	case *tirparser.ParenAtomContext:
		return b.expr(c.Expr())
	case *tirparser.CallAtomContext:
		n := &ir.ExprNode{Kind: ir.ExprCall, Name: c.Identifier().GetText(), Loc: loc}
		for _, e := range c.AllExpr() {
			a, err := b.expr(e)
			if err != nil {
				return nil, err
			}
			n.Args = append(n.Args, a)
		}
		return n, nil
	}
	return nil, ir.Errorf(loc, "expected an expression")
}

// isIdentity reports (d0, ..., dn) -> (d0, ..., dn) without symbols, the
// layout MLIR leaves out of a memref type.
func isIdentity(m ir.AffineMap) bool {
	if m.NumSyms != 0 || len(m.Results) != m.NumDims {
		return false
	}
	for i, r := range m.Results {
		if r.String() != ir.MapDim(i).String() {
			return false
		}
	}
	return true
}

// parseInt reads an integer literal of up to 64 bits, as MLIR reads one
// for a 64-bit type: -9223372036854775808 (how MLIR writes a dynamic
// stride or offset) and unsigned spellings above the int64 range
// (18446744073709551615 is -1) are accepted; wider values are errors.
func parseInt(text string, base int, neg bool) (int64, error) {
	u, err := strconv.ParseUint(text, base, 64)
	if err != nil {
		return 0, err
	}
	if neg {
		if u > 1<<63 {
			return 0, errString("integer literal out of range")
		}
		return -int64(u), nil
	}
	return int64(u), nil
}

// sourceText is the input text a rule matched, blanks included (the
// body of an unregistered dialect's type or attribute is kept as written,
// as MLIR keeps it).
func sourceText(ctx antlr.ParserRuleContext) string {
	start, stop := ctx.GetStart(), ctx.GetStop()
	if start == nil || stop == nil || start.GetInputStream() == nil {
		return ctx.GetText()
	}
	return start.GetInputStream().GetTextFromInterval(antlr.NewInterval(start.GetStart(), stop.GetStop()))
}
