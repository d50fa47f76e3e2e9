package tir

import (
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// FuncType returns the signature of a tir.func (or func.func).
func FuncType(fn *ir.Operation) (ir.FunctionType, bool) {
	ta, ok := fn.Attr("function_type").(ir.TypeAttr)
	if !ok {
		return ir.FunctionType{}, false
	}
	ft, ok := ta.Type.(ir.FunctionType)
	return ft, ok
}

// DimRanks ranks the dimension names of a function: those of its results
// in order of first appearance, then those of its arguments. Other names
// (introduced by a broadcast, a view, a gather) have no rank. It is the
// order in which the lowering stores the buffers it allocates itself and
// runs their nests (lower/tiraffine/order.go), outermost first.
func DimRanks(fn *ir.Operation) map[string]int {
	rank := map[string]int{}
	add := func(ts []ir.Type) {
		for _, t := range ts {
			tt, _ := AsTensor(t)
			for _, d := range tt.Dims {
				if _, ok := rank[d.Name]; !ok {
					rank[d.Name] = len(rank)
				}
			}
		}
	}
	if ft, ok := FuncType(fn); ok {
		add(ft.Results)
		add(ft.Inputs)
	}
	return rank
}

// ParseFuncSignature reads `@f(%a: T, ...) [-> R | -> (R, ...)]
// [attributes {...}] { body }` for tir.func and func.func. Omitted results
// are left for inference (hasResults=false).
func ParseFuncSignature(p *ir.OpParser, st *ir.OpState) (hasResults bool, err error) {
	name, err := p.Symbol()
	if err != nil {
		return false, err
	}
	g, err := p.Group()
	if err != nil {
		return false, err
	}
	var args []ir.RegionArg
	var ins []ir.Type
	for !g.AtEnd() {
		n, loc, err := g.ValueName()
		if err != nil {
			return false, err
		}
		if err := g.ExpectPunct(":"); err != nil {
			return false, err
		}
		t, err := g.Type()
		if err != nil {
			return false, err
		}
		if t, err = NameUnknownExtents(p.Host, t, n, loc); err != nil {
			return false, err
		}
		args = append(args, ir.RegionArg{Name: n, Type: t, Loc: loc})
		ins = append(ins, t)
		if !g.Punct(",") {
			break
		}
	}
	if err := g.ExpectEnd(); err != nil {
		return false, err
	}
	var outs []ir.Type
	if p.Punct("->") {
		hasResults = true
		loc := p.CurLoc()
		if outs, err = p.ResultTypeList(); err != nil {
			return false, err
		}
		for _, t := range outs {
			if hasPlaceholder(t) {
				return false, ir.Errorf(loc, "a result cannot have an unknown extent '?': its domain must follow from the arguments")
			}
		}
	}
	extra, err := p.OptionalAttrDict()
	if err != nil {
		return false, err
	}
	for _, e := range extra {
		st.Attrs = st.Attrs.With(e.Name, e.Value)
	}
	body, err := p.Region(args, nil)
	if err != nil {
		return false, err
	}
	if err := p.ExpectEnd(); err != nil {
		return false, err
	}
	st.Regions = append(st.Regions, body)
	st.Attrs = st.Attrs.With("sym_name", ir.StringAttr(name))
	st.Attrs = st.Attrs.With("function_type", ir.TypeAttr{Type: ir.FunctionType{Inputs: ins, Results: outs}})
	if !hasResults {
		st.Attrs = st.Attrs.With("tir.inferred_results", ir.UnitAttr{})
	}
	return hasResults, nil
}

func parseFunc(p *ir.OpParser, st *ir.OpState) error {
	_, err := ParseFuncSignature(p, st)
	return err
}

// PrintFuncSignature writes ` @f(%a: T) -> R attributes {...} { body }`.
func PrintFuncSignature(p ir.OpPrinter, op *ir.Operation) {
	ft, _ := FuncType(op)
	p.Write(" @" + ir.SymbolRefAttr(ir.SymbolName(op)).String()[1:] + "(")
	entry := op.Regions[0].Entry()
	for i := range ft.Inputs {
		if i > 0 {
			p.Write(", ")
		}
		if entry != nil && i < len(entry.Args) {
			p.ArgDef(entry.Args[i])
		}
	}
	p.Write(")")
	if len(ft.Results) == 1 {
		p.Write(" -> ")
		p.Type(ft.Results[0])
	} else if len(ft.Results) > 1 {
		p.Write(" -> (")
		p.Types(ft.Results)
		p.Write(")")
	}
	elide := []string{"sym_name", "function_type", "tir.inferred_results"}
	if sameNames(op.Attr(SizeParamsAttr), derivedSymbols(op)) {
		elide = append(elide, SizeParamsAttr)
	}
	p.AttrDict(op.Attrs, elide...)
	p.Write(" ")
	p.Region(op.Regions[0], false)
}

func printFunc(p ir.OpPrinter, op *ir.Operation) { PrintFuncSignature(p, op) }

// inferFunc completes a signature written without results: the results are
// what the body returns, with their computed domains.
func inferFunc(op *ir.Operation) ([]ir.Type, error) {
	defer fixSizeParams(op)
	if op.Attr("tir.inferred_results") == nil {
		return nil, nil
	}
	ft, _ := FuncType(op)
	entry := op.Regions[0].Entry()
	if entry == nil {
		return nil, nil
	}
	if ret := entry.Terminator(); ret != nil && ret.Name == "tir.return" {
		var outs []ir.Type
		for _, v := range ret.Operands {
			outs = append(outs, v.Type)
		}
		// An unknown extent that meets a known bound on the way to a
		// result must cover it (checked at entry), so the result's
		// domain no longer depends on it: [0:min(?_x_I - 1, N)] is [0:N].
		xs := InferExtents(op, outs)
		for i, t := range outs {
			outs[i] = simplifyInferred(t, xs)
		}
		ft.Results = outs
		op.SetAttr("function_type", ir.TypeAttr{Type: ft})
	}
	op.Attrs = op.Attrs.Without("tir.inferred_results")
	return nil, nil
}

func verifyFunc(op *ir.Operation, warn func(*ir.Diagnostic)) error {
	ft, ok := FuncType(op)
	if !ok {
		return ir.Errorf(op.Loc, "'%s' needs a function_type attribute", op.Name)
	}
	entry := op.Regions[0].Entry()
	if entry == nil {
		return ir.Errorf(op.Loc, "'%s' has an empty body", op.Name)
	}
	if len(entry.Args) != len(ft.Inputs) {
		return ir.Errorf(op.Loc, "'%s' has %d arguments but its type has %d inputs", op.Name, len(entry.Args), len(ft.Inputs))
	}
	if err := verifySizeParams(op); err != nil {
		return err
	}
	if op.Name == "tir.func" {
		if err := verifyDataExtents(op); err != nil {
			return err
		}
	}
	for i, a := range entry.Args {
		if !ir.TypeEqual(a.Type, ft.Inputs[i]) {
			return ir.Errorf(op.Loc, "argument #%d has type %s but the signature says %s", i, a.Type, ft.Inputs[i])
		}
	}
	for _, b := range op.Regions[0].Blocks {
		if b.Terminator() == nil {
			return ir.Errorf(op.Loc, "'%s' body must end with tir.return", op.Name)
		}
	}
	if op.Name != "tir.func" {
		return nil
	}
	// What shape inference concluded about unknown argument extents: an
	// error when the requirements contradict each other, else a remark.
	xs := InferExtents(op, nil)
	if err := checkInferred(op, xs); err != nil {
		return err
	}
	if warn != nil {
		for _, x := range xs {
			loc := x.ArgLoc
			if !loc.Known() {
				loc = op.Loc
			}
			warn(&ir.Diagnostic{Severity: ir.SevRemark, Loc: loc, Msg: x.String()})
		}
	}
	return nil
}

// verifyReturn checks the returned values against the function's output
// domains: same element type, every output dimension computed, and the
// declared interval inside the computed one.
func verifyReturn(op *ir.Operation, warn func(*ir.Diagnostic)) error {
	fn := op.ParentOp()
	if fn == nil || fn.Name != "tir.func" {
		return ir.Errorf(op.Loc, "'tir.return' must be in a tir.func")
	}
	ft, ok := FuncType(fn)
	if !ok {
		return nil
	}
	if len(ft.Results) != len(op.Operands) {
		return ir.Errorf(op.Loc, "'tir.return' returns %d values but the function declares %d results", len(op.Operands), len(ft.Results))
	}
	for i, v := range op.Operands {
		got, err := tensorOf(op, v, "operand")
		if err != nil {
			return err
		}
		want, ok := AsTensor(ft.Results[i])
		if !ok {
			return ir.Errorf(op.Loc, "result #%d of the function is not a tensor", i)
		}
		if err := checkOutputDomain(op, i, got, want); err != nil {
			return err
		}
	}
	return nil
}

func checkOutputDomain(op *ir.Operation, i int, got, want TensorType) error {
	if !ir.TypeEqual(got.Elem, want.Elem) {
		return ir.Errorf(op.Loc, "result #%d has element type %s but the function declares %s", i, got.Elem, want.Elem)
	}
	for _, gd := range got.Dims {
		if want.Find(gd.Name) < 0 {
			return ir.Errorf(op.Loc, "result #%d varies along dimension %s, which the declared output %s lacks", i, gd.Name, want)
		}
	}
	for _, wd := range want.Dims {
		gd, ok := got.Dim(wd.Name)
		if !ok {
			continue // broadcast along a dimension the value does not vary in
		}
		inside, decided := gd.Contains(wd.Interval)
		if inside {
			continue
		}
		if !decided {
			// Symbolic bounds that cannot be compared statically become a
			// run-time check at function entry (2.6).
			continue
		}
		msg := ""
		if d := sizeexpr.Sub(gd.Lo, wd.Lo); sizeexpr.ProveGT(gd.Lo, wd.Lo) {
			msg = "starts " + d.String() + " too late"
		}
		if d := sizeexpr.Sub(wd.Hi, gd.Hi); sizeexpr.ProveGT(wd.Hi, gd.Hi) {
			if msg != "" {
				msg += " and "
			}
			msg += "ends " + d.String() + " too early"
		}
		d := ir.Errorf(op.Loc, "output domain not inside the computed one: dimension %s is declared %s but computed only on %s (%s)",
			wd.Name, wd.Interval, gd.Interval, msg)
		return AddTrail(d, "the returned value", op.Operands[i], wd.Name)
	}
	return nil
}

// Symbols lists a function's size parameters (spec 2.6): every size
// symbol that appears in it — argument types, result types, then the body
// in textual order (shift offsets, view expressions, the intervals of
// subset, broadcast and scan, and the types they give) — in order of first
// appearance. This is the order of the trailing integer arguments of the
// compiled function (spec 5.1). Unknown extents (`?`) are read from
// descriptors and are not parameters.
//
// The list is fixed when the function is parsed (SizeParamsAttr): a pass
// that removes the only use of a symbol (a dead shift by N) does not change
// the compiled function's parameters, which the C header, tc-run and the
// interpreter take from the source.
func Symbols(fn *ir.Operation) []sizeexpr.Var {
	derived := derivedSymbols(fn)
	fixed, ok := fn.Attr(SizeParamsAttr).(ir.ArrayAttr)
	if !ok {
		return derived
	}
	out := make([]sizeexpr.Var, 0, len(fixed))
	for i, a := range fixed {
		name, _ := a.(ir.StringAttr)
		v := sizeexpr.Var{Name: string(name), Order: len(derived) + i, Kind: sizeexpr.SymbolVar}
		for _, d := range derived {
			if d.Name == v.Name {
				v = d
			}
		}
		out = append(out, v)
	}
	return out
}

// SizeParamsAttr on a tir.func lists its size parameters by name, in
// order, as they were when it was parsed (Symbols). The custom form prints
// it only where it differs from what the function mentions.
const SizeParamsAttr = "tir.size_params"

// fixSizeParams records a function's size parameters once its signature
// is complete (at parse time), unless the input gave them.
func fixSizeParams(fn *ir.Operation) {
	if fn.Name != "tir.func" || fn.Attr(SizeParamsAttr) != nil {
		return
	}
	names := ir.ArrayAttr{}
	for _, v := range derivedSymbols(fn) {
		names = append(names, ir.StringAttr(v.Name))
	}
	fn.SetAttr(SizeParamsAttr, names)
}

// verifySizeParams checks a SizeParamsAttr: distinct size symbol names
// that include every symbol the function mentions.
func verifySizeParams(fn *ir.Operation) error {
	a := fn.Attr(SizeParamsAttr)
	if a == nil {
		return nil
	}
	names, ok := a.(ir.ArrayAttr)
	if !ok {
		return ir.Errorf(fn.Loc, "%s must be an array of symbol names, got %s", SizeParamsAttr, a)
	}
	listed := map[string]bool{}
	for _, n := range names {
		s, ok := n.(ir.StringAttr)
		if !ok || s == "" || strings.HasPrefix(string(s), "?") {
			return ir.Errorf(fn.Loc, "%s holds %s, which is not a size symbol name", SizeParamsAttr, n)
		}
		if listed[string(s)] {
			return ir.Errorf(fn.Loc, "%s lists %s twice", SizeParamsAttr, string(s))
		}
		listed[string(s)] = true
	}
	for _, v := range derivedSymbols(fn) {
		if !listed[v.Name] {
			return ir.Errorf(fn.Loc, "the function uses the size symbol %s, which %s does not list", v.Name, SizeParamsAttr)
		}
	}
	return nil
}

// sameNames reports whether a SizeParamsAttr lists exactly these symbols.
func sameNames(a ir.Attribute, vs []sizeexpr.Var) bool {
	names, ok := a.(ir.ArrayAttr)
	if !ok || len(names) != len(vs) {
		return false
	}
	for i, n := range names {
		if s, _ := n.(ir.StringAttr); string(s) != vs[i].Name {
			return false
		}
	}
	return true
}

// derivedSymbols are the size symbols a function mentions, in order of
// first appearance.
func derivedSymbols(fn *ir.Operation) []sizeexpr.Var {
	var out []sizeexpr.Var
	seen := map[string]bool{}
	add := func(e sizeexpr.Expr) {
		for _, v := range e.Vars() {
			if v.Kind == sizeexpr.SymbolVar && !seen[v.Name] && !IsUnknownExtent(v) {
				seen[v.Name] = true
				out = append(out, v)
			}
		}
	}
	addType := func(t ir.Type) {
		if tt, ok := AsTensor(t); ok {
			for _, d := range tt.Dims {
				add(d.Lo)
				add(d.Hi)
			}
		}
	}
	ft, _ := FuncType(fn)
	for _, ts := range [][]ir.Type{ft.Inputs, ft.Results} {
		for _, t := range ts {
			addType(t)
		}
	}
	if len(fn.Regions) == 0 {
		return out
	}
	for _, b := range fn.Regions[0].Blocks {
		for _, op := range b.Ops {
			op.Walk(func(o *ir.Operation) bool {
				for _, a := range o.Attrs {
					for _, e := range attrExprs(a.Value) {
						add(e)
					}
				}
				for _, r := range o.Results {
					addType(r.Type)
				}
				return true
			})
		}
	}
	return out
}

// attrExprs are the size expressions a tir attribute holds.
func attrExprs(a ir.Attribute) []sizeexpr.Expr {
	switch a := a.(type) {
	case OffsetsAttr:
		return a.Offsets
	case ViewAttr:
		return a.Exprs
	case DomainAttr:
		var out []sizeexpr.Expr
		for _, d := range a {
			out = append(out, d.Lo, d.Hi)
		}
		return out
	case IntervalsAttr:
		var out []sizeexpr.Expr
		for _, iv := range a {
			out = append(out, iv.Lo, iv.Hi)
		}
		return out
	}
	return nil
}
