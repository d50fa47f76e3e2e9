package vector

import (
	"strings"

	"tir/dialects/arith"
	"tir/dialects/ir"
)

// vector.reduction combines the lanes of a 1-D vector into a scalar, with
// MLIR 16's syntax:
//
//	%s = vector.reduction <add>, %v : vector<8xf32> into f32
//	%s = vector.reduction <maxf>, %v, %acc : vector<8xf32> into f32
//
// The kind is MLIR's `#vector.kind<...>` attribute (`kind` in the generic
// form); %acc, when given, is combined with the lanes too. affine-vectorize
// emits it after the vector loop of a reduction, to fold the partial
// results of the lanes into the scalar the remainder loop continues from.
// Like arith.maxf, `maxf` and `minf` propagate NaN and order -0 below +0.
// `add` and `mul` on floats mean the lanes in order (acc + v0 + v1 ...)
// unless the lowering is allowed to reassociate them, as MLIR's
// convert-vector-to-llvm{reassociate-fp-reductions} does.

// CombiningKind is MLIR's #vector.kind<...>.
type CombiningKind uint8

// The kinds, in MLIR 16's order.
const (
	KindAdd CombiningKind = iota
	KindMul
	KindMinUI
	KindMinSI
	KindMinF
	KindMaxUI
	KindMaxSI
	KindMaxF
	KindAnd
	KindOr
	KindXor
)

var kindNames = []string{"add", "mul", "minui", "minsi", "minf", "maxui", "maxsi", "maxf", "and", "or", "xor"}

// Name is the kind's spelling (add, maxf, ...).
func (k CombiningKind) Name() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "?"
}

func (k CombiningKind) String() string { return "#vector.kind<" + k.Name() + ">" }

// KindByName returns the kind spelled name.
func KindByName(name string) (CombiningKind, bool) {
	for i, n := range kindNames {
		if n == name {
			return CombiningKind(i), true
		}
	}
	return 0, false
}

// Supports reports whether the kind applies to elements of type t, as
// MLIR's isSupportedCombiningKind: add and mul to integers and floats,
// minf and maxf to floats, the others to integers (index included).
func (k CombiningKind) Supports(t ir.Type) bool {
	isInt := ir.IsInteger(t) || ir.TypeEqual(t, ir.Index)
	switch k {
	case KindAdd, KindMul:
		return isInt || ir.IsFloat(t)
	case KindMinF, KindMaxF:
		return ir.IsFloat(t)
	}
	return isInt
}

// kindAt is the kind named w, or a located error listing the kinds.
func kindAt(w string, loc ir.Location) (CombiningKind, error) {
	k, ok := KindByName(w)
	if !ok {
		return 0, ir.Errorf(loc, "unknown combining kind '%s' (expected one of %s)", w, strings.Join(kindNames, ", "))
	}
	return k, nil
}

func parseKind(p *ir.OpParser) (ir.Attribute, error) {
	w, loc, err := p.Keyword("a combining kind")
	if err != nil {
		return nil, err
	}
	k, err := kindAt(w, loc)
	if err != nil {
		return nil, err
	}
	return k, p.ExpectEnd()
}

func init() {
	ir.RegisterAttr("vector.kind", parseKind)
}

// Reduction is vector.reduction.
var Reduction = &ir.OpDef{
	Name:        "vector.reduction",
	Summary:     "combine the lanes of a 1-D vector (and an optional accumulator) into a scalar",
	Syntax:      "%s = vector.reduction <KIND>, %v [, %acc] : vector<NxT> into T",
	Traits:      ir.TraitPure,
	NumOperands: -1, NumResults: 1, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		w, loc, err := p.AngleWord("a combining kind '<add>'")
		if err != nil {
			return err
		}
		k, err := kindAt(w, loc)
		if err != nil {
			return err
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		vs, locs, err := arith.Operands(p, -1)
		if err != nil {
			return err
		}
		if len(vs) < 1 || len(vs) > 2 {
			return p.Errorf("expected a vector and an optional accumulator")
		}
		vt, err := arith.ColonType(p)
		if err != nil {
			return err
		}
		if err := p.ExpectWord("into"); err != nil {
			return err
		}
		rt, err := p.Type()
		if err != nil {
			return err
		}
		if err := arith.CheckType(vs[0], locs[0], vt); err != nil {
			return err
		}
		if len(vs) == 2 {
			if err := arith.CheckType(vs[1], locs[1], rt); err != nil {
				return err
			}
		}
		st.Operands, st.ResultTypes = vs, []ir.Type{rt}
		st.Attrs = st.Attrs.With("kind", k)
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" <" + op.Attr("kind").(CombiningKind).Name() + ">, ")
		p.Values(op.Operands)
		p.Write(" : ")
		p.Type(op.Operands[0].Type)
		p.Write(" into ")
		p.Type(op.Results[0].Type)
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		_, ok := op.Attr("kind").(CombiningKind)
		return !ok || len(op.Operands) < 1 || len(op.Operands) > 2 || !arith.OnlyAttrs(op, "kind")
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		k, ok := op.Attr("kind").(CombiningKind)
		if !ok {
			return arith.Errf(op, "needs a combining kind attribute 'kind' (#vector.kind<add>)")
		}
		if n := len(op.Operands); n < 1 || n > 2 {
			return arith.Errf(op, "takes a vector and an optional accumulator, not %d operands", n)
		}
		vt, isVec := op.Operands[0].Type.(ir.VectorType)
		if !isVec || len(vt.Shape) != 1 || vt.Shape[0] < 1 || len(vt.Scalable) > 0 && vt.Scalable[0] {
			return arith.Errf(op, "operand must be a 1-D vector of static length, not %s", op.Operands[0].Type)
		}
		if rt := op.Results[0].Type; !ir.TypeEqual(rt, vt.Elem) {
			return arith.Errf(op, "result type %s must be the element type %s of the vector", rt, vt.Elem)
		}
		if len(op.Operands) == 2 && !ir.TypeEqual(op.Operands[1].Type, vt.Elem) {
			return arith.Errf(op, "accumulator type %s must be the element type %s of the vector", op.Operands[1].Type, vt.Elem)
		}
		if !k.Supports(vt.Elem) {
			return arith.Errf(op, "kind '%s' does not apply to elements of type %s", k.Name(), vt.Elem)
		}
		return nil
	},
}

// NewReduction builds `%s = vector.reduction <kind>, %v[, %acc]`: acc may
// be nil.
func NewReduction(loc ir.Location, kind CombiningKind, v, acc *ir.Value) *ir.Operation {
	operands := []*ir.Value{v}
	if acc != nil {
		operands = append(operands, acc)
	}
	elem := v.Type.(ir.VectorType).Elem
	return ir.NewOpOf(Reduction, loc, operands, []ir.Type{elem}, ir.DictAttr(nil).With("kind", kind))
}
