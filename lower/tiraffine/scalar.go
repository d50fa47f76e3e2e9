package tiraffine

import (
	"tir/dialects/ir"
	"tir/dialects/tir"
)

// Scalar lowering of elementwise tir ops to arith/math, by element type.

var floatBinary = map[string]string{
	"tir.add": "arith.addf", "tir.sub": "arith.subf", "tir.mul": "arith.mulf", "tir.div": "arith.divf",
	"tir.rem": "arith.remf", "tir.min": "arith.minf", "tir.max": "arith.maxf", "tir.pow": "math.powf",
}

var intBinary = map[string]string{
	"tir.add": "arith.addi", "tir.sub": "arith.subi", "tir.mul": "arith.muli",
	// tir integer division rounds toward negative infinity (TC, Halide).
	"tir.div": "arith.floordivsi", "tir.min": "arith.minsi", "tir.max": "arith.maxsi",
	"tir.and": "arith.andi", "tir.or": "arith.ori", "tir.xor": "arith.xori",
}

var floatUnary = map[string]string{
	"tir.neg": "arith.negf", "tir.abs": "math.absf", "tir.exp": "math.exp", "tir.log": "math.log",
	"tir.sqrt": "math.sqrt", "tir.rsqrt": "math.rsqrt", "tir.sin": "math.sin", "tir.cos": "math.cos",
	"tir.tan": "math.tan", "tir.tanh": "math.tanh", "tir.floor": "math.floor", "tir.ceil": "math.ceil",
	"tir.round": "math.round",
}

// MLIR 16's enum values of the cmpf / cmpi predicates.
var cmpfPredicate = map[string]int64{"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 13}
var cmpiPredicate = map[string]int64{"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}

func scalarOp(b builder, op *ir.Operation, args []*ir.Value, elem ir.Type) (*ir.Value, error) {
	isFloat := false
	if len(args) > 0 {
		isFloat = ir.IsFloat(args[len(args)-1].Type)
	}
	switch op.Name {
	case "tir.cmp":
		pred := string(op.Attr("predicate").(ir.StringAttr))
		if ir.IsFloat(args[0].Type) {
			return b.value("arith.cmpf", args, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: cmpfPredicate[pred], Type: ir.I64})), nil
		}
		return b.value("arith.cmpi", args, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: cmpiPredicate[pred], Type: ir.I64})), nil
	case "tir.select":
		return b.value("arith.select", args, elem, nil), nil
	case "tir.not":
		ones := b.constant(ir.IntegerAttr{Value: -1, Type: elem}, elem)
		if it, ok := elem.(ir.IntegerType); ok && it.Width == 1 {
			ones = b.constant(ir.IntegerAttr{Value: 1, Type: elem}, elem)
		}
		return b.value("arith.xori", []*ir.Value{args[0], ones}, elem, nil), nil
	case "tir.sigmoid":
		// 1 / (1 + exp(-x))
		one := b.constant(ir.FloatAttr{Value: 1, Type: elem}, elem)
		neg := b.value("arith.negf", args, elem, nil)
		e := b.value("math.exp", []*ir.Value{neg}, elem, nil)
		den := b.value("arith.addf", []*ir.Value{one, e}, elem, nil)
		return b.value("arith.divf", []*ir.Value{one, den}, elem, nil), nil
	}
	if isFloat {
		if name, ok := floatBinary[op.Name]; ok {
			return b.value(name, args, elem, nil), nil
		}
		if name, ok := floatUnary[op.Name]; ok {
			return b.value(name, args, elem, nil), nil
		}
	} else {
		if name, ok := intBinary[op.Name]; ok {
			return b.value(name, args, elem, nil), nil
		}
		switch op.Name {
		case "tir.rem":
			return intRem(b, args[0], args[1], elem), nil
		case "tir.neg":
			zero := b.constant(ir.IntegerAttr{Value: 0, Type: elem}, elem)
			return b.value("arith.subi", []*ir.Value{zero, args[0]}, elem, nil), nil
		case "tir.abs":
			return b.value("math.absi", args, elem, nil), nil
		}
	}
	return nil, ir.Errorf(op.Loc, "convert-tir-to-affine cannot lower '%s' on %s", op.Name, tir.TensorType{Elem: elem})
}

// intRem is the remainder with the sign of the divisor: C's remainder,
// corrected by adding the divisor when the signs differ.
func intRem(b builder, x, y *ir.Value, t ir.Type) *ir.Value {
	r := b.value("arith.remsi", []*ir.Value{x, y}, t, nil)
	zero := b.constant(ir.IntegerAttr{Value: 0, Type: t}, t)
	pred := func(p int64, a, c *ir.Value) *ir.Value {
		return b.value("arith.cmpi", []*ir.Value{a, c}, ir.I1, ir.DictAttr{}.With("predicate", ir.IntegerAttr{Value: p, Type: ir.I64}))
	}
	nonzero := pred(1, r, zero)
	rneg := pred(2, r, zero)
	yneg := pred(2, y, zero)
	differ := b.value("arith.xori", []*ir.Value{rneg, yneg}, ir.I1, nil)
	fix := b.value("arith.andi", []*ir.Value{nonzero, differ}, ir.I1, nil)
	adj := b.value("arith.addi", []*ir.Value{r, y}, t, nil)
	return b.value("arith.select", []*ir.Value{fix, adj, r}, t, nil)
}
