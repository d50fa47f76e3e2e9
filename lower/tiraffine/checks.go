package tiraffine

import (
	"fmt"
	"strings"

	"tir/dialects/arith"
	"tir/dialects/cf"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
	"tir/lower/abi"
)

// Run-time checks at function entry, before any loop: every condition is
// computed with arith on index values and guarded by cf.assert, which the
// LLVM lowering turns into the function's error code.

func usesUnknownExtent(t tir.TensorType) bool {
	for _, d := range t.Dims {
		for _, e := range []sizeexpr.Expr{d.Lo, d.Hi} {
			for _, v := range e.Vars() {
				if tir.IsUnknownExtent(v) {
					return true
				}
			}
		}
	}
	return false
}

// bindUnknown reads each unknown extent from the argument that declares it
// (memref.dim plus the interval's lower bound), then checks every other
// dimension that mentions an unknown extent against its descriptor.
func (fl *funcLowering) bindUnknown(ft ir.FunctionType, args []*ir.Value) error {
	all := append(append([]ir.Type(nil), ft.Inputs...), ft.Results...)
	ev := fl.newEvaluator(newNest(fl), fl.entry)
	type pending struct {
		arg, dim int
		d        tir.Dim
	}
	var rest []pending
	// Extents computed from data are bound later (checkDataResults).
	data := tir.DataSymbols(fl.src)
	for i, t := range all {
		tt, _ := tir.AsTensor(t)
		for k, d := range tt.Dims {
			if tir.MentionsData(d.Lo, data) || tir.MentionsData(d.Hi, data) {
				continue
			}
			if v, ok := d.Hi.AsVar(); ok && tir.IsUnknownExtent(v) && fl.syms[v.Name] == nil && i < len(ft.Inputs) {
				size := fl.entry.value(memref.Dim, []*ir.Value{args[i], fl.indexConst(int64(k))}, ir.Index, nil)
				size.NameHint = v.Name[1:]
				hi := size
				if c, ok := d.Lo.Const(); !ok || c != 0 {
					hi = fl.entry.value(arith.AddI, []*ir.Value{size, ev.index(d.Lo)}, ir.Index, nil)
				}
				fl.syms[v.Name] = hi
				continue
			}
			if usesUnknownExtent(tir.TensorType{Dims: []tir.Dim{d}}) {
				rest = append(rest, pending{i, k, d})
			}
		}
	}
	names := fl.argNames(ft)
	for _, p := range rest {
		for _, e := range append(p.d.Lo.Vars(), p.d.Hi.Vars()...) {
			if tir.IsUnknownExtent(e) && fl.syms[e.Name] == nil {
				return ir.Errorf(fl.src.Loc, "unknown extent %s is not declared by an argument", e.Name)
			}
		}
		size := fl.entry.value(memref.Dim, []*ir.Value{args[p.arg], fl.indexConst(int64(p.dim))}, ir.Index, nil)
		// An inverted interval is empty (docs/decisions.md): extent 0.
		want := ev.index(sizeexpr.Max(p.d.Extent(), sizeexpr.Const(0)))
		ok := fl.entry.value(arith.CmpI, []*ir.Value{size, want}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: 0, Type: ir.I64}))
		// The interpreter's message: "argument 'y' dimension I: expected
		// extent ?_x_I = 5, got 4".
		what := fmt.Sprintf("argument '%s' dimension %s: expected extent %s", names[p.arg], p.d.Name, p.d.Extent())
		a := cf.NewAssert(fl.src.Loc, ok, what)
		if vals, vok := fl.abiValues([]sizeexpr.Expr{sizeexpr.Max(p.d.Extent(), sizeexpr.Const(0))}); vok {
			j := p.dim
			for _, t := range all[:p.arg] {
				tt, _ := tir.AsTensor(t)
				j += len(tt.Dims)
			}
			a.Attrs = a.Attrs.With(abi.AttrAssertFormat, ir.StringAttr(strings.ReplaceAll(what, "%", "%%")+" = %lld, got %lld")).
				With(abi.AttrAssertValues, abi.AssertValuesAttr(append(vals, ir.MapDim(j))))
		}
		fl.entry.block.Append(a)
	}
	return nil
}

func (fl *funcLowering) argNames(ft ir.FunctionType) []string {
	var out []string
	entry := fl.src.Regions[0].Entry()
	for i := range ft.Inputs {
		out = append(out, entry.Args[i].NameHint)
	}
	for i := range ft.Results {
		if len(ft.Results) > 1 {
			out = append(out, fmt.Sprintf("result%d", i))
		} else {
			out = append(out, "result")
		}
	}
	return out
}

// emitChecks guards the function with the tir-level run-time checks.
func (fl *funcLowering) emitChecks(checks []tir.RuntimeCheck) {
	ev := fl.newEvaluator(newNest(fl), fl.entry)
	for _, c := range checks {
		zero := fl.indexConst(0)
		b := fl.entry
		b.loc = c.Loc
		var ok *ir.Value
		for _, e := range c.NonNeg {
			ge := b.value(arith.CmpI, []*ir.Value{ev.index(e), zero}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: 5, Type: ir.I64}))
			if ok == nil {
				ok = ge
			} else {
				ok = b.value(arith.AndI, []*ir.Value{ok, ge}, ir.I1, nil)
			}
		}
		a := cf.NewAssert(c.Loc, ok, c.Msg)
		if c.Texts != nil {
			if vals, ok := fl.abiValues(c.Values); ok {
				a.Attrs = a.Attrs.With(abi.AttrAssertFormat, ir.StringAttr(c.Format("%lld"))).
					With(abi.AttrAssertValues, abi.AssertValuesAttr(vals))
			}
		}
		b.block.Append(a)
	}
}

// abiValues expresses a check's values as the ABI reads them (abi.
// AttrAssertValues): size symbols as the function's trailing index
// arguments, an unknown extent as the size of the dimension that declares
// it plus that dimension's lower bound. ok is false when some variable is
// neither.
func (fl *funcLowering) abiValues(values []sizeexpr.Expr) ([]sizeexpr.Expr, bool) {
	ft, _ := tir.FuncType(fl.src)
	syms := map[string]sizeexpr.Expr{}
	for i, s := range tir.Symbols(fl.src) {
		syms[s.Name] = ir.MapSym(i)
	}
	ok := true
	subst := func(e sizeexpr.Expr, repl map[string]sizeexpr.Expr) sizeexpr.Expr {
		return e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			r, found := repl[v.Name]
			ok = ok && found
			return r, found
		})
	}
	repl := map[string]sizeexpr.Expr{}
	for k, v := range syms {
		repl[k] = v
	}
	j := 0
	// An extent computed from data is no descriptor's: a result's size is
	// what the caller passed, which is what is checked.
	data := tir.DataSymbols(fl.src)
	for _, t := range append(append([]ir.Type(nil), ft.Inputs...), ft.Results...) {
		tt, _ := tir.AsTensor(t)
		for _, d := range tt.Dims {
			if v, isVar := d.Hi.AsVar(); isVar && tir.IsUnknownExtent(v) && data[v.Name] == nil {
				if _, seen := repl[v.Name]; !seen {
					repl[v.Name] = sizeexpr.Add(ir.MapDim(j), subst(d.Lo, syms))
				}
			}
			j++
		}
	}
	var out []sizeexpr.Expr
	for _, e := range values {
		out = append(out, subst(e, repl))
	}
	return out, ok
}
