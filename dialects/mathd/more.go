package mathd

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The math ops of MLIR 16 that TIR's lowering does not produce: they are
// read and printed (with MLIR's syntax and representation) so that IR from
// mlir-opt round-trips, but passes do not treat them specially (FPowI,
// below, too).
var (
	Cbrt      = arith.ElementwiseOp("math.cbrt", 1, arith.FloatElems, true, "elementwise cube root")
	RoundEven = arith.ElementwiseOp("math.roundeven", 1, arith.FloatElems, true, "elementwise round half to even")
	IPowI     = arith.ElementwiseOp("math.ipowi", 2, arith.SignlessIntElems, false, "integer power")
	Ctlz      = arith.ElementwiseOp("math.ctlz", 1, arith.SignlessIntElems, false, "count leading zeros")
	Cttz      = arith.ElementwiseOp("math.cttz", 1, arith.SignlessIntElems, false, "count trailing zeros")
	CtPop     = arith.ElementwiseOp("math.ctpop", 1, arith.SignlessIntElems, false, "count set bits")
)

// FPowI is `%r = math.fpowi %base, %power [fastmath<...>] : f32, i32`: a
// float to an integer power (shapes agree).
var FPowI = &ir.OpDef{
	Name:        "math.fpowi",
	Summary:     "float base to an integer power",
	Syntax:      "%r = math.fpowi %base, %power : f32, i32",
	Traits:      ir.TraitPure,
	NumOperands: 2, NumResults: 1, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		vs, locs, err := arith.Operands(p, 2)
		if err != nil {
			return err
		}
		fm, err := arith.ParseFastMathFlags(p)
		if err != nil {
			return err
		}
		tb, err := arith.ColonType(p)
		if err != nil {
			return err
		}
		if err := p.ExpectPunct(","); err != nil {
			return err
		}
		tp, err := p.Type()
		if err != nil {
			return err
		}
		if err := arith.CheckType(vs[0], locs[0], tb); err != nil {
			return err
		}
		if err := arith.CheckType(vs[1], locs[1], tp); err != nil {
			return err
		}
		st.Operands, st.ResultTypes = vs, []ir.Type{tb}
		st.Attrs = st.Attrs.With("fastmath", fm)
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		p.Write(" ")
		p.Values(op.Operands)
		arith.PrintFastMathFlags(p, op)
		p.Write(" : ")
		p.Types([]ir.Type{op.Operands[0].Type, op.Operands[1].Type})
	},
	NeedsGeneric: func(op *ir.Operation) bool { return !arith.OnlyAttrs(op, "fastmath") },
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		if op.Attr("fastmath") == nil {
			op.SetAttr("fastmath", arith.FastNone)
		}
		return nil, nil
	},
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		b, e := op.Operands[0].Type, op.Operands[1].Type
		if !arith.IsFloatLike(b) || !arith.IsSignlessInt(e) || !arith.SameShape(b, e) || !ir.TypeEqual(op.Results[0].Type, b) {
			return arith.Errf(op, "expects a float base, an integer power of the same shape and the base's type as result")
		}
		return nil
	},
}
