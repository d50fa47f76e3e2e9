package test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower"
	"tir/passes"
	"tir/tools/native"
)

// Contractions compiled with -O3, where affine-contraction-tile blocks
// them for registers and caches (passes/affinepasses/contraction.go): the
// results must be bitwise the interpreter's and, for the matrix products,
// the values computed here in float32 in the order of k; with
// --fp-contract=fast (FMA) they must stay within the rounding error of a
// dot product. Sizes cover full tiles, remainders in every direction,
// several k blocks, symbolic and constant sizes; the generic ISA (SSE2,
// 6 x 8 tiles), AVX2's (x86-64-v3: 8 lanes), this machine's
// (--mcpu=native: 6 x 64 with AVX-512), small cache blocks (several n
// and k blocks at these sizes) and threads; and at -O2, without the
// pass, for the same results.

type contractionCase struct {
	name, file, src, fn string
	sizes               []map[string]int64
	// ref computes the result independently (nil: the interpreter only).
	ref func(args []*interp.Tensor, syms map[string]int64) []float64
	// tiled says that -O3 must apply the transformation (checked on the
	// LLVM IR: its broadcasts are shufflevectors, which nothing else emits;
	// mark, when set, is what to look for instead: a tile with no
	// broadcast operand reads a panel).
	tiled bool
	mark  string
	// transposed says that an operand read with n elsewhere than in its
	// last subscript is packed by VL x VL blocks transposed with
	// shuffles (their first round takes lane 0 of one row, then lane 0
	// of the next: mask <0, VL, 2, ...>), wherever there are panels.
	transposed bool
	// reduced names the size symbol of the reduced dimension ("K" when
	// empty; a constant size when it is a number).
	reduced string
	// modes are the contractionModes compiled (all when nil): each build
	// costs an llc and a gcc run.
	modes []string
}

// matmulRef is C(m, n) = sum over k in order of A(m, k) * B(k, n), each
// product and each sum rounded to float32 (the conversions keep Go from
// fusing them).
func matmulRef(args []*interp.Tensor, syms map[string]int64) []float64 {
	a, b := args[0], args[1]
	M, K, N := a.Dims[0].Extent(), a.Dims[1].Extent(), b.Dims[1].Extent()
	out := make([]float64, M*N)
	for m := int64(0); m < M; m++ {
		for n := int64(0); n < N; n++ {
			s := float32(0)
			for k := int64(0); k < K; k++ {
				p := float32(float32(a.F64[m*K+k]) * float32(b.F64[k*N+n]))
				s = float32(s + p)
			}
			out[m*N+n] = float64(s)
		}
	}
	return out
}

var contractionCases = []contractionCase{
	{name: "matmul", file: "matmul.tc", fn: "matmul", tiled: true, ref: matmulRef, sizes: []map[string]int64{
		{"M": 1, "K": 1, "N": 1}, {"M": 13, "K": 17, "N": 9}, {"M": 6, "K": 5, "N": 64},
		{"M": 37, "K": 300, "N": 150}, {"M": 64, "K": 257, "N": 128}, {"M": 5, "K": 3, "N": 71},
	}},
	{name: "constant sizes", fn: "mmc", tiled: true, reduced: "300", modes: []string{"O3", "O3 small blocks", "O3 native"}, ref: matmulRef, src: `tir.func @mmc(%A: !tir.tensor<f32, m[0:70], k[0:300]>, %B: !tir.tensor<f32, k[0:300], n[0:90]>) -> !tir.tensor<f32, m[0:70], n[0:90]> {
  %p = tir.mul %A, %B
  %C = tir.reduce add %p over [k]
  tir.return %C : !tir.tensor<f32, m[0:70], n[0:90]>
}
`, sizes: []map[string]int64{{}}},
	{name: "batched", fn: "bmm", tiled: true, modes: []string{"O3", "O3 native small blocks", "O3 native threads"}, src: "def bmm(float(B, M, K) X, float(B, K, N) Y) -> (Z) {\n  Z(b, m, n) +=! X(b, m, k) * Y(b, k, n)\n}\n",
		sizes: []map[string]int64{{"B": 3, "M": 7, "K": 20, "N": 70}, {"B": 2, "M": 13, "K": 270, "N": 33}}},
	{name: "f64", fn: "mm64", tiled: true, modes: []string{"O3", "O3 native"}, src: "def mm64(double(M, K) A, double(K, N) B) -> (C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n",
		sizes: []map[string]int64{{"M": 11, "K": 260, "N": 37}, {"M": 2, "K": 3, "N": 5}}},
	{name: "int32", fn: "mmi", tiled: true, modes: []string{"O3 native", "O3 native fp-contract"}, src: "def mmi(int32(M, K) A, int32(K, N) B) -> (C) {\n  C(m, n) +=! A(m, k) * B(k, n)\n}\n",
		sizes: []map[string]int64{{"M": 9, "K": 300, "N": 45}}},
	{name: "max-plus", fn: "maxplus", tiled: true, modes: []string{"O3", "O3 native"}, src: "def maxplus(float(M, K) A, float(K, N) B) -> (C) {\n  C(m, n) max=! A(m, k) + B(k, n)\n}\n",
		sizes: []map[string]int64{{"M": 19, "K": 261, "N": 70}}},
	{name: "shifted operands", fn: "shifted", tiled: true, modes: []string{"O3 small blocks", "O3 native"}, src: "def shifted(float(M, K) A, float(K, N) B) -> (C) {\n  C(m, n) +=! A(m + 1, k) * B(k, n + 2)\n}\n",
		sizes: []map[string]int64{{"M": 14, "K": 33, "N": 75}, {"M": 8, "K": 2, "N": 9}}},
	{name: "conv1d", file: "conv1d.tc", fn: "conv1d", tiled: true, reduced: "W", modes: []string{"O3", "O3 native", "O3 native fp-contract"}, sizes: []map[string]int64{{"N": 40, "W": 5}, {"N": 300, "W": 37}}},
	{name: "fcrelu (transposed weights, bias, ReLU)", file: "fcrelu.tc", fn: "fcrelu", tiled: true, transposed: true, reduced: "M", modes: []string{"O3 native", "O3 small blocks"},
		sizes: []map[string]int64{{"B": 7, "M": 30, "N": 20}, {"B": 13, "M": 300, "N": 75}}},
	{name: "linear (W stored N x K, bias, ReLU)", fn: "linear", tiled: true, transposed: true, ref: linearRef, src: linearTC,
		modes: []string{"O3", "O3 small blocks", "O3 v3", "O3 native", "O3 native fp-contract", "O3 native threads", "O2", "O2 native threads"}, sizes: []map[string]int64{
			{"M": 1, "K": 1, "N": 1}, {"M": 13, "K": 300, "N": 70}, {"M": 6, "K": 5, "N": 64}, {"M": 37, "K": 257, "N": 150}, {"M": 8, "K": 513, "N": 18},
		}},
	{name: "linear, the bias as the initial value", fn: "linear", tiled: true, transposed: true, ref: linearBinitRef, modes: []string{"O3", "O3 small blocks", "O3 native threads"},
		src:   "def linear(float(M, K) X, float(N, K) W, float(N) B) -> (O) {\n  T(m, n) = B(n) where m in 0:M\n  T(m, n) += X(m, k) * W(n, k)\n  O(m, n) = max(T(m, n), 0)\n}\n",
		sizes: []map[string]int64{{"M": 13, "K": 300, "N": 70}, {"M": 7, "K": 3, "N": 33}}},
	{name: "linear, W stored K x N", fn: "linear", tiled: true, modes: []string{"O3 small blocks", "O3 native"},
		src:   "def linear(float(M, K) X, float(K, N) W, float(N) B) -> (O) {\n  T(m, n) +=! X(m, k) * W(k, n)\n  O(m, n) = max(T(m, n) + B(n), 0)\n}\n",
		sizes: []map[string]int64{{"M": 13, "K": 300, "N": 70}}},
	{name: "attention scores (batched, K transposed)", fn: "scores", tiled: true, transposed: true, reduced: "D", modes: []string{"O3", "O3 small blocks", "O3 v3", "O3 native", "O3 native threads", "O2"},
		src:   "def scores(float(B, L, D) Q, float(B, S, D) K) -> (O) {\n  O(b, l, s) +=! Q(b, l, d) * K(b, s, d)\n}\n",
		sizes: []map[string]int64{{"B": 3, "L": 13, "D": 70, "S": 37}, {"B": 1, "L": 6, "D": 300, "S": 64}}},
	// The transposing copy by blocks of VL x VL transposed in registers
	// (2, 4, 8 and 16 lanes), its remainders: the last values of k in a
	// block (K and the small k-block not multiples of VL), the columns of
	// the partial panel past its full vectors.
	{name: "linear f64 (W stored N x K)", fn: "linear", tiled: true, transposed: true, modes: []string{"O3", "O3 small blocks", "O3 v3", "O3 native"},
		src:   "def linear(double(M, K) X, double(N, K) W, double(N) B) -> (O) {\n  T(m, n) +=! X(m, k) * W(n, k)\n  O(m, n) = max(T(m, n) + B(n), 0)\n}\n",
		sizes: []map[string]int64{{"M": 7, "K": 37, "N": 21}, {"M": 13, "K": 300, "N": 75}}},
	{name: "int32, B stored N x K", fn: "mmi", tiled: true, transposed: true, modes: []string{"O3", "O3 v3", "O3 native"},
		src:   "def mmi(int32(M, K) A, int32(N, K) B) -> (C) {\n  C(m, n) +=! A(m, k) * B(n, k)\n}\n",
		sizes: []map[string]int64{{"M": 9, "K": 300, "N": 45}, {"M": 3, "K": 17, "N": 100}}},
	{name: "two reductions, W stored N x C x K", fn: "tdt", tiled: true, transposed: true, reduced: "C*K", modes: []string{"O3", "O3 small blocks", "O3 v3", "O3 native"},
		src:   "def tdt(float(I, C, K) A, float(N, C, K) W) -> (O) {\n  O(i, n) +=! A(i, c, k) * W(n, c, k)\n}\n",
		sizes: []map[string]int64{{"I": 7, "C": 3, "K": 37, "N": 40}, {"I": 2, "C": 2, "K": 16, "N": 70}}},
	{name: "conv2d NCHW", fn: "conv2d", tiled: true, reduced: "C*KH*KW", src: conv2dNCHW, sizes: []map[string]int64{
		{"N": 2, "C": 5, "H": 11, "W": 30, "M": 7, "KH": 3, "KW": 2}, {"N": 1, "C": 3, "H": 5, "W": 21, "M": 13, "KH": 1, "KW": 4},
		{"N": 1, "C": 40, "H": 4, "W": 70, "M": 6, "KH": 3, "KW": 3},
	}},
	{name: "conv2d NHWC", fn: "conv2d", tiled: true, reduced: "C*KH*KW", modes: []string{"O3", "O3 small blocks", "O3 native", "O3 native fp-contract", "O3 native threads", "O2"},
		src:   "def conv2d(float(N, H, W, C) I, float(KH, KW, C, M) Wt) -> (O) {\n  O(n, h, w, m) +=! I(n, h + kh, w + kw, c) * Wt(kh, kw, c, m)\n}\n",
		sizes: []map[string]int64{{"N": 2, "C": 5, "H": 11, "W": 9, "M": 70, "KH": 3, "KW": 2}, {"N": 1, "C": 30, "H": 5, "W": 8, "M": 13, "KH": 2, "KW": 3}}},
	{name: "depthwise conv2d NCHW", fn: "dw", tiled: true, reduced: "KH*KW", modes: []string{"O3", "O3 native", "O3 native small blocks"},
		src:   "def dw(float(N, C, H, W) I, float(C, KH, KW) Wt) -> (O) {\n  O(n, c, h, w) +=! I(n, c, h + kh, w + kw) * Wt(c, kh, kw)\n}\n",
		sizes: []map[string]int64{{"N": 2, "C": 3, "H": 11, "W": 37, "KH": 3, "KW": 3}}},
	{name: "depthwise conv2d NHWC", fn: "dw", tiled: true, mark: "%panel", reduced: "KH*KW", modes: []string{"O3", "O3 native", "O3 small blocks"},
		src:   "def dw(float(N, H, W, C) I, float(KH, KW, C) Wt) -> (O) {\n  O(n, h, w, c) +=! I(n, h + kh, w + kw, c) * Wt(kh, kw, c)\n}\n",
		sizes: []map[string]int64{{"N": 2, "C": 37, "H": 6, "W": 9, "KH": 3, "KW": 2}}},
	{name: "tensordot", fn: "tensordot", tiled: true, reduced: "K*L", modes: []string{"O3", "O3 small blocks", "O3 native", "O3 native fp-contract", "O3 native threads", "O2"},
		src:   "def tensordot(float(I, K, J, L) A, float(L, K, N) B) -> (O) {\n  O(i, j, n) +=! A(i, k, j, l) * B(l, k, n)\n}\n",
		sizes: []map[string]int64{{"I": 3, "K": 4, "J": 13, "L": 6, "N": 37}, {"I": 2, "K": 30, "J": 7, "L": 11, "N": 70}}},
}

// linearTC is test/bench's linear.tc, issue 21's Linear layer.
const linearTC = "def linear(float(M, K) X, float(N, K) W, float(N) B) -> (O) {\n  T(m, n) +=! X(m, k) * W(n, k)\n  O(m, n) = max(T(m, n) + B(n), 0)\n}\n"

// conv2dNCHW is test/bench's conv2d_nchw.tc.
const conv2dNCHW = "def conv2d(float(N, C, H, W) I, float(M, C, KH, KW) Wt) -> (O) {\n  O(n, m, h, w) +=! I(n, c, h + kh, w + kw) * Wt(m, c, kh, kw)\n}\n"

// linearRef is O(m, n) = max(sum over k in order of X(m, k) * W(n, k) +
// B(n), 0) in float32, each product and sum rounded; linearBinitRef
// starts the sum from B(n) instead.
func linearRef(args []*interp.Tensor, syms map[string]int64) []float64 {
	return linearRefWith(args, false)
}

func linearBinitRef(args []*interp.Tensor, syms map[string]int64) []float64 {
	return linearRefWith(args, true)
}

func linearRefWith(args []*interp.Tensor, binit bool) []float64 {
	x, w, bias := args[0], args[1], args[2]
	M, K, N := x.Dims[0].Extent(), x.Dims[1].Extent(), w.Dims[0].Extent()
	out := make([]float64, M*N)
	for m := int64(0); m < M; m++ {
		for n := int64(0); n < N; n++ {
			s := float32(0)
			if binit {
				s = float32(bias.F64[n])
			}
			for k := int64(0); k < K; k++ {
				p := float32(float32(x.F64[m*K+k]) * float32(w.F64[n*K+k]))
				s = float32(s + p)
			}
			if !binit {
				s = float32(s + float32(bias.F64[n]))
			}
			out[m*N+n] = float64(max(s, 0))
		}
	}
	return out
}

// contractionMode is an -O3 pipeline compiled for the cases.
type contractionMode struct {
	name     string
	cpu      string
	contract bool
	// threads: --threads with parallel-min-work=0 (the row tiles, inside
	// the cache blocks, run on 3 threads that share the panels).
	threads bool
	options map[string]string // affine-contraction-tile options
	// o2: -O2, without affine-contraction-tile (the same results from
	// the plain nests, vectorized otherwise).
	o2 bool
}

// contractionModes are the -O3 pipelines compiled for each case.
var contractionModes = []contractionMode{
	{name: "O3"},
	{name: "O3 small blocks", options: map[string]string{"rows": "3", "vectors": "2", "k-block": "7", "n-block": "16"}},
	{name: "O3 v3", cpu: "x86-64-v3"}, // AVX2: 8 lanes of f32
	{name: "O3 native", cpu: "native"},
	{name: "O3 native small blocks", cpu: "native", options: map[string]string{"k-block": "9", "n-block": "64", "pack": "false"}},
	{name: "O3 native fp-contract", cpu: "native", contract: true},
	{name: "O3 native threads", cpu: "native", threads: true},
	{name: "O2", o2: true},
	{name: "O2 native threads", o2: true, cpu: "native", threads: true},
}

func TestContractionEndToEnd(t *testing.T) {
	needToolchain(t)
	for _, c := range contractionCases {
		for _, m := range c.modes {
			if !slices.ContainsFunc(contractionModes, func(x contractionMode) bool { return x.name == m }) {
				t.Fatalf("%s: unknown mode %q", c.name, m)
			}
		}
	}
	for _, c := range contractionCases {
		c := c
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path, src := c.file, c.src
			if c.file != "" {
				path = examplePath(t, c.file)
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				src = string(data)
			} else {
				path = filepath.Join(t.TempDir(), c.fn+".tc")
				if strings.HasPrefix(src, "tir.func") {
					path = strings.TrimSuffix(path, ".tc") + ".tir"
				}
			}
			fn := tirFunc(t, path, src)
			type run struct {
				syms map[string]int64
				args []*interp.Tensor
				want []*interp.Tensor
			}
			var runs []run
			for i, syms := range c.sizes {
				args := randomArgs(t, fn, syms, int64(i+1))
				want, err := interp.Run(fn, args, syms)
				if err != nil {
					t.Fatalf("interpreter at %v: %v", syms, err)
				}
				if c.ref != nil {
					ref := c.ref(args, syms)
					for j, w := range want[0].F64 {
						if math.Float64bits(w) != math.Float64bits(ref[j]) {
							t.Fatalf("at %v element %d: the interpreter gives %v, the float32 sum in k order %v", syms, j, w, ref[j])
						}
					}
				}
				runs = append(runs, run{syms, args, want})
			}
			for _, mode := range contractionModes {
				if c.modes != nil && !slices.Contains(c.modes, mode.name) {
					continue
				}
				level := 3
				if mode.o2 {
					level = 2
				}
				p := optPipelineFor(t, level, mode.cpu)
				if mode.contract {
					if err := lower.WithContract(p); err != nil {
						t.Fatal(err)
					}
				}
				if mode.threads {
					if err := passes.WithThreads(p); err != nil {
						t.Fatal(err)
					}
					if _, err := p.SetOption("convert-to-llvm", "parallel-min-work", "0"); err != nil {
						t.Fatal(err)
					}
				}
				for k, v := range mode.options {
					if n, err := p.SetOption("affine-contraction-tile", k, v); err != nil || n != 1 {
						t.Fatalf("%s: setting %s=%s: %v", mode.name, k, v, err)
					}
				}
				llvm, err := native.CompileWith(path, src, p)
				if err != nil {
					t.Fatalf("%s: %v", mode.name, err)
				}
				mark := "shufflevector"
				if c.mark != "" {
					mark = c.mark
				}
				if tiled := strings.Contains(llvm, mark); tiled != c.tiled && !mode.o2 {
					t.Errorf("%s: tiled = %v, want %v", mode.name, tiled, c.tiled)
				}
				if c.transposed && !mode.o2 && mode.options["pack"] != "false" && !transposesInRegisters(llvm) {
					t.Errorf("%s: no shuffle transposing the packed operand in the LLVM IR", mode.name)
				}
				prog, err := native.Build(llvm, fn, t.TempDir())
				if err != nil {
					t.Fatalf("%s: build: %v", mode.name, err)
				}
				if mode.threads {
					prog.Env = []string{"OMP_NUM_THREADS=3"}
				}
				for _, r := range runs {
					got, _, err := prog.Run(r.args, r.syms, 1)
					if err != nil {
						t.Fatalf("%s at %v: %v", mode.name, r.syms, err)
					}
					if mode.contract {
						if msg := withinDotError(got[0], r.want[0], reducedSize(c.reduced, r.syms)); msg != "" {
							t.Errorf("%s at %v: %s", mode.name, r.syms, msg)
						}
						continue
					}
					d, err := native.Compare(got, r.want)
					if err != nil {
						t.Fatal(err)
					}
					if d.Compared == 0 || d.Mismatch > 0 {
						t.Errorf("%s at %v: %d of %d elements differ from the interpreter (%s)", mode.name, r.syms, d.Mismatch, d.Compared, d.Where)
					}
				}
			}
		})
	}
}

// transposingShuffle matches a shuffle of two vectors of VL lanes whose
// mask starts <0, VL, 2, ... (<0, 2> for VL = 2): the first round of
// transposeBlock (passes/affinepasses/vectorize_outer.go), lane 0 of one row
// beside lane 0 of the next. Broadcasts have a mask of zeros.
var transposingShuffle = regexp.MustCompile(`shufflevector <(\d+) x \w+> %[^,]+, <\d+ x \w+> %[^,]+, <\d+ x i32> <i32 0, i32 (\d+)(, i32 2,|>)`)

func transposesInRegisters(llvm string) bool {
	for _, m := range transposingShuffle.FindAllStringSubmatch(llvm, -1) {
		if m[1] == m[2] {
			return true
		}
	}
	return false
}

// reducedSize is the length of the sums: the product of the sizes (or
// constants) named, "K" when empty.
func reducedSize(name string, syms map[string]int64) int64 {
	if name == "" {
		name = "K"
	}
	prod := int64(1)
	for _, f := range strings.Split(name, "*") {
		if v, ok := syms[f]; ok {
			prod *= v
			continue
		}
		var k int64
		fmt.Sscan(f, &k)
		prod *= k
	}
	return prod
}

// withinDotError checks results computed with fused multiply-adds against
// the interpreter's: a float32 dot product of k terms in [-1, 1) is off by
// at most about k * 2^-24 * k; differences are allowed up to 4 k^2 2^-24
// (and must be zero for integer results).
func withinDotError(got, want *interp.Tensor, k int64) string {
	tol := 4 * float64(k*k) * math.Pow(2, -24)
	if got.I64 != nil {
		for i := range want.I64 {
			if got.I64[i] != want.I64[i] {
				return fmt.Sprintf("element %d: got %d, want %d", i, got.I64[i], want.I64[i])
			}
		}
		return ""
	}
	for i, w := range want.F64 {
		if want.Masked(i) {
			continue
		}
		if g := got.F64[i]; !(math.Abs(g-w) <= tol) {
			return fmt.Sprintf("element %d: got %v, want %v (beyond %g)", i, g, w, tol)
		}
	}
	return ""
}

// TestContractionFlags checks tc-opt's --fp-contract and that --mcpu sizes
// the register tile (512-bit vectors for an AVX-512 CPU).
func TestContractionFlags(t *testing.T) {
	path := examplePath(t, "matmul.tc")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cpu, want string
	}{{"", "<4 x float>"}, {"x86-64-v3", "<8 x float>"}, {"skylake-avx512", "<16 x float>"}} {
		p := optPipelineFor(t, 3, c.cpu)
		llvm, err := native.CompileWith(path, string(src), p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(llvm, "shufflevector "+c.want) {
			t.Errorf("--mcpu=%s: no broadcast to %s in the LLVM IR", c.cpu, c.want)
		}
		if strings.Contains(llvm, "fmul contract") {
			t.Errorf("--mcpu=%s: contract flags without --fp-contract", c.cpu)
		}
		if err := lower.WithContract(p); err != nil {
			t.Fatal(err)
		}
		m, err := native.RunPipeline(path, string(src), p)
		if err != nil {
			t.Fatal(err)
		}
		if text := string(m.Op.Attr(lower.LLVMAttr).(ir.StringAttr)); !strings.Contains(text, "fmul contract") || !strings.Contains(text, "fadd contract") {
			t.Errorf("--mcpu=%s --fp-contract=fast: no contract flags", c.cpu)
		}
	}
}

// TestContractionCLI checks tc-opt's flags end to end: --mcpu sizes the
// tile, --fp-contract=fast adds the contract flags, and both are refused
// where they do not apply.
func TestContractionCLI(t *testing.T) {
	path := examplePath(t, "matmul.tc")
	code, out, errs := runBin(t, "", "-O3", "--mcpu=skylake-avx512", "--fp-contract=fast", path)
	if code != 0 || !strings.Contains(out, "fmul contract <16 x float>") || !strings.Contains(out, "shufflevector <16 x float>") {
		t.Errorf("-O3 --mcpu=skylake-avx512 --fp-contract=fast: exit %d, %s", code, errs)
	}
	code, out, _ = runBin(t, "", "-O3", "--fp-contract=off", path)
	if code != 0 || strings.Contains(out, "contract") || !strings.Contains(out, "shufflevector <4 x float>") {
		t.Errorf("-O3 --fp-contract=off: exit %d, contract flags or no 4-lane tile", code)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fp-contract=fast", "--cse"}, "--fp-contract goes with -O0..-O3"},
		{[]string{"-O3", "--fp-contract=maybe"}, "expected off or fast"},
	} {
		code, _, errs := runBin(t, "", append(c.args, path)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// optPipelineFor is the x86_64 -O pipeline of level for the processor cpu
// (tc-opt -OLEVEL --mcpu=CPU; "" is generic x86-64).
func optPipelineFor(t *testing.T, level int, cpu string) *passes.Pipeline {
	t.Helper()
	p, err := passes.OptPipeline(level, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	if cpu != "" {
		if err := lower.WithCPU(p, "x86_64", cpu); err != nil {
			t.Fatal(err)
		}
	}
	return p
}
