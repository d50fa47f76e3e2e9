package tir

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Data-dependent extents (in the spirit of Relay's shape functions). Two
// ops have a result whose extent along one dimension is known only once
// values are: tir.iota (start, start + step, ... before stop, from three
// 0-d integer tensors) and tir.compress (the elements of x where a mask
// holds, in order). The extent is an unknown extent of its own, a size
// symbol named after the op's result, ?_RESULT_DIM (`%r = tir.compress
// ... along I` has I[0:?_r_I]), which the op defines: every later type may
// use it, as argument types use ?_ARG_DIM. Unlike an argument's unknown
// extent it is read from no descriptor: the interpreter binds it when it
// evaluates the op, compiled code computes it from the op's operands
// before anything else (lower/tiraffine), and the ABI gives callers
// f_result_shape_data, which computes the results' extents from the inputs
// (docs/abi.md).

// IsDataExtentOp reports whether op defines a data-dependent extent.
func IsDataExtentOp(op *ir.Operation) bool {
	return op.Name == "tir.iota" || op.Name == "tir.compress"
}

// DataExtent is an extent computed from data: the symbol, the op that
// defines it and the dimension of its result whose upper bound it is.
type DataExtent struct {
	Sym sizeexpr.Var
	Op  *ir.Operation
	Dim string
}

// DataExtentSym returns the symbol a tir.iota or tir.compress defines: the
// upper bound of its dimension in its result type.
func DataExtentSym(op *ir.Operation) (sizeexpr.Var, bool) {
	if !IsDataExtentOp(op) || len(op.Results) != 1 {
		return sizeexpr.Var{}, false
	}
	t, ok := AsTensor(op.Results[0].Type)
	if !ok {
		return sizeexpr.Var{}, false
	}
	d, ok := t.Dim(DimAttr(op))
	if !ok {
		return sizeexpr.Var{}, false
	}
	v, ok := d.Hi.AsVar()
	if !ok || !IsUnknownExtent(v) || v.Name == unknownPlaceholder {
		return sizeexpr.Var{}, false
	}
	return v, true
}

// DataExtents lists the data-dependent extents a function defines, in
// program order.
func DataExtents(fn *ir.Operation) []DataExtent {
	if len(fn.Regions) == 0 || fn.Regions[0].Entry() == nil {
		return nil
	}
	var out []DataExtent
	for _, op := range fn.Regions[0].Entry().Ops {
		if v, ok := DataExtentSym(op); ok {
			out = append(out, DataExtent{Sym: v, Op: op, Dim: DimAttr(op)})
		}
	}
	return out
}

// DataSymbols maps the names of a function's data-dependent extents to
// the ops that define them.
func DataSymbols(fn *ir.Operation) map[string]*ir.Operation {
	out := map[string]*ir.Operation{}
	for _, x := range DataExtents(fn) {
		out[x.Sym.Name] = x.Op
	}
	return out
}

// MentionsData reports whether an expression uses one of the symbols.
func MentionsData(e sizeexpr.Expr, data map[string]*ir.Operation) bool {
	return sizeexpr.Mentions(e, func(v sizeexpr.Var) bool { return data[v.Name] != nil })
}

// TypeMentionsData reports whether a tensor type has a bound that uses one
// of the symbols.
func TypeMentionsData(t ir.Type, data map[string]*ir.Operation) bool {
	tt, ok := AsTensor(t)
	if !ok {
		return false
	}
	for _, d := range tt.Dims {
		if MentionsData(d.Lo, data) || MentionsData(d.Hi, data) {
			return true
		}
	}
	return false
}

// SplitDataChecks separates the run-time checks of fn that need a
// data-dependent extent (evaluated once those are computed) from the
// others (evaluated at entry), keeping the order of each.
func SplitDataChecks(fn *ir.Operation, checks []RuntimeCheck) (entry, data []RuntimeCheck) {
	syms := DataSymbols(fn)
	for _, c := range checks {
		if c.mentions(syms) {
			data = append(data, c)
		} else {
			entry = append(entry, c)
		}
	}
	return entry, data
}

func (c RuntimeCheck) mentions(syms map[string]*ir.Operation) bool {
	if len(syms) == 0 {
		return false
	}
	for _, e := range append(append([]sizeexpr.Expr(nil), c.NonNeg...), c.Values...) {
		if MentionsData(e, syms) {
			return true
		}
	}
	return false
}

// withoutDataValues drops the run-time values of the messages of checks
// that involve data-dependent extents: the compiled function formats its
// messages from descriptors and size parameters, which do not give them,
// and the interpreter says the same words (docs/decisions.md).
func withoutDataValues(fn *ir.Operation, checks []RuntimeCheck) []RuntimeCheck {
	syms := DataSymbols(fn)
	if len(syms) == 0 {
		return checks
	}
	for i, c := range checks {
		if c.Texts != nil && c.mentions(syms) {
			checks[i].Texts, checks[i].Values = nil, nil
		}
	}
	return checks
}

// DataExtentName names the extent a data-dependent op defines along dim:
// ?_RESULT_DIM after the result's name in the input, or, for a result
// without a name, ?_OPk_DIM with the first k not used yet.
func DataExtentName(h ir.ParserHost, opName, dim string) string {
	if rn, ok := h.(ir.ResultNamer); ok {
		if names := rn.ResultNames(); len(names) == 1 {
			if base := identPart(names[0]); base != "" {
				return "?_" + base + "_" + dim
			}
		}
	}
	base := strings.TrimPrefix(opName, "tir.")
	for k := 1; ; k++ {
		name := fmt.Sprintf("?_%s%d_%s", base, k, dim)
		if !h.HasSizeSymbol(name) {
			return name
		}
	}
}

// identPart keeps the characters of a value name that a symbol name may
// hold (letters, digits, '_'), the others becoming '_'.
func identPart(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// inferDataExtentResult gives a tir.iota or tir.compress its result type
// once the form is read: the extent is the unknown-extent symbol the op
// defines: the one the given result type writes (`I[0:?_r_I]`, or
// `I[?]`, named here), or a new one after the result's name.
func inferDataExtentResult(c *ir.FormatParser, opName string) error {
	st := c.St
	typeOf := iotaType
	if opName == "tir.compress" {
		typeOf = compressType
	}
	dim := string(st.Attrs.Get(AttrDim).(ir.StringAttr))
	if len(st.ResultTypes) == 1 {
		t, ok := AsTensor(st.ResultTypes[0])
		if !ok {
			return ir.Errorf(st.Loc, "'%s' result must be a !tir.tensor", opName)
		}
		d, ok := t.Dim(dim)
		v, isVar := d.Hi.AsVar()
		if ok && isVar && IsUnknownExtent(v) && v.Name != unknownPlaceholder {
			return nil // named by the input
		}
		if ok && !(isVar && v.Name == unknownPlaceholder) {
			return ir.Errorf(st.Loc, "'%s' result dimension %s must be [0:?NAME], the extent the op computes from data, not %s", opName, dim, d)
		}
	}
	sym := c.Host.SizeSymbol(DataExtentName(c.Host, opName, dim))
	t, err := typeOf(st.Loc, st.Operands, dim, sym)
	if err != nil {
		return err
	}
	if len(st.ResultTypes) == 1 {
		// `I[?]` in the given type: the same type with the extent named.
		given := substType(st.ResultTypes[0], func(e sizeexpr.Expr) sizeexpr.Expr {
			return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
				if v.Name == unknownPlaceholder {
					return sym, true
				}
				return sizeexpr.Expr{}, false
			})
		})
		if !ir.TypeEqual(given, t) {
			return ir.Errorf(st.Loc, "'%s' result type %s does not match the inferred type %s", opName, st.ResultTypes[0], t)
		}
	}
	st.ResultTypes = []ir.Type{t}
	return nil
}

// inferDataExtentOp is the type rule of both ops: the extent is the
// symbol the op's result type names (it was chosen when the op was read).
func inferDataExtentOp(typeOf func(loc ir.Location, operands []*ir.Value, dim string, sym sizeexpr.Expr) (TensorType, error)) func(op *ir.Operation) ([]ir.Type, error) {
	return func(op *ir.Operation) ([]ir.Type, error) {
		sym, err := givenDataExtent(op)
		if err != nil {
			return nil, err
		}
		t, err := typeOf(op.Loc, op.Operands, DimAttr(op), sym.Expr())
		if err != nil {
			return nil, err
		}
		return []ir.Type{t}, nil
	}
}

// givenDataExtent reads the extent a data-dependent op's result type
// names: its dimension must be [0:?NAME].
func givenDataExtent(op *ir.Operation) (sizeexpr.Var, error) {
	dim := DimAttr(op)
	if dim == "" {
		return sizeexpr.Var{}, ir.Errorf(op.Loc, "'%s' needs a dimension (along I)", op.Name)
	}
	if len(op.Results) != 1 || op.Results[0].Type == nil {
		return sizeexpr.Var{}, ir.Errorf(op.Loc, "'%s' needs its result type, which names the extent it computes (%s[0:?_r_%s])", op.Name, dim, dim)
	}
	t, ok := AsTensor(op.Results[0].Type)
	if !ok {
		return sizeexpr.Var{}, ir.Errorf(op.Loc, "'%s' result must be a !tir.tensor", op.Name)
	}
	d, ok := t.Dim(dim)
	if !ok {
		return sizeexpr.Var{}, ir.Errorf(op.Loc, "'%s' result type %s has no dimension %s", op.Name, t, dim)
	}
	v, isVar := d.Hi.AsVar()
	if lo, c := d.Lo.Const(); !c || lo != 0 || !isVar || !IsUnknownExtent(v) || v.Name == unknownPlaceholder {
		return sizeexpr.Var{}, ir.Errorf(op.Loc, "'%s' result dimension %s must be [0:?NAME], the extent the op computes from data, not %s", op.Name, dim, d)
	}
	return v, nil
}

var Iota = &Op{OpDef: ir.OpDef{
	Name:        "tir.iota",
	Summary:     "start, start + step, ... (before stop) along a new dimension whose extent depends on the values (numpy.arange)",
	Syntax:      "%r = tir.iota %start, %stop, %step along I : !tir.tensor<i64, I[0:?_r_I]>",
	Traits:      ir.TraitPure,
	NumOperands: 3, NumResults: 1,
	Format: syntax("$operands+ along dim attr-dict-with-keyword type(res)? data-extent(iota)"),
	Infer:  inferDataExtentOp(iotaType),
	Verify: verifyDataExtentOp,
},
	reads: readsAtResultPoint,
	trail: dataExtentTrail,
}

// iotaType: three 0-d tensors of one integer type; the result has that
// type on I[0:sym].
func iotaType(loc ir.Location, operands []*ir.Value, dim string, sym sizeexpr.Expr) (TensorType, error) {
	if len(operands) != 3 {
		return TensorType{}, ir.Errorf(loc, "'tir.iota' takes three operands (start, stop, step), got %d", len(operands))
	}
	var elem ir.Type
	for i, v := range operands {
		what := []string{"start", "stop", "step"}[i]
		t, ok := AsTensor(v.Type)
		if !ok {
			return TensorType{}, ir.Errorf(loc, "'tir.iota' %s must be a !tir.tensor, got %s", what, v.Type)
		}
		it, isInt := t.Elem.(ir.IntegerType)
		if t.Rank() != 0 || !isInt || it.Width == 1 {
			return TensorType{}, ir.Errorf(loc, "'tir.iota' %s must be a 0-d integer tensor (i8, i16, i32 or i64), got %s", what, t).
				AddNote(DefLoc(v), "%s is defined here", what)
		}
		if elem != nil && !ir.TypeEqual(elem, t.Elem) {
			return TensorType{}, ir.Errorf(loc, "'tir.iota' operands must have one element type: start is %s, %s is %s (use tir.cast)", elem, what, t.Elem)
		}
		if MayBeMasked(v) {
			return TensorType{}, ir.Errorf(loc, "'tir.iota' %s may be masked (it reads through tir.gather): guard it with tir.can_deref and tir.select", what).
				AddNote(DefLoc(v), "%s is defined here", what)
		}
		elem = t.Elem
	}
	return TensorType{Elem: elem, Dims: []Dim{{Name: dim, Interval: sizeexpr.Span(sizeexpr.Const(0), sym)}}}, nil
}

var Compress = &Op{OpDef: ir.OpDef{
	Name:        "tir.compress",
	Summary:     "the elements of x where the mask holds, in order, along I (a new extent that depends on the mask)",
	Syntax:      "%r = tir.compress %x, %mask along I : !tir.tensor<f32, I[0:?_r_I], ...>",
	Traits:      ir.TraitPure,
	NumOperands: 2, NumResults: 1,
	Format: syntax("$operands+ along dim attr-dict-with-keyword type(res)? data-extent(compress)"),
	Infer:  inferDataExtentOp(compressType),
	Verify: verifyDataExtentOp,
},
	reads:  compressReads,
	checks: compressChecks,
	trail:  dataExtentTrail,
}

// compressType: x has I, the mask is an i1 tensor on I alone, on the same
// interval (provably different ones are an error; undecided ones are
// checked at run time); the result is x with I[0:sym].
func compressType(loc ir.Location, operands []*ir.Value, dim string, sym sizeexpr.Expr) (TensorType, error) {
	if len(operands) != 2 {
		return TensorType{}, ir.Errorf(loc, "'tir.compress' takes two operands (the values and the mask), got %d", len(operands))
	}
	x, ok := AsTensor(operands[0].Type)
	if !ok {
		return TensorType{}, ir.Errorf(loc, "'tir.compress' operand must be a !tir.tensor, got %s", operands[0].Type)
	}
	m, ok := AsTensor(operands[1].Type)
	if !ok {
		return TensorType{}, ir.Errorf(loc, "'tir.compress' mask must be a !tir.tensor, got %s", operands[1].Type)
	}
	xd, ok := x.Dim(dim)
	if !ok {
		return TensorType{}, ir.Errorf(loc, "unknown dimension %s in compress: the operand has %s", dim, dimNames(x)).
			AddNote(DefLoc(operands[0]), "the operand is defined here")
	}
	md, ok := m.Dim(dim)
	if !ir.TypeEqual(m.Elem, ir.I1) || !ok || m.Rank() != 1 {
		return TensorType{}, ir.Errorf(loc, "'tir.compress' mask must be an i1 tensor on %s alone, got %s", dim, m).
			AddNote(DefLoc(operands[1]), "the mask is defined here")
	}
	if provablyDifferent(xd.Lo, md.Lo) || provablyDifferent(xd.Hi, md.Hi) {
		e := ir.Errorf(loc, "'tir.compress' mask is on %s%s but the operand on %s%s: they must be equal (use tir.subset)", dim, md.Interval, dim, xd.Interval)
		AddTrail(e, "the operand", operands[0], dim)
		return TensorType{}, AddTrail(e, "the mask", operands[1], dim)
	}
	for i, v := range operands {
		if MayBeMasked(v) {
			what := []string{"operand", "mask"}[i]
			return TensorType{}, ir.Errorf(loc, "'tir.compress' %s may be masked (it reads through tir.gather): guard it with tir.can_deref and tir.select", what).
				AddNote(DefLoc(v), "the %s is defined here", what)
		}
	}
	out := TensorType{Elem: x.Elem}
	for _, d := range x.Dims {
		if d.Name == dim {
			d.Interval = sizeexpr.Span(sizeexpr.Const(0), sym)
		}
		out.Dims = append(out.Dims, d)
	}
	return out, nil
}

// CompressedInterval is the interval of x a tir.compress runs over (that
// of its mask: the two are equal, proved or checked at run time).
func CompressedInterval(op *ir.Operation) sizeexpr.Interval {
	if len(op.Operands) == 2 {
		if x, ok := AsTensor(op.Operands[0].Type); ok {
			if d, ok := x.Dim(DimAttr(op)); ok {
				return d.Interval
			}
		}
	}
	return sizeexpr.Span(sizeexpr.Const(0), sizeexpr.Const(0))
}

// verifyDataExtentOp checks what passes could break: the op is at the top
// level of a tir.func (an extent that varies inside a reduction body is
// no domain) and its result type still follows from its operands.
func verifyDataExtentOp(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if p := op.ParentOp(); p == nil || p.Name != "tir.func" {
		return ir.Errorf(op.Loc, "'%s' must be at the top level of a tir.func: its extent cannot vary inside a region", op.Name)
	}
	typeOf := iotaType
	if op.Name == "tir.compress" {
		typeOf = compressType
	}
	ts, err := inferDataExtentOp(typeOf)(op)
	if err != nil {
		return err
	}
	if !ir.TypeEqual(ts[0], op.Results[0].Type) {
		return ir.Errorf(op.Loc, "'%s' result type %s does not match the inferred type %s", op.Name, op.Results[0].Type, ts[0])
	}
	return nil
}

// verifyDataExtents checks, for a whole function, that each data-dependent
// extent is defined by one op, is no argument's extent, and is used only
// after that op (or by the function's declared results).
func verifyDataExtents(fn *ir.Operation) error {
	xs := DataExtents(fn)
	if len(xs) == 0 {
		return nil
	}
	ft, _ := FuncType(fn)
	all := map[string]*ir.Operation{}
	for _, x := range xs {
		if prev := all[x.Sym.Name]; prev != nil {
			return ir.Errorf(x.Op.Loc, "the extent %s is computed by two ops: each '%s' needs a result of its own name", x.Sym.Name, x.Op.Name).
				AddNote(prev.Loc, "%s is first computed here", x.Sym.Name)
		}
		all[x.Sym.Name] = x.Op
	}
	for i, t := range ft.Inputs {
		if TypeMentionsData(t, all) {
			return ir.Errorf(fn.Loc, "argument #%d of @%s uses an extent computed in its body (%s)", i, ir.SymbolName(fn), t)
		}
	}
	defined := map[string]*ir.Operation{}
	pending := map[string]*ir.Operation{}
	for k, v := range all {
		pending[k] = v
	}
	for _, op := range fn.Regions[0].Entry().Ops {
		var early *ir.Operation
		var sym string
		op.Walk(func(o *ir.Operation) bool {
			if early != nil {
				return false
			}
			var es []sizeexpr.Expr
			for _, r := range o.Results {
				if tt, ok := AsTensor(r.Type); ok {
					for _, d := range tt.Dims {
						es = append(es, d.Lo, d.Hi)
					}
				}
			}
			for _, a := range o.Attrs {
				es = append(es, attrExprs(a.Value)...)
			}
			for _, e := range es {
				for _, v := range e.Vars() {
					if def := pending[v.Name]; def != nil && def != op {
						early, sym = o, v.Name
						return false
					}
				}
			}
			return true
		})
		if early != nil {
			return ir.Errorf(early.Loc, "'%s' uses the extent %s before the op that computes it", early.Name, sym).
				AddNote(pending[sym].Loc, "%s is computed here", sym)
		}
		if v, ok := DataExtentSym(op); ok {
			defined[v.Name] = op
			delete(pending, v.Name)
		}
	}
	return nil
}

// IotaExtent is the number of elements of tir.iota(start, stop, step):
// ceil((stop - start) / step) when positive, else 0. ok is false for a
// step of 0 and for an extent beyond int64 (both refused at run time).
func IotaExtent(start, stop, step int64) (n int64, ok bool) {
	if step == 0 {
		return 0, false
	}
	var diff, by uint64
	switch {
	case step > 0 && stop > start:
		diff, by = uint64(stop)-uint64(start), uint64(step)
	case step < 0 && start > stop:
		diff, by = uint64(start)-uint64(stop), -uint64(step)
	default:
		return 0, true
	}
	u := (diff-1)/by + 1
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// IotaMessages are the messages of tir.iota's two run-time failures, the
// same in the interpreter and in compiled code.
func IotaMessages(fn, op *ir.Operation) (stepZero, tooLarge string) {
	what := valueName(fn, op.Results[0])
	return fmt.Sprintf("tir.iota %s: the step is 0", what),
		fmt.Sprintf("tir.iota %s: the extent does not fit in 64 bits", what)
}

// checkDataResults refuses a call whose callee returns a value with an
// extent computed from data: the call's result type could not name it
// (a call does not define extents; inlining the callee by hand does).
func checkDataResults(call, callee *ir.Operation) error {
	data := DataSymbols(callee)
	if len(data) == 0 {
		return nil
	}
	ft, _ := FuncType(callee)
	for i, r := range ft.Results {
		t, _ := AsTensor(r)
		for _, d := range t.Dims {
			for _, e := range []sizeexpr.Expr{d.Lo, d.Hi} {
				for _, v := range e.Vars() {
					if def := data[v.Name]; def != nil {
						return ir.Errorf(call.Loc, "call to @%s: its result #%d has dimension %s, whose extent %s depends on data; a call cannot bind it (not supported: write the '%s' in the caller)", Callee(call), i, d, v.Name, def.Name).
							AddNote(def.Loc, "%s is computed here", v.Name)
					}
				}
			}
		}
	}
	return nil
}

// renameDataExtents gives the extents computed from data in a callee
// being inlined names of their own in the caller (?_r_I_2): each copy of
// the callee's body computes its own.
func renameDataExtents(caller, callee *ir.Operation) map[string]sizeexpr.Expr {
	xs := DataExtents(callee)
	if len(xs) == 0 {
		return nil
	}
	used := map[string]bool{}
	if caller == nil {
		return nil
	}
	caller.Walk(func(o *ir.Operation) bool {
		for _, r := range o.Results {
			if t, ok := AsTensor(r.Type); ok {
				for _, d := range t.Dims {
					for _, v := range append(d.Lo.Vars(), d.Hi.Vars()...) {
						used[v.Name] = true
					}
				}
			}
		}
		return true
	})
	ft, _ := FuncType(caller)
	for _, t := range append(append([]ir.Type(nil), ft.Inputs...), ft.Results...) {
		if tt, ok := AsTensor(t); ok {
			for _, d := range tt.Dims {
				for _, v := range append(d.Lo.Vars(), d.Hi.Vars()...) {
					used[v.Name] = true
				}
			}
		}
	}
	out := map[string]sizeexpr.Expr{}
	for _, x := range xs {
		for k := 2; ; k++ {
			name := fmt.Sprintf("%s_%d", x.Sym.Name, k)
			if !used[name] {
				used[name] = true
				out[x.Sym.Name] = sizeexpr.Sym(name, x.Sym.Order)
				break
			}
		}
	}
	return out
}
