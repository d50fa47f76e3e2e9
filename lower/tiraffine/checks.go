package tiraffine

import (
	"fmt"

	"tir/dialects/cf"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
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
	for i, t := range all {
		tt, _ := tir.AsTensor(t)
		for k, d := range tt.Dims {
			if v, ok := d.Hi.AsVar(); ok && tir.IsUnknownExtent(v) && fl.syms[v.Name] == nil && i < len(ft.Inputs) {
				size := fl.entry.value("memref.dim", []*ir.Value{args[i], fl.indexConst(int64(k))}, ir.Index, nil)
				size.NameHint = v.Name[1:]
				hi := size
				if c, ok := d.Lo.Const(); !ok || c != 0 {
					hi = fl.entry.value("arith.addi", []*ir.Value{size, ev.index(d.Lo)}, ir.Index, nil)
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
		size := fl.entry.value("memref.dim", []*ir.Value{args[p.arg], fl.indexConst(int64(p.dim))}, ir.Index, nil)
		want := ev.index(p.d.Extent())
		ok := fl.entry.value("arith.cmpi", []*ir.Value{size, want}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: 0, Type: ir.I64}))
		fl.entry.block.Append(cf.NewAssert(fl.src.Loc, ok, fmt.Sprintf("argument '%s' dimension %s: expected extent %s", names[p.arg], p.d.Name, p.d.Extent())))
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
			ge := b.value("arith.cmpi", []*ir.Value{ev.index(e), zero}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: 5, Type: ir.I64}))
			if ok == nil {
				ok = ge
			} else {
				ok = b.value("arith.andi", []*ir.Value{ok, ge}, ir.I1, nil)
			}
		}
		b.block.Append(cf.NewAssert(c.Loc, ok, c.Msg))
	}
}
