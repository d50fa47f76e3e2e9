package tc

import (
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// End-to-end through the reference interpreter: import TC, run the tir
// function on random inputs, and compare every output element with the TC
// semantics computed directly in Go.

// importFn imports src, verifies the module and returns the named function.
func importFn(t *testing.T, file, src, name string) *ir.Operation {
	t.Helper()
	m, diags := Import(file, src)
	if m == nil || diags.HasErrors() {
		t.Fatalf("import: %v", diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatalf("verify: %v", err)
	}
	for _, op := range m.Body().Ops {
		if ir.SymbolName(op) == name {
			return op
		}
	}
	t.Fatalf("no function %s", name)
	return nil
}

func sharedExample(t *testing.T, name string) (string, string) {
	t.Helper()
	p := filepath.Join("..", "..", "..", "shared", "examples", name)
	src, err := os.ReadFile(p)
	if err != nil {
		t.Skipf("shared examples not found: %v", err)
	}
	return p, string(src)
}

// randomArgs fills each argument: floats in [-1, 1) (rounded to the
// element type), integers in [lo, hi).
func randomArgs(t *testing.T, fn *ir.Operation, syms map[string]int64, seed int64, lo, hi int) []*interp.Tensor {
	t.Helper()
	ft, _ := tir.FuncType(fn)
	rng := rand.New(rand.NewSource(seed))
	var args []*interp.Tensor
	for _, in := range ft.Inputs {
		tt, _ := tir.AsTensor(in)
		dims, err := interp.EvalDims(tt, syms)
		if err != nil {
			t.Fatal(err)
		}
		a, err := interp.NewTensor(tt.Elem, dims)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < a.Len(); i++ {
			if a.F64 != nil {
				a.F64[i] = interp.RoundTo(tt.Elem, rng.Float64()*2-1)
			} else {
				a.I64[i] = int64(lo + rng.Intn(hi-lo))
			}
		}
		args = append(args, a)
	}
	return args
}

func run(t *testing.T, fn *ir.Operation, args []*interp.Tensor, syms map[string]int64) []*interp.Tensor {
	t.Helper()
	out, err := interp.Run(fn, args, syms)
	if err != nil {
		t.Fatalf("interpreter: %v", err)
	}
	return out
}

// get reads an element by coordinates (in dimension order).
func get(t *testing.T, x *interp.Tensor, idx ...int64) float64 {
	t.Helper()
	p := map[string]int64{}
	for k, d := range x.Dims {
		p[d.Name] = idx[k]
	}
	off, ok := x.Offset(p)
	if !ok {
		t.Fatalf("%v outside %s", idx, x)
	}
	if x.F64 != nil {
		return x.F64[off]
	}
	return float64(x.I64[off])
}

// checkAll compares every element of got (over its own domain) with want.
func checkAll(t *testing.T, got *interp.Tensor, tol float64, want func(idx []int64) float64) {
	t.Helper()
	n := 0
	idx := make([]int64, len(got.Dims))
	var rec func(k int)
	rec = func(k int) {
		if k == len(idx) {
			g, w := get(t, got, idx...), want(idx)
			if math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) {
				t.Fatalf("at %v: got %v, want %v", idx, g, w)
			}
			n++
			return
		}
		for x := got.Dims[k].Lo; x < got.Dims[k].Hi; x++ {
			idx[k] = x
			rec(k + 1)
		}
	}
	rec(0)
	if n == 0 {
		t.Fatal("nothing compared")
	}
}

const f32tol = 1e-5

func TestInterpMatmul(t *testing.T) {
	file, src := sharedExample(t, "matmul.tc")
	fn := importFn(t, file, src, "matmul")
	syms := map[string]int64{"M": 5, "K": 7, "N": 3}
	args := randomArgs(t, fn, syms, 1, 0, 1)
	c := run(t, fn, args, syms)[0]
	if len(c.Dims) != 2 || c.Dims[0].Extent() != 5 || c.Dims[1].Extent() != 3 {
		t.Fatalf("result on %s", c)
	}
	checkAll(t, c, f32tol, func(i []int64) float64 {
		s := 0.0
		for k := int64(0); k < 7; k++ {
			s += get(t, args[0], i[0], k) * get(t, args[1], k, i[1])
		}
		return s
	})
}

func TestInterpConv1d(t *testing.T) {
	file, src := sharedExample(t, "conv1d.tc")
	fn := importFn(t, file, src, "conv1d")
	syms := map[string]int64{"N": 20, "W": 4}
	args := randomArgs(t, fn, syms, 2, 0, 1)
	o := run(t, fn, args, syms)[0]
	if o.Dims[0].Lo != 0 || o.Dims[0].Hi != 17 {
		t.Fatalf("result on %s, want i[0:17]", o)
	}
	checkAll(t, o, f32tol, func(i []int64) float64 {
		s := 0.0
		for k := int64(0); k < 4; k++ {
			s += get(t, args[0], i[0]+k) * get(t, args[1], k)
		}
		return s
	})
}

func TestInterpFcrelu(t *testing.T) {
	file, src := sharedExample(t, "fcrelu.tc")
	fn := importFn(t, file, src, "fcrelu")
	syms := map[string]int64{"B": 3, "M": 8, "N": 5}
	args := randomArgs(t, fn, syms, 3, 0, 1)
	o := run(t, fn, args, syms)[0]
	checkAll(t, o, f32tol, func(i []int64) float64 {
		s := 0.0
		for m := int64(0); m < 8; m++ {
			s += get(t, args[0], i[0], m) * get(t, args[1], i[1], m)
		}
		return math.Max(s+get(t, args[2], i[1]), 0)
	})
}

// TestInterpSemantics runs small programs that exercise one rule each.
func TestInterpSemantics(t *testing.T) {
	t.Run("accumulate into the incoming output", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f(float(N) B, float(W) K) -> (A) {\n A(i) += B(i + k) * K(k)\n}", "f")
		syms := map[string]int64{"N": 9, "W": 3}
		args := randomArgs(t, fn, syms, 4, 0, 1) // B, K, then A's incoming contents
		if len(args) != 3 {
			t.Fatalf("%d arguments, want B, K and A", len(args))
		}
		checkAll(t, run(t, fn, args, syms)[0], f32tol, func(i []int64) float64 {
			s := get(t, args[2], i[0])
			for k := int64(0); k < 3; k++ {
				s += get(t, args[0], i[0]+k) * get(t, args[1], k)
			}
			return s
		})
	})
	t.Run("origin kept", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f(float(I) B) -> (A) {\n A(i) = B(10 - i)\n}", "f")
		syms := map[string]int64{"I": 6}
		args := randomArgs(t, fn, syms, 5, 0, 1)
		a := run(t, fn, args, syms)[0]
		if a.Dims[0].Lo != 5 || a.Dims[0].Hi != 11 {
			t.Fatalf("result on %s, want i[5:11]", a)
		}
		checkAll(t, a, 0, func(i []int64) float64 { return get(t, args[0], 10-i[0]) })
	})
	t.Run("clamped gather", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f(float(J) B, int32(I) C) -> (A) {\n A(i) = B(max(min(C(i), J-1), 0))\n}", "f")
		syms := map[string]int64{"J": 5, "I": 12}
		args := randomArgs(t, fn, syms, 6, -4, 9)
		checkAll(t, run(t, fn, args, syms)[0], 0, func(i []int64) float64 {
			c := int64(get(t, args[1], i[0]))
			return get(t, args[0], max(min(c, 4), 0))
		})
	})
	t.Run("where, ternary and integer division", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f() -> (O) {\n O(i) = i < 3 ? (i - 7) / 2 : (i - 7) % 3 where i in 0:6\n}", "f")
		checkAll(t, run(t, fn, nil, nil)[0], 0, func(i []int64) float64 {
			x := i[0] - 7
			if i[0] < 3 {
				return float64(floorDiv(x, 2))
			}
			return float64(x - 3*floorDiv(x, 3))
		})
	})
	t.Run("min and max reductions", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f(float(N, M) A) -> (L, H) {\n L(i) min=! A(i, j)\n H(i) max=! A(i, j)\n}", "f")
		syms := map[string]int64{"N": 4, "M": 6}
		args := randomArgs(t, fn, syms, 7, 0, 1)
		out := run(t, fn, args, syms)
		for r, pick := range []func(a, b float64) float64{math.Min, math.Max} {
			checkAll(t, out[r], 0, func(i []int64) float64 {
				v := get(t, args[0], i[0], 0)
				for j := int64(1); j < 6; j++ {
					v = pick(v, get(t, args[0], i[0], j))
				}
				return v
			})
		}
	})
	t.Run("scalar output and scalar argument", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f(float(N) A, float c) -> (S) {\n S +=! A(i) * c\n}", "f")
		syms := map[string]int64{"N": 10}
		args := randomArgs(t, fn, syms, 8, 0, 1)
		checkAll(t, run(t, fn, args, syms)[0], f32tol, func([]int64) float64 {
			s := 0.0
			for i := int64(0); i < 10; i++ {
				s += get(t, args[0], i) * get(t, args[1])
			}
			return s
		})
	})
	t.Run("sizes and index variables as data", func(t *testing.T) {
		fn := importFn(t, "t.tc", "def f(float(N, M) A) -> (B) {\n B(i, j) = A(i, j) / N + A.1 * j\n}", "f")
		syms := map[string]int64{"N": 3, "M": 4}
		args := randomArgs(t, fn, syms, 11, 0, 1)
		checkAll(t, run(t, fn, args, syms)[0], f32tol, func(i []int64) float64 {
			return get(t, args[0], i[0], i[1])/3 + float64(4*i[1])
		})
	})
	t.Run("logic and conversions", func(t *testing.T) {
		src := "def f(float(N) A, int32(N) C, bool(N) F) -> (B, O) {\n B(i) = A(i) > 0 && !F(i) || C(i) == 2 ? -A(i) : fabs(A(i))\n O(i) = C(i) * 2 + F(i)\n}"
		fn := importFn(t, "t.tc", src, "f")
		syms := map[string]int64{"N": 16}
		args := randomArgs(t, fn, syms, 12, 0, 4)
		for k := range args[2].I64 {
			args[2].I64[k] &= 1 // bool
		}
		out := run(t, fn, args, syms)
		checkAll(t, out[0], 0, func(i []int64) float64 {
			a, c, f := get(t, args[0], i[0]), get(t, args[1], i[0]), get(t, args[2], i[0])
			if a > 0 && f == 0 || c == 2 {
				return -a
			}
			return math.Abs(a)
		})
		checkAll(t, out[1], 0, func(i []int64) float64 { return get(t, args[1], i[0])*2 + get(t, args[2], i[0]) })
	})
	t.Run("inlined calls", func(t *testing.T) {
		src := `def sq(float(N) X) -> (Y) {
  Y(i) = X(i) * X(i)
}
def two(float(N) X, float(N) Z) -> (P, Q) {
  P(i) = X(i) + Z(i)
  Q(i) = X(i) - Z(i)
}
def f(float(N) A, float(N) B) -> (O) {
  T = sq(A)
  U, V = two(T, B)
  O(i) = U(i) * V(i)
}`
		fn := importFn(t, "t.tc", src, "f")
		syms := map[string]int64{"N": 7}
		args := randomArgs(t, fn, syms, 9, 0, 1)
		checkAll(t, run(t, fn, args, syms)[0], f32tol, func(i []int64) float64 {
			a, b := get(t, args[0], i[0]), get(t, args[1], i[0])
			return (a*a + b) * (a*a - b)
		})
	})
	t.Run("inlined call of a shifted tensor", func(t *testing.T) {
		src := `def first(float(N) X) -> (Y) {
  Y(i) = X(i) where i in 0:1
}
def f(float(N) A) -> (O) {
  S(i) = A(i - 2)
  O = first(S)
}`
		fn := importFn(t, "t.tc", src, "f")
		syms := map[string]int64{"N": 5}
		args := randomArgs(t, fn, syms, 10, 0, 1)
		checkAll(t, run(t, fn, args, syms)[0], 0, func([]int64) float64 { return get(t, args[0], 0) })
	})
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// TestInterpRuntimeCheck: a precondition that could not be proven is
// checked before anything runs, with a message naming the condition.
func TestInterpRuntimeCheck(t *testing.T) {
	fn := importFn(t, "t.tc", "def f(float(I) B, float(K) C, float(J) D) -> (A) {\n A(i, j) = B(i) * C(i + j) * D(j)\n}", "f")
	ok := map[string]int64{"I": 4, "J": 3, "K": 6}
	run(t, fn, randomArgs(t, fn, ok, 1, 0, 1), ok)
	bad := map[string]int64{"I": 4, "J": 3, "K": 5}
	_, err := interp.Run(fn, randomArgs(t, fn, bad, 1, 0, 1), bad)
	const want = "subset C_0[0:I + J - 1] = [0:6] is not inside the operand's C_0[0:K] = [0:5]"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
}
