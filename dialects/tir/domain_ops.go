package tir

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Ops that change domains or element structure: cast, tuples, view,
// gather, can_deref, subset, broadcast, pos, concat, assume_shape.

func requireResultType(op *ir.Operation) (TensorType, error) {
	if op.Results[0].Type == nil {
		return TensorType{}, ir.Errorf(op.Loc, "'%s' needs its result type (: !tir.tensor<...>)", op.Name)
	}
	t, ok := AsTensor(op.Results[0].Type)
	if !ok {
		return TensorType{}, ir.Errorf(op.Loc, "'%s' result must be a !tir.tensor", op.Name)
	}
	return t, nil
}

var Cast = &Op{OpDef: ir.OpDef{
	Name:        "tir.cast",
	Summary:     "elementwise conversion to another element type",
	Syntax:      "%r = tir.cast %a : !tir.tensor<f64, ...>",
	Traits:      ir.TraitPure | ir.TraitElementwise,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$operands+ attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		want, err := requireResultType(op)
		if err != nil {
			return nil, err
		}
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		if _, tup := want.Elem.(ir.TupleType); tup {
			return nil, ir.Errorf(op.Loc, "'tir.cast' converts scalars, not tuples")
		}
		return []ir.Type{x.WithElem(want.Elem)}, nil
	},
}}

var MakeTuple = &Op{OpDef: ir.OpDef{
	Name:        "tir.make_tuple",
	Summary:     "elementwise tuple construction (operands broadcast)",
	Syntax:      "%t = tir.make_tuple %a, %b : T",
	Traits:      ir.TraitPure | ir.TraitElementwise,
	NumOperands: -1, NumResults: 1,
	Format: syntax("$operands+ attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		if len(op.Operands) == 0 {
			return nil, ir.Errorf(op.Loc, "'tir.make_tuple' needs at least one operand")
		}
		var elems []ir.Type
		for _, v := range op.Operands {
			t, err := tensorOf(op, v, "operand")
			if err != nil {
				return nil, err
			}
			elems = append(elems, t.Elem)
		}
		dims, err := broadcastDomain(op, op.Operands)
		if err != nil {
			return nil, err
		}
		return []ir.Type{TensorType{Elem: ir.TupleType{Elems: elems}, Dims: dims}}, nil
	},
}}

var TupleGet = &Op{OpDef: ir.OpDef{
	Name:        "tir.tuple_get",
	Summary:     "elementwise tuple component",
	Syntax:      "%x = tir.tuple_get %t[1] : T",
	Traits:      ir.TraitPure | ir.TraitElementwise,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$t index attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		t, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		tt, ok := t.Elem.(ir.TupleType)
		if !ok {
			return nil, ir.Errorf(op.Loc, "'tir.tuple_get' needs a tuple operand, got element type %s", t.Elem)
		}
		i := TupleIndex(op)
		if i < 0 || i >= len(tt.Elems) {
			return nil, ir.Errorf(op.Loc, "tuple index %d out of range for %s", i, tt)
		}
		return []ir.Type{t.WithElem(tt.Elems[i])}, nil
	},
},
	Detail: tupleGetDetail,
}

// TupleIndex is the component a tuple_get reads.
func TupleIndex(op *ir.Operation) int {
	a, _ := op.Attr("index").(ir.IntegerAttr)
	return int(a.Value)
}

var View = &Op{OpDef: ir.OpDef{
	Name:        "tir.view",
	Summary:     "affine re-indexing: y(i, k, j) = x(d0 = i + k, d1 = 2*j)",
	Syntax:      "%y = tir.view %x [d0 = i + k, d1 = 2*j] : !tir.tensor<f32, i[0:5], k[0:3], j[0:4]>",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$x map attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		want, err := requireResultType(op)
		if err != nil {
			return nil, err
		}
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		m, ok := op.Attr("map").(ViewAttr)
		if !ok {
			return nil, ir.Errorf(op.Loc, "'tir.view' needs a map attribute")
		}
		for _, d := range m.Dims {
			if x.Find(d) < 0 {
				return nil, ir.Errorf(op.Loc, "unknown dimension %s in view: the operand has %s", d, dimNames(x))
			}
		}
		for _, d := range x.Dims {
			if _, ok := m.Expr(d.Name); !ok {
				return nil, ir.Errorf(op.Loc, "view gives no expression for dimension %s of the operand", d.Name)
			}
		}
		for _, e := range m.Exprs {
			for _, v := range e.Vars() {
				if v.Kind == sizeexpr.DimVar && want.Find(v.Name) < 0 {
					return nil, ir.Errorf(op.Loc, "view expression uses %s, which is not a dimension of the result %s", v.Name, want)
				}
			}
		}
		return []ir.Type{want.WithElem(x.Elem)}, nil
	},
	Verify: func(op *ir.Operation, warn func(*ir.Diagnostic)) error {
		x, _ := AsTensor(op.Operands[0].Type)
		y, _ := AsTensor(op.Results[0].Type)
		m, _ := op.Attr("map").(ViewAttr)
		for i, d := range m.Dims {
			// A view built by a pass or the TC importer holds the
			// integers the parser would refuse in its text.
			if err := m.Exprs[i].CheckLimit(); err != nil {
				return ir.Errorf(op.Loc, "view of dimension %s: %v", d, err)
			}
			xd, _ := x.Dim(d)
			img, ok := ImageInterval(m.Exprs[i], y)
			if !ok {
				// Not affine (floordiv, mod): proven when bounds of its
				// image are inside, warned otherwise (the bounds may be
				// wider than the image: they prove, never refute).
				if b, ok := BoundsImage(m.Exprs[i], y); ok {
					if inside, _ := xd.Contains(b); inside {
						continue
					}
				}
			}
			if ok {
				// The interval the view reads is derived from the result's
				// domain: it must fit the index range as the types do.
				if err := img.CheckLimit(); err != nil {
					return ir.Errorf(op.Loc, "view reads dimension %s at %s over the result's domain: %v", d, m.Exprs[i], err)
				}
				inside, decided := xd.Contains(img)
				if inside {
					continue
				}
				if decided {
					return AddTrail(ir.Errorf(op.Loc, "view reads dimension %s on %s, outside the operand's %s", d, img, xd.Interval),
						"the operand", op.Operands[0], d)
				}
			}
			if warn != nil {
				warn(AddTrail(ir.Warningf(op.Loc, "view precondition not provable: %s = %s must stay inside %s; checked at run time", d, m.Exprs[i], xd.Interval),
					"the operand", op.Operands[0], d))
			}
		}
		return nil
	},
},
	reads:     viewReads,
	movesData: true,
	checks:    viewChecks,
	trail:     viewTrail,
	Detail:    viewDetail,
}

// ImageInterval bounds an affine expression of result dimensions over the
// result's domain: the half-open interval of values it takes. ok is false
// when the expression is not linear.
func ImageInterval(e sizeexpr.Expr, over TensorType) (sizeexpr.Interval, bool) {
	terms, c, ok := e.Linear()
	if !ok {
		return sizeexpr.Interval{}, false
	}
	lo, hi := sizeexpr.Const(c), sizeexpr.Const(c)
	for _, t := range terms {
		if t.Var.Kind != sizeexpr.DimVar {
			x := sizeexpr.Mul(t.Var.Expr(), t.Coef)
			lo, hi = sizeexpr.Add(lo, x), sizeexpr.Add(hi, x)
			continue
		}
		d, ok := over.Dim(t.Var.Name)
		if !ok {
			return sizeexpr.Interval{}, false
		}
		first, last := d.Lo, sizeexpr.Sub(d.Hi, sizeexpr.Const(1))
		if t.Coef < 0 {
			first, last = last, first
		}
		lo = sizeexpr.Add(lo, sizeexpr.Mul(first, t.Coef))
		hi = sizeexpr.Add(hi, sizeexpr.Mul(last, t.Coef))
	}
	return sizeexpr.Span(lo, sizeexpr.Add(hi, sizeexpr.Const(1))), true
}

// BoundsImage is an interval that holds every value of e over the
// domain, for an expression with floordiv and mod by constants (which
// ImageInterval, exact for affine expressions, does not take): a
// dimension ranges over its interval, x floordiv d from the quotient of
// x's least value to that of its greatest, x mod d over [0:d]. False for
// min, max and ceildiv atoms, and a dimension the domain lacks.
func BoundsImage(e sizeexpr.Expr, over TensorType) (sizeexpr.Interval, bool) {
	lo, hi, ok := bounds(e, over)
	if !ok {
		return sizeexpr.Interval{}, false
	}
	return sizeexpr.Span(lo, sizeexpr.Add(hi, sizeexpr.Const(1))), true
}

// bounds are the least and greatest values of e over the domain (both
// included), or bounds of them.
func bounds(e sizeexpr.Expr, over TensorType) (lo, hi sizeexpr.Expr, ok bool) {
	terms, c := e.Terms()
	lo, hi = sizeexpr.Const(c), sizeexpr.Const(c)
	for _, t := range terms {
		a := t.Atom
		var alo, ahi sizeexpr.Expr
		switch a.Op() {
		case sizeexpr.OpVar:
			if a.Var().Kind != sizeexpr.DimVar {
				alo, ahi = a.Expr(), a.Expr()
				break
			}
			d, found := over.Dim(a.Var().Name)
			if !found {
				return lo, hi, false
			}
			alo, ahi = d.Lo, sizeexpr.Sub(d.Hi, sizeexpr.Const(1))
		case sizeexpr.OpFloorDiv:
			xlo, xhi, found := bounds(a.Operand(), over)
			if !found {
				return lo, hi, false
			}
			alo, _ = sizeexpr.FloorDiv(xlo, a.Divisor())
			ahi, _ = sizeexpr.FloorDiv(xhi, a.Divisor())
		case sizeexpr.OpMod:
			alo, ahi = sizeexpr.Const(0), sizeexpr.Const(a.Divisor()-1)
		default:
			return lo, hi, false
		}
		if t.Coef < 0 {
			alo, ahi = ahi, alo
		}
		lo = sizeexpr.Add(lo, sizeexpr.Mul(alo, t.Coef))
		hi = sizeexpr.Add(hi, sizeexpr.Mul(ahi, t.Coef))
	}
	return lo, hi, true
}

var Gather = &Op{OpDef: ir.OpDef{
	Name:        "tir.gather",
	Summary:     "data-dependent indexing: g(t, r) = x(Vertex = table(t), r), masked outside x's interval",
	Syntax:      "%g = tir.gather %x [Vertex = %table] : T",
	Traits:      ir.TraitPure,
	NumOperands: 2, NumResults: 1,
	Format: syntax("$x dim-table($table) attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		table, err := tensorOf(op, op.Operands[1], "table")
		if err != nil {
			return nil, err
		}
		if !ir.IsInteger(table.Elem) {
			return nil, ir.Errorf(op.Loc, "'tir.gather' table must have an integer element type, got %s", table.Elem)
		}
		dim := DimAttr(op)
		if x.Find(dim) < 0 {
			return nil, ir.Errorf(op.Loc, "unknown dimension %s in gather: the operand has %s", dim, dimNames(x))
		}
		// The table may have the gathered dimension itself (Vertex -> Vertex
		// neighbour tables): its Vertex is the destination, the operand's
		// the one read. Other shared dimensions are one dimension, on the
		// intersection of their intervals.
		dims := append([]Dim(nil), table.Dims...)
		for _, d := range x.Dims {
			if d.Name == dim {
				continue
			}
			if i := (TensorType{Dims: dims}).Find(d.Name); i >= 0 {
				dims[i].Interval = dims[i].Intersect(d.Interval)
				if dims[i].ProvablyEmpty() {
					return nil, emptyDomain(op, op.Operands, dims[i])
				}
				continue
			}
			dims = append(dims, d)
		}
		return []ir.Type{TensorType{Elem: x.Elem, Dims: dims}}, nil
	},
},
	reads:     gatherReads,
	movesData: true,
	masked:    gatherMasks,
	Detail:    gatherDetail,
	Cost:      CostGather,
}

// DimAttr is the dimension an op works along (gather, pos, concat, scan).
func DimAttr(op *ir.Operation) string {
	s, _ := op.Attr("dim").(ir.StringAttr)
	return string(s)
}

var CanDeref = &Op{OpDef: ir.OpDef{
	Name:        "tir.can_deref",
	Summary:     "i1 tensor, true where the operand is not masked",
	Syntax:      "%m = tir.can_deref %g : T",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$operands+ attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		return []ir.Type{x.WithElem(ir.I1)}, nil
	},
},
	reads:  readsAtResultPoint,
	masked: neverMasked,
}

var Subset = &Op{OpDef: ir.OpDef{
	Name:        "tir.subset",
	Summary:     "restrict the domain (error if not inside)",
	Syntax:      "%y = tir.subset %x [I[1:4], K[0:N-1]] : T",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$x domain(bounds) attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		bounds, _ := op.Attr("bounds").(DomainAttr)
		dims := append([]Dim(nil), x.Dims...)
		for _, b := range bounds {
			i := x.Find(b.Name)
			if i < 0 {
				return nil, ir.Errorf(op.Loc, "unknown dimension %s in subset: the operand has %s", b.Name, dimNames(x))
			}
			if inside, decided := x.Dims[i].Contains(b.Interval); !inside && decided {
				return nil, AddTrail(ir.Errorf(op.Loc, "subset %s is not inside the operand's %s", b, x.Dims[i]),
					"the operand", op.Operands[0], b.Name)
			}
			if b.ProvablyEmpty() {
				return nil, ir.Errorf(op.Loc, "empty domain in dimension %s: subset %s is empty", b.Name, b)
			}
			dims[i] = b
		}
		return []ir.Type{TensorType{Elem: x.Elem, Dims: dims}}, nil
	},
},
	reads:     readsAtResultPoint,
	movesData: true,
	checks:    subsetChecks,
	trail:     subsetTrail,
	Detail:    subsetDetail,
}

var Broadcast = &Op{OpDef: ir.OpDef{
	Name:        "tir.broadcast",
	Summary:     "add dimensions along which the value does not vary",
	Syntax:      "%y = tir.broadcast %x [K[0:9]] : T",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$x domain(dims) attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		add, _ := op.Attr("dims").(DomainAttr)
		dims := append([]Dim(nil), x.Dims...)
		for _, d := range add {
			if x.Find(d.Name) >= 0 {
				return nil, ir.Errorf(op.Loc, "duplicate dimension %s: the operand already has it", d.Name)
			}
			if d.ProvablyEmpty() {
				return nil, ir.Errorf(op.Loc, "empty domain in dimension %s: %s is empty", d.Name, d)
			}
			dims = append(dims, d)
		}
		return []ir.Type{TensorType{Elem: x.Elem, Dims: dims}}, nil
	},
},
	reads:     readsAtResultPoint,
	movesData: true,
	trail:     broadcastTrail,
	Detail:    broadcastDetail,
}

var Pos = &Op{OpDef: ir.OpDef{
	Name:        "tir.pos",
	Summary:     "the index itself: p(i) = i over the operand's interval of I (i64)",
	Syntax:      "%p = tir.pos I of %x : T",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1,
	Format: syntax("dim of $x attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		d, ok := x.Dim(DimAttr(op))
		if !ok {
			return nil, ir.Errorf(op.Loc, "unknown dimension %s in pos: the operand has %s", DimAttr(op), dimNames(x))
		}
		return []ir.Type{TensorType{Elem: ir.I64, Dims: []Dim{d}}}, nil
	},
},
	reads:  noReads,
	masked: neverMasked,
	trail:  posTrail,
	Detail: posDetail,
}

var Concat = &Op{OpDef: ir.OpDef{
	Name:        "tir.concat",
	Summary:     "join pieces along a dimension (intervals contiguous, in order)",
	Syntax:      "%y = tir.concat %a, %b along I : T",
	Traits:      ir.TraitPure,
	NumOperands: -1, NumResults: 1,
	Format: syntax("$operands+ along dim attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		if len(op.Operands) < 2 {
			return nil, ir.Errorf(op.Loc, "'tir.concat' needs at least two operands")
		}
		dim := DimAttr(op)
		elem, err := commonElem(op, op.Operands)
		if err != nil {
			return nil, err
		}
		var pieces []Dim
		for i, v := range op.Operands {
			t, _ := AsTensor(v.Type)
			d, ok := t.Dim(dim)
			if !ok {
				return nil, ir.Errorf(op.Loc, "operand #%d of concat has no dimension %s", i, dim).AddNote(DefLoc(v), "operand #%d is defined here", i)
			}
			if i > 0 && !sizeexpr.ProveEQ(pieces[i-1].Hi, d.Lo) {
				e := ir.Errorf(op.Loc, "concat intervals not contiguous along %s: operand #%d ends at %s but operand #%d starts at %s",
					dim, i-1, pieces[i-1].Hi, i, d.Lo)
				AddTrail(e, fmt.Sprintf("operand #%d", i-1), op.Operands[i-1], dim)
				return nil, AddTrail(e, fmt.Sprintf("operand #%d", i), v, dim)
			}
			pieces = append(pieces, d)
		}
		// The other dimensions broadcast as in 2.2; dim itself is the union.
		dims, err := broadcastExcept(op, op.Operands, dim)
		if err != nil {
			return nil, err
		}
		joined := Dim{Name: dim, Interval: sizeexpr.Span(pieces[0].Lo, pieces[len(pieces)-1].Hi)}
		out := []Dim{}
		for _, d := range dims {
			if d.Name == dim {
				out = append(out, joined)
			} else {
				out = append(out, d)
			}
		}
		return []ir.Type{TensorType{Elem: elem, Dims: out}}, nil
	},
},
	reads:     concatReads,
	movesData: true,
	trail:     concatTrail,
	Detail:    concatDetail,
}

// broadcastExcept is Broadcast where one dimension keeps the first
// operand's interval (the caller replaces it).
func broadcastExcept(op *ir.Operation, vals []*ir.Value, except string) ([]Dim, error) {
	var dims []Dim
	index := map[string]int{}
	for _, v := range vals {
		t, _ := AsTensor(v.Type)
		for _, d := range t.Dims {
			if i, ok := index[d.Name]; ok {
				if d.Name != except {
					dims[i].Interval = dims[i].Intersect(d.Interval)
				}
				continue
			}
			index[d.Name] = len(dims)
			dims = append(dims, d)
		}
	}
	for _, d := range dims {
		if d.Name != except && d.ProvablyEmpty() {
			return nil, emptyDomain(op, vals, d)
		}
	}
	return dims, nil
}

var AssumeShape = &Op{OpDef: ir.OpDef{
	Name:        "tir.assume_shape",
	Summary:     "assert more precise (or other symbolic) extents: static when provable, else one run-time check",
	Syntax:      "%y = tir.assume_shape %x : T",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1,
	Format: syntax("$operands+ attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		want, err := requireResultType(op)
		if err != nil {
			return nil, err
		}
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		if !ir.TypeEqual(x.Elem, want.Elem) || len(x.Dims) != len(want.Dims) {
			return nil, ir.Errorf(op.Loc, "'tir.assume_shape' can change intervals only: %s vs %s", x, want)
		}
		for i, d := range want.Dims {
			xd, ok := x.Dim(d.Name)
			if !ok || x.Dims[i].Name != d.Name {
				return nil, ir.Errorf(op.Loc, "'tir.assume_shape' must keep the dimensions in order: %s vs %s", x, want)
			}
			if provablyDifferent(xd.Lo, d.Lo) || provablyDifferent(xd.Hi, d.Hi) {
				return nil, ir.Errorf(op.Loc, "'tir.assume_shape' can never hold: dimension %s is %s, not %s", d.Name, xd.Interval, d.Interval)
			}
		}
		return []ir.Type{want}, nil
	},
},
	reads:     readsAtResultPoint,
	movesData: true,
	checks:    assumeShapeChecks,
	trail:     assumeShapeTrail,
}

func provablyDifferent(a, b sizeexpr.Expr) bool {
	c, ok := sizeexpr.Compare(a, b)
	return ok && c != 0
}
