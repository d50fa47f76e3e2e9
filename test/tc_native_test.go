package test

import (
	"math/rand"
	"os"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// Tensor Comprehensions compiled end to end: the imported module, printed,
// goes through the default -O2 pipeline (llc, gcc) and must agree with the
// reference interpreter on random inputs.

type nativeCase struct {
	name, src, fn string
	syms          map[string]int64
	lo, hi        int // range of random integer inputs
}

var nativeCases = []nativeCase{
	{name: "accumulate into the incoming output", src: "def f(float(N) B, float(W) K) -> (A) {\n A(i) += B(i + k) * K(k)\n}", syms: map[string]int64{"N": 11, "W": 3}},
	{name: "origin kept", src: "def f(float(I) B) -> (A) {\n A(i) = B(10 - i)\n}", syms: map[string]int64{"I": 6}},
	{name: "stride 2", src: "def f(float(I) B) -> (A) {\n A(i) = B(2*i) + B(2*i+1)\n}", syms: map[string]int64{"I": 9}},
	{name: "precondition", src: "def f(float(I) B, float(K) C, float(J) D) -> (A) {\n A(i, j) = B(i) * C(i + j) * D(j)\n}", syms: map[string]int64{"I": 4, "J": 3, "K": 6}},
	{name: "backward convolution", src: "def f(float(N, M, OH) dO, float(M, C, KH) W) -> (dI) {\n dI(n,c,h) +=! dO(n,m,h - kh) * W(m,c,kh)\n}", syms: map[string]int64{"N": 2, "M": 3, "OH": 7, "C": 2, "KH": 3}},
	{name: "where and integer arithmetic", src: "def f() -> (O) {\n O(i) = i < 3 ? (i - 7) / 2 : (i - 7) % 3 where i in 0:6\n}"},
	{name: "clamped gather", src: "def f(float(J) B, int32(I) C) -> (A) {\n A(i) = B(max(min(C(i), J-1), 0))\n}", syms: map[string]int64{"J": 5, "I": 12}, lo: -4, hi: 9},
	{name: "min and max reductions", src: "def f(float(N, M) A) -> (L, H) {\n L(i) min=! A(i, j)\n H(i) max=! A(i, j)\n}", syms: map[string]int64{"N": 4, "M": 6}},
	{name: "sizes as data", src: "def f(float(N, M) A) -> (B) {\n B(i, j) = A(i, j) / N + A.1 * j\n}", syms: map[string]int64{"N": 3, "M": 4}},
	{name: "logic", src: "def f(float(N) A, int32(N) C, bool(N) F) -> (B, O) {\n B(i) = A(i) > 0 && !F(i) || C(i) == 1 ? -A(i) : fabs(A(i))\n O(i) = C(i) * 2 + F(i)\n}", syms: map[string]int64{"N": 16}, lo: 0, hi: 2},
	// A reduction read at every column (issue 21: materialized once
	// instead of recomputed per element).
	{name: "softmax", src: "def f(float(N, D) I) -> (O) {\n mx(n) max=! I(n, d)\n e(n, d) = exp(I(n, d) - mx(n))\n s(n) +=! e(n, d)\n O(n, d) = e(n, d) / s(n)\n}", syms: map[string]int64{"N": 5, "D": 13}},
	{name: "layernorm", src: "def f(float(N, D) X) -> (O) {\n m(n) +=! X(n, d)\n mu(n) = m(n) / D\n v(n) +=! (X(n, d) - mu(n)) * (X(n, d) - mu(n))\n O(n, d) = (X(n, d) - mu(n)) * rsqrt(v(n) / D + 0.00001)\n}", syms: map[string]int64{"N": 4, "D": 19}},
	{name: "inlined calls", src: "def sq(float(N) X) -> (Y) {\n Y(i) = X(i) * X(i)\n}\ndef f(float(N) A, float c) -> (O) {\n T = sq(A)\n O(i) = T(i) * c + exp(A(i))\n}", syms: map[string]int64{"N": 7}},
}

func TestTCNative(t *testing.T) {
	if _, err := native.Tool("llc"); err != nil {
		t.Skipf("needs LLVM 14's llc (make deps): %v", err)
	}
	if _, err := os.Stat("/usr/bin/gcc"); err != nil {
		t.Skip("needs gcc (make deps)")
	}
	cases := append([]nativeCase(nil), nativeCases...)
	for _, ex := range []struct {
		name string
		syms map[string]int64
	}{
		{"matmul", map[string]int64{"M": 5, "K": 7, "N": 3}},
		{"conv1d", map[string]int64{"N": 20, "W": 4}},
		{"fcrelu", map[string]int64{"B": 3, "M": 8, "N": 5}},
	} {
		data, err := os.ReadFile(examplePath(t, ex.name+".tc"))
		if err != nil {
			t.Fatal(err)
		}
		src := string(data)
		cases = append(cases, nativeCase{name: ex.name, src: src, fn: ex.name, syms: ex.syms})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.fn == "" {
				c.fn = "f"
			}
			if c.hi == 0 {
				c.lo, c.hi = -8, 8
			}
			m, diags := tc.Import("t.tc", c.src)
			if m == nil {
				t.Fatal(diags)
			}
			text := printer.Module(m, printer.Options{})
			fn := tcFunc(t, c.src, c.fn)
			llvm, err := native.Compile("t.tir", text, 2, "x86_64")
			if err != nil {
				t.Fatalf("compile: %v\n%s", err, text)
			}
			prog, err := native.Build(llvm, fn, t.TempDir())
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			for seed := int64(1); seed <= 2; seed++ {
				args := randomIntRange(t, fn, c.syms, seed, c.lo, c.hi)
				want, err := interp.Run(fn, args, c.syms)
				if err != nil {
					t.Fatalf("interpreter: %v", err)
				}
				got, _, err := prog.Run(args, c.syms, 1)
				if err != nil {
					t.Fatalf("compiled: %v", err)
				}
				d, err := native.Compare(got, want)
				if err != nil {
					t.Fatal(err)
				}
				if d.Compared == 0 {
					t.Fatal("nothing compared")
				}
				if d.Mismatch > 0 && d.MaxRel > 1e-5 {
					t.Fatalf("seed %d: %d of %d elements differ (largest %.3g, relative %.3g) at %s", seed, d.Mismatch, d.Compared, d.MaxAbs, d.MaxRel, d.Where)
				}
			}
		})
	}
}

// tcFunc imports TC source (a second, independent copy of the module) and
// returns the named function.
func tcFunc(t *testing.T, src, name string) *ir.Operation {
	t.Helper()
	m, diags := tc.Import("t.tc", src)
	if m == nil || diags.HasErrors() {
		t.Fatal(diags)
	}
	fn := m.Lookup(name)
	if fn == nil {
		t.Fatalf("no function @%s", name)
	}
	return fn
}

// randomIntRange is randomArgs with integer inputs in [lo, hi) (i1 inputs
// become 0 or 1).
func randomIntRange(t *testing.T, fn *ir.Operation, syms map[string]int64, seed int64, lo, hi int) []*interp.Tensor {
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
			} else if it, _ := tt.Elem.(ir.IntegerType); it.Width == 1 {
				a.I64[i] = int64(rng.Intn(2))
			} else {
				a.I64[i] = int64(lo + rng.Intn(hi-lo))
			}
		}
		args = append(args, a)
	}
	return args
}
