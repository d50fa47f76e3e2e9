package arith

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
)

// ElemKind is what element types an elementwise op accepts.
type ElemKind int

const (
	FloatElems       ElemKind = iota // f16 bf16 f32 f64
	IntElems                         // iN and index
	SignlessIntElems                 // iN only
)

func (k ElemKind) ok(t ir.Type) bool {
	switch k {
	case FloatElems:
		return IsFloatLike(t)
	case IntElems:
		return IsIntLike(t)
	}
	return IsSignlessInt(t)
}

func (k ElemKind) String() string {
	return [...]string{"float", "integer or index", "integer"}[k]
}

// ElementwiseOp defines an op `%r = NAME %a, %b, ... : T` whose operands and
// result all have type T (a scalar or a vector). With fastmath, the op
// carries MLIR's fastmath attribute.
func ElementwiseOp(name string, arity int, kind ElemKind, fastmath bool, summary string) *ir.OpDef {
	if fastmath {
		fastmathOps[name] = true
	}
	d := &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      fmt.Sprintf("%%r = %s %s : T", name, strings.TrimSuffix(strings.Repeat("%x, ", arity), ", ")),
		Traits:      ir.TraitPure,
		NumOperands: arity, NumResults: 1, NumRegions: 0,
		Parse: func(p *ir.OpParser, st *ir.OpState) error {
			vs, locs, err := Operands(p, arity)
			if err != nil {
				return err
			}
			fm := FastNone
			if fastmath {
				if fm, err = ParseFastMathFlags(p); err != nil {
					return err
				}
			}
			extra, err := OptionalBareDict(p)
			if err != nil {
				return err
			}
			t, err := ColonType(p)
			if err != nil {
				return err
			}
			for i, v := range vs {
				if err := CheckType(v, locs[i], t); err != nil {
					return err
				}
			}
			st.Operands, st.ResultTypes = vs, []ir.Type{t}
			st.Attrs = append(st.Attrs, extra...)
			if fastmath {
				st.Attrs = st.Attrs.With("fastmath", fm)
			}
			return p.ExpectEnd()
		},
		Print: func(p ir.OpPrinter, op *ir.Operation) {
			p.Write(" ")
			p.Values(op.Operands)
			PrintFastMathFlags(p, op)
			p.Write(" : ")
			p.Type(op.Results[0].Type)
		},
		Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
			return verifyElementwise(op, kind, fastmath)
		},
	}
	if fastmath {
		d.Infer = func(op *ir.Operation) ([]ir.Type, error) {
			defaultFastMath(op)
			return nil, nil
		}
		d.NeedsGeneric = func(op *ir.Operation) bool { return !OnlyAttrs(op, "fastmath") }
	} else {
		d.NeedsGeneric = func(op *ir.Operation) bool { return len(op.Attrs) > 0 }
	}
	return d
}

func verifyElementwise(op *ir.Operation, kind ElemKind, fastmath bool) error {
	t := op.Results[0].Type
	for i, v := range op.Operands {
		if !ir.TypeEqual(v.Type, t) {
			return Errf(op, "operand #%d has type %s but the result has type %s", i, v.Type, t)
		}
	}
	if !kind.ok(t) {
		return Errf(op, "expects %s operands (scalars or vectors), got %s", kind, t)
	}
	if fastmath {
		return verifyFastMath(op)
	}
	return nil
}

var floatBinary = []string{"addf", "subf", "mulf", "divf", "remf", "maxf", "minf"}

var intBinary = []string{
	"addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "floordivsi", "ceildivsi",
	"maxsi", "maxui", "minsi", "minui", "andi", "ori", "xori", "shli", "shrsi", "shrui",
}

func elementwiseTable() []*ir.OpDef {
	var defs []*ir.OpDef
	for _, n := range floatBinary {
		defs = append(defs, ElementwiseOp("arith."+n, 2, FloatElems, true, "float "+n[:len(n)-1]))
	}
	defs = append(defs, ElementwiseOp("arith.negf", 1, FloatElems, true, "float negation"))
	for _, n := range intBinary {
		defs = append(defs, ElementwiseOp("arith."+n, 2, IntElems, false, "integer "+n))
	}
	return defs
}
