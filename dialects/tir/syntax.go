package tir

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Custom syntax pieces shared by the ops with hand-written syntax
// (reduce, scan) and the directives of format.go.

// parseOptionalResultType reads an optional trailing `: T` as the type of
// the single result.
func parseOptionalResultType(p *ir.OpParser, st *ir.OpState) error {
	extra, err := p.OptionalAttrDict()
	if err != nil {
		return err
	}
	for _, e := range extra {
		st.Attrs = st.Attrs.With(e.Name, e.Value)
	}
	ts, ok, err := p.OptionalColonTypes()
	if err != nil {
		return err
	}
	if !ok {
		return p.ExpectEnd()
	}
	if len(ts) != 1 {
		return p.Errorf("expected one result type")
	}
	st.ResultTypes = ts
	return p.ExpectEnd()
}

// printResultType writes ` attributes {...} : T`: attributes the custom
// syntax does not spell (those a pass or the user added) come first.
func printResultType(p ir.OpPrinter, op *ir.Operation) {
	p.AttrDict(op.Attrs, syntaxAttrsOf(op)...)
	if len(op.Results) > 0 {
		p.Write(" : ")
		var ts []ir.Type
		for _, r := range op.Results {
			ts = append(ts, r.Type)
		}
		p.Types(ts)
	}
}

// dimOrder makes a dimension print before any size symbol in canonical
// expressions (I + N - 1, never N + I - 1).
const dimOrder = -1

// DimVar is the expression variable standing for dimension name.
func DimVar(name string) sizeexpr.Expr { return sizeexpr.Dim(name, dimOrder) }

// leftmostName finds the first identifier of an expression as written.
func leftmostName(n *ir.ExprNode) *ir.ExprNode {
	if n.Kind == ir.ExprName {
		return n
	}
	for _, a := range n.Args {
		if m := leftmostName(a); m != nil {
			return m
		}
	}
	return nil
}

// parseDimOffsets reads shift entries `I + 1, J - N`: each entry starts
// with a dimension name; the rest is the offset (a size expression).
func parseDimOffsets(host ir.ParserHost, entries []ir.BracketEntry) (OffsetsAttr, error) {
	var a OffsetsAttr
	for _, e := range entries {
		if e.Form != ir.EntryExpr {
			return a, ir.Errorf(e.Loc, "expected DIM + OFFSET")
		}
		dn := leftmostName(e.E)
		if dn == nil {
			return a, ir.Errorf(e.Loc, "expected a dimension name first in '%s'", e.E)
		}
		for _, d := range a.Dims {
			if d == dn.Name {
				return a, ir.Errorf(e.Loc, "dimension %s is shifted twice", d)
			}
		}
		resolve := func(n *ir.ExprNode) (sizeexpr.Expr, error) {
			if n == dn {
				return DimVar(n.Name), nil
			}
			return symbolResolver(host)(n)
		}
		x, err := e.E.ToIndexExpr(resolve)
		if err != nil {
			return a, err
		}
		off := sizeexpr.Sub(x, DimVar(dn.Name))
		if err := off.CheckLimit(); err != nil {
			return a, ir.Errorf(e.Loc, "the offset of %s: %v", dn.Name, err)
		}
		for _, v := range off.Vars() {
			if v.Kind == sizeexpr.DimVar {
				return a, ir.Errorf(e.Loc, "the offset of %s must not depend on the dimension (write %s + OFFSET)", dn.Name, dn.Name)
			}
		}
		a.Dims = append(a.Dims, dn.Name)
		a.Offsets = append(a.Offsets, off)
	}
	return a, nil
}

// OffsetsAttr holds a shift's offsets per dimension: y(I) = x(I + off).
type OffsetsAttr struct {
	Dims    []string
	Offsets []sizeexpr.Expr
}

// Text prints `[I + 1, J - 2]`.
func (a OffsetsAttr) Text() string {
	parts := make([]string, len(a.Dims))
	for i, d := range a.Dims {
		parts[i] = sizeexpr.Add(DimVar(d), a.Offsets[i]).String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (a OffsetsAttr) String() string { return "#tir.offsets<" + a.Text() + ">" }

// Offset returns the offset of a dimension (0 if not shifted).
func (a OffsetsAttr) Offset(dim string) sizeexpr.Expr {
	for i, d := range a.Dims {
		if d == dim {
			return a.Offsets[i]
		}
	}
	return sizeexpr.Const(0)
}

func init() {
	ir.RegisterAttr("tir.offsets", func(p *ir.OpParser) (ir.Attribute, error) {
		entries, _, err := p.Brackets()
		if err != nil {
			return nil, err
		}
		if err := p.ExpectEnd(); err != nil {
			return nil, err
		}
		return parseDimOffsets(p.Host, entries)
	})
}

// syntaxAttrsOf returns the attributes op's custom form spells itself.
func syntaxAttrsOf(op *ir.Operation) []string {
	if o := OpOf(op); o != nil {
		return o.spelledAttrs()
	}
	return nil
}

// spelledAttrs are the attributes the op's custom form spells itself: its
// format's, or those its hand-written syntax declares.
func (o *Op) spelledAttrs() []string {
	if o.Format != nil {
		return o.Format.Spelled()
	}
	return o.syntaxAttrs
}
