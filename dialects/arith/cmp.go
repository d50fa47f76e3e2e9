package arith

import (
	"strings"

	"tir/dialects/ir"
)

// arith.cmpf / arith.cmpi: `%b = arith.cmpf olt, %x, %y : f32`. MLIR stores
// the predicate as its enum value, `predicate = 4 : i64`; the result is i1
// (or a vector of i1 of the operands' shape).

// CmpFPredicates lists arith.cmpf predicates by enum value.
var CmpFPredicates = []string{"false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"}

// CmpIPredicates lists arith.cmpi predicates by enum value.
var CmpIPredicates = []string{"eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"}

// predicates are the predicate names of each comparison, by op name: the
// format's predicate directive reads them.
var predicates = map[string][]string{}

// The comparisons (see Ops for the naming rule).
var (
	CmpF = cmpDef("arith.cmpf", CmpFPredicates, FloatElems)
	CmpI = cmpDef("arith.cmpi", CmpIPredicates, IntElems)
)

func cmpDef(name string, preds []string, kind ElemKind) *ir.OpDef {
	predicates[name] = preds
	return &ir.OpDef{
		Name:        name,
		Summary:     "elementwise comparison (" + strings.Join(preds, " ") + ")",
		Syntax:      "%b = " + name + " PRED, %x, %y : T",
		Traits:      ir.TraitPure,
		NumOperands: 2, NumResults: 1, NumRegions: 0,
		Format: Format("predicate , $lhs , $rhs : i1-of($lhs,$rhs)"),
		NeedsGeneric: func(op *ir.Operation) bool {
			a, ok := op.Attr("predicate").(ir.IntegerAttr)
			return !ok || a.Value < 0 || a.Value >= int64(len(preds)) || !OnlyAttrs(op, "predicate")
		},
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			a, ok := op.Attr("predicate").(ir.IntegerAttr)
			if !ok || !ir.TypeEqual(a.Type, ir.I64) {
				return Errf(op, "needs an i64 predicate attribute")
			}
			if a.Value < 0 || a.Value >= int64(len(preds)) {
				return Errf(op, "predicate %d out of range [0, %d]", a.Value, len(preds)-1)
			}
			t := op.Operands[0].Type
			if !ir.TypeEqual(op.Operands[1].Type, t) {
				return Errf(op, "operands have different types %s and %s", t, op.Operands[1].Type)
			}
			if !kind.ok(t) {
				return Errf(op, "expects %s operands, got %s", kind, t)
			}
			if want := WithElem(t, ir.I1); !ir.TypeEqual(op.Results[0].Type, want) {
				return Errf(op, "result type %s should be %s", op.Results[0].Type, want)
			}
			return nil
		},
	}
}

// PredicateIndex returns the enum value of a cmpf or cmpi predicate, or -1.
func PredicateIndex(opName, pred string) int {
	if opName == CmpF.Name {
		return indexOf(CmpFPredicates, pred)
	}
	return indexOf(CmpIPredicates, pred)
}

// Predicate returns the predicate name of a cmpf or cmpi op.
func Predicate(op *ir.Operation) string {
	a, ok := op.Attr("predicate").(ir.IntegerAttr)
	preds := CmpIPredicates
	if op.Is(CmpF) {
		preds = CmpFPredicates
	}
	if !ok || a.Value < 0 || a.Value >= int64(len(preds)) {
		return ""
	}
	return preds[a.Value]
}

// Select is arith.select.
var Select = &ir.OpDef{
	Name:        "arith.select",
	Summary:     "choose between two values on an i1 (or elementwise on a vector of i1)",
	Syntax:      "%r = arith.select %c, %a, %b : T   |   : vector<8xi1>, vector<8xf32>",
	Traits:      ir.TraitPure,
	NumOperands: 3, NumResults: 1, NumRegions: 0,
	// MLIR prints other attributes before the colon (the tir lowering's
	// tir.mask).
	Format: Format("$condition , $true_value , $false_value attr-dict : select-of($condition,$true_value,$false_value)"),
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		t := op.Results[0].Type
		for i := 1; i < 3; i++ {
			if !ir.TypeEqual(op.Operands[i].Type, t) {
				return Errf(op, "operand #%d has type %s but the result has type %s", i, op.Operands[i].Type, t)
			}
		}
		ct := op.Operands[0].Type
		if !ir.TypeEqual(ct, ir.I1) && !ir.TypeEqual(ct, WithElem(t, ir.I1)) {
			return Errf(op, "condition must be i1 or %s, got %s", WithElem(t, ir.I1), ct)
		}
		return nil
	},
}
