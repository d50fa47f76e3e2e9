package tir

import (
	"tir/dialects/ir"
)

// The derivative facet of the ops: how the tangent of an op's results
// follows from the tangents of its operands (forward mode), and how the
// cotangents of its operands follow from the cotangents of its results
// (reverse mode). The rules build IR through a DerivativeBuilder, which the
// tir-derivatives pass (passes/derivatives) implements: the pass owns the
// functions it creates, the order of the sweeps, the sums of several
// contributions and the domains of the values; a rule only says what its op
// contributes. The rules are in derivative_rules.go, one entry per op.

// DerivativeBuilder is what a rule builds the derivative IR with. Every op
// it appends goes at the current point of the derivative function being
// built and carries the location of the op being differentiated.
type DerivativeBuilder interface {
	// Build appends an op of kind k and returns its result. The result
	// type is inferred from the operands and attributes; result is needed
	// only by the ops whose type rule reads it (view, cast, assume_shape)
	// and is nil otherwise.
	Build(k *Op, operands []*ir.Value, attrs ir.DictAttr, result ir.Type) (*ir.Value, error)
	// Const is a 0-d constant of the element type holding x in every
	// float leaf (integer and i1 leaves of a tuple hold 0).
	Const(elem ir.Type, x float64) *ir.Value
	// Fit returns v on exactly the domain of t (its element type stays
	// v's): summed over the dimensions t lacks, broadcast along those v
	// lacks, restricted where v is larger and padded with zeros where it
	// is smaller.
	Fit(v *ir.Value, t TensorType) (*ir.Value, error)
	// Add sums two values of one element type (tuples component by
	// component).
	Add(x, y *ir.Value) (*ir.Value, error)

	// The ops with a body (a scan's step) are differentiated by running
	// the sweeps on their body. The body's ops are built again at the
	// current point with their arguments bound to other values (its types
	// inferred again, so a step written for one slice applies as well to
	// whole tensors), followed by their derivatives.

	// BodyTangent builds a block's ops on args, and returns the value it
	// yields (or the block's value of, when not nil) and its tangent from
	// the tangents of the arguments (nil: zero; the returned tangent is
	// nil when zero).
	BodyTangent(body *ir.Block, args, dargs []*ir.Value, of *ir.Value) (y, dy *ir.Value, err error)
	// BodyAdjoint builds a block's ops on args, and the cotangents of the
	// arguments for which need is true from the cotangent of the value it
	// yields (or of the block's value of, when not nil; nil: zero).
	BodyAdjoint(body *ir.Block, args []*ir.Value, dy *ir.Value, need []bool, of *ir.Value) ([]*ir.Value, error)
	// BodyAdjointKnown is BodyAdjoint of the value the block yields when
	// the caller holds that value already (known, a scan's stored state
	// at the step): the ops built again that compute it, or the
	// components of the tuple it makes, are read from known instead, so
	// that only what the derivatives need besides is computed again.
	BodyAdjointKnown(body *ir.Block, args []*ir.Value, known, dy *ir.Value, need []bool) ([]*ir.Value, error)
	// BuildScan appends a tir.scan along attrs' dim whose step body is
	// built by step, given the block's arguments (the state, then one per
	// input without the scanned dimension); step returns the next state,
	// which BuildScan fits to the state's domain and yields.
	BuildScan(init *ir.Value, ins []*ir.Value, attrs ir.DictAttr, step func(b DerivativeBuilder, args []*ir.Value) (*ir.Value, error)) (*ir.Value, error)
}

// DerivativeOp is an op as a rule sees it: the op as written in the
// function being differentiated, and its operands and results as they are
// in the derivative function (the primal values the rule may read).
type DerivativeOp struct {
	Op *ir.Operation
	X  []*ir.Value
	Y  []*ir.Value
}

// DerivativeRule is the derivative facet of one op. Nil tangents and
// cotangents stand for zero. An op whose results carry no derivative
// (comparisons, logic, positions) has a rule with both functions nil.
type DerivativeRule struct {
	// Tangent returns the tangent of each result (nil: zero) from the
	// tangent of each operand (nil: zero, or not differentiable). The
	// tangents it is given are on their operands' exact domains; what it
	// returns may be on a larger domain (the pass restricts it).
	Tangent func(b DerivativeBuilder, o DerivativeOp, dx []*ir.Value) ([]*ir.Value, error)
	// Adjoint returns one contribution per operand (nil: none) to the
	// cotangents of the operands for which need is true, from the
	// cotangent of each result (nil: zero), given on its result's exact
	// domain. A contribution may vary along dimensions its operand lacks
	// (the pass sums over them) and cover only part of the operand's
	// domain (the pass pads it with zeros).
	Adjoint func(b DerivativeBuilder, o DerivativeOp, dy []*ir.Value, need []bool) ([]*ir.Value, error)
	// Structural marks the ops the pass handles itself: functions,
	// returns, yields and calls (inlined before differentiating).
	Structural bool
}

// Derivative returns the op's derivative rule; false when the op has none
// yet (DerivativeNotYet says so, and the pass reports it at the op).
func (o *Op) Derivative() (DerivativeRule, bool) {
	r, ok := derivativeRules[o]
	return r, ok
}

// DerivativeNotYet says why an op has no derivative rule yet ("" when it
// has one, or is not listed: a test fails on an op in neither place).
func (o *Op) DerivativeNotYet() string { return derivativeNotYet[o] }

// NotDifferentiableYet is the error a rule or the pass gives at an op it
// cannot differentiate in this version.
func NotDifferentiableYet(op *ir.Operation, why string) *ir.Diagnostic {
	if why == "" {
		return ir.Errorf(op.Loc, "tir-derivatives cannot differentiate '%s' yet", op.Name)
	}
	return ir.Errorf(op.Loc, "tir-derivatives cannot differentiate '%s' yet: %s", op.Name, why)
}

// Differentiable reports whether values of an element type carry
// derivatives: floats, and tuples with at least one float leaf.
func Differentiable(elem ir.Type) bool {
	switch t := elem.(type) {
	case ir.FloatType:
		return true
	case ir.TupleType:
		for _, e := range t.Elems {
			if Differentiable(e) {
				return true
			}
		}
	}
	return false
}

// DifferentiableValue reports whether a value is a tensor of a
// differentiable element type.
func DifferentiableValue(v *ir.Value) bool {
	t, ok := AsTensor(v.Type)
	return ok && Differentiable(t.Elem)
}
