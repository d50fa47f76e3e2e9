package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

func init() { register(tir.Constant, evalConstant) }

// evalConstant makes the 0-d tensor of a tir.constant. The value is rounded
// (floats) or wrapped (integers) to the element type, so `0.1 : f32` is the
// float32 nearest to 0.1; a size expression is evaluated at the run's
// size symbols.
func evalConstant(ev *evaluator, op *ir.Operation, _ []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	a := tir.ConstantOp{Operation: op}.Value()
	if e, ok := tir.SizeValue(op); ok {
		// A size expression: its value at this run's size symbols.
		v, err := evalExpr(e, ev.syms, nil)
		if err != nil {
			return nil, err
		}
		a = ir.IntegerAttr{Value: v, Type: ir.I64}
	}
	t, err := attrTensor(elem, a)
	if err != nil {
		return nil, err
	}
	t.Dims = dims // a constant is 0-d; dims is empty
	return []*Tensor{t}, nil
}

// attrTensor builds a one-point tensor from a constant attribute: a float,
// an integer, a boolean, or (for tuple element types) an array of those,
// nested like the tuple type.
func attrTensor(elem ir.Type, a ir.Attribute) (*Tensor, error) {
	switch et := elem.(type) {
	case ir.FloatType:
		switch v := a.(type) {
		case ir.FloatAttr:
			return &Tensor{Elem: elem, F64: []float64{RoundTo(elem, v.Value)}}, nil
		case ir.IntegerAttr:
			return &Tensor{Elem: elem, F64: []float64{intToFloat(v.Value, elem)}}, nil
		}
	case ir.IntegerType:
		switch v := a.(type) {
		case ir.IntegerAttr:
			return &Tensor{Elem: elem, I64: []int64{wrap(v.Value, et.Width)}}, nil
		case ir.BoolAttr:
			b := int64(0)
			if v {
				b = 1
			}
			return &Tensor{Elem: elem, I64: []int64{wrap(b, et.Width)}}, nil
		}
	case ir.TupleType:
		arr, ok := a.(ir.ArrayAttr)
		if !ok || len(arr) != len(et.Elems) {
			break
		}
		t := &Tensor{Elem: elem}
		for i, e := range et.Elems {
			c, err := attrTensor(e, arr[i])
			if err != nil {
				return nil, err
			}
			t.Tuple = append(t.Tuple, c)
		}
		return t, nil
	}
	return nil, fmt.Errorf("constant value %v does not fit element type %s", a, elem)
}
