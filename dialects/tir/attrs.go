package tir

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// DomainAttr is a list of named intervals: the new bounds of tir.subset,
// the added dimensions of tir.broadcast, the interval of a scan that no
// operand carries. Printed #tir.domain<[I[1:4], K[0:N - 1]]>.
type DomainAttr []Dim

// Text prints `[I[1:4], K[0:N - 1]]`.
func (a DomainAttr) Text() string {
	parts := make([]string, len(a))
	for i, d := range a {
		parts[i] = d.String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (a DomainAttr) String() string { return "#tir.domain<" + a.Text() + ">" }

// parseDomain reads `I[1:4], K[0:N-1]` entries (an entry I[N] means I[0:N]).
func parseDomain(host ir.ParserHost, entries []ir.BracketEntry) (DomainAttr, error) {
	var a DomainAttr
	resolve := symbolResolver(host)
	for _, e := range entries {
		if e.Form != ir.EntryNamedInterval {
			return nil, ir.Errorf(e.Loc, "expected NAME[lo:hi]")
		}
		for _, d := range a {
			if d.Name == e.Name {
				return nil, ir.Errorf(e.Loc, "duplicate dimension %s", e.Name)
			}
		}
		lo := sizeexpr.Const(0)
		if e.Lo != nil {
			x, err := e.Lo.ToIndexExpr(resolve)
			if err != nil {
				return nil, err
			}
			lo = x
		}
		hi, err := e.Hi.ToIndexExpr(resolve)
		if err != nil {
			return nil, err
		}
		d := Dim{Name: e.Name, Interval: sizeexpr.Span(lo, hi)}
		if err := d.CheckLimit(); err != nil {
			return nil, ir.Errorf(e.Loc, "dimension %s: %v", e.Name, err)
		}
		a = append(a, d)
	}
	return a, nil
}

// ViewAttr gives every dimension of a view's operand an affine expression
// of the result's dimensions (Dim variables) and size symbols.
// Printed #tir.view<[d0 = i + k, d1 = 2*j]>.
type ViewAttr struct {
	Dims  []string
	Exprs []sizeexpr.Expr
}

// Text prints `[d0 = i + k, d1 = 2*j]`.
func (a ViewAttr) Text() string {
	parts := make([]string, len(a.Dims))
	for i, d := range a.Dims {
		parts[i] = d + " = " + a.Exprs[i].String()
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (a ViewAttr) String() string { return "#tir.view<" + a.Text() + ">" }

// Expr returns the expression of an operand dimension.
func (a ViewAttr) Expr(dim string) (sizeexpr.Expr, bool) {
	for i, d := range a.Dims {
		if d == dim {
			return a.Exprs[i], true
		}
	}
	return sizeexpr.Expr{}, false
}

// parseView reads `d0 = i + k, ...`: names on the right are result
// dimensions when the result type has them (or, without a result type yet,
// when they are not known size symbols), otherwise size symbols.
func parseView(host ir.ParserHost, entries []ir.BracketEntry, isDim func(string) bool) (ViewAttr, error) {
	var a ViewAttr
	for _, e := range entries {
		if e.Form != ir.EntryAssign {
			return a, ir.Errorf(e.Loc, "expected DIM = EXPR")
		}
		for _, d := range a.Dims {
			if d == e.Name {
				return a, ir.Errorf(e.Loc, "dimension %s is given twice", e.Name)
			}
		}
		x, err := e.E.ToIndexExpr(func(n *ir.ExprNode) (sizeexpr.Expr, error) {
			if n.Kind == ir.ExprName && isDim(n.Name) {
				return DimVar(n.Name), nil
			}
			return symbolResolver(host)(n)
		})
		if err != nil {
			return a, err
		}
		a.Dims = append(a.Dims, e.Name)
		a.Exprs = append(a.Exprs, x)
	}
	return a, nil
}

func init() {
	ir.RegisterAttr("tir.domain", func(p *ir.OpParser) (ir.Attribute, error) {
		entries, _, err := p.Brackets()
		if err != nil {
			return nil, err
		}
		if err := p.ExpectEnd(); err != nil {
			return nil, err
		}
		return parseDomain(p.Host, entries)
	})
	ir.RegisterAttr("tir.view", func(p *ir.OpParser) (ir.Attribute, error) {
		entries, _, err := p.Brackets()
		if err != nil {
			return nil, err
		}
		if err := p.ExpectEnd(); err != nil {
			return nil, err
		}
		// In the generic form the op's declared result type says which
		// names are its dimensions; read on its own (no such type), a
		// name is a dimension unless it is a size symbol seen already.
		isDim := func(n string) bool { return !p.Host.HasSizeSymbol(n) }
		if g, ok := p.Host.(ir.GenericResultTypes); ok {
			if rs := g.DeclaredResults(); len(rs) == 1 {
				if rt, ok := AsTensor(rs[0]); ok {
					isDim = func(n string) bool { return rt.Find(n) >= 0 }
				}
			}
		}
		return parseView(p.Host, entries, isDim)
	})
}

// MaterializeAttr marks a value (chosen by tir-temporaries) that the
// lowering computes once into a temporary instead of fusing it into its
// readers.
const MaterializeAttr = "tir.materialize"

// RecomputeAboveAttr, next to MaterializeAttr, makes the materialization
// depend on the run-time size of the temporary: the lowering keeps the
// temporary while it holds at most this many bytes and fuses the value
// into its readers above (one copy of the loop nests per choice, picked
// by a test on the size symbols). tir-temporaries sets it on values whose
// recomputation costs loads only, where the temporary pays while it stays
// in cache and its memory traffic costs more than the loads it saves once
// it does not.
const RecomputeAboveAttr = "tir.recompute_above"

// VersionsAttr marks the scf.if the lowering puts the versions of a
// function's nests under (RecomputeAboveAttr), so that later passes can
// tell it from other tests: GPU kernel outlining refuses it.
const VersionsAttr = "tir.versions"

// SplitWidthAttr marks the scf.if of convert-tir-to-affine{split-pieces}
// that tests whether a nest's domain is at least as wide as its edges:
// the first arm holds the nest split at every piece, the other the nest
// with the tests kept in its edges (docs/decisions.md).
const SplitWidthAttr = "tir.split_width"

// RemarkAttr explains a pass's decision about an op in the IR it prints
// (tir-temporaries: why a value read at several points is materialized or
// fused); nothing else reads it.
const RemarkAttr = "tir.remark"
