package tiraffine

import (
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
)

// Subscripts and loop bounds whose non-affine parts (a min or max, or a
// division of one) involve size symbols only — a result on
// `i[max(A, B):...]` is stored at `i - max(A, B)` — are made affine by
// computing those parts once, at function entry, with arith ops. The value
// is defined at the top level of the function, so it is a valid affine
// symbol (MLIR's rule, which mlir-opt 16 checks): the access stays an
// affine.load or affine.store, which the affine passes (vectorize, fusion)
// understand. What still is not affine (a min or max of loop variables)
// goes through memref.load/memref.store with arith subscripts.

// affinize returns e with each non-affine part that involves size symbols
// only replaced by a symbol bound to its value computed at entry.
func (fl *funcLowering) affinize(e sizeexpr.Expr) sizeexpr.Expr {
	if e.IsAffine() {
		return e
	}
	terms, c := e.Terms()
	out := sizeexpr.Const(c)
	for _, t := range terms {
		a := t.Atom
		x := a.Expr()
		switch a.Op() {
		case sizeexpr.OpVar:
		case sizeexpr.OpMin, sizeexpr.OpMax:
			if symbolsOnly(x) {
				x = fl.hoist(x)
			}
		default: // floordiv, ceildiv, mod
			if x.IsAffine() {
				break
			}
			if symbolsOnly(x) {
				x = fl.hoist(x)
				break
			}
			inner := fl.affinize(a.Operand())
			var err error
			switch a.Op() {
			case sizeexpr.OpFloorDiv:
				x, err = sizeexpr.FloorDiv(inner, a.Divisor())
			case sizeexpr.OpCeilDiv:
				x, err = sizeexpr.CeilDiv(inner, a.Divisor())
			default:
				x, err = sizeexpr.Mod(inner, a.Divisor())
			}
			if err != nil { // unreachable: the divisor is > 1
				x = a.Expr()
			}
		}
		out = sizeexpr.Add(out, sizeexpr.Mul(x, t.Coef))
	}
	return out
}

func symbolsOnly(e sizeexpr.Expr) bool {
	for _, v := range e.Vars() {
		if v.Kind != sizeexpr.SymbolVar {
			return false
		}
	}
	return true
}

// hoist computes a symbols-only expression at function entry (once per
// function) and returns the symbol standing for it. The ops go after the
// argument checks, which bind unknown extents, and before any loop.
func (fl *funcLowering) hoist(e sizeexpr.Expr) sizeexpr.Expr {
	key := e.String()
	if h, ok := fl.hoisted[key]; ok {
		return h.v.Expr()
	}
	v := sizeexpr.Var{Name: key, Order: 1<<30 + len(fl.hoisted), Kind: sizeexpr.SymbolVar}
	scratch := &ir.Block{}
	ev := fl.newEvaluator(newNest(fl), builder{block: scratch, loc: fl.src.Loc})
	val := ev.index(e)
	entry := fl.top
	pos := 0
	if fl.hoistAfter != nil {
		pos = entry.IndexOf(fl.hoistAfter) + 1
	} else {
		for pos < len(entry.Ops) && entry.Ops[pos].Is(arith.Constant) {
			pos++
		}
	}
	for _, op := range append([]*ir.Operation(nil), scratch.Ops...) {
		scratch.Remove(op)
		entry.InsertAt(pos, op)
		fl.hoistAfter = op
		pos++
	}
	val.NameHint = hintOf(key)
	fl.hoisted[key] = hoisted{v, val}
	return v.Expr()
}

// hintOf names a hoisted value after its expression: max(A, B) is max_A_B.
func hintOf(expr string) string {
	var b strings.Builder
	sep := false
	for _, c := range expr {
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			if sep && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(c)
			sep = false
		} else {
			sep = true
		}
	}
	return b.String()
}

// hoisted is a symbols-only expression computed at entry: the symbol that
// stands for it in affine maps and its value.
type hoisted struct {
	v   sizeexpr.Var
	val *ir.Value
}

// storeAt stores x into mem at subscripts subs: an affine.store when they
// are (or can be made) affine, otherwise a memref.store with subscripts
// computed by arith ops.
func (ev *evaluator) storeAt(x, mem *ir.Value, subs []sizeexpr.Expr) {
	subs = ev.fl.affinizeAll(subs)
	if ev.affine(subs) {
		m, ops := affineMap(subs, ev.nest.lookup)
		ev.b.store(x, mem, m, ops)
		return
	}
	var idx []*ir.Value
	for _, s := range subs {
		idx = append(idx, ev.index(s))
	}
	ev.b.op(memref.Store, append([]*ir.Value{x, mem}, idx...), nil, nil)
}

// atomicAddAt adds x to mem's element at subscripts subs atomically
// (memref.atomic_rmw addf or addi, its subscripts computed by arith ops).
func (ev *evaluator) atomicAddAt(x, mem *ir.Value, subs []sizeexpr.Expr) {
	subs = ev.fl.affinizeAll(subs)
	idx := []*ir.Value{x, mem}
	for _, s := range subs {
		idx = append(idx, ev.index(s))
	}
	kind := memref.AtomicAddI
	if ir.IsFloat(x.Type) {
		kind = memref.AtomicAddF
	}
	ev.b.value(memref.AtomicRMW, idx, x.Type, ir.DictAttr{}.With(memref.AttrAtomicKind, ir.IntegerAttr{Value: kind, Type: ir.I64}))
}

func (fl *funcLowering) affinizeAll(es []sizeexpr.Expr) []sizeexpr.Expr {
	out := make([]sizeexpr.Expr, len(es))
	for i, e := range es {
		out[i] = fl.affinize(e)
	}
	return out
}
