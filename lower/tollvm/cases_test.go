package tollvm

import (
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// The Go references below compute in the element type with the lowered
// program's operation order; explicit conversions after every operation
// keep Go from fusing a multiply and an add, so f32 and f64 results are
// bit-identical to the compiled code.

func laplacianCase(rng *rand.Rand) *e2eCase {
	inp := newBuf(rng, "inp", "float", false, 7, 9, 9)
	out := newBuf(rng, "out", "float", true, 5, 7, 9)
	at := func(i, j, k int) float32 { return float32(inp.f[(i*9+j)*9+k]) }
	for i := 0; i < 5; i++ {
		for j := 0; j < 7; j++ {
			for k := 0; k < 9; k++ {
				c := at(i+1, j+1, k)
				w, e, s, n := at(i, j+1, k), at(i+2, j+1, k), at(i+1, j, k), at(i+1, j+2, k)
				t0 := float32(w + e)
				t1 := float32(t0 + s)
				t2 := float32(t1 + n)
				m := float32(float32(-4) * c)
				out.wantF[(i*7+j)*9+k] = float64(float32(t2 + m))
			}
		}
	}
	return &e2eCase{file: "laplacian", fn: "laplacian", args: []e2eArg{{buf: inp}, {buf: out}}, callShape: true}
}

func TestE2ELaplacian(t *testing.T) {
	c := laplacianCase(rand.New(rand.NewSource(1)))
	res := runE2E(t, c)
	checkOutputs(t, c, res)
	if res.shapeRC != 0 || !reflect.DeepEqual(res.shape, []int64{5, 7, 9}) {
		t.Errorf("laplacian_result_shape: rc %d, sizes %v; want 0, [5 7 9]", res.shapeRC, res.shape)
	}
}

// TestE2ELaplacianChecks passes wrong descriptors: the function must fail
// before writing anything, with a distinct code and a precise message.
func TestE2ELaplacianChecks(t *testing.T) {
	for _, tc := range []struct {
		before string
		rc     int
		msg    string
	}{
		{"inp.sizes[1] = 8;", 2, "argument 'inp' dimension J: expected extent 9, got 8"},
		{"out.sizes[0] = 6;", 5, "argument 'out' dimension I: expected extent 5, got 6"},
		{"out.strides[2] = 2;", 8, "argument 'out' dimension K: innermost stride must be 1, got 2"},
	} {
		c := laplacianCase(rand.New(rand.NewSource(1)))
		c.before = tc.before
		res := runE2E(t, c)
		if res.rc != tc.rc || res.msg != tc.msg {
			t.Errorf("%s: rc %d, message %q; want %d, %q", tc.before, res.rc, res.msg, tc.rc, tc.msg)
		}
		if !res.untouch["out"] {
			t.Errorf("%s: the output was written although a check failed", tc.before)
		}
		// Another known code gives its message without run-time values.
		if want := "argument 'inp' dimension I: expected extent 7"; res.messages["e1"] != want {
			t.Errorf("f_error(1) = %q, want %q", res.messages["e1"], want)
		}
		if res.messages["e0"] != "success" || res.messages["e999"] != "unknown error code" {
			t.Errorf("f_error(0) = %q, f_error(999) = %q", res.messages["e0"], res.messages["e999"])
		}
	}
}

func symbolicCase(rng *rand.Rand, n, m int) *e2eCase {
	inp := newBuf(rng, "inp", "double", false, int64(n+1), int64(m+2))
	out := newBuf(rng, "out", "double", true, int64(n), int64(m))
	at := func(i, j int) float64 { return inp.f[i*(m+2)+j] }
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			s := float64(at(i+1, j) + at(i+1, j+2))
			h := float64(s * 0.5)
			out.wantF[i*m+j] = float64(at(i, j+1) - h)
		}
	}
	return &e2eCase{file: "symbolic", fn: "symbolic", args: []e2eArg{{buf: inp}, {buf: out}, {index: int64(n)}, {index: int64(m)}}, callShape: true, shapeSyms: []int64{10, 20}}
}

func TestE2ESymbolic(t *testing.T) {
	c := symbolicCase(rand.New(rand.NewSource(2)), 5, 6)
	res := runE2E(t, c)
	checkOutputs(t, c, res)
	if res.shapeRC != 0 || !reflect.DeepEqual(res.shape, []int64{10, 20}) {
		t.Errorf("symbolic_result_shape(10, 20): rc %d, sizes %v; want 0, [10 20]", res.shapeRC, res.shape)
	}
}

func TestE2ESymbolicChecks(t *testing.T) {
	for _, tc := range []struct {
		before string
		rc     int
		msg    string
	}{
		{"inp.sizes[1] = 7;", 2, "argument 'inp' dimension J: expected extent M + 2 = 8, got 7"},
		{"inp.sizes[0] = 5;", 1, "argument 'inp' dimension I: expected extent N + 1 = 6, got 5"},
		{"out.sizes[1] = 7;", 5, "argument 'out' dimension J: expected extent M = 6, got 7"},
		{"inp.strides[1] = 3;", 3, "argument 'inp' dimension J: innermost stride must be 1, got 3"},
	} {
		c := symbolicCase(rand.New(rand.NewSource(2)), 5, 6)
		c.before = tc.before
		res := runE2E(t, c)
		if res.rc != tc.rc || res.msg != tc.msg {
			t.Errorf("%s: rc %d, message %q; want %d, %q", tc.before, res.rc, res.msg, tc.rc, tc.msg)
		}
		if !res.untouch["out"] {
			t.Errorf("%s: the output was written although a check failed", tc.before)
		}
	}
}

// floorDivG and ceilDivG are the reference semantics for any divisor sign.
func floorDivG(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDivG(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) == (b < 0) {
		q++
	}
	return q
}

func modG(a, b int64) int64 { return a - b*floorDivG(a, b) }

func TestE2EFloorDiv(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	inp := newBuf(rng, "inp", "int64_t", false, 8)
	out := newBuf(rng, "out", "int64_t", true, 13, 24)
	for i := 0; i < 24; i++ {
		x := int64(i - 12)
		v := inp.i[floorDivG(x, 3)+4]
		rows := []int64{
			floorDivG(x, 4), floorDivG(x, 3), ceilDivG(x, 3), ceilDivG(x, 8), modG(x, 5), modG(x, 8),
			min(x, floorDivG(x, 2), -3), max(x, floorDivG(x, 2), -3),
			floorDivG(v, 3), ceilDivG(v, -7), v % 5, floorDivG(v, 4),
			floorDivG(5-int64(i), 3) + modG(7-int64(i), 3),
		}
		for r, w := range rows {
			out.wantI[r*24+i] = w
		}
	}
	c := &e2eCase{file: "floordiv", fn: "floordiv", args: []e2eArg{{buf: inp}, {buf: out}}}
	checkOutputs(t, c, runE2E(t, c))
}

func TestE2EReduction(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	inp := newBuf(rng, "inp", "float", false, 6, 10)
	sums := newBuf(rng, "sums", "float", true, 6)
	mx := newBuf(rng, "mx", "float", true)
	best := float32(math.Inf(-1))
	for i := 0; i < 6; i++ {
		acc := float32(0)
		for j := 0; j < 10; j++ {
			x := float32(inp.f[i*10+j])
			acc = float32(acc + x)
			if x > best {
				best = x
			}
		}
		sums.wantF[i] = float64(acc)
	}
	mx.wantF[0] = float64(best)
	c := &e2eCase{file: "reduction", fn: "reduction", args: []e2eArg{{buf: inp}, {buf: sums}, {buf: mx}}, callShape: true}
	res := runE2E(t, c)
	checkOutputs(t, c, res)
	if res.shapeRC != 0 || !reflect.DeepEqual(res.shape, []int64{6}) {
		t.Errorf("reduction_result_shape: rc %d, sizes %v; want 0, [6]", res.shapeRC, res.shape)
	}
}

func TestE2EAffineIf(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	inp := newBuf(rng, "inp", "float", false, 16)
	out := newBuf(rng, "out", "float", true, 16)
	flag := newBuf(rng, "flag", "int32_t", true, 16)
	const K = 5
	for i := 0; i < 16; i++ {
		if i >= 3 && i <= 12 {
			out.wantF[i] = inp.f[i]
		}
		if i == K {
			flag.wantI[i] = 1
		}
	}
	c := &e2eCase{file: "affine_if", fn: "affine_if", args: []e2eArg{{buf: inp}, {buf: out}, {buf: flag}, {index: K}}}
	checkOutputs(t, c, runE2E(t, c))
}

func TestE2EVector(t *testing.T) {
	rng := rand.New(rand.NewSource(6))
	a := newBuf(rng, "a", "float", false, 4, 20)
	b := newBuf(rng, "b", "float", false, 4, 20)
	out := newBuf(rng, "out", "float", true, 4, 20)
	for k := range out.wantF {
		x, y := float32(a.f[k]), float32(b.f[k])
		p := float32(x * y)
		s := float32(p + x)
		m := y
		if s > y {
			m = s
		}
		out.wantF[k] = float64(float32(m * 2))
	}
	c := &e2eCase{file: "vector", fn: "vector", args: []e2eArg{{buf: a}, {buf: b}, {buf: out}}}
	checkOutputs(t, c, runE2E(t, c))
}

// TestE2EVectorReduction runs every vector.reduction kind against values
// computed here: float sums and products in lane order (from -0.0, or
// the accumulator), IEEE maxima and minima (NaN wins, -0 < +0), integer
// kinds wrapping around, unsigned ones comparing bits. Any NaN matches a
// NaN; -0 does not match +0. With ReassociateFPReductions the sums may be
// a tree, within rounding.
func TestE2EVectorReduction(t *testing.T) {
	for _, reassoc := range []bool{false, true} {
		rng := rand.New(rand.NewSource(8))
		a := newBuf(rng, "a", "float", false, 4, 8)
		negZero := math.Copysign(0, -1)
		a.f[8+6] = math.NaN()
		copy(a.f[16:24], []float64{0, negZero, 0, 0, negZero, negZero, 0, negZero})
		copy(a.f[24:32], []float64{negZero, negZero, negZero, negZero, negZero, negZero, negZero, negZero})
		b := newBuf(rng, "b", "int32_t", false, 2, 8)
		copy(b.i[8:16], []int64{math.MinInt32, math.MaxInt32, -1, 0, 1, 7, math.MinInt32, 5})
		c := newBuf(rng, "c", "int64_t", false, 2, 8)
		copy(c.i[8:16], []int64{math.MinInt64, math.MaxInt64, -1, 0, 1, 7, math.MinInt64, 5})
		rf := newBuf(rng, "rf", "float", true, 4, 6)
		ri := newBuf(rng, "ri", "int32_t", true, 2, 9)
		rl := newBuf(rng, "rl", "int64_t", true, 2, 4)
		ieee := func(x, y float32, isMax bool) float32 {
			switch {
			case x != x || y != y:
				return float32(math.NaN())
			case x == y:
				if math.Signbit(float64(x)) == isMax {
					return y
				}
				return x
			case (x > y) == isMax:
				return x
			}
			return y
		}
		for i := 0; i < 4; i++ {
			row := make([]float32, 8)
			for k := range row {
				row[k] = float32(a.f[i*8+k])
			}
			sum, prod, sumAcc := float32(negZero), float32(0.5), float32(0.5)
			max, min := float32(math.Inf(-1)), float32(0.5)
			for _, x := range row {
				sum, prod, sumAcc = sum+x, prod*x, sumAcc+x
				max, min = ieee(max, x, true), ieee(min, x, false)
			}
			max3 := ieee(ieee(row[5], row[6], true), row[7], true)
			for j, v := range []float32{sum, prod, max, min, max3, sumAcc} {
				rf.wantF[i*6+j] = float64(v)
			}
		}
		for i := 0; i < 2; i++ {
			row := b.i[i*8 : i*8+8]
			add, mul, and, or, xor := int32(0), int32(3), int32(-1), int32(3), int32(0)
			smin, smax := int32(3), int32(math.MinInt32)
			umin, umax := uint32(math.MaxUint32), uint32(3)
			for _, x64 := range row {
				x := int32(x64)
				add, mul, and, or, xor = add+x, mul*x, and&x, or|x, xor^x
				smin, smax = min(smin, x), max(smax, x)
				umin, umax = min(umin, uint32(x)), max(umax, uint32(x))
			}
			for j, v := range []int64{int64(add), int64(mul), int64(and), int64(or), int64(xor), int64(smin), int64(smax), int64(int32(umin)), int64(int32(umax))} {
				ri.wantI[i*9+j] = v
			}
			lrow := c.i[i*8 : i*8+8]
			ladd, lmax, lumin, lxor := int64(-5), int64(math.MinInt64), uint64(1<<64-5), int64(0)
			for _, x := range lrow {
				ladd, lmax, lumin, lxor = ladd+x, max(lmax, x), min(lumin, uint64(x)), lxor^x
			}
			copy(rl.wantI[i*4:], []int64{ladd, lmax, int64(lumin), lxor})
		}
		tc := &e2eCase{file: "vector_reduction", fn: "vector_reduction", args: []e2eArg{{buf: a}, {buf: b}, {buf: c}, {buf: rf}, {buf: ri}, {buf: rl}}, anyNaN: true}
		if reassoc {
			tc.opts.ReassociateFPReductions = true
			tc.tol = 1e-6
		}
		checkOutputs(t, tc, runE2E(t, tc))
	}
}

func TestE2EAlloc(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	const N = 13
	inp := newBuf(rng, "inp", "float", false, N)
	out := newBuf(rng, "out", "float", true, N)
	tmp := make([]float32, N)
	total := float32(0)
	for i := 0; i < N; i++ {
		x := float32(inp.f[i])
		tmp[i] = float32(x * 2)
		total = float32(total + x)
	}
	for i := 0; i < N; i++ {
		v := float32(tmp[i] + tmp[N-1-i])
		out.wantF[i] = float64(float32(v - total))
	}
	c := &e2eCase{file: "alloc", fn: "alloc", args: []e2eArg{{buf: inp}, {buf: out}, {index: N}}, callShape: true, shapeSyms: []int64{N}}
	res := runE2E(t, c)
	checkOutputs(t, c, res)
	if res.shapeRC != 0 || !reflect.DeepEqual(res.shape, []int64{N}) {
		t.Errorf("alloc_result_shape: rc %d, sizes %v", res.shapeRC, res.shape)
	}
}

func TestE2EParallel(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	inp := newBuf(rng, "inp", "int32_t", false, 10, 12)
	out := newBuf(rng, "out", "int32_t", true, 10, 12)
	cnt := newBuf(rng, "cnt", "int64_t", true)
	for i := 1; i < 9; i += 2 {
		for j := 0; j < 12; j += 3 {
			x := int32(inp.i[i*12+j])
			out.wantI[i*12+j] = int64(x * x)
		}
	}
	for k := 0; k < 10; k++ {
		if inp.i[k*12+k] > 0 {
			cnt.wantI[0]++
		}
	}
	c := &e2eCase{file: "parallel", fn: "parallel", args: []e2eArg{{buf: inp}, {buf: out}, {buf: cnt}}}
	checkOutputs(t, c, runE2E(t, c))
}

// TestE2EMath compares with Go's math package within 1e-6 relative: libm
// and Go may differ in the last bit.
func TestE2EMath(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	inp := newBuf(rng, "inp", "float", false, 32)
	out := newBuf(rng, "out", "float", true, 6, 32)
	d := newBuf(rng, "d", "double", true, 32)
	for i := 0; i < 32; i++ {
		x := float32(inp.f[i])
		a := float32(math.Abs(float64(x)))
		e := float32(math.Exp(float64(x)))
		s := float32(math.Sqrt(float64(a)))
		row := []float32{e, s, float32(1 / s), float32(math.Tanh(float64(x))), float32(math.Floor(float64(x))),
			float32(math.FMA(float64(x), float64(e), float64(s)))}
		for r, v := range row {
			out.wantF[r*32+i] = float64(v)
		}
		xd := float64(x)
		l := float64(float32(math.Log(float64(a))))
		p := math.Pow(xd, xd)
		sum1 := float64(float64(l+math.Cos(xd)) + math.Tan(xd))
		if xd < sum1 {
			d.wantF[i] = p
		} else {
			d.wantF[i] = sum1
		}
	}
	c := &e2eCase{file: "math", fn: "math", args: []e2eArg{{buf: inp}, {buf: out}, {buf: d}}, tol: 1e-6}
	checkOutputs(t, c, runE2E(t, c))
}

func TestE2EVectorOps(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	a := newBuf(rng, "a", "int64_t", false, 8)
	b := newBuf(rng, "b", "int64_t", false, 8)
	x := newBuf(rng, "x", "float", false, 8)
	out := newBuf(rng, "out", "int64_t", true, 10, 8)
	fout := newBuf(rng, "fout", "float", true, 6, 8)
	for j := 0; j < 8; j++ {
		va, vb := a.i[j], b.i[j]
		d := vb | 1
		ge := int64(0)
		if va >= vb {
			ge = 1
		}
		abs := va
		if abs < 0 {
			abs = -abs
		}
		rows := []int64{floorDivG(va, d), ceilDivG(va, d), va % d, max(va, vb), min(va, vb), ge, va >> 2, va ^ vb, int64(int8(va)), abs}
		for r, w := range rows {
			out.wantI[r*8+j] = w
		}
		vx := float32(x.f[j])
		h := float32(vx * 100)
		neg := -vx
		f4 := neg
		if vx < neg {
			f4 = vx
		}
		f5 := float32(0)
		if vx > 0 {
			f5 = vx
		}
		frows := []float32{float32(math.Tanh(float64(vx))), neg, float32(va), float32(int32(h)), f4, f5}
		for r, w := range frows {
			fout.wantF[r*8+j] = float64(w)
		}
	}
	c := &e2eCase{file: "ops", fn: "ops", args: []e2eArg{{buf: a}, {buf: b}, {buf: x}, {buf: out}, {buf: fout}}, tol: 1e-6}
	checkOutputs(t, c, runE2E(t, c))
}

// TestE2EAtomicRMW: memref.atomic_rmw addf and addi lower to atomicrmw
// fadd and add (monotonic) for the host, as the emulated GPU kernels'
// scatter-adds do; with one thread the sums are those of a loop in entry
// order.
func TestE2EAtomicRMW(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	idx := newBuf(rng, "idx", "int64_t", false, 16)
	val := newBuf(rng, "val", "double", false, 16)
	ival := newBuf(rng, "ival", "int64_t", false, 16)
	out := newBuf(rng, "out", "double", true, 5)
	iout := newBuf(rng, "iout", "int64_t", true, 5)
	for e := 0; e < 16; e++ {
		p := idx.i[e] % 5
		if p < 0 {
			p = -p
		}
		out.wantF[p] += val.f[e]
		iout.wantI[p] += ival.i[e]
	}
	c := &e2eCase{file: "atomic", fn: "atomic", args: []e2eArg{{buf: idx}, {buf: val}, {buf: ival}, {buf: out}, {buf: iout}}}
	checkOutputs(t, c, runE2E(t, c))
}
