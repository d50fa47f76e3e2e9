package interp

import (
	"fmt"
	"math"
	"testing"

	"tir/dialects/ir"
)

// binaryFunc wraps one op on two 0-d operands of type elem in a function.
func binaryFunc(t *testing.T, op, elem string) *ir.Operation {
	src := fmt.Sprintf(`tir.func @f(%%a: !tir.tensor<%s>, %%b: !tir.tensor<%s>) {
  %%r = tir.%s %%a, %%b
  tir.return %%r
}`, elem, elem, op)
	return parseFunc(t, src, "f")
}

func TestIntegerArithmetic(t *testing.T) {
	cases := []struct {
		op, elem string
		a, b     int64
		want     int64
	}{
		{"div", "i32", -7, 2, -4},
		{"div", "i32", 7, 2, 3},
		{"div", "i32", 7, -2, -4},
		{"div", "i32", -7, -2, 3},
		{"rem", "i32", -7, 2, 1},
		{"rem", "i32", 7, -2, -1},
		{"rem", "i32", 7, 2, 1},
		{"rem", "i32", -7, -2, -1},
		{"rem", "i64", -8, 2, 0},
		{"add", "i8", 127, 1, -128},
		{"mul", "i16", 300, 300, 24464},
		{"sub", "i32", math.MinInt32, 1, math.MaxInt32},
		{"div", "i32", math.MinInt32, -1, math.MinInt32},
		{"div", "i64", math.MinInt64, -1, math.MinInt64},
		{"div", "i8", -128, -1, -128},
		{"rem", "i8", -128, -1, 0},
		{"rem", "i64", math.MinInt64, -1, 0},
		{"div", "i32", 5, 0, 0},
		{"rem", "i32", -5, 0, 0},
		{"min", "i32", -3, 2, -3},
		{"max", "i8", -3, 2, 2},
		{"pow", "i32", 3, 4, 81},
		{"pow", "i8", 2, 7, -128},
		{"and", "i32", 12, 10, 8},
		{"or", "i32", 12, 10, 14},
		{"xor", "i32", 12, 10, 6},
		{"add", "i1", 1, 1, 0},
		{"and", "i1", 1, 1, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%s_%d_%d", c.op, c.elem, c.a, c.b), func(t *testing.T) {
			elem := ir.BuiltinScalar(c.elem)
			fn := binaryFunc(t, c.op, c.elem)
			r := run1(t, fn, []*Tensor{ints(elem, nil, c.a), ints(elem, nil, c.b)}, nil)
			if r.I64[0] != c.want {
				t.Errorf("%d %s %d = %d, want %d", c.a, c.op, c.b, r.I64[0], c.want)
			}
		})
	}
}

// TestDivisionByZero: integer division and remainder by zero give 0 (spec
// 2.7, Halide's convention), never an error.
func TestDivisionByZero(t *testing.T) {
	for _, op := range []string{"div", "rem"} {
		for _, elem := range []string{"i8", "i32", "i64"} {
			fn := binaryFunc(t, op, elem)
			e := ir.BuiltinScalar(elem)
			r := run1(t, fn, []*Tensor{ints(e, nil, 7), ints(e, nil, 0)}, nil)
			if r.I64[0] != 0 {
				t.Errorf("7 %s 0 : %s = %d, want 0", op, elem, r.I64[0])
			}
		}
	}
}

func TestFloatRounding(t *testing.T) {
	// 0.1f + 0.2f in float32 is float32(0.3), not the float64 sum.
	src := `tir.func @f() {
  %a = tir.constant 0.1 : f32
  %b = tir.constant 0.2 : f32
  %r = tir.add %a, %b
  tir.return %r
}`
	r := run1(t, parseFunc(t, src, "f"), nil, nil)
	want := float64(float32(0.1) + float32(0.2))
	if r.F64[0] != want || r.F64[0] != float64(float32(0.3)) {
		t.Errorf("0.1f + 0.2f = %.17g, want %.17g", r.F64[0], want)
	}
	if r.F64[0] == 0.1+0.2 {
		t.Errorf("f32 sum computed in float64")
	}

	cases := []struct {
		op, elem string
		a, b     float64
		want     float64
	}{
		{"add", "f32", 1, math.Ldexp(1, -24), 1}, // tie to even
		{"add", "f32", 1, math.Ldexp(3, -25), 1 + math.Ldexp(1, -23)},
		{"mul", "f32", 3.4e38, 10, math.Inf(1)},
		{"div", "f64", 1, 3, 1.0 / 3},
		{"div", "f32", 1, 3, float64(float32(1.0) / float32(3.0))},
		{"rem", "f64", -7, 2, 1}, // x - y*floor(x/y): sign of the divisor
		{"rem", "f64", 7, -2, -1},
		{"rem", "f32", 5.5, 0, math.NaN()},
		{"min", "f64", math.Copysign(0, -1), 0, math.Copysign(0, -1)},
		{"max", "f64", math.NaN(), 1, math.NaN()},
		{"pow", "f64", 2, 10, 1024},
		{"add", "f16", 1, math.Ldexp(1, -11), 1}, // tie to even in f16
		{"add", "f16", 65504, 16, math.Inf(1)},
		{"add", "f16", 65504, 15, 65504},
		{"add", "bf16", 1, math.Ldexp(1, -8), 1},
		{"add", "bf16", 1, math.Ldexp(3, -9), 1 + math.Ldexp(1, -7)},
		// f16 computes in f32 and rounds once: with the steps of rem
		// rounded to f16 the result would be 0.5.
		{"rem", "f16", 1000, 0.0999755859375, 0.044189453125},
		{"rem", "bf16", -7, 2, 1},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%s_%g_%g", c.op, c.elem, c.a, c.b), func(t *testing.T) {
			elem := ir.BuiltinScalar(c.elem)
			fn := binaryFunc(t, c.op, c.elem)
			r := run1(t, fn, []*Tensor{floats(elem, nil, c.a), floats(elem, nil, c.b)}, nil)
			if !sameBits(r.F64[0], c.want) && !(math.IsNaN(r.F64[0]) && math.IsNaN(c.want)) {
				t.Errorf("%g %s %g = %.17g, want %.17g", c.a, c.op, c.b, r.F64[0], c.want)
			}
		})
	}
}

func TestRoundTo(t *testing.T) {
	cases := []struct {
		elem    ir.Type
		in, out float64
	}{
		{ir.F16, 0.1, 0.0999755859375},
		{ir.F16, math.Ldexp(1, -24), math.Ldexp(1, -24)}, // smallest subnormal
		{ir.F16, math.Ldexp(1, -25), 0},                  // tie to even: 0
		{ir.F16, math.Ldexp(3, -26), math.Ldexp(1, -24)},
		{ir.F16, -65520, math.Inf(-1)},
		{ir.BF16, 0.1, 0.10009765625},
		{ir.BF16, 3.0e38, math.Ldexp(226, 120)},
		{ir.F32, 0.1, float64(float32(0.1))},
		{ir.F64, 0.1, 0.1},
	}
	for _, c := range cases {
		got := RoundTo(c.elem, c.in)
		if !sameBits(got, c.out) {
			t.Errorf("RoundTo(%s, %g) = %.17g, want %.17g", c.elem, c.in, got, c.out)
		}
	}
	for _, h := range []uint16{0x0000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x3555, 0x7bff, 0xfbff, 0x7c00, 0x8001} {
		x := HalfToFloat(h)
		if RoundTo(ir.F16, x) != x || FloatToHalf(x) != h {
			t.Errorf("f16 %#04x -> %g -> %#04x", h, x, FloatToHalf(x))
		}
	}
	for _, h := range []uint16{0x0000, 0x0001, 0x007f, 0x0080, 0x3f80, 0x3dcd, 0x7f7f, 0xff7f, 0x7f80, 0x8001} {
		x := BFloat16ToFloat(h)
		if RoundTo(ir.BF16, x) != x || FloatToBFloat16(x) != h {
			t.Errorf("bf16 %#04x -> %g -> %#04x", h, x, FloatToBFloat16(x))
		}
	}
	// Encoding rounds (ties to even, overflow to infinity); NaN is quiet.
	for _, c := range []struct {
		x    float64
		f16  uint16
		bf16 uint16
	}{
		{1 + math.Ldexp(1, -11), 0x3c00, 0x3f80},
		{65520, 0x7c00, 0x4780},
		{math.NaN(), 0x7e00, 0x7fc0},
		{math.Copysign(0, -1), 0x8000, 0x8000},
	} {
		if h, b := FloatToHalf(c.x), FloatToBFloat16(c.x); h != c.f16 || b != c.bf16 {
			t.Errorf("encode %g = %#04x, %#04x; want %#04x, %#04x", c.x, h, b, c.f16, c.bf16)
		}
	}
}

func TestUnary(t *testing.T) {
	cases := []struct {
		op, elem string
		x, want  float64
	}{
		{"round", "f64", 2.5, 3},
		{"round", "f64", -2.5, -3},
		{"round", "f32", 0.49999997, 0},
		{"floor", "f64", -1.5, -2},
		{"ceil", "f64", -1.5, -1},
		{"neg", "f32", 1.5, -1.5},
		{"abs", "f64", -2, 2},
		{"sqrt", "f32", 2, float64(float32(math.Sqrt(2)))},
		{"rsqrt", "f64", 4, 0.5},
		{"rsqrt", "f32", 3, float64(1 / float32(math.Sqrt(3)))},
		{"sigmoid", "f64", 0, 0.5},
		{"sigmoid", "f32", 1, float64(1 / (1 + float32(math.Exp(-1))))},
		{"exp", "f32", 1, float64(float32(math.Exp(1)))},
		{"tanh", "f64", 0.5, math.Tanh(0.5)},
		// erf(1/2) and erf(-2), from tables (not from Go's math.Erf).
		{"erf", "f64", 0.5, 0.5204998778130465},
		{"erf", "f64", -2, -0.9953222650189527},
	}
	for _, c := range cases {
		t.Run(c.op+"_"+c.elem, func(t *testing.T) {
			src := fmt.Sprintf("tir.func @f(%%a: !tir.tensor<%s>) {\n  %%r = tir.%s %%a\n  tir.return %%r\n}", c.elem, c.op)
			elem := ir.BuiltinScalar(c.elem)
			r := run1(t, parseFunc(t, src, "f"), []*Tensor{floats(elem, nil, c.x)}, nil)
			if !sameBits(r.F64[0], c.want) {
				t.Errorf("%s(%g) = %.17g, want %.17g", c.op, c.x, r.F64[0], c.want)
			}
		})
	}
	src := "tir.func @f(%a: !tir.tensor<i8>) {\n  %n = tir.neg %a\n  %b = tir.abs %a\n  %c = tir.not %a\n  tir.return %n, %b, %c\n}"
	outs, err := Run(parseFunc(t, src, "f"), []*Tensor{ints(ir.I8, nil, -128)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if outs[0].I64[0] != -128 || outs[1].I64[0] != -128 || outs[2].I64[0] != 127 {
		t.Errorf("i8 neg/abs/not of -128 = %d %d %d, want -128 -128 127", outs[0].I64[0], outs[1].I64[0], outs[2].I64[0])
	}
}
