package emit

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// The extent analysis itself (which points of each value the outputs
// need) lives in dialects/tir (tir.Needs), where the lowering uses it to
// compute temporaries on exactly those points; this file reports it.

// Read is the set of points of one dimension of a value that are read.
type Read = tir.DimNeed

// DimExtent is how one dimension of an argument is read, relative to the
// output domain.
type DimExtent struct {
	Name string
	Read
	// InOutput is false when the dimension does not move with a dimension
	// of the output domain (a reduced or local dimension): it is not
	// decomposed, Read.Interval is all there is.
	InOutput bool
	// Along is the output dimension the halo is measured against: Name
	// itself, or the output index it is read at when the names differ
	// (Read.Frame; TC arguments, renaming views).
	Along string
	// Output is the output domain's interval along Along: the union
	// (bounding box) over the results that have it.
	Output sizeexpr.Interval
	// Below and Above are Read.Lo - Output.Lo and Read.Hi - Output.Hi:
	// -1 and +1 for a stencil that reads one ghost point on each side.
	Below, Above sizeexpr.Expr
}

// ArgExtents is how one argument of a function is read.
type ArgExtents struct {
	Name string
	Type tir.TensorType
	// IsRead is false when no point of the argument is read (an unused
	// argument, or one whose only reader is tir.pos).
	IsRead bool
	Dims   []DimExtent
	// Inferred lists what shape inference requires of the argument's
	// unknown extents (`?`): the intervals it must cover, checked at
	// entry.
	Inferred []tir.InferredExtent
}

// FuncExtents is the extent analysis of one tir.func.
type FuncExtents struct {
	Name string
	// Output is the bounding box of the results' declared domains, one
	// dimension per name, in order of first appearance.
	Output []tir.Dim
	Args   []ArgExtents
}

// Analyze computes, for every argument of fn, the points read to compute
// the declared output domains.
func Analyze(fn *ir.Operation) (*FuncExtents, error) {
	sig, err := readSignature(fn)
	if err != nil {
		return nil, err
	}
	entry := fn.Regions[0].Entry()
	ret := entry.Terminator()
	if !ret.Is(tir.Return) || len(ret.Operands) != len(sig.outs) {
		return nil, ir.Errorf(fn.Loc, "@%s must end with a tir.return of its %d results", sig.name, len(sig.outs))
	}
	a := tir.NewNeeds()
	fe := &FuncExtents{Name: sig.name}
	index := map[string]int{}
	for i, v := range ret.Operands {
		out := tir.FullNeed(sig.outs[i], "")
		for name, r := range out {
			r.Frame = name
			out[name] = r
		}
		a.Need(v, out)
		for _, d := range sig.outs[i].Dims {
			if k, ok := index[d.Name]; ok {
				o := fe.Output[k]
				fe.Output[k].Interval = sizeexpr.Span(sizeexpr.Min(o.Lo, d.Lo), sizeexpr.Max(o.Hi, d.Hi))
				continue
			}
			index[d.Name] = len(fe.Output)
			fe.Output = append(fe.Output, d)
		}
	}
	a.Block(entry)
	inferred := tir.InferExtents(fn, nil)
	for k, d := range fe.Output {
		fe.Output[k].Interval = sizeexpr.Span(tir.AssumeInferred(d.Lo, inferred), tir.AssumeInferred(d.Hi, inferred))
	}
	for i, t := range sig.ins {
		ae := ArgExtents{Name: sig.argNames[i], Type: t}
		for _, x := range inferred {
			if x.Arg == i {
				ae.Inferred = append(ae.Inferred, x)
			}
		}
		rb, read := a.Of(entry.Args[i])
		ae.IsRead = read
		if read {
			for _, d := range t.Dims {
				de := DimExtent{Name: d.Name, Read: rb[d.Name]}
				// Under what inference requires of unknown extents.
				de.Interval = sizeexpr.Span(tir.AssumeInferred(de.Interval.Lo, inferred), tir.AssumeInferred(de.Interval.Hi, inferred))
				along := de.Frame
				if along == "" {
					along = d.Name
				}
				if k, ok := index[along]; ok {
					de.InOutput = true
					de.Along = along
					de.Output = fe.Output[k].Interval
					de.Below = sizeexpr.Simplify(sizeexpr.Sub(de.Interval.Lo, de.Output.Lo))
					de.Above = sizeexpr.Simplify(sizeexpr.Sub(de.Interval.Hi, de.Output.Hi))
				}
				// Printed expressions are simplified (no -N + max(N, 1)),
				// after the offsets above, where the output's own bounds
				// cancel exactly.
				de.Interval = sizeexpr.Span(sizeexpr.Simplify(de.Interval.Lo), sizeexpr.Simplify(de.Interval.Hi))
				ae.Dims = append(ae.Dims, de)
			}
		}
		fe.Args = append(fe.Args, ae)
	}
	return fe, nil
}

// Extents prints the extent analysis of every tir.func of the module, in
// the format of docs/tools.md:
//
//	@laplacian  output I[0:5] J[0:7] K[0:9]
//	  inp  I: -1 +1   J: -1 +1   K: 0 +0   reads I[-1:6] J[-1:8] K[0:9]
func Extents(m *ir.Module) (string, error) {
	fns, err := tirFuncs(inlinedCopy(m))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, fn := range fns {
		fe, err := Analyze(fn)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fe.write(&b)
	}
	return b.String(), nil
}

func (fe *FuncExtents) write(b *strings.Builder) {
	fmt.Fprintf(b, "@%s  output", fe.Name)
	if len(fe.Output) == 0 {
		b.WriteString(" scalar")
	}
	for _, d := range fe.Output {
		b.WriteString(" " + d.String())
	}
	b.WriteString("\n")
	// Columns: the name, one column per dimension position, the reads.
	nameW := 0
	var colW []int
	entries := make([][]string, len(fe.Args))
	for i, ae := range fe.Args {
		nameW = max(nameW, len(ae.Name))
		entries[i] = ae.haloEntries()
		for k, e := range entries[i] {
			if k == len(colW) {
				colW = append(colW, 0)
			}
			colW[k] = max(colW[k], len(e))
		}
	}
	for i, ae := range fe.Args {
		line := fmt.Sprintf("  %-*s", nameW, ae.Name)
		for k, w := range colW {
			e := ""
			if k < len(entries[i]) {
				e = entries[i][k]
			}
			sep := "  "
			if k > 0 {
				sep = "   "
			}
			line += fmt.Sprintf("%s%-*s", sep, w, e)
		}
		if ae.IsRead && len(ae.Dims) > 0 {
			line += "   reads " + ae.readsText()
		}
		for _, x := range ae.Inferred {
			line += fmt.Sprintf("   %s[?] must cover %s (inferred, checked at entry)", x.Dim, x.Needs)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// haloEntries are the halo columns of an argument's line: `I: -1 +1`,
// one per dimension, or one entry `not read` / `scalar`.
func (ae ArgExtents) haloEntries() []string {
	if !ae.IsRead {
		return []string{"not read"}
	}
	if len(ae.Dims) == 0 {
		return []string{"scalar"}
	}
	parts := make([]string, len(ae.Dims))
	for i, d := range ae.Dims {
		switch {
		case d.Unbounded != "":
			parts[i] = d.Name + ": unbounded (" + d.Unbounded + ")"
		case !d.InOutput:
			parts[i] = d.Name + ": " + d.Interval.String()
		case d.Along != d.Name:
			parts[i] = d.Name + " (" + d.Along + "): " + signedOffset(d.Below, false) + " " + signedOffset(d.Above, true)
		default:
			parts[i] = d.Name + ": " + signedOffset(d.Below, false) + " " + signedOffset(d.Above, true)
		}
	}
	return parts
}

// readsText is `I[-1:6] J[-1:8]`: the points read, per dimension.
func (ae ArgExtents) readsText() string {
	parts := make([]string, len(ae.Dims))
	for i, d := range ae.Dims {
		parts[i] = d.Name + d.Interval.String()
	}
	return strings.Join(parts, " ")
}

// signedOffset prints an offset with its sign: -1, +2, +(N - 1), -M,
// -max(N - 1, 0). A zero lower offset prints "0" and a zero upper one "+0",
// so that a column reads "0 +0" like "-1 +1". An offset that is not
// provably non-negative and starts with a negative term prints negated:
// -(KH - 1) rather than +(-KH + 1). Parentheses enclose a sum of several
// terms.
func signedOffset(e sizeexpr.Expr, upper bool) string {
	if c, ok := e.Const(); ok {
		if c == 0 && !upper {
			return "0"
		}
		return fmt.Sprintf("%+d", c)
	}
	sign, mag := "+", e
	terms, c := e.Terms()
	if sizeexpr.ProveLE(e, sizeexpr.Const(0)) || !sizeexpr.ProveGE(e, sizeexpr.Const(0)) && len(terms) > 0 && terms[0].Coef < 0 {
		sign, mag = "-", sizeexpr.Simplify(sizeexpr.Neg(e))
		terms, c = mag.Terms()
	}
	s := mag.String()
	if len(terms) > 1 || c != 0 {
		s = "(" + s + ")"
	}
	return sign + s
}

// inlinedCopy returns a copy of m with every tir.call inlined, so that the
// extents see through calls as the compiled code does (the pipelines
// inline too). It returns m itself when m has no call, or when inlining
// fails (a recursive call): its calls then stay "unbounded (call)".
func inlinedCopy(m *ir.Module) *ir.Module {
	calls := false
	m.Op.Walk(func(o *ir.Operation) bool {
		calls = calls || o.Is(tir.Call)
		return !calls
	})
	if !calls {
		return m
	}
	c := &ir.Module{Op: m.Op.Clone(map[*ir.Value]*ir.Value{}), TypeAliases: m.TypeAliases, Implicit: m.Implicit}
	if err := tir.InlineAll(c); err != nil {
		return m
	}
	return c
}
