package tiraffine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/mathd"
	"tir/dialects/tir"
)

// Scalar lowering of elementwise tir ops to arith/math, by element type.

// Spec 2.7 fixes what C, LLVM and MLIR leave undefined or open: integer
// division and remainder by zero give 0 and the most negative value divided
// by -1 wraps (arith.floordivsi and arith.remsi are undefined there, so the
// divisor is guarded), float rem is x - y*floor(x/y), and f16/bf16 ops
// compute in f32 with one rounding (an arith op on f16 is one rounding;
// composite ops extend to f32 and truncate once).

var floatBinary = map[*tir.Op]*ir.OpDef{
	tir.Add: arith.AddF, tir.Sub: arith.SubF, tir.Mul: arith.MulF, tir.Div: arith.DivF,
	tir.Min: arith.MinF, tir.Max: arith.MaxF, tir.Pow: mathd.PowF,
}

var intBinary = map[*tir.Op]*ir.OpDef{
	tir.Add: arith.AddI, tir.Sub: arith.SubI, tir.Mul: arith.MulI,
	tir.Min: arith.MinSI, tir.Max: arith.MaxSI,
	tir.And: arith.AndI, tir.Or: arith.OrI, tir.Xor: arith.XOrI,
}

var floatUnary = map[*tir.Op]*ir.OpDef{
	tir.Neg: arith.NegF, tir.Abs: mathd.AbsF, tir.Exp: mathd.Exp, tir.Log: mathd.Log,
	tir.Sqrt: mathd.Sqrt, tir.Rsqrt: mathd.Rsqrt, tir.Sin: mathd.Sin, tir.Cos: mathd.Cos,
	tir.Tan: mathd.Tan, tir.Tanh: mathd.Tanh, tir.Erf: mathd.Erf, tir.Floor: mathd.Floor, tir.Ceil: mathd.Ceil,
	tir.Round: mathd.Round,
}

// MLIR 16's enum values of the cmpf / cmpi predicates.
var cmpfPredicate = map[string]int64{"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 13}
var cmpiPredicate = map[string]int64{"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}

func scalarOp(b builder, op *ir.Operation, args []*ir.Value, elem ir.Type) (*ir.Value, error) {
	isFloat := false
	if len(args) > 0 {
		isFloat = ir.IsFloat(args[len(args)-1].Type)
	}
	switch tir.OpOf(op) {
	case tir.Cmp:
		pred := tir.CmpOp{Operation: op}.Predicate()
		if ir.IsFloat(args[0].Type) {
			return b.value(arith.CmpF, args, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: cmpfPredicate[pred], Type: ir.I64})), nil
		}
		return b.value(arith.CmpI, args, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: cmpiPredicate[pred], Type: ir.I64})), nil
	case tir.Select:
		return b.value(arith.Select, args, elem, nil), nil
	case tir.Not:
		ones := b.constant(ir.IntegerAttr{Value: -1, Type: elem}, elem)
		if it, ok := elem.(ir.IntegerType); ok && it.Width == 1 {
			ones = b.constant(ir.IntegerAttr{Value: 1, Type: elem}, elem)
		}
		return b.value(arith.XOrI, []*ir.Value{args[0], ones}, elem, nil), nil
	case tir.Sigmoid:
		// 1 / (1 + exp(-x))
		return inF32(b, args, elem, func(args []*ir.Value, t ir.Type) *ir.Value {
			one := b.constant(ir.FloatAttr{Value: 1, Type: t}, t)
			neg := b.value(arith.NegF, args, t, nil)
			e := b.value(mathd.Exp, []*ir.Value{neg}, t, nil)
			den := b.value(arith.AddF, []*ir.Value{one, e}, t, nil)
			return b.value(arith.DivF, []*ir.Value{one, den}, t, nil)
		}), nil
	}
	if isFloat {
		if op.Is(tir.Rem) {
			return inF32(b, args, elem, func(args []*ir.Value, t ir.Type) *ir.Value {
				return floatRem(b, args[0], args[1], t)
			}), nil
		}
		if op.Is(tir.NextAfter) {
			return nextAfter(b, args[0], args[1], elem), nil
		}
		if k, ok := floatBinary[tir.OpOf(op)]; ok {
			return b.value(k, args, elem, nil), nil
		}
		if k, ok := floatUnary[tir.OpOf(op)]; ok {
			return b.value(k, args, elem, nil), nil
		}
	} else {
		if k, ok := intBinary[tir.OpOf(op)]; ok {
			return b.value(k, args, elem, nil), nil
		}
		switch tir.OpOf(op) {
		case tir.Div, tir.Rem:
			return intDivRem(b, op.Is(tir.Div), args[0], args[1], elem), nil
		case tir.Neg:
			zero := b.constant(ir.IntegerAttr{Value: 0, Type: elem}, elem)
			return b.value(arith.SubI, []*ir.Value{zero, args[0]}, elem, nil), nil
		case tir.Abs:
			return b.value(mathd.AbsI, args, elem, nil), nil
		case tir.Pow:
			return intPow(b, args[0], args[1], elem), nil
		}
	}
	return nil, ir.Errorf(op.Loc, "convert-tir-to-affine cannot lower '%s' on %s", op.Name, tir.TensorType{Elem: elem})
}

// isHalf reports whether t is one of the 16-bit float types.
func isHalf(t ir.Type) bool {
	ft, ok := t.(ir.FloatType)
	return ok && (ft.Name == "f16" || ft.Name == "bf16")
}

// inF32 emits a composite float op: on f16 and bf16 the operands are
// extended to f32, the steps computed in f32, and the result truncated once
// (spec 2.7); other types compute in their own type.
func inF32(b builder, args []*ir.Value, elem ir.Type, f func(args []*ir.Value, t ir.Type) *ir.Value) *ir.Value {
	if !isHalf(elem) {
		return f(args, elem)
	}
	wide := make([]*ir.Value, len(args))
	for i, a := range args {
		wide[i] = b.value(arith.ExtF, []*ir.Value{a}, ir.F32, nil)
	}
	return b.value(arith.TruncF, []*ir.Value{f(wide, ir.F32)}, elem, nil)
}

// floatRem is x - y*floor(x/y), the remainder with the sign of the divisor.
func floatRem(b builder, x, y *ir.Value, t ir.Type) *ir.Value {
	q := b.value(arith.DivF, []*ir.Value{x, y}, t, nil)
	f := b.value(mathd.Floor, []*ir.Value{q}, t, nil)
	p := b.value(arith.MulF, []*ir.Value{y, f}, t, nil)
	return b.value(arith.SubF, []*ir.Value{x, p}, t, nil)
}

// nextAfter is C's nextafter(x, y) in arith, exact in every float type
// (f16 and bf16 step in their own format, not in f32): the bits of x as an
// integer of the same width, plus one to move away from zero ((y > x) ==
// (x > 0)), minus one to move toward it; from a zero, the smallest
// subnormal with the sign of y; y where x == y; x + y (a NaN) where either
// is NaN. No libm function is called, so CPU and GPU code agree with the
// interpreter bit for bit and the op vectorizes.
func nextAfter(b builder, x, y *ir.Value, t ir.Type) *ir.Value {
	w := t.(ir.FloatType).Bits()
	it := ir.IntegerType{Width: w}
	ic := func(v int64) *ir.Value { return b.constant(ir.IntegerAttr{Value: v, Type: it}, it) }
	cmpf := func(pred int64, a, c *ir.Value) *ir.Value {
		return b.value(arith.CmpF, []*ir.Value{a, c}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: pred, Type: ir.I64}))
	}
	sel := func(c, a, d *ir.Value, t ir.Type) *ir.Value {
		return b.value(arith.Select, []*ir.Value{c, a, d}, t, nil)
	}
	xi := b.value(arith.Bitcast, []*ir.Value{x}, it, nil)
	yi := b.value(arith.Bitcast, []*ir.Value{y}, it, nil)
	zero := b.constant(ir.FloatAttr{Value: 0, Type: t}, t)
	one := ic(1)
	away := cmpi(b, cmpiEQ, cmpf(cmpfPredicate["gt"], y, x), cmpf(cmpfPredicate["gt"], x, zero))
	step := sel(away, b.value(arith.AddI, []*ir.Value{xi, one}, it, nil), b.value(arith.SubI, []*ir.Value{xi, one}, it, nil), it)
	sign := b.value(arith.AndI, []*ir.Value{yi, ic(int64(-1) << (w - 1))}, it, nil)
	tiny := b.value(arith.OrI, []*ir.Value{sign, one}, it, nil)
	bits := sel(cmpf(cmpfPredicate["eq"], x, zero), tiny, step, it)
	r := sel(cmpf(cmpfPredicate["eq"], x, y), y, b.value(arith.Bitcast, []*ir.Value{bits}, t, nil), t)
	return sel(cmpf(cmpfUNO, x, y), b.value(arith.AddF, []*ir.Value{x, y}, t, nil), r, t)
}

// cmpfUNO is MLIR's cmpf predicate "unordered" (either operand NaN).
const cmpfUNO = 14

// cmpi builds arith.cmpi with an MLIR predicate number.
func cmpi(b builder, pred int64, x, y *ir.Value) *ir.Value {
	return b.value(arith.CmpI, []*ir.Value{x, y}, ir.I1, ir.DictAttr{}.With(arith.AttrPredicate, ir.IntegerAttr{Value: pred, Type: ir.I64}))
}

// MLIR's cmpi predicate numbers used here.
const (
	cmpiEQ  = 0
	cmpiNE  = 1
	cmpiSLT = 2
	cmpiULE = 7
)

// constIntValue returns the value of an integer arith.constant.
func constIntValue(v *ir.Value) (int64, bool) {
	d := v.DefiningOp()
	if d == nil || !d.Is(arith.Constant) {
		return 0, false
	}
	a, ok := d.Attr(arith.AttrValue).(ir.IntegerAttr)
	return a.Value, ok
}

// intDivRem is tir.div (floor division) or tir.rem (remainder with the
// sign of the divisor) with spec 2.7's total semantics: a divisor of 0
// gives 0, and a divisor of -1 gives -x (wrapping) and 0, which avoids the
// undefined INT_MIN / -1 of arith.floordivsi and arith.remsi (and the trap
// of the hardware division). In general the divisor is replaced by 1 where
// it is 0 or -1 (bad: y + 1 <= 1 unsigned) and the result is then
// selected: x*y (0 or -x) for div, 0 for rem. Constant divisors are
// resolved here.
func intDivRem(b builder, div bool, x, y *ir.Value, t ir.Type) *ir.Value {
	c := func(v int64) *ir.Value { return b.constant(ir.IntegerAttr{Value: v, Type: t}, t) }
	if it, ok := t.(ir.IntegerType); ok && it.Width == 1 {
		// i1 divisors are 0 and -1 only: x div y = x and y, rem is 0.
		if div {
			return b.value(arith.AndI, []*ir.Value{x, y}, t, nil)
		}
		return c(0)
	}
	if k, ok := constIntValue(y); ok {
		switch {
		case k == 0 || (k == -1 && !div):
			return c(0)
		case k == -1:
			return b.value(arith.SubI, []*ir.Value{c(0), x}, t, nil)
		case div:
			return b.value(arith.FloorDivSI, []*ir.Value{x, y}, t, nil)
		}
		return intRem(b, x, y, t)
	}
	one := c(1)
	bad := cmpi(b, cmpiULE, b.value(arith.AddI, []*ir.Value{y, one}, t, nil), one)
	safe := b.value(arith.Select, []*ir.Value{bad, one, y}, t, nil)
	if div {
		q := b.value(arith.FloorDivSI, []*ir.Value{x, safe}, t, nil)
		xy := b.value(arith.MulI, []*ir.Value{x, y}, t, nil)
		return b.value(arith.Select, []*ir.Value{bad, xy, q}, t, nil)
	}
	r := intRem(b, x, safe, t)
	return b.value(arith.Select, []*ir.Value{bad, c(0), r}, t, nil)
}

// intRem is the remainder with the sign of the divisor for a divisor
// that is neither 0 nor -1: C's remainder, corrected by adding the divisor
// when it is non-zero and the signs differ.
func intRem(b builder, x, y *ir.Value, t ir.Type) *ir.Value {
	r := b.value(arith.RemSI, []*ir.Value{x, y}, t, nil)
	zero := b.constant(ir.IntegerAttr{Value: 0, Type: t}, t)
	nonzero := cmpi(b, cmpiNE, r, zero)
	rneg := cmpi(b, cmpiSLT, r, zero)
	yneg := cmpi(b, cmpiSLT, y, zero)
	differ := b.value(arith.XOrI, []*ir.Value{rneg, yneg}, ir.I1, nil)
	fix := b.value(arith.AndI, []*ir.Value{nonzero, differ}, ir.I1, nil)
	adj := b.value(arith.AddI, []*ir.Value{r, y}, t, nil)
	return b.value(arith.Select, []*ir.Value{fix, adj, r}, t, nil)
}
