package tir

import (
	"fmt"

	"tir/dialects/ir"
)

// The ops of the tir dialect, one Go value each. A value holds the whole
// definition of its op (its syntax as a format string, see format.go; type
// rule, verifier, folds, and the facets the passes ask of it); code
// outside the dialect names ops by these values (op.Is(tir.Shift)), so
// that a misspelt op does not compile. Lowerings and the interpreter's
// evaluations live in lower/ and interp/, registered by the same values.

// Op is one tir op: its ir.OpDef (name, summary, custom syntax, type rule,
// verifier, folds) and the facets the dialect's analyses ask of it.
type Op struct {
	ir.OpDef
	// syntaxAttrs are the attributes a hand-written custom form spells
	// itself (an op with a Format gets them from it); the printer writes
	// any other in an attribute dictionary.
	syntaxAttrs []string
	// reads is the access rule: which point of each operand a result point
	// reads. Nil: elementwise ops read every operand at the result point,
	// other ops (functions, calls, terminators) have no rule.
	reads accessRule
	// movesData marks ops whose result is nothing but the elements reads
	// names (no arithmetic).
	movesData bool
	// masked says whether the result may be masked; nil: where any operand
	// may be.
	masked maskRule
	// checks adds the run-time checks the op needs (RuntimeChecks).
	checks checkRule
	// trail explains how the op fixes or moves an interval, for the
	// origin trails of domain conflicts; nil: as elementwise ops do.
	trail trailRule
	// Cost is what computing one point costs beyond its operands, for
	// tir-temporaries' choice between fusing and materializing.
	Cost CostClass
	// Detail is the part of the custom syntax that is neither operands nor
	// types (what tells two shifts or two reductions apart), for labels
	// such as --emit=dot's; name names an operand. Nil: nothing.
	Detail func(op *ir.Operation, name func(*ir.Value) string) string
}

// CostClass classifies the work of one point of an op.
type CostClass int

const (
	// CostArithmetic: a few instructions, cheaper than reading a
	// temporary back (arithmetic, comparisons, casts, data movement).
	CostArithmetic CostClass = iota
	// CostTranscendental: transcendentals and divisions, several times
	// an add.
	CostTranscendental
	// CostGather: a load at an address read from data.
	CostGather
	// CostLoop: a loop per point (reductions: their trip count times
	// their body).
	CostLoop
)

// CostOf returns the cost class of op (CostArithmetic for ops of other
// dialects).
func CostOf(op *ir.Operation) CostClass {
	if o := OpOf(op); o != nil {
		return o.Cost
	}
	return CostArithmetic
}

// The elementwise arithmetic ops.
var (
	Add = elementwise("add", "elementwise sum", 2, numeric, CostArithmetic)
	Sub = elementwise("sub", "elementwise difference", 2, numeric, CostArithmetic)
	Mul = elementwise("mul", "elementwise product", 2, numeric, CostArithmetic)
	Div = elementwise("div", "elementwise quotient (integers round toward negative infinity)", 2, numeric, CostTranscendental)
	Rem = elementwise("rem", "elementwise remainder (integers: sign of the divisor)", 2, numeric, CostArithmetic)
	Min = elementwise("min", "elementwise minimum", 2, numeric, CostArithmetic)
	Max = elementwise("max", "elementwise maximum", 2, numeric, CostArithmetic)
	Pow = elementwise("pow", "elementwise power", 2, numeric, CostTranscendental)
	// NextAfter is C's nextafter: the float next to a in the direction of b
	// (b when a == b, NaN when either is).
	NextAfter = elementwise("nextafter", "elementwise next representable float after a toward b", 2, floating, CostArithmetic)

	Neg     = elementwise("neg", "elementwise neg", 1, numeric, CostArithmetic)
	Abs     = elementwise("abs", "elementwise abs", 1, numeric, CostArithmetic)
	Exp     = elementwise("exp", "elementwise exp", 1, floating, CostTranscendental)
	Log     = elementwise("log", "elementwise log", 1, floating, CostTranscendental)
	Sqrt    = elementwise("sqrt", "elementwise sqrt", 1, floating, CostTranscendental)
	Rsqrt   = elementwise("rsqrt", "elementwise rsqrt", 1, floating, CostTranscendental)
	Sin     = elementwise("sin", "elementwise sin", 1, floating, CostTranscendental)
	Cos     = elementwise("cos", "elementwise cos", 1, floating, CostTranscendental)
	Tan     = elementwise("tan", "elementwise tan", 1, floating, CostTranscendental)
	Tanh    = elementwise("tanh", "elementwise tanh", 1, floating, CostTranscendental)
	Floor   = elementwise("floor", "elementwise floor", 1, floating, CostArithmetic)
	Ceil    = elementwise("ceil", "elementwise ceil", 1, floating, CostArithmetic)
	Round   = elementwise("round", "elementwise round", 1, floating, CostArithmetic)
	Sigmoid = elementwise("sigmoid", "elementwise sigmoid", 1, floating, CostTranscendental)
	Erf     = elementwise("erf", "elementwise error function", 1, floating, CostTranscendental)

	And = elementwise("and", "elementwise logical/bitwise and", 2, logical, CostArithmetic)
	Or  = elementwise("or", "elementwise logical/bitwise or", 2, logical, CostArithmetic)
	Xor = elementwise("xor", "elementwise logical/bitwise xor", 2, logical, CostArithmetic)
	Not = elementwise("not", "elementwise logical/bitwise not", 1, logical, CostArithmetic)
)

// allOps lists every tir op in the order the docs present them.
var allOps = []*Op{
	Add, Sub, Mul, Div, Rem, Min, Max, Pow, NextAfter,
	Neg, Abs, Exp, Log, Sqrt, Rsqrt, Sin, Cos, Tan, Tanh, Floor, Ceil, Round, Sigmoid, Erf,
	And, Or, Xor, Not,
	Func, Return, Constant, Cmp, Select, Shift,
	Cast, MakeTuple, TupleGet, View, Gather, CanDeref,
	Subset, Broadcast, Pos, Concat, Piecewise, AssumeShape,
	Reduce, Yield, Scan, Call, Iota, Compress,
}

// Ops returns every op of the dialect.
func Ops() []*Op { return append([]*Op(nil), allOps...) }

var opsByDef = map[*ir.OpDef]*Op{}

// OpOf returns the tir op value of an operation, or nil when it is not a
// tir op; switch on it to dispatch by op.
func OpOf(op *ir.Operation) *Op {
	if op == nil {
		return nil
	}
	return opsByDef[op.Def]
}

// FloatOnlyUnary lists the unary ops defined on floats only.
var FloatOnlyUnary = map[string]bool{}

// CmpPredicates are the comparison predicates of tir.cmp.
var CmpPredicates = []string{"lt", "le", "gt", "ge", "eq", "ne"}

// elemClass is the element types an elementwise op accepts.
type elemClass struct {
	ok   func(ir.Type) bool
	what string
}

var (
	numeric  = elemClass{isNumeric, "integer or float"}
	floating = elemClass{ir.IsFloat, "float"}
	logical  = elemClass{ir.IsInteger, "i1 or integer"}
)

func elementwise(name, summary string, n int, elems elemClass, cost CostClass) *Op {
	if n == 1 && elems.what == floating.what {
		FloatOnlyUnary[name] = true
	}
	return &Op{OpDef: ir.OpDef{
		Name:        "tir." + name,
		Summary:     summary,
		Syntax:      fmt.Sprintf("%%r = tir.%s %s : T", name, operandSyntax(n)),
		Traits:      ir.TraitPure | ir.TraitElementwise,
		NumOperands: n, NumResults: 1, NumRegions: 0,
		Format: syntax("$operands+ attr-dict-with-keyword type(res)?"),
		Infer: func(op *ir.Operation) ([]ir.Type, error) {
			if err := checkElem(op, elems.ok, elems.what); err != nil {
				return nil, err
			}
			return inferElementwise(nil)(op)
		},
	}, Cost: cost}
}

func operandSyntax(n int) string {
	s := ""
	for i := 0; i < n; i++ {
		if i > 0 {
			s += ", "
		}
		s += "%" + string(rune('a'+i))
	}
	return s
}

func init() {
	for _, o := range allOps {
		opsByDef[&o.OpDef] = o
		if f, ok := folds[o]; ok {
			o.Fold = f
		}
		ir.Register(&o.OpDef)
	}
}

var Func = &Op{OpDef: ir.OpDef{
	Name:        "tir.func",
	Summary:     "a function of tensors; size symbols in argument types are its size parameters",
	Syntax:      "tir.func @f(%a: T, ...) -> (R, ...) [attributes {...}] { ... }",
	Traits:      ir.TraitIsolated | ir.TraitSymbol,
	NumOperands: 0, NumResults: 0, NumRegions: 1,
	Parse:  parseFunc,
	Print:  printFunc,
	Infer:  inferFunc,
	Verify: verifyFunc,
}}

var Return = &Op{OpDef: ir.OpDef{
	Name:        "tir.return",
	Summary:     "return the function's results (restricted to the declared output domains)",
	Syntax:      "tir.return %x, %y : R1, R2",
	Traits:      ir.TraitTerminator,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format: syntax("$operands* value-types($operands)"),
	Verify: verifyReturn,
},
	checks: returnChecks,
}

var Constant = &Op{OpDef: ir.OpDef{
	Name:        "tir.constant",
	Summary:     "a 0-d tensor holding a constant (broadcasts to any domain)",
	Syntax:      "%c = tir.constant 4.0 : f32 | tir.constant (0.0, 0.0) : tuple<f32, f32> | tir.constant L - 1 : i64",
	Traits:      ir.TraitPure | ir.TraitConstantLike,
	NumOperands: 0, NumResults: 1, NumRegions: 0,
	Format: syntax("constant"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		elem, err := constantElemType(op.Attr("value"))
		if err != nil {
			return nil, ir.Errorf(op.Loc, "%v", err)
		}
		return []ir.Type{Scalar(elem)}, nil
	},
	Verify: verifyConstant,
},
	reads:  noReads,
	masked: neverMasked,
	trail:  constantTrail,
	Detail: constantDetail,
}

var Cmp = &Op{OpDef: ir.OpDef{
	Name:        "tir.cmp",
	Summary:     "elementwise comparison, result element type i1",
	Syntax:      "%r = tir.cmp lt %a, %b : T   (lt le gt ge eq ne)",
	Traits:      ir.TraitPure | ir.TraitElementwise,
	NumOperands: 2, NumResults: 1, NumRegions: 0,
	Format: syntax("predicate $operands+ attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		pred, ok := op.Attr("predicate").(ir.StringAttr)
		if !ok || !isCmpPredicate(string(pred)) {
			return nil, ir.Errorf(op.Loc, "'tir.cmp' needs a predicate attribute (lt, le, gt, ge, eq, ne)")
		}
		return inferElementwise(ir.I1)(op)
	},
},
	Detail: cmpDetail,
}

func isCmpPredicate(s string) bool {
	for _, c := range CmpPredicates {
		if c == s {
			return true
		}
	}
	return false
}

var Select = &Op{OpDef: ir.OpDef{
	Name:        "tir.select",
	Summary:     "elementwise choice cond ? a : b (all three domains intersect)",
	Syntax:      "%r = tir.select %cond, %a, %b : T",
	Traits:      ir.TraitPure | ir.TraitElementwise,
	NumOperands: 3, NumResults: 1, NumRegions: 0,
	Format: syntax("$operands+ attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		c, err := tensorOf(op, op.Operands[0], "condition")
		if err != nil {
			return nil, err
		}
		if !ir.TypeEqual(c.Elem, ir.I1) {
			return nil, ir.Errorf(op.Loc, "'tir.select' condition must have element type i1, got %s", c.Elem)
		}
		elem, err := commonElem(op, op.Operands[1:])
		if err != nil {
			return nil, err
		}
		dims, err := broadcastDomain(op, op.Operands)
		if err != nil {
			return nil, err
		}
		return []ir.Type{TensorType{Elem: elem, Dims: dims}}, nil
	},
}}

var Shift = &Op{OpDef: ir.OpDef{
	Name:        "tir.shift",
	Summary:     "Cartesian shift, read at offset: y(I) = x(I + off)",
	Syntax:      "%y = tir.shift %x [I + 1, J - 2] : T",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1, NumRegions: 0,
	Format: syntax("$x offsets attr-dict-with-keyword type(res)?"),
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		x, err := tensorOf(op, op.Operands[0], "operand")
		if err != nil {
			return nil, err
		}
		offs, ok := op.Attr("offsets").(OffsetsAttr)
		if !ok {
			return nil, ir.Errorf(op.Loc, "'tir.shift' needs an offsets attribute")
		}
		for _, d := range offs.Dims {
			if x.Find(d) < 0 {
				return nil, ir.Errorf(op.Loc, "unknown dimension %s in shift: the operand has %s", d, dimNames(x))
			}
		}
		return []ir.Type{TensorType{Elem: x.Elem, Dims: domainOfRead(shiftReads(op, []TensorType{x})[0], x)}}, nil
	},
	// A shift built by a pass holds the integers the parser would refuse
	// in its text (the offsets are sizes, sizeexpr.IndexLimit).
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		offs, _ := op.Attr("offsets").(OffsetsAttr)
		for i, d := range offs.Dims {
			if err := offs.Offsets[i].CheckLimit(); err != nil {
				return ir.Errorf(op.Loc, "the offset of %s: %v", d, err)
			}
		}
		return nil
	},
},
	reads:     shiftReads,
	movesData: true,
	trail:     shiftTrail,
	Detail:    shiftDetail,
}

func dimNames(t TensorType) string {
	if len(t.Dims) == 0 {
		return "no dimensions"
	}
	s := ""
	for i, d := range t.Dims {
		if i > 0 {
			s += ", "
		}
		s += d.Name
	}
	return s
}

// Commutative reports whether op's two operands may be exchanged without
// changing any bit of its result: add, mul, min, max (minf and maxf
// propagate NaN from either side), and, or, xor, and cmp eq and ne.
func Commutative(op *ir.Operation) bool {
	switch op.Name {
	case "tir.add", "tir.mul", "tir.min", "tir.max", "tir.and", "tir.or", "tir.xor":
		return len(op.Operands) == 2
	case "tir.cmp":
		p, _ := op.Attr("predicate").(ir.StringAttr)
		return len(op.Operands) == 2 && (p == "eq" || p == "ne")
	}
	return false
}
