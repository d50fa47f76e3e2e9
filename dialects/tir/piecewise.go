package tir

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// tir.piecewise: GT4Py's `with interval(...)` as one value. Over a
// dimension's interval, each point takes the value of the first piece
// whose interval holds it, and the else value where none does:
//
//	%r = tir.piecewise along K[0:L] [0:1] %top, [L - 1:L] %bot, else %mid
//
// The operands are the pieces' values in order, then the else value.

// IntervalsAttr is a list of intervals of one dimension (the pieces of a
// tir.piecewise), printed #tir.intervals<[[0:1], [L - 1:L]]>.
type IntervalsAttr []sizeexpr.Interval

// Text prints `[0:1], [L - 1:L]`.
func (a IntervalsAttr) Text() string {
	parts := make([]string, len(a))
	for i, iv := range a {
		parts[i] = iv.String()
	}
	return strings.Join(parts, ", ")
}

func (a IntervalsAttr) String() string { return "#tir.intervals<[" + a.Text() + "]>" }

// PiecewiseParts returns the dimension, the whole interval and the
// pieces' intervals of a tir.piecewise.
func PiecewiseParts(op *ir.Operation) (string, sizeexpr.Interval, IntervalsAttr) {
	d, _ := op.Attr(AttrInterval).(DomainAttr)
	pieces, _ := op.Attr(AttrPieces).(IntervalsAttr)
	var iv sizeexpr.Interval
	if len(d) == 1 {
		iv = d[0].Interval
	}
	return DimAttr(op), iv, pieces
}

// clip is the part of a piece inside the whole interval: a piece applies
// there only.
func clip(p, whole sizeexpr.Interval) sizeexpr.Interval { return p.Intersect(whole) }

// PiecewiseElseSpan is the hull of the points of the whole interval that
// no piece holds: where the else value is read. The gaps before the first
// piece, between pieces and after the last are dropped at the ends when
// provably empty.
func PiecewiseElseSpan(whole sizeexpr.Interval, pieces IntervalsAttr) sizeexpr.Interval {
	var gaps []sizeexpr.Interval
	lo := whole.Lo
	for _, p := range pieces {
		gaps = append(gaps, clip(sizeexpr.Span(lo, p.Lo), whole))
		lo = p.Hi
	}
	gaps = append(gaps, clip(sizeexpr.Span(lo, whole.Hi), whole))
	for len(gaps) > 0 && gaps[0].ProvablyEmpty() {
		gaps = gaps[1:]
	}
	for len(gaps) > 0 && gaps[len(gaps)-1].ProvablyEmpty() {
		gaps = gaps[:len(gaps)-1]
	}
	if len(gaps) == 0 {
		return sizeexpr.Span(whole.Lo, whole.Lo)
	}
	return sizeexpr.Span(gaps[0].Lo, gaps[len(gaps)-1].Hi)
}

// inferPiecewise: the result is on the named interval of the dimension
// and on the broadcast of the operands' other dimensions. Each piece's
// value must be defined where the piece applies, the else value on the
// hull of the points no piece holds; pieces may not overlap for every size
// (an overlap for some sizes is decided by their order: the first wins)
// nor lie outside the interval.
func inferPiecewise(op *ir.Operation) ([]ir.Type, error) {
	dim, whole, pieces := PiecewiseParts(op)
	if d, _ := op.Attr(AttrInterval).(DomainAttr); len(d) != 1 || d[0].Name != dim {
		return nil, ir.Errorf(op.Loc, "'tir.piecewise' needs its interval along %s", dim)
	}
	if len(pieces) == 0 || len(op.Operands) != len(pieces)+1 {
		return nil, ir.Errorf(op.Loc, "'tir.piecewise' needs one value per piece and an else value: %d pieces, %d operands", len(pieces), len(op.Operands))
	}
	if whole.ProvablyEmpty() {
		return nil, ir.Errorf(op.Loc, "empty domain in dimension %s: %s is empty", dim, whole)
	}
	elem, err := commonElem(op, op.Operands)
	if err != nil {
		return nil, err
	}
	for i, iv := range pieces {
		if iv.ProvablyEmpty() {
			return nil, ir.Errorf(op.Loc, "piece #%d %s of tir.piecewise is empty", i, iv)
		}
		if in, decided := whole.Contains(iv); decided && !in {
			return nil, ir.Errorf(op.Loc, "piece #%d %s is not inside the interval %s%s of tir.piecewise", i, iv, dim, whole)
		}
		if i > 0 && sizeexpr.ProveGT(pieces[i-1].Hi, iv.Lo) {
			return nil, ir.Errorf(op.Loc, "pieces #%d %s and #%d %s of tir.piecewise overlap: write them in increasing order, without overlap", i-1, pieces[i-1], i, iv)
		}
	}
	need := func(k int, v *ir.Value, at sizeexpr.Interval, what string) error {
		t, _ := AsTensor(v.Type)
		d, ok := t.Dim(dim)
		if !ok || at.ProvablyEmpty() {
			return nil
		}
		if in, _ := d.Contains(at); in {
			return nil
		}
		e := ir.Errorf(op.Loc, "%s of tir.piecewise must be defined on %s%s, where it is chosen, but is on %s%s", what, dim, at, dim, d.Interval)
		return AddTrail(e, fmt.Sprintf("operand #%d", k), v, dim)
	}
	for i, iv := range pieces {
		if err := need(i, op.Operands[i], clip(iv, whole), fmt.Sprintf("the value of piece #%d", i)); err != nil {
			return nil, err
		}
	}
	last := len(pieces)
	if err := need(last, op.Operands[last], PiecewiseElseSpan(whole, pieces), "the else value"); err != nil {
		return nil, err
	}
	dims, err := broadcastExcept(op, op.Operands, dim)
	if err != nil {
		return nil, err
	}
	out, found := []Dim{}, false
	for _, d := range dims {
		if d.Name == dim {
			d.Interval, found = whole, true
		}
		out = append(out, d)
	}
	if !found {
		out = append(out, Dim{Name: dim, Interval: whole})
	}
	return []ir.Type{TensorType{Elem: elem, Dims: out}}, nil
}

// piecewiseReads: each piece's value is read where the piece applies, the
// else value on the hull of the points no piece holds, all at the result
// point.
func piecewiseReads(op *ir.Operation, in []TensorType) Access {
	dim, whole, pieces := PiecewiseParts(op)
	var a Access
	for i, t := range in {
		r := identityRead(i, t)
		if _, ok := t.Dim(dim); ok {
			r.Along = dim
			if i < len(pieces) {
				r.Within = clip(pieces[i], whole)
			} else {
				r.Within = PiecewiseElseSpan(whole, pieces)
			}
		}
		a = append(a, r)
	}
	return a
}

func piecewiseTrail(op *ir.Operation, _ *ir.Value, dim string) (string, []*ir.Value, bool) {
	return "given by tir.piecewise", nil, DimAttr(op) == dim
}

func piecewiseDetail(op *ir.Operation, _ func(*ir.Value) string) string {
	dim, whole, pieces := PiecewiseParts(op)
	return "along " + dim + whole.String() + " " + pieces.Text()
}

var Piecewise = &Op{OpDef: ir.OpDef{
	Name:        "tir.piecewise",
	Summary:     "values chosen per interval of a dimension: the first piece holding the point, else the last operand (GT4Py's with interval)",
	Syntax:      "%r = tir.piecewise along K[0:L] [0:1] %top, [L - 1:L] %bottom, else %inner : T",
	Traits:      ir.TraitPure,
	NumOperands: -1, NumResults: 1,
	Format: syntax("along dim pieces attr-dict-with-keyword type(res)?"),
	Infer:  inferPiecewise,
},
	reads:     piecewiseReads,
	movesData: true,
	trail:     piecewiseTrail,
	Detail:    piecewiseDetail,
}

func init() {
	ir.RegisterAttr("tir.intervals", func(p *ir.OpParser) (ir.Attribute, error) {
		entries, _, err := p.Brackets()
		if err != nil {
			return nil, err
		}
		if err := p.ExpectEnd(); err != nil {
			return nil, err
		}
		var a IntervalsAttr
		for _, e := range entries {
			if e.Form != ir.EntryNested || len(e.Nested) != 1 || e.Nested[0].Form != ir.EntryInterval || e.Nested[0].Lo == nil {
				return nil, ir.Errorf(e.Loc, "expected [lo:hi]")
			}
			d, err := parseDomain(p.Host, []ir.BracketEntry{{Form: ir.EntryNamedInterval, Loc: e.Loc, Name: "_", Lo: e.Nested[0].Lo, Hi: e.Nested[0].Hi}})
			if err != nil {
				return nil, err
			}
			a = append(a, d[0].Interval)
		}
		return a, nil
	})
}

// piecewiseTangent chooses among the tangents as the op chooses among its
// values (0 for a value without one).
func piecewiseTangent(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		parts, any := tangentsOrZeros(dx, func(int) *ir.Value { return e.c(o.Y[0], 0) })
		if !any {
			return []*ir.Value{nil}
		}
		return []*ir.Value{e.build(Piecewise, o.Op.Attrs, nil, parts...)}
	}, b)
}

// piecewiseAdjoint gives each operand the cotangent where it is chosen and
// 0 elsewhere, on the part of the interval it has: a piecewise of dy and
// zeros over that part, keeping the pieces chosen before it there (and,
// for the else value, all of them), so that the first piece still wins.
func piecewiseAdjoint(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error) {
	return rule(func(e *emitter) []*ir.Value {
		out := make([]*ir.Value, len(o.X))
		if dy[0] == nil {
			return out
		}
		dim, whole, pieces := PiecewiseParts(o.Op)
		for i, x := range o.X {
			if !need[i] {
				continue
			}
			span := whole
			if d, ok := tensorTypeOf(x).Dim(dim); ok {
				span = whole.Intersect(d.Interval)
			}
			if span.ProvablyEmpty() {
				continue
			}
			var keep IntervalsAttr
			var vals []*ir.Value
			zero := e.c(dy[0], 0)
			for k, p := range pieces {
				if k > i {
					break
				}
				if p.Intersect(span).ProvablyEmpty() {
					continue
				}
				keep = append(keep, p.Intersect(span))
				if k == i {
					vals = append(vals, dy[0])
				} else {
					vals = append(vals, zero)
				}
			}
			if i < len(pieces) && (len(keep) == 0 || len(vals) == 0 || vals[len(vals)-1] != dy[0]) {
				continue // its piece is never chosen on its interval
			}
			var els *ir.Value
			if i < len(pieces) {
				els = zero
			} else {
				els = dy[0]
			}
			dom := DomainAttr{{Name: dim, Interval: span}}
			if len(keep) == 0 {
				out[i] = e.build(Subset, ir.DictAttr{}.With("bounds", dom), nil, els)
				continue
			}
			attrs := ir.DictAttr{}.With(AttrDim, ir.StringAttr(dim)).With(AttrInterval, dom).With(AttrPieces, keep)
			out[i] = e.build(Piecewise, attrs, nil, append(vals, els)...)
		}
		return out
	}, b)
}
