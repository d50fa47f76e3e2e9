package test

import (
	"fmt"
	"math"
	"os"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// Tensor Comprehensions checked against values computed independently in
// Go: for each case the reference interpreter and the compiled code
// (-O2, llc, gcc) run on the same random inputs and both must give the
// domain (inferred ranges included) and the values the case's reference
// function computes from the inputs. TestTCNative compares compiled code
// with the interpreter; this test also catches what both would get wrong
// the same way (an import bug, a wrong inferred range).

// tcSemCase is one TC program and its expected results.
type tcSemCase struct {
	name, src, fn string
	syms          map[string]int64
	lo, hi        int // range of random integer inputs (default [-8, 8))
	// ref computes the expected results from the inputs (by argument name).
	ref func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor
}

// Helpers of the reference functions.

func tcDim(name string, lo, hi int64) interp.Dim { return interp.Dim{Name: name, Lo: lo, Hi: hi} }

// val reads t at absolute coordinates.
func tcVal(t *interp.Tensor, p ...int64) float64 {
	off := 0
	for k, d := range t.Dims {
		off = off*int(d.Extent()) + int(p[k]-d.Lo)
	}
	if t.F64 != nil {
		return t.F64[off]
	}
	return float64(t.I64[off])
}

// expect builds a tensor by evaluating f at every point (absolute
// coordinates), rounding to the element type.
func tcExpect(elem ir.Type, dims []interp.Dim, f func(p []int64) float64) *interp.Tensor {
	t, err := interp.NewTensor(elem, dims)
	if err != nil {
		panic(err)
	}
	p := make([]int64, len(dims))
	for k, d := range dims {
		p[k] = d.Lo
	}
	for i := 0; i < t.Len(); i++ {
		v := f(p)
		if t.F64 != nil {
			t.F64[i] = interp.RoundTo(elem, v)
		} else {
			t.I64[i] = int64(v)
		}
		for k := len(dims) - 1; k >= 0; k-- {
			if p[k]++; p[k] < dims[k].Hi {
				break
			}
			p[k] = dims[k].Lo
		}
	}
	return t
}

func tcF32(x float64) float64 { return float64(float32(x)) }

func tcSum(lo, hi int64, f func(k int64) float64) float64 {
	s := 0.0
	for k := lo; k < hi; k++ {
		s += f(k)
	}
	return s
}

var tcSemCases = []tcSemCase{
	// Item 1: constant sizes in parameter types.
	{name: "constant sizes", fn: "consts",
		src:  "def consts(float(4, 3) X, float(M, 5) L) -> (O) {\n  O(i, m) +=! X(i, j) * L(m, j + 2)\n}",
		syms: map[string]int64{"M": 6},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			X, L := in["X"], in["L"]
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, 4), tcDim("m", 0, s["M"])}, func(p []int64) float64 {
				return tcSum(0, 3, func(j int64) float64 { return tcVal(X, p[0], j) * tcVal(L, p[1], j+2) })
			})}
		}},
	// Item 2: casts.
	{name: "casts", fn: "casts", lo: -8, hi: 8,
		src: `def casts(float(N) A, int32(N) C) -> (O, P, Q) {
  O(i) = float(C(i)) / 2 + int32(A(i) * 4)
  P(i) = int8(C(i) * 40) + bool(C(i))
  Q(i) = double(A(i)) * 3 + int64(-2.5)
}`,
		syms: map[string]int64{"N": 16},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			A, C := in["A"], in["C"]
			d := []interp.Dim{tcDim("i", 0, s["N"])}
			return []*interp.Tensor{
				tcExpect(ir.F32, d, func(p []int64) float64 {
					return float64(float32(tcVal(C, p[0]))/2) + math.Trunc(tcVal(A, p[0])*4)
				}),
				tcExpect(ir.I8, d, func(p []int64) float64 {
					c := int32(tcVal(C, p[0]))
					b := int8(0)
					if c != 0 {
						b = 1
					}
					return float64(int8(c*40) + b)
				}),
				tcExpect(ir.F64, d, func(p []int64) float64 { return tcVal(A, p[0])*3 - 2 }),
			}
		}},
	// Item 3: builtins tir has (rsqrt, tan, round) and compositions.
	{name: "builtins", fn: "builtins",
		src: `def builtins(float(N) A, float(N) B) -> (O1, O2, O3, O4, O5, O6) {
  O1(i) = rsqrt(fabs(A(i)) + 1) + tan(A(i)) + round(A(i) * 3)
  O2(i) = trunc(A(i) * 3) + fdim(A(i), B(i))
  O3(i) = fdivide(A(i), B(i) + 2) + exp2(A(i)) + exp10(B(i))
  O4(i) = log2(fabs(A(i)) + 0.5) + log10(fabs(B(i)) + 0.5)
  O5(i) = fmin(sqrt(A(i)), B(i)) + fmax(B(i), sqrt(A(i)))
  O6(i) = fmin(A(i), B(i), 0.25) + fmax(A(i), 0)
}`,
		syms: map[string]int64{"N": 64},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			A, B := in["A"], in["B"]
			d := []interp.Dim{tcDim("i", 0, s["N"])}
			each := func(f func(a, b float64) float64) *interp.Tensor {
				return tcExpect(ir.F32, d, func(p []int64) float64 { return f(tcVal(A, p[0]), tcVal(B, p[0])) })
			}
			fdim := func(x, y float64) float64 { return math.Max(x-y, 0) }
			return []*interp.Tensor{
				each(func(a, b float64) float64 {
					return 1/math.Sqrt(math.Abs(a)+1) + math.Tan(a) + math.Round(tcF32(a*3))
				}),
				each(func(a, b float64) float64 { return math.Trunc(tcF32(a*3)) + fdim(a, b) }),
				each(func(a, b float64) float64 { return a/(b+2) + math.Exp2(a) + math.Pow(10, b) }),
				each(func(a, b float64) float64 { return math.Log2(math.Abs(a)+0.5) + math.Log10(math.Abs(b)+0.5) }),
				each(func(a, b float64) float64 {
					if a < 0 { // sqrt(a) is NaN: fmin and fmax give b
						return 2 * b
					}
					r := math.Sqrt(a)
					return math.Min(r, b) + math.Max(b, r)
				}),
				each(func(a, b float64) float64 { return math.Min(math.Min(a, b), 0.25) + math.Max(a, 0) }),
			}
		}},
	// Item 4: <=> is parsed and ignored.
	{name: "equivalence annotation", fn: "mm",
		src:  "def mm(float(M, K) A, float(K, N) B) -> (C) {\n  C(m, n) +=! A(m, k) * B(k, n) <=> matmul(A(m, k), B(k, n))\n}",
		syms: map[string]int64{"M": 3, "K": 5, "N": 4},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcMatmul(in["A"], in["B"], s["M"], s["K"], s["N"], "m", "n")}
		}},
	// Item 5: where bindings.
	{name: "where bindings", fn: "lets",
		src: `def lets(float(N) A, float(M) B) -> (O, P) {
  O(i) +=! t * u where t = A(i) + 1, u = B(j) * t
  P(i) = A(k2) + A(k2 + 1) where k2 = 2 * i
}`,
		syms: map[string]int64{"N": 7, "M": 4},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			A, B := in["A"], in["B"]
			return []*interp.Tensor{
				tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["N"])}, func(p []int64) float64 {
					t := tcF32(tcVal(A, p[0]) + 1)
					return tcSum(0, s["M"], func(j int64) float64 { return t * tcF32(tcVal(B, j)*t) })
				}),
				tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["N"]/2)}, func(p []int64) float64 {
					return tcVal(A, 2*p[0]) + tcVal(A, 2*p[0]+1)
				}),
			}
		}},
	// Item 6: in-place updates join the existing range.
	{name: "in-place updates", fn: "inplace",
		src: `def inplace(float(N) B, float(M) C, float(N, K) D) -> (O, P) {
  O(i) = B(i)
  O(i) += 1
  O(i) *= C(i)
  P(i) = B(i)
  P(i) max= D(i, k)
}`,
		syms: map[string]int64{"N": 9, "M": 6, "K": 3},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			B, C, D := in["B"], in["C"], in["D"]
			return []*interp.Tensor{
				tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, min(s["N"], s["M"]))}, func(p []int64) float64 {
					return tcF32(tcVal(B, p[0])+1) * tcVal(C, p[0])
				}),
				tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["N"])}, func(p []int64) float64 {
					m := tcVal(B, p[0])
					for k := int64(0); k < s["K"]; k++ {
						m = math.Max(m, tcVal(D, p[0], k))
					}
					return m
				}),
			}
		}},
	// Item 7: a result whose lower bound is a max keeps that origin (and
	// compiles: the store subtracts max(A, B), computed at entry).
	{name: "max lower bound", fn: "f",
		src:  "def f(float(N) I, float(M) J, float(A) X, float(B) Y) -> (O) {\n  O(i) = I(i - A) + J(i - B)\n}",
		syms: map[string]int64{"N": 8, "M": 9, "A": 3, "B": 1},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			a, b := s["A"], s["B"]
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", max(a, b), min(s["N"]+a, s["M"]+b))}, func(p []int64) float64 {
				return tcVal(in["I"], p[0]-a) + tcVal(in["J"], p[0]-b)
			})}
		}},
	{name: "max lower bound, second offset larger", fn: "f",
		src:  "def f(float(N) I, float(N) J, float(A) X, float(B) Y) -> (O, P) {\n  O(i) = I(i - A) + J(i - B)\n  P(i) = O(i) * O(i + 1)\n}",
		syms: map[string]int64{"N": 7, "A": 1, "B": 4},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			a, b, n := s["A"], s["B"], s["N"]
			o := func(i int64) float64 { return tcF32(tcVal(in["I"], i-a) + tcVal(in["J"], i-b)) }
			return []*interp.Tensor{
				tcExpect(ir.F32, []interp.Dim{tcDim("i", max(a, b), min(n+a, n+b))}, func(p []int64) float64 { return o(p[0]) }),
				tcExpect(ir.F32, []interp.Dim{tcDim("i", max(a, b), min(n+a, n+b)-1)}, func(p []int64) float64 { return o(p[0]) * o(p[0]+1) }),
			}
		}},

	// Item 9: the worked results of spec 03 (docs/tc.md), row by row.
	{name: "spec 1: shifted sum", fn: "f",
		src:  "def f(float(I) B, float(I) C) -> (A) {\n  A(i) = B(i) + C(i-2)\n}",
		syms: map[string]int64{"I": 7},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 2, s["I"])}, func(p []int64) float64 {
				return tcVal(in["B"], p[0]) + tcVal(in["C"], p[0]-2)
			})}
		}},
	{name: "spec 2: matmul", fn: "f",
		src:  "def f(float(M, K) A, float(K, N) B) -> (C) {\n  C(m,n) +=! A(m,r_k) * B(r_k,n)\n}",
		syms: map[string]int64{"M": 4, "K": 6, "N": 3},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcMatmul(in["A"], in["B"], s["M"], s["K"], s["N"], "m", "n")}
		}},
	{name: "spec 3: convolution accumulating into the incoming output", fn: "f",
		src:  "def f(float(N) B, float(W) K) -> (A) {\n  A(i) += B(i + k) * K(k)\n}",
		syms: map[string]int64{"N": 10, "W": 3},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			// The incoming contents of A are the extra argument A.
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["N"]-s["W"]+1)}, func(p []int64) float64 {
				return tcVal(in["A"], p[0]) + tcSum(0, s["W"], func(k int64) float64 { return tcVal(in["B"], p[0]+k) * tcVal(in["K"], k) })
			})}
		}},
	{name: "spec 4: reversed", fn: "f",
		src:  "def f(float(I) B) -> (A) {\n  A(i) = B(10 - i)\n}",
		syms: map[string]int64{"I": 6},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 11-s["I"], 11)}, func(p []int64) float64 { return tcVal(in["B"], 10-p[0]) })}
		}},
	{name: "spec 5: stride 2", fn: "f",
		src:  "def f(float(I) B) -> (A) {\n  A(i) = B(2*i)\n}",
		syms: map[string]int64{"I": 9},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, (s["I"]+1)/2)}, func(p []int64) float64 { return tcVal(in["B"], 2*p[0]) })}
		}},
	{name: "spec 6: stride 2, two reads", fn: "f",
		src:  "def f(float(I) B) -> (A) {\n  A(i) = B(2*i) + B(2*i+1)\n}",
		syms: map[string]int64{"I": 9},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["I"]/2)}, func(p []int64) float64 {
				return tcVal(in["B"], 2*p[0]) + tcVal(in["B"], 2*p[0]+1)
			})}
		}},
	{name: "spec 7: where on a reduction variable", fn: "f",
		src:  "def f(float(I) B) -> (A) {\n  A(i) +=! B(2*i + k) where k in 0:2\n}",
		syms: map[string]int64{"I": 9},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["I"]/2)}, func(p []int64) float64 {
				return tcVal(in["B"], 2*p[0]) + tcVal(in["B"], 2*p[0]+1)
			})}
		}},
	{name: "spec 9: exists", fn: "f",
		src:  "def f(float(N) A, float c) -> (B) {\n  B(i) = c where exists A(i)\n}",
		syms: map[string]int64{"N": 5},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["N"])}, func(p []int64) float64 { return in["c"].F64[0] })}
		}},
	{name: "spec 10: precondition", fn: "f",
		src:  "def f(float(I) B, float(K) C, float(J) D) -> (A) {\n  A(i, j) = B(i) * C(i + j) * D(j)\n}",
		syms: map[string]int64{"I": 4, "J": 3, "K": 7},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["I"]), tcDim("j", 0, s["J"])}, func(p []int64) float64 {
				return tcF32(tcVal(in["B"], p[0])*tcVal(in["C"], p[0]+p[1])) * tcVal(in["D"], p[1])
			})}
		}},
	{name: "spec 11: origin kept", fn: "f",
		src:  "def f(float(I) B) -> (A) {\n  A(i) = B(i - 1)\n}",
		syms: map[string]int64{"I": 5},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 1, s["I"]+1)}, func(p []int64) float64 { return tcVal(in["B"], p[0]-1) })}
		}},
	{name: "spec 12: backward convolution", fn: "f",
		src:  "def f(float(N, M, OH) dO, float(M, C, KH) W) -> (dI) {\n  dI(n,c,h) +=! dO(n,m,h - kh) * W(m,c,kh)\n}",
		syms: map[string]int64{"N": 2, "M": 3, "OH": 7, "C": 2, "KH": 3},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			dims := []interp.Dim{tcDim("n", 0, s["N"]), tcDim("c", 0, s["C"]), tcDim("h", s["KH"]-1, s["OH"])}
			return []*interp.Tensor{tcExpect(ir.F32, dims, func(p []int64) float64 {
				return tcSum(0, s["M"], func(m int64) float64 {
					return tcSum(0, s["KH"], func(kh int64) float64 { return tcVal(in["dO"], p[0], m, p[2]-kh) * tcVal(in["W"], m, p[1], kh) })
				})
			})}
		}},
	{name: "spec 13: where ranges", fn: "f",
		src: "def f() -> (O) {\n  O(i, j) = 3 where i in 4:8, j in 3:20\n}",
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.I32, []interp.Dim{tcDim("i", 4, 8), tcDim("j", 3, 20)}, func([]int64) float64 { return 3 })}
		}},

	// TC's documented programs, written here (not copied): the matrix
	// vector product of its introduction, a 2-D convolution, a strided max
	// pooling, a tensor contraction and a softmax with temporaries.
	{name: "TC docs: matrix-vector product", fn: "mv",
		src:  "def mv(float(R, C) A, float(C) x) -> (o) {\n  o(r) +=! A(r, r_c) * x(r_c)\n}",
		syms: map[string]int64{"R": 5, "C": 7},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("r", 0, s["R"])}, func(p []int64) float64 {
				return tcSum(0, s["C"], func(c int64) float64 { return tcVal(in["A"], p[0], c) * tcVal(in["x"], c) })
			})}
		}},
	{name: "TC docs: 2-D convolution", fn: "conv",
		src:  "def conv(float(B, IP, H, W) input, float(OP, IP, KH, KW) weight) -> (output) {\n  output(b, op, h, w) +=! input(b, ip, h + kh, w + kw) * weight(op, ip, kh, kw)\n}",
		syms: map[string]int64{"B": 2, "IP": 2, "H": 6, "W": 5, "OP": 3, "KH": 3, "KW": 2},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			dims := []interp.Dim{tcDim("b", 0, s["B"]), tcDim("op", 0, s["OP"]), tcDim("h", 0, s["H"]-s["KH"]+1), tcDim("w", 0, s["W"]-s["KW"]+1)}
			return []*interp.Tensor{tcExpect(ir.F32, dims, func(p []int64) float64 {
				return tcSum(0, s["IP"], func(ip int64) float64 {
					return tcSum(0, s["KH"], func(kh int64) float64 {
						return tcSum(0, s["KW"], func(kw int64) float64 {
							return tcVal(in["input"], p[0], ip, p[2]+kh, p[3]+kw) * tcVal(in["weight"], p[1], ip, kh, kw)
						})
					})
				})
			})}
		}},
	{name: "TC docs: strided max pooling with constant window", fn: "maxpool",
		src:  "def maxpool(float(N, H, W) I) -> (O) {\n  O(n, h, w) max=! I(n, 2*h + kh, 2*w + kw) where kh in 0:2, kw in 0:2\n}",
		syms: map[string]int64{"N": 2, "H": 7, "W": 6},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			dims := []interp.Dim{tcDim("n", 0, s["N"]), tcDim("h", 0, (s["H"]-2)/2+1), tcDim("w", 0, (s["W"]-2)/2+1)}
			return []*interp.Tensor{tcExpect(ir.F32, dims, func(p []int64) float64 {
				m := math.Inf(-1)
				for kh := int64(0); kh < 2; kh++ {
					for kw := int64(0); kw < 2; kw++ {
						m = math.Max(m, tcVal(in["I"], p[0], 2*p[1]+kh, 2*p[2]+kw))
					}
				}
				return m
			})}
		}},
	{name: "TC docs: tensor contraction", fn: "tensordot",
		src:  "def tensordot(float(N, C1, C2, H, W) I0, float(N, C2, C3, H, W) I1) -> (O) {\n  O(n, c1, c3, h, w) +=! I0(n, c1, c2, h, w) * I1(n, c2, c3, h, w)\n}",
		syms: map[string]int64{"N": 2, "C1": 3, "C2": 4, "C3": 2, "H": 2, "W": 3},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			dims := []interp.Dim{tcDim("n", 0, s["N"]), tcDim("c1", 0, s["C1"]), tcDim("c3", 0, s["C3"]), tcDim("h", 0, s["H"]), tcDim("w", 0, s["W"])}
			return []*interp.Tensor{tcExpect(ir.F32, dims, func(p []int64) float64 {
				return tcSum(0, s["C2"], func(c2 int64) float64 {
					return tcVal(in["I0"], p[0], p[1], c2, p[3], p[4]) * tcVal(in["I1"], p[0], c2, p[2], p[3], p[4])
				})
			})}
		}},
	{name: "softmax with temporaries", fn: "softmax",
		src: `def softmax(float(N, C) X) -> (O) {
  mx(n) max=! X(n, c)
  e(n, c) = exp(X(n, c) - mx(n))
  s(n) +=! e(n, c)
  O(n, c) = e(n, c) / s(n)
}`,
		syms: map[string]int64{"N": 3, "C": 5},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			X := in["X"]
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("n", 0, s["N"]), tcDim("c", 0, s["C"])}, func(p []int64) float64 {
				m := math.Inf(-1)
				for c := int64(0); c < s["C"]; c++ {
					m = math.Max(m, tcVal(X, p[0], c))
				}
				total := tcSum(0, s["C"], func(c int64) float64 { return math.Exp(tcVal(X, p[0], c) - m) })
				return math.Exp(tcVal(X, p[0], p[1])-m) / total
			})}
		}},
}

func tcMatmul(A, B *interp.Tensor, M, K, N int64, m, n string) *interp.Tensor {
	return tcExpect(ir.F32, []interp.Dim{tcDim(m, 0, M), tcDim(n, 0, N)}, func(p []int64) float64 {
		return tcSum(0, K, func(k int64) float64 { return tcVal(A, p[0], k) * tcVal(B, k, p[1]) })
	})
}

// tcSharedExamples are the bundled TC examples with their references.
var tcSharedExamples = []tcSemCase{
	{name: "matmul", fn: "matmul", syms: map[string]int64{"M": 5, "K": 7, "N": 3},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcMatmul(in["A"], in["B"], s["M"], s["K"], s["N"], "m", "n")}
		}},
	{name: "conv1d", fn: "conv1d", syms: map[string]int64{"N": 20, "W": 4},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("i", 0, s["N"]-s["W"]+1)}, func(p []int64) float64 {
				return tcSum(0, s["W"], func(k int64) float64 { return tcVal(in["I"], p[0]+k) * tcVal(in["Wt"], k) })
			})}
		}},
	{name: "fcrelu", fn: "fcrelu", syms: map[string]int64{"B": 3, "M": 8, "N": 5},
		ref: func(in map[string]*interp.Tensor, s map[string]int64) []*interp.Tensor {
			return []*interp.Tensor{tcExpect(ir.F32, []interp.Dim{tcDim("b", 0, s["B"]), tcDim("n", 0, s["N"])}, func(p []int64) float64 {
				x := tcF32(tcSum(0, s["M"], func(m int64) float64 { return tcVal(in["I"], p[0], m) * tcVal(in["W1"], p[1], m) }))
				return math.Max(tcF32(x+tcVal(in["B1"], p[1])), 0)
			})}
		}},
}

func TestTCSemantics(t *testing.T) {
	cases := append([]tcSemCase(nil), tcSemCases...)
	for _, c := range tcSharedExamples {
		data, err := os.ReadFile(examplePath(t, c.name+".tc"))
		if err != nil {
			t.Fatal(err)
		}
		c.name, c.src = "example "+c.name, string(data)
		cases = append(cases, c)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.hi == 0 {
				c.lo, c.hi = -8, 8
			}
			m, diags := tc.Import("t.tc", c.src)
			if m == nil {
				t.Fatal(diags)
			}
			fn := m.Lookup(c.fn)
			if fn == nil {
				t.Fatalf("no function @%s", c.fn)
			}
			names := interp.ArgNames(fn)
			args := randomIntRange(t, fn, c.syms, 7, c.lo, c.hi)
			in := map[string]*interp.Tensor{}
			for i, n := range names {
				in[n] = args[i]
			}
			want := c.ref(in, c.syms)
			got, err := interp.Run(fn, args, c.syms)
			if err != nil {
				t.Fatalf("interpreter: %v", err)
			}
			if err := tcSameResults(got, want); err != nil {
				t.Errorf("interpreter: %v", err)
			}
			t.Run("compiled", func(t *testing.T) {
				needToolchain(t)
				text := printer.Module(m, printer.Options{})
				llvm, err := native.Compile("t.tir", text, 2, "x86_64")
				if err != nil {
					t.Fatalf("compile: %v\n%s", err, text)
				}
				prog, err := native.Build(llvm, tcFunc(t, c.src, c.fn), t.TempDir())
				if err != nil {
					t.Fatalf("build: %v", err)
				}
				res, _, err := prog.Run(args, c.syms, 1)
				if err != nil {
					t.Fatalf("run: %v", err)
				}
				if err := tcSameResults(res, want); err != nil {
					t.Error(err)
				}
			})
		})
	}
}

// sameResults compares results with the expected tensors: the same
// intervals, and values equal (integers) or within a relative 1e-5 (floats,
// whose reference is computed in float64; NaN equals NaN).
func tcSameResults(got, want []*interp.Tensor) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d results, want %d", len(got), len(want))
	}
	for r, w := range want {
		g := got[r]
		if !ir.TypeEqual(g.Elem, w.Elem) {
			return fmt.Errorf("result #%d has element type %s, want %s", r, g.Elem, w.Elem)
		}
		if len(g.Dims) != len(w.Dims) {
			return fmt.Errorf("result #%d has dimensions %v, want %v", r, g.Dims, w.Dims)
		}
		for k := range w.Dims {
			if g.Dims[k].Lo != w.Dims[k].Lo || g.Dims[k].Hi != w.Dims[k].Hi {
				return fmt.Errorf("result #%d has dimensions %v, want %v", r, g.Dims, w.Dims)
			}
		}
		for i := 0; i < w.Len(); i++ {
			if g.Masked(i) {
				return fmt.Errorf("result #%d element %d is masked", r, i)
			}
			if w.F64 != nil {
				a, b := g.F64[i], w.F64[i]
				if math.IsNaN(a) && math.IsNaN(b) || math.Abs(a-b) <= 1e-5*math.Max(1, math.Abs(b)) {
					continue
				}
				return fmt.Errorf("result #%d element %d: got %v, want %v", r, i, a, b)
			}
			if g.I64[i] != w.I64[i] {
				return fmt.Errorf("result #%d element %d: got %d, want %d", r, i, g.I64[i], w.I64[i])
			}
		}
	}
	return nil
}
