package mathexpand

import (
	"math"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/mathd"
)

// format describes one IEEE binary format the expansions compute in.
type format struct {
	ft   ir.FloatType   // f32 or f64
	it   ir.IntegerType // the integer type of the same width
	bits int            // storage width
	p    int            // precision, implicit bit included
	bias int            // exponent bias
}

var (
	binary32 = &format{ft: ir.F32, it: ir.I32, bits: 32, p: 24, bias: 127}
	binary64 = &format{ft: ir.F64, it: ir.I64, bits: 64, p: 53, bias: 1023}
)

// is32 tells the single-precision format.
func (f *format) is32() bool { return f.bits == 32 }

// round rounds v to the format (the value a constant of the format holds).
func (f *format) round(v float64) float64 {
	if f.is32() {
		return float64(float32(v))
	}
	return v
}

// minNormal is the smallest positive normal number.
func (f *format) minNormal() float64 { return math.Ldexp(1, 1-f.bias) }

// expMask is the mask of the biased exponent field after shifting the bits
// right by p-1.
func (f *format) expMask() int64 { return int64(2*f.bias + 1) }

// builder builds the ops of one expansion before the op it replaces. All values
// have the float type t (a scalar of the format, or a vector of it), the
// integer type it of the same shape and width, or the i1 type bt of the
// same shape. Constants are built once per expansion.
type builder struct {
	rw  *ir.Rewriter
	at  *ir.Operation
	loc ir.Location
	f   *format
	t   ir.Type // float type of the values (scalar or vector)
	it  ir.Type // integer type of the same shape
	bt  ir.Type // i1 type of the same shape

	fconsts map[uint64]*ir.Value
	iconsts map[int64]*ir.Value
	// noFMA selects the expansions without math.fma (ExpandWith).
	noFMA bool
}

func newBuilder(rw *ir.Rewriter, at *ir.Operation, f *format, t ir.Type) *builder {
	return &builder{
		rw: rw, at: at, loc: at.Loc, f: f, t: t,
		it:      arith.WithElem(t, f.it),
		bt:      arith.WithElem(t, ir.I1),
		fconsts: map[uint64]*ir.Value{},
		iconsts: map[int64]*ir.Value{},
	}
}

func (b *builder) emit(op *ir.Operation) *ir.Value {
	b.rw.InsertBefore(b.at, op)
	return op.Results[0]
}

// splat makes a constant attribute of type t from a scalar attribute.
func splat(t ir.Type, a ir.Attribute) ir.Attribute {
	if _, ok := t.(ir.VectorType); ok {
		return ir.DenseElementsAttr{Type: t, Values: []ir.Attribute{a}}
	}
	return a
}

// c is the float constant v, rounded to the format.
func (b *builder) c(v float64) *ir.Value {
	v = b.f.round(v)
	key := math.Float64bits(v)
	if x, ok := b.fconsts[key]; ok {
		return x
	}
	var x *ir.Value
	if _, vec := b.t.(ir.VectorType); vec && (math.IsInf(v, 0) || math.IsNaN(v)) {
		// Splats of Inf and NaN as integer bits: the textual form
		// dense<0x7F800000> does not parse back.
		bits := int64(math.Float64bits(v))
		if b.f.is32() {
			bits = int64(math.Float32bits(float32(v)))
		}
		if math.IsNaN(v) {
			bits = int64(math.Float64bits(math.NaN()))
			if b.f.is32() {
				bits = 0x7FC00000
			}
		}
		x = b.fromBits(b.ci(bits))
	} else {
		x = b.emit(arith.NewConstant(b.loc, splat(b.t, ir.FloatAttr{Value: v, Type: b.f.ft}), b.t))
	}
	b.fconsts[key] = x
	return x
}

// ci is the integer constant v of the format's integer type.
func (b *builder) ci(v int64) *ir.Value {
	if x, ok := b.iconsts[v]; ok {
		return x
	}
	x := b.emit(arith.NewConstant(b.loc, splat(b.it, ir.IntegerAttr{Value: v, Type: b.f.it}), b.it))
	b.iconsts[v] = x
	return x
}

// Float arithmetic.

func (b *builder) bin(op *ir.OpDef, x, y *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, op.Name, x, y))
}
func (b *builder) add(x, y *ir.Value) *ir.Value { return b.bin(arith.AddF, x, y) }
func (b *builder) sub(x, y *ir.Value) *ir.Value { return b.bin(arith.SubF, x, y) }
func (b *builder) mul(x, y *ir.Value) *ir.Value { return b.bin(arith.MulF, x, y) }
func (b *builder) div(x, y *ir.Value) *ir.Value { return b.bin(arith.DivF, x, y) }
func (b *builder) neg(x *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, arith.NegF.Name, x))
}

// fma is x*y + z with one rounding (math.fma).
func (b *builder) fma(x, y, z *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, mathd.Fma.Name, x, y, z))
}
func (b *builder) abs(x *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, mathd.AbsF.Name, x))
}
func (b *builder) floor(x *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, mathd.Floor.Name, x))
}
func (b *builder) sqrt(x *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, mathd.Sqrt.Name, x))
}

// copysign is |x| with the sign of y.
func (b *builder) copysign(x, y *ir.Value) *ir.Value { return b.bin(mathd.CopySign, x, y) }

// rint rounds to the nearest integer (halfway cases away from zero: only
// the reduction index, where ties do not matter, uses it).
func (b *builder) rint(x *ir.Value) *ir.Value { return b.floor(b.add(x, b.c(0.5))) }

// Comparisons and selection.

func (b *builder) cmp(pred string, x, y *ir.Value) *ir.Value {
	return b.emit(arith.NewCmpF(b.loc, pred, x, y))
}
func (b *builder) lt(x, y *ir.Value) *ir.Value { return b.cmp("olt", x, y) }
func (b *builder) gt(x, y *ir.Value) *ir.Value { return b.cmp("ogt", x, y) }
func (b *builder) le(x, y *ir.Value) *ir.Value { return b.cmp("ole", x, y) }
func (b *builder) ge(x, y *ir.Value) *ir.Value { return b.cmp("oge", x, y) }
func (b *builder) eq(x, y *ir.Value) *ir.Value { return b.cmp("oeq", x, y) }
func (b *builder) ne(x, y *ir.Value) *ir.Value { return b.cmp("une", x, y) }

// isNaN is true for NaN.
func (b *builder) isNaN(x *ir.Value) *ir.Value { return b.cmp("uno", x, x) }

// isFinite is false for NaN and ±Inf; notFinite is its negation.
func (b *builder) isFinite(x *ir.Value) *ir.Value  { return b.lt(b.abs(x), b.c(math.Inf(1))) }
func (b *builder) notFinite(x *ir.Value) *ir.Value { return b.cmp("uge", b.abs(x), b.c(math.Inf(1))) }

func (b *builder) sel(c, x, y *ir.Value) *ir.Value { return b.emit(arith.NewSelect(b.loc, c, x, y)) }

func (b *builder) and(x, y *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, arith.AndI.Name, x, y))
}
func (b *builder) or(x, y *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, arith.OrI.Name, x, y))
}

// clamp is min(max(x, lo), hi), NaN kept.
func (b *builder) clamp(x *ir.Value, lo, hi float64) *ir.Value {
	x = b.sel(b.lt(x, b.c(lo)), b.c(lo), x)
	return b.sel(b.gt(x, b.c(hi)), b.c(hi), x)
}

// Integer views of the bits.

func (b *builder) bitsOf(x *ir.Value) *ir.Value {
	return b.emit(arith.NewCast(b.loc, arith.Bitcast.Name, x, b.it))
}
func (b *builder) fromBits(i *ir.Value) *ir.Value {
	return b.emit(arith.NewCast(b.loc, arith.Bitcast.Name, i, b.t))
}
func (b *builder) ibin(op *ir.OpDef, x, y *ir.Value) *ir.Value {
	return b.emit(arith.NewElementwise(b.loc, op.Name, x, y))
}
func (b *builder) iadd(x, y *ir.Value) *ir.Value { return b.ibin(arith.AddI, x, y) }
func (b *builder) isub(x, y *ir.Value) *ir.Value { return b.ibin(arith.SubI, x, y) }
func (b *builder) iand(x, y *ir.Value) *ir.Value { return b.ibin(arith.AndI, x, y) }
func (b *builder) ior(x, y *ir.Value) *ir.Value  { return b.ibin(arith.OrI, x, y) }
func (b *builder) ixor(x, y *ir.Value) *ir.Value { return b.ibin(arith.XOrI, x, y) }
func (b *builder) shl(x *ir.Value, n int64) *ir.Value {
	return b.ibin(arith.ShLI, x, b.ci(n))
}
func (b *builder) shrs(x *ir.Value, n int64) *ir.Value {
	return b.ibin(arith.ShRSI, x, b.ci(n))
}
func (b *builder) shru(x *ir.Value, n int64) *ir.Value {
	return b.ibin(arith.ShRUI, x, b.ci(n))
}
func (b *builder) icmp(pred string, x, y *ir.Value) *ir.Value {
	return b.emit(arith.NewCmpI(b.loc, pred, x, y))
}

// toInt converts an integral float of magnitude below 2^(p-2) to the
// integer type; the caller makes sure of that (every caller clamps). The
// sum x + 1.5 * 2^(p-1) lies in [2^(p-1), 2^p), where the floats are the
// integers, so it is exact and its bits are those of 1.5 * 2^(p-1) plus
// x: two operations, where arith.fptosi becomes a conversion wrapped in
// the compares and selects that make it saturate on CPUs (tollvm).
func (b *builder) toInt(x *ir.Value) *ir.Value {
	m := 1.5 * math.Ldexp(1, b.f.p-1)
	mb := int64(math.Float64bits(m))
	if b.f.is32() {
		mb = int64(math.Float32bits(float32(m)))
	}
	return b.isub(b.bitsOf(b.add(x, b.c(m))), b.ci(mb))
}
func (b *builder) toFloat(i *ir.Value) *ir.Value {
	return b.emit(arith.NewCast(b.loc, arith.SIToFP.Name, i, b.t))
}

// safeInt converts an integral float k, not NaN, to an integer after
// clamping it to [lo, hi], so that the conversion is always defined.
func (b *builder) safeInt(k *ir.Value, lo, hi float64) *ir.Value {
	return b.toInt(b.clamp(k, lo, hi))
}

// pow2 is 2^k for an integer k in [1-bias, bias] (a normal number).
func (b *builder) pow2(k *ir.Value) *ir.Value {
	return b.fromBits(b.shl(b.iadd(k, b.ci(int64(b.f.bias))), int64(b.f.p-1)))
}

// ldexp is x * 2^k for an integer k in [-2*bias-p, 2*bias], with one
// rounding: 2^k is applied in two normal factors, the second one rounding
// a subnormal or overflowing result.
func (b *builder) ldexp(x, k *ir.Value) *ir.Value {
	k1 := b.shrs(k, 1)
	k2 := b.isub(k, k1)
	return b.mul(b.mul(x, b.pow2(k1)), b.pow2(k2))
}

// Polynomials.

// horner evaluates c[0] + c[1] x + ... + c[n] x^n with fma.
func (b *builder) horner(x *ir.Value, c []float64) *ir.Value {
	acc := b.c(c[len(c)-1])
	for i := len(c) - 2; i >= 0; i-- {
		acc = b.fma(acc, x, b.c(c[i]))
	}
	return acc
}

// Double-word arithmetic: a value hi + lo with |lo| <= ulp(hi)/2, for the
// parts of an expansion that need more than the format's precision
// (error-free transformations of Dekker and Knuth, products through fma).

type dw struct{ hi, lo *ir.Value }

// twoSum is x + y exactly as hi + lo (Knuth, any magnitudes).
func (b *builder) twoSum(x, y *ir.Value) dw {
	s := b.add(x, y)
	yv := b.sub(s, x)
	xv := b.sub(s, yv)
	return dw{s, b.add(b.sub(x, xv), b.sub(y, yv))}
}

// fastTwoSum is x + y exactly as hi + lo, for |x| >= |y| or x == 0
// (Dekker).
func (b *builder) fastTwoSum(x, y *ir.Value) dw {
	s := b.add(x, y)
	return dw{s, b.sub(y, b.sub(s, x))}
}

// twoProd is x * y exactly as hi + lo (barring underflow).
func (b *builder) twoProd(x, y *ir.Value) dw {
	p := b.mul(x, y)
	return dw{p, b.fma(x, y, b.neg(p))}
}

// mulDW multiplies a double-word value by a double-word constant c.
func (b *builder) mulDW(x dw, c dw) dw {
	p := b.twoProd(x.hi, c.hi)
	lo := b.fma(x.hi, c.lo, b.fma(x.lo, c.hi, p.lo))
	return b.fastTwoSum(p.hi, lo)
}

// constDW is the double-word constant of a pair of format numbers.
func (b *builder) constDW(c [2]float64) dw { return dw{b.c(c[0]), b.c(c[1])} }
