package interp

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// Elementwise ops (spec 2.2, 2.3): operands are read on the result's domain
// (matched by name, broadcast along dimensions they lack); a point is
// masked where any operand is, and masked points are not computed (so a
// masked divisor of 0 is no error).

// arithOps are the arithmetic and logic ops, each evaluated by arith from
// the scalar functions of its mnemonic (scalar.go).
var arithOps = []*tir.Op{
	tir.Add, tir.Sub, tir.Mul, tir.Div, tir.Rem, tir.Min, tir.Max, tir.Pow, tir.NextAfter,
	tir.Neg, tir.Abs, tir.Exp, tir.Log, tir.Sqrt, tir.Rsqrt, tir.Sin, tir.Cos,
	tir.Tan, tir.Tanh, tir.Floor, tir.Ceil, tir.Round, tir.Sigmoid, tir.Erf,
	tir.And, tir.Or, tir.Xor, tir.Not,
}

func init() {
	for _, o := range arithOps {
		register(o, arith(mnemonic(o), o.NumOperands))
	}
	register(tir.Cmp, evalCmp)
	register(tir.Select, evalSelect)
	register(tir.Cast, evalCast)
	register(tir.MakeTuple, evalMakeTuple)
	register(tir.TupleGet, evalTupleGet)
	register(tir.CanDeref, evalCanDeref)
}

// mnemonic is an op's name without its dialect ("add" for tir.add), the
// key of its scalar functions.
func mnemonic(o *tir.Op) string { return o.Name[strings.IndexByte(o.Name, '.')+1:] }

// alignAll reads every operand on the box dims and combines their masks.
func alignAll(in []*Tensor, dims []Dim) ([]*Tensor, []bool, error) {
	out := make([]*Tensor, len(in))
	for i, t := range in {
		a, err := align(t, dims)
		if err != nil {
			return nil, nil, fmt.Errorf("operand #%d: %v", i, err)
		}
		out[i] = a
	}
	return out, orMasks(numPoints(dims), out...), nil
}

func masked(mask []bool, i int) bool { return mask != nil && mask[i] }

// arith is the evaluation of an arithmetic or logic op with n operands, on
// floats or integers by the result element type. Float operands are
// rounded to the result type first, which converts a 0-d float constant of
// another float type (spec 2.2) and is the identity otherwise; results are
// rounded as floatRounding says (f16 and bf16 compute in f32). Integer
// results wrap; division and remainder by zero give 0 (spec 2.7).
func arith(name string, n int) evalFunc {
	return func(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
		if len(in) != n {
			return nil, fmt.Errorf("expects %d operands, got %d", n, len(in))
		}
		elem, dims, err := ev.result(op, 0)
		if err != nil {
			return nil, err
		}
		a, mask, err := alignAll(in, dims)
		if err != nil {
			return nil, err
		}
		out := mustTensor(elem, dims)
		out.Mask = mask
		k, _ := kindOf(elem)
		switch k {
		case kindFloat:
			in := func(x float64) float64 { return RoundTo(elem, x) }
			final, step := floatRounding(elem)
			fb, fu := floatBinary[name], floatUnary[name]
			if ft := floatTypedBinary[name]; ft != nil {
				fb = func(x, y float64) float64 { return ft(elem, x, y) }
			}
			if (n == 2 && fb == nil) || (n == 1 && fu == nil) {
				return nil, fmt.Errorf("not defined on %s", elem)
			}
			if fs := floatSteppedBinary[name]; fs != nil {
				fb = func(x, y float64) float64 { return fs(x, y, step) }
			}
			for i := range out.F64 {
				if masked(mask, i) {
					continue
				}
				x := in(a[0].F64[i])
				if n == 2 {
					out.F64[i] = final(fb(x, in(a[1].F64[i])))
				} else {
					out.F64[i] = final(fu(x, step))
				}
			}
		case kindInt:
			w := width(elem)
			ib, iu := intBinary[name], intUnary[name]
			if (n == 2 && ib == nil) || (n == 1 && iu == nil) {
				return nil, fmt.Errorf("not defined on %s", elem)
			}
			for i := range out.I64 {
				if masked(mask, i) {
					continue
				}
				x := signed(a[0].I64[i], w)
				if n == 1 {
					out.I64[i] = wrap(iu(x), w)
					continue
				}
				v, err := ib(x, signed(a[1].I64[i], w))
				if err != nil {
					return nil, fmt.Errorf("%v%s", err, pointText(dims, i))
				}
				out.I64[i] = wrap(v, w)
			}
		default:
			return nil, fmt.Errorf("not defined on %s", elem)
		}
		return []*Tensor{out}, nil
	}
}

// pointText names point i of a box for error messages: " at (I=3, J=4)".
func pointText(dims []Dim, i int) string {
	if len(dims) == 0 {
		return ""
	}
	coord := make([]int64, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		e := dims[k].Extent()
		coord[k] = dims[k].Lo + int64(i)%e
		i /= int(e)
	}
	s := " at ("
	for k, d := range dims {
		if k > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%s=%d", d.Name, coord[k])
	}
	return s + ")"
}

// operandElem is the element type the operands of an elementwise op share:
// that of the first operand that is not a 0-d float constant (which adapts
// to the others, spec 2.2).
func operandElem(op *ir.Operation, in []*Tensor) ir.Type {
	for i, v := range op.Operands {
		if !isFloatConstant(v) {
			return in[i].Elem
		}
	}
	return in[0].Elem
}

func isFloatConstant(v *ir.Value) bool {
	d := v.DefiningOp()
	if d == nil || !d.Is(tir.Constant) {
		return false
	}
	t, ok := tir.AsTensor(v.Type)
	return ok && t.Rank() == 0 && ir.IsFloat(t.Elem)
}

func evalCmp(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	pred := tir.CmpOp{Operation: op}.Predicate()
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	a, mask, err := alignAll(in, dims)
	if err != nil {
		return nil, err
	}
	out := mustTensor(elem, dims)
	out.Mask = mask
	opElem := operandElem(op, in)
	k, _ := kindOf(opElem)
	for i := range out.I64 {
		if masked(mask, i) {
			continue
		}
		var b bool
		switch k {
		case kindFloat:
			b, err = cmpFloat(pred, RoundTo(opElem, a[0].F64[i]), RoundTo(opElem, a[1].F64[i]))
		case kindInt:
			w := width(opElem)
			b, err = cmpInt(pred, signed(a[0].I64[i], w), signed(a[1].I64[i], w))
		default:
			return nil, fmt.Errorf("cannot compare %s values", opElem)
		}
		if err != nil {
			return nil, err
		}
		if b {
			out.I64[i] = 1
		}
	}
	return []*Tensor{out}, nil
}

// evalSelect picks per point; a point is masked where the condition is, or
// where the chosen branch is (a masked branch that is not chosen is fine:
// that is how can_deref guards a gather).
func evalSelect(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	a, _, err := alignAll(in, dims)
	if err != nil {
		return nil, err
	}
	cond, x, y := a[0], a[1], a[2]
	out := mustTensor(elem, dims)
	isFloat := ir.IsFloat(elem)
	for i := 0; i < out.Len(); i++ {
		src := y
		if cond.I64[i] != 0 {
			src = x
		}
		if cond.Masked(i) || src.Masked(i) {
			if out.Mask == nil {
				out.Mask = make([]bool, out.Len())
			}
			out.Mask[i] = true
			continue
		}
		copyElem(out, i, src, i)
		if isFloat {
			out.F64[i] = RoundTo(elem, out.F64[i])
		}
	}
	return []*Tensor{out}, nil
}

// evalCast converts element types. Integers are signed (sitofp, sext,
// trunc) except i1, which converts as 0/1 (true is 1.0, and i1 -> i32 gives
// 1); floats convert to integers toward zero, saturating (see floatToInt).
func evalCast(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	x, err := align(in[0], dims)
	if err != nil {
		return nil, err
	}
	out := mustTensor(elem, dims)
	out.Mask = x.Mask
	from, _ := kindOf(x.Elem)
	to, _ := kindOf(elem)
	if from == kindTuple || to == kindTuple {
		return nil, fmt.Errorf("cannot cast %s to %s (casts convert scalars)", x.Elem, elem)
	}
	wf, wt := width(x.Elem), width(elem)
	for i := 0; i < out.Len(); i++ {
		switch {
		case from == kindFloat && to == kindFloat:
			out.F64[i] = RoundTo(elem, x.F64[i])
		case from == kindFloat:
			out.I64[i] = floatToInt(x.F64[i], wt)
		case to == kindFloat:
			v := x.I64[i]
			if wf != 1 {
				v = signed(v, wf)
			}
			out.F64[i] = intToFloat(v, elem)
		default:
			v := x.I64[i]
			if wt == 1 && v != 0 {
				// Not zero, as C converts to _Bool and as the float
				// rule (docs/decisions.md) and the lowering do.
				v = 1
			}
			out.I64[i] = wrap(v, wt)
		}
	}
	return []*Tensor{out}, nil
}

// evalMakeTuple builds a tuple tensor; components are the operands on the
// result's domain, and the tuple is masked where any operand is.
func evalMakeTuple(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	a, mask, err := alignAll(in, dims)
	if err != nil {
		return nil, err
	}
	out := &Tensor{Elem: elem, Dims: dims, Mask: mask}
	for _, c := range a {
		comp := *c
		comp.Mask = nil
		out.Tuple = append(out.Tuple, &comp)
	}
	return []*Tensor{out}, nil
}

// evalTupleGet reads component "index" (an integer attribute).
func evalTupleGet(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	ia, ok := op.Attr("index").(ir.IntegerAttr)
	if !ok {
		return nil, fmt.Errorf("needs an integer 'index' attribute")
	}
	t := in[0]
	if int(ia.Value) < 0 || int(ia.Value) >= len(t.Tuple) {
		return nil, fmt.Errorf("component %d of %s does not exist", ia.Value, t.Elem)
	}
	comp := *t.Tuple[ia.Value]
	comp.Mask = t.Mask
	_, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	out, err := align(&comp, dims)
	if err != nil {
		return nil, err
	}
	return []*Tensor{out}, nil
}

// evalCanDeref is true where the operand is not masked; it is never masked
// itself.
func evalCanDeref(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error) {
	elem, dims, err := ev.result(op, 0)
	if err != nil {
		return nil, err
	}
	x, err := align(in[0], dims)
	if err != nil {
		return nil, err
	}
	out := mustTensor(elem, dims)
	for i := range out.I64 {
		if !x.Masked(i) {
			out.I64[i] = 1
		}
	}
	return []*Tensor{out}, nil
}
