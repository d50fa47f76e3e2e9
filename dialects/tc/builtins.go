package tc

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"tir/dialects/ir"
)

// Builtin functions and casts. TC accepts the C math functions of CUDA's
// float library (its builtins.h, about 60) plus min and max. Those tir
// has an op for map to it; a few others are compositions of tir ops that
// compute the same function (NaN and infinities included); the rest are
// rejected with an error that lists what is supported, rather than
// approximated (docs/tc.md has the table). A call of a scalar type name,
// `float(e)` or `int32(e)`, is a cast (tir.cast).

// builtin describes a builtin function: its tir op, or compose when it is
// a composition of tir ops, and its arity (-1: two or more, folded left).
type builtin struct {
	op        string
	arity     int
	floatOnly bool // the operands are converted to a float type
	// compose builds the function from its operands, converted to t.
	compose func(sc *stmtCtx, loc ir.Location, args []*ir.Value, t ir.Type) (*ir.Value, error)
}

var builtins = map[string]builtin{
	"exp":       {op: "tir.exp", arity: 1, floatOnly: true},
	"log":       {op: "tir.log", arity: 1, floatOnly: true},
	"sqrt":      {op: "tir.sqrt", arity: 1, floatOnly: true},
	"rsqrt":     {op: "tir.rsqrt", arity: 1, floatOnly: true},
	"tanh":      {op: "tir.tanh", arity: 1, floatOnly: true},
	"erf":       {op: "tir.erf", arity: 1, floatOnly: true},
	"sigmoid":   {op: "tir.sigmoid", arity: 1, floatOnly: true},
	"sin":       {op: "tir.sin", arity: 1, floatOnly: true},
	"cos":       {op: "tir.cos", arity: 1, floatOnly: true},
	"tan":       {op: "tir.tan", arity: 1, floatOnly: true},
	"floor":     {op: "tir.floor", arity: 1, floatOnly: true},
	"ceil":      {op: "tir.ceil", arity: 1, floatOnly: true},
	"round":     {op: "tir.round", arity: 1, floatOnly: true},
	"abs":       {op: "tir.abs", arity: 1},
	"fabs":      {op: "tir.abs", arity: 1, floatOnly: true},
	"min":       {op: "tir.min", arity: -1},
	"max":       {op: "tir.max", arity: -1},
	"pow":       {op: "tir.pow", arity: 2, floatOnly: true},
	"nextafter": {op: "tir.nextafter", arity: 2, floatOnly: true},
	"fdivide":   {op: "tir.div", arity: 2, floatOnly: true},
	"fmin":      {arity: -1, floatOnly: true, compose: composeFMinMax("tir.min")},
	"fmax":      {arity: -1, floatOnly: true, compose: composeFMinMax("tir.max")},
	"trunc":     {arity: 1, floatOnly: true, compose: composeTrunc},
	"fdim":      {arity: 2, floatOnly: true, compose: composeFDim},
	"exp2":      {arity: 1, floatOnly: true, compose: composeExpBase(2)},
	"exp10":     {arity: 1, floatOnly: true, compose: composeExpBase(10)},
	"log2":      {arity: 1, floatOnly: true, compose: composeLogBase(2)},
	"log10":     {arity: 1, floatOnly: true, compose: composeLogBase(10)},
}

// unsupportedBuiltins are TC's builtins that tir has no op for and that no
// composition of tir ops computes with the same semantics: special
// functions (erfc, lgamma, Bessel functions), inverse trigonometric and
// hyperbolic functions, functions whose point is an accuracy a composition
// loses (expm1, log1p, hypot, fma), and bit-level ones (copysign of a
// NaN, logb).
var unsupportedBuiltins = map[string]bool{
	"acos": true, "acosh": true, "asin": true, "asinh": true, "atan": true, "atan2": true, "atanh": true,
	"cbrt": true, "copysign": true, "cosh": true, "cospi": true, "cyl_bessel_i0": true, "cyl_bessel_i1": true,
	"erfc": true, "erfcinv": true, "erfcx": true, "erfinv": true, "expm1": true, "fma": true,
	"fmod": true, "hypot": true, "j0": true, "j1": true, "lgamma": true, "log1p": true, "logb": true,
	"norm3d": true, "norm4d": true, "normcdf": true, "normcdfinv": true, "rcbrt": true,
	"remainder": true, "rhypot": true, "rnorm3d": true, "rnorm4d": true, "sinh": true, "sinpi": true,
	"tgamma": true, "y0": true, "y1": true,
}

func builtinNames() string {
	var names []string
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// isCast reports whether a call (not of a tensor) is a cast float(e).
func isCast(e *CallExpr) (ir.Type, bool) {
	t, ok := scalarTypes[e.Fn.Name]
	return t, ok
}

// checkBuiltin checks a call that is not a tensor access: known is false
// when it names no builtin and no type (the caller reports an unknown
// name); otherwise err is its arity error, or the error of a TC builtin
// that tir cannot compute.
func checkBuiltin(e *CallExpr) (known bool, err error) {
	name := e.Fn.Name
	if _, ok := isCast(e); ok {
		if len(e.Args) != 1 {
			return true, errorf(e.Loc, "the cast %s(...) takes one argument, got %d", name, len(e.Args))
		}
		return true, nil
	}
	if bi, ok := builtins[name]; ok {
		if bi.arity > 0 && len(e.Args) != bi.arity || bi.arity < 0 && len(e.Args) < 2 {
			want := "2 or more"
			if bi.arity > 0 {
				want = fmt.Sprint(bi.arity)
			}
			return true, errorf(e.Loc, "builtin '%s' takes %s arguments, got %d", name, want, len(e.Args))
		}
		return true, nil
	}
	if unsupportedBuiltins[name] {
		return true, errorf(e.Fn.Loc, "TC builtin '%s' is not supported: tir has no such operation and no composition of tir operations computes it exactly (supported builtins: %s; casts: float(x), int32(x), ... for every scalar type)", name, builtinNames())
	}
	return false, nil
}

// call lowers a builtin or a cast, computing in type t (the call's type).
func (sc *stmtCtx) call(e *CallExpr, t ir.Type) (*ir.Value, error) {
	if to, ok := isCast(e); ok {
		// C's conversion to bool is a comparison with 0, not a truncation.
		if ir.TypeEqual(to, ir.I1) {
			return sc.emitBool(e.Args[0])
		}
		return sc.emit(e.Args[0], to)
	}
	bi := builtins[e.Fn.Name]
	var args []*ir.Value
	for _, a := range e.Args {
		v, err := sc.emit(a, t)
		if err != nil {
			return nil, err
		}
		args = append(args, v)
	}
	if bi.compose != nil {
		return bi.compose(sc, e.Loc, args, t)
	}
	if len(args) == 1 {
		return sc.b.build(bi.op, e.Loc, args, nil, nil)
	}
	acc := args[0]
	for _, a := range args[1:] {
		v, err := sc.b.build(bi.op, e.Loc, []*ir.Value{acc, a}, nil, nil)
		if err != nil {
			return nil, err
		}
		acc = v
	}
	return acc, nil
}

// The compositions. Each follows C's definition for every input, NaN and
// infinities included.

// ops builds a chain of ops at one location; the first error sticks.
type ops struct {
	sc  *stmtCtx
	loc ir.Location
	err error
}

func (o *ops) op(name string, attrs ir.DictAttr, args ...*ir.Value) *ir.Value {
	if o.err != nil {
		return nil
	}
	v, err := o.sc.b.build(name, o.loc, args, attrs, nil)
	o.err = err
	return v
}

func (o *ops) cmp(pred string, x, y *ir.Value) *ir.Value {
	return o.op("tir.cmp", ir.DictAttr{}.With("predicate", ir.StringAttr(pred)), x, y)
}

func (o *ops) constant(f float64, t ir.Type) *ir.Value {
	if o.err != nil {
		return nil
	}
	v, err := o.sc.b.constant(&Num{Float: true, F: f}, t, o.loc)
	o.err = err
	return v
}

func (o *ops) cast(v *ir.Value, t ir.Type) *ir.Value {
	if o.err != nil {
		return nil
	}
	r, err := o.sc.b.cast(v, t, o.loc)
	o.err = err
	return r
}

// composeFMinMax: C's fmin and fmax return the other operand when one is
// NaN (tir.min and tir.max propagate NaN): x != x ? y : y != y ? x : min(x, y).
func composeFMinMax(op string) func(*stmtCtx, ir.Location, []*ir.Value, ir.Type) (*ir.Value, error) {
	return func(sc *stmtCtx, loc ir.Location, args []*ir.Value, _ ir.Type) (*ir.Value, error) {
		o := &ops{sc: sc, loc: loc}
		acc := args[0]
		for _, y := range args[1:] {
			x := acc
			acc = o.op(op, nil, x, y)
			if !isNumberConst(y) {
				acc = o.op("tir.select", nil, o.cmp("ne", y, y), x, acc)
			}
			if !isNumberConst(x) {
				acc = o.op("tir.select", nil, o.cmp("ne", x, x), y, acc)
			}
		}
		return acc, o.err
	}
}

// isNumberConst reports whether v is a tir.constant that is not NaN (a
// literal: fmax(x, 0) needs no NaN test of its 0).
func isNumberConst(v *ir.Value) bool {
	d := v.DefiningOp()
	if d == nil || d.Name != "tir.constant" {
		return false
	}
	f, ok := d.Attr("value").(ir.FloatAttr)
	return ok && !math.IsNaN(f.Value)
}

// composeTrunc: x >= 0 ? floor(x) : ceil(x) (NaN goes to ceil, stays NaN;
// -0 goes to floor, stays -0).
func composeTrunc(sc *stmtCtx, loc ir.Location, args []*ir.Value, t ir.Type) (*ir.Value, error) {
	o := &ops{sc: sc, loc: loc}
	x := args[0]
	r := o.op("tir.select", nil, o.cmp("ge", x, o.constant(0, t)), o.op("tir.floor", nil, x), o.op("tir.ceil", nil, x))
	return r, o.err
}

// composeFDim: x <= y ? +0 : x - y (a NaN operand makes the comparison
// false and the difference NaN).
func composeFDim(sc *stmtCtx, loc ir.Location, args []*ir.Value, t ir.Type) (*ir.Value, error) {
	o := &ops{sc: sc, loc: loc}
	x, y := args[0], args[1]
	r := o.op("tir.select", nil, o.cmp("le", x, y), o.constant(0, t), o.op("tir.sub", nil, x, y))
	return r, o.err
}

// composeExpBase: exp2(x) = pow(2, x), exp10(x) = pow(10, x) (the base is
// exact in every float type).
func composeExpBase(base float64) func(*stmtCtx, ir.Location, []*ir.Value, ir.Type) (*ir.Value, error) {
	return func(sc *stmtCtx, loc ir.Location, args []*ir.Value, t ir.Type) (*ir.Value, error) {
		o := &ops{sc: sc, loc: loc}
		r := o.op("tir.pow", nil, o.constant(base, t), args[0])
		return r, o.err
	}
}

// composeLogBase: log2(x) = log(x) / log(2), log10 likewise, computed in
// f64 (and rounded once to a narrower operand type), so that the result is
// as accurate as C's for f32; log(0) = -inf, log of a negative is NaN.
func composeLogBase(base float64) func(*stmtCtx, ir.Location, []*ir.Value, ir.Type) (*ir.Value, error) {
	return func(sc *stmtCtx, loc ir.Location, args []*ir.Value, t ir.Type) (*ir.Value, error) {
		o := &ops{sc: sc, loc: loc}
		x := o.cast(args[0], ir.F64)
		r := o.op("tir.div", nil, o.op("tir.log", nil, x), o.constant(math.Log(base), ir.F64))
		return o.cast(r, t), o.err
	}
}
