// Package mathexpand implements the expand-math pass: it rewrites the math
// ops that LLVM 14's NVPTX backend cannot select (llvm.exp, llvm.log,
// llvm.sin, llvm.pow, roundeven and every function tollvm lowers to a libm
// call) into arith ops and the math ops every backend selects (math.fma,
// math.absf, math.floor, math.sqrt, math.copysign), so that GPU kernels
// compile with a plain llc and no libdevice.
//
// Each function is computed the way a libm does it: special values first
// (NaN propagates, infinities and zeros follow C99 Annex F), then a range
// reduction (Cody–Waite with two or three constants, exponent extraction
// through the bits) and a polynomial evaluated with fma, with double-word
// arithmetic where one format number is not precise enough. Constants and
// coefficients are computed in high precision from their definitions
// (hp.go, consts.go). docs/gpu-math.md lists the methods and the measured
// errors (test/mathexpand_accuracy_test.go).
//
// Scalars and vectors of f32 and f64 are expanded in their own format; f16
// and bf16 are extended to f32, computed, and truncated. Fast-math flags
// of the expanded ops are ignored: the expansions rely on IEEE semantics
// and carry none.
package mathexpand

import (
	"sort"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/mathd"
	"tir/passes"
)

func init() {
	passes.Register(&passes.Def{
		Name:    "expand-math",
		Title:   "ExpandMath",
		Summary: "Expand math ops the NVPTX backend cannot select (exp, log, sin, pow, tanh, erf, ...) into arith ops, fma and bit manipulation",
		Anchor:  passes.AnchorAny,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return Expand(op)
			})
		},
	})
}

// expansion computes the result of one op from its operands, all of the
// builder's float type.
type expansion struct {
	nargs int
	fn    func(b *builder, args []*ir.Value) *ir.Value
}

var expansions = map[*ir.OpDef]expansion{
	mathd.Exp: {1, func(b *builder, a []*ir.Value) *ir.Value {
		if b.noFMA {
			return b.expNoFMA(a[0])
		}
		return b.exp(a[0])
	}},
	mathd.Exp2:      {1, func(b *builder, a []*ir.Value) *ir.Value { return b.exp2(a[0]) }},
	mathd.ExpM1:     {1, func(b *builder, a []*ir.Value) *ir.Value { return b.expm1(a[0]) }},
	mathd.Log:       {1, func(b *builder, a []*ir.Value) *ir.Value { return b.log(a[0], logE) }},
	mathd.Log2:      {1, func(b *builder, a []*ir.Value) *ir.Value { return b.log(a[0], log2) }},
	mathd.Log10:     {1, func(b *builder, a []*ir.Value) *ir.Value { return b.log(a[0], log10) }},
	mathd.Log1p:     {1, func(b *builder, a []*ir.Value) *ir.Value { return b.log1p(a[0]) }},
	mathd.PowF:      {2, func(b *builder, a []*ir.Value) *ir.Value { return b.pow(a[0], a[1]) }},
	mathd.Sin:       {1, func(b *builder, a []*ir.Value) *ir.Value { return b.trig(a[0], trigSin) }},
	mathd.Cos:       {1, func(b *builder, a []*ir.Value) *ir.Value { return b.trig(a[0], trigCos) }},
	mathd.Tan:       {1, func(b *builder, a []*ir.Value) *ir.Value { return b.trig(a[0], trigTan) }},
	mathd.Tanh:      {1, func(b *builder, a []*ir.Value) *ir.Value { return b.tanh(a[0]) }},
	mathd.Atan:      {1, func(b *builder, a []*ir.Value) *ir.Value { return b.atan(a[0]) }},
	mathd.Atan2:     {2, func(b *builder, a []*ir.Value) *ir.Value { return b.atan2(a[0], a[1]) }},
	mathd.Erf:       {1, func(b *builder, a []*ir.Value) *ir.Value { return b.erf(a[0]) }},
	mathd.Cbrt:      {1, func(b *builder, a []*ir.Value) *ir.Value { return b.cbrt(a[0]) }},
	mathd.RoundEven: {1, func(b *builder, a []*ir.Value) *ir.Value { return b.roundeven(a[0]) }},
}

// Ops returns the names of the ops Expand rewrites, sorted.
func Ops() []string {
	var out []string
	for d := range expansions {
		out = append(out, d.Name)
	}
	sort.Strings(out)
	return out
}

// Expand rewrites, in place, every op of Ops() nested anywhere in root's
// regions into arith and selectable math ops. Operands must be f16, bf16,
// f32 or f64 scalars or vectors of them; anything else is a located error
// (and nothing after it is rewritten).
func Expand(root *ir.Operation) error { return ExpandWith(root, Options{}) }

// ExpandOnly is Expand restricted to the ops whose name keep accepts (all
// of Ops() when keep is nil). CPU code keeps the ops its backend selects
// natively (roundeven) and expands the ones it would call libm for.
func ExpandOnly(root *ir.Operation, keep func(name string) bool) error {
	return ExpandWith(root, Options{Keep: keep})
}

// Options select what ExpandWith rewrites and how.
type Options struct {
	// Keep accepts the names of the ops to expand (nil: all of Ops()).
	Keep func(name string) bool
	// NoFMA expands only the ops of NoFMAOps(), with separately rounded
	// products instead of math.fma, for CPUs without fused multiply-add
	// (where llvm.fma becomes a call to fmaf); the other ops are left.
	NoFMA bool
}

// noFMAOps are the ops with an expansion that needs no fma (and no
// floor): exp, the one softmax, sigmoid and friends are made of.
var noFMAOps = map[*ir.OpDef]bool{mathd.Exp: true}

// NoFMAOps returns the names of the ops with an expansion that needs no
// fma (and no floor), sorted.
func NoFMAOps() []string {
	var out []string
	for d := range noFMAOps {
		out = append(out, d.Name)
	}
	sort.Strings(out)
	return out
}

// ExpandWith rewrites, in place, the ops of root's regions the options
// select (see Expand).
func ExpandWith(root *ir.Operation, opts Options) error {
	var todo []*ir.Operation
	root.Walk(func(op *ir.Operation) bool {
		if _, ok := expansions[op.Def]; ok && op != root && (opts.Keep == nil || opts.Keep(op.Name)) && (!opts.NoFMA || noFMAOps[op.Def]) {
			todo = append(todo, op)
		}
		return true
	})
	rw := &ir.Rewriter{Root: root}
	for _, op := range todo {
		if err := expandOp(rw, op, opts.NoFMA); err != nil {
			return err
		}
	}
	return nil
}

func expandOp(rw *ir.Rewriter, op *ir.Operation, noFMA bool) error {
	e := expansions[op.Def]
	if len(op.Operands) != e.nargs || len(op.Results) != 1 {
		return ir.Errorf(op.Loc, "'%s' op expects %d operands and 1 result, got %d and %d", op.Name, e.nargs, len(op.Operands), len(op.Results))
	}
	t := op.Results[0].Type
	for _, v := range op.Operands {
		if !ir.TypeEqual(v.Type, t) {
			return ir.Errorf(op.Loc, "'%s' op: operand type %s differs from the result type %s", op.Name, v.Type, t)
		}
	}
	switch t.(type) {
	case ir.FloatType, ir.VectorType:
	default:
		return ir.Errorf(op.Loc, "expand-math: '%s' on %s: only float scalars and vectors are expanded", op.Name, t)
	}
	elem, ok := arith.Elem(t).(ir.FloatType)
	if !ok {
		return ir.Errorf(op.Loc, "expand-math: '%s' on %s: only float scalars and vectors are expanded", op.Name, t)
	}
	var f *format
	args := op.Operands
	narrow := false
	switch elem.Name {
	case "f32":
		f = binary32
	case "f64":
		f = binary64
	case "f16", "bf16":
		f, narrow = binary32, true
	default:
		return ir.Errorf(op.Loc, "expand-math: '%s' on %s: unsupported element type", op.Name, t)
	}
	wt := arith.WithElem(t, f.ft)
	b := newBuilder(rw, op, f, wt)
	b.noFMA = noFMA
	if narrow {
		args = make([]*ir.Value, len(op.Operands))
		for i, v := range op.Operands {
			args[i] = b.emit(arith.NewCast(op.Loc, arith.ExtF.Name, v, wt))
		}
	}
	r := e.fn(b, args)
	if narrow {
		r = b.emit(arith.NewCast(op.Loc, arith.TruncF.Name, r, t))
	}
	rw.ReplaceOp(op, []*ir.Value{r})
	return nil
}
