package test

import (
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/lower"
	"tir/passes"
	"tir/tools/native"
)

// Row reductions along the contiguous dimension, which affine-vectorize
// turns into vector accumulators folded by vector.reduction
// (passes/affinepasses/vectorize_reduce.go), or, for float sums without
// --fp-reassociate, vectorizes across rows (a lane per row, adding in
// the row's order: vectorize_outer.go), compiled and run for i32, i64, f32
// and f64 sums, minima and maxima. Rows have no element, fewer than a
// vector, whole vectors and remainders; float rows hold NaNs (first, in the
// middle, last), zeros of both signs and infinities, integer rows the
// extremes of their type (sums wrap around). Results must be bitwise those
// of the interpreter and of the values computed here (any NaN matches a
// NaN; -0 does not match +0), except float sums under --fp-reassociate,
// which must stay within a sum's rounding error.

// reduceProgram is one function of the test: sibling reductions of %a
// over K.
type reduceProgram struct {
	name, elem string
	kinds      []string // tir.reduce kinds, one result each
	// vectorized tells whether the default pipeline vectorizes it (every
	// program now: float sums across rows).
	vectorized bool
}

func (p reduceProgram) source() string {
	var b strings.Builder
	row := fmt.Sprintf("!tir.tensor<%s, I[0:N]>", p.elem)
	var types, names []string
	for range p.kinds {
		types = append(types, row)
	}
	fmt.Fprintf(&b, "tir.func @%s(%%a: !tir.tensor<%s, I[0:N], K[0:M]>) -> (%s) {\n", p.name, p.elem, strings.Join(types, ", "))
	for i, k := range p.kinds {
		fmt.Fprintf(&b, "  %%r%d = tir.reduce %s %%a over [K]\n", i, k)
		names = append(names, fmt.Sprintf("%%r%d", i))
	}
	fmt.Fprintf(&b, "  tir.return %s : %s\n}\n", strings.Join(names, ", "), strings.Join(types, ", "))
	return b.String()
}

// reduceMode is a pipeline the programs are compiled with.
type reduceMode struct {
	name       string
	level      int
	cpu        string
	reassoc    bool
	width      string // affine-vectorize's width when not the default
	vecPattern string // what the LLVM IR of a vectorized program contains
}

var reduceModes = []reduceMode{
	{name: "O2", level: 2, vecPattern: "<8 x "},
	{name: "O2 width 4", level: 2, width: "4", vecPattern: "<4 x "},
	{name: "O2 native", level: 2, cpu: "native", vecPattern: "<8 x "},
	{name: "O3", level: 3, vecPattern: "<8 x "},
	{name: "O2 fp-reassociate", level: 2, reassoc: true, vecPattern: "<8 x "},
}

func TestVectorizedReductions(t *testing.T) {
	needToolchain(t)
	llc, err := native.Tool("llc")
	if err != nil {
		t.Skip(err)
	}
	programs := []reduceProgram{
		{name: "red_i32", elem: "i32", kinds: []string{"add", "min", "max"}, vectorized: true},
		{name: "red_i64", elem: "i64", kinds: []string{"add", "min", "max"}, vectorized: true},
		{name: "minmax_f32", elem: "f32", kinds: []string{"min", "max"}, vectorized: true},
		{name: "minmax_f64", elem: "f64", kinds: []string{"min", "max"}, vectorized: true},
		{name: "sum_f32", elem: "f32", kinds: []string{"add"}, vectorized: true},
		{name: "sum_f64", elem: "f64", kinds: []string{"add"}, vectorized: true},
	}
	sizes := []int64{0, 1, 7, 8, 13, 35, 67}
	for _, p := range programs {
		p := p
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			src := p.source()
			path := filepath.Join(t.TempDir(), p.name+".tir")
			fn := tirFunc(t, path, src)
			type run struct {
				syms map[string]int64
				args []*interp.Tensor
				want []*interp.Tensor
			}
			var runs []run
			for _, m := range sizes {
				a := reduceRows(p.elem, m, int64(len(runs)+1))
				syms := map[string]int64{"N": a.Dims[0].Extent(), "M": m}
				want, err := interp.Run(fn, []*interp.Tensor{a}, syms)
				if err != nil {
					t.Fatalf("interpreter at M=%d: %v", m, err)
				}
				for r, k := range p.kinds {
					if msg := sameBits(want[r], reduceRef(k, a)); msg != "" {
						t.Fatalf("M=%d: %s: the interpreter and the reference computed here differ: %s", m, k, msg)
					}
				}
				runs = append(runs, run{syms, []*interp.Tensor{a}, want})
			}
			for _, mode := range reduceModes {
				pl := optPipelineFor(t, mode.level, mode.cpu)
				if mode.reassoc {
					if err := lower.WithReassociate(pl); err != nil {
						t.Fatal(err)
					}
				}
				if mode.width != "" {
					if _, err := pl.SetOption("affine-vectorize", "width", mode.width); err != nil {
						t.Fatal(err)
					}
				}
				llvm, err := native.CompileWith(path, src, pl)
				if err != nil {
					t.Fatalf("%s: %v", mode.name, err)
				}
				wantVec := p.vectorized || mode.reassoc
				if got := strings.Contains(llvm, mode.vecPattern); got != wantVec {
					t.Errorf("%s: vectorized = %v, want %v", mode.name, got, wantVec)
				}
				prog, err := native.Build(llvm, fn, t.TempDir())
				if err != nil {
					t.Fatalf("%s: build: %v", mode.name, err)
				}
				for _, r := range runs {
					got, _, err := prog.Run(r.args, r.syms, 1)
					if err != nil {
						t.Fatalf("%s at M=%d: %v", mode.name, r.syms["M"], err)
					}
					for i, k := range p.kinds {
						msg := sameBits(got[i], r.want[i])
						if mode.reassoc && k == "add" && strings.HasPrefix(p.elem, "f") {
							msg = withinSumError(got[i], r.want[i], r.args[0], p.elem)
						}
						if msg != "" {
							t.Errorf("%s at M=%d: %s: %s", mode.name, r.syms["M"], k, msg)
						}
					}
				}
			}
			// aarch64 takes the same reductions (llvm.maximum on vectors
			// for maxf): its LLVM IR must go through llc.
			pl, err := passes.OptPipeline(2, "aarch64")
			if err != nil {
				t.Fatal(err)
			}
			if err := lower.WithReassociate(pl); err != nil {
				t.Fatal(err)
			}
			llvm, err := native.CompileWith(path, src, pl)
			if err != nil {
				t.Fatalf("aarch64: %v", err)
			}
			cmd := exec.Command(llc, "-O3", "-mtriple=aarch64-unknown-linux-gnu", "-o", "/dev/null")
			cmd.Stdin = strings.NewReader(llvm)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("llc -mtriple=aarch64: %v\n%s", err, out)
			}
		})
	}
}

// reduceRows makes the N x m argument: random rows, then the special rows
// of the element type.
func reduceRows(elem string, m, seed int64) *interp.Tensor {
	rng := rand.New(rand.NewSource(seed))
	var rows [][]float64
	var irows [][]int64
	row := func(f func(k int64) float64) {
		r := make([]float64, m)
		for k := range r {
			r[k] = f(int64(k))
		}
		rows = append(rows, r)
	}
	irow := func(f func(k int64) int64) {
		r := make([]int64, m)
		for k := range r {
			r[k] = f(int64(k))
		}
		irows = append(irows, r)
	}
	negZero := math.Copysign(0, -1)
	switch elem {
	case "f32", "f64":
		round := func(x float64) float64 {
			if elem == "f32" {
				return float64(float32(x))
			}
			return x
		}
		random := func(int64) float64 { return round(rng.Float64()*2 - 1) }
		row(random)
		row(random)
		nanAt := func(at int64) func(int64) float64 {
			return func(k int64) float64 {
				if k == at {
					return math.NaN()
				}
				return random(k)
			}
		}
		row(nanAt(0))
		row(nanAt(m / 2))
		row(nanAt(m - 1))
		row(func(k int64) float64 { // zeros of both signs
			if (k*7+seed)%3 == 0 {
				return negZero
			}
			return 0
		})
		row(func(int64) float64 { return negZero })
		row(func(k int64) float64 { // an infinity among finite values
			if k == m/3 {
				return math.Inf(int(seed%2)*2 - 1)
			}
			return random(k)
		})
		row(func(k int64) float64 { // both infinities
			switch k {
			case m / 4:
				return math.Inf(1)
			case m - 1:
				return math.Inf(-1)
			}
			return negZero
		})
	default:
		bits := uint(32)
		if elem == "i64" {
			bits = 64
		}
		lo, hi := -int64(1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
		irow(func(int64) int64 { return rng.Int63n(2001) - 1000 })
		irow(func(int64) int64 { // the whole range: sums wrap around
			v := int64(rng.Uint64())
			if bits == 32 {
				v = int64(int32(v))
			}
			return v
		})
		irow(func(k int64) int64 { // the extremes, which are the neutral elements of min and max
			if k%2 == 0 {
				return hi
			}
			return lo
		})
		irow(func(int64) int64 { return lo })
		irow(func(int64) int64 { return hi })
	}
	n := int64(len(rows) + len(irows))
	t := &interp.Tensor{Elem: ir.BuiltinScalar(elem), Dims: []interp.Dim{{Name: "I", Lo: 0, Hi: n}, {Name: "K", Lo: 0, Hi: m}}}
	for _, r := range rows {
		t.F64 = append(t.F64, r...)
	}
	for _, r := range irows {
		t.I64 = append(t.I64, r...)
	}
	if t.F64 == nil && t.I64 == nil {
		if elem[0] == 'f' {
			t.F64 = []float64{}
		} else {
			t.I64 = []int64{}
		}
	}
	return t
}

// reduceRef computes a reduction of each row of a in order, from the
// kind's identity, as the scalar code does, with the element type's
// arithmetic: float32 or float64 sums, integer sums wrapping around, IEEE
// minimum and maximum (NaN wins, -0 < +0).
func reduceRef(kind string, a *interp.Tensor) *interp.Tensor {
	n, m := a.Dims[0].Extent(), a.Dims[1].Extent()
	elem := a.Elem.String()
	out := &interp.Tensor{Elem: a.Elem, Dims: a.Dims[:1]}
	if a.F64 != nil {
		f32 := elem == "f32"
		out.F64 = make([]float64, n)
		for i := int64(0); i < n; i++ {
			s := map[string]float64{"add": 0, "min": math.Inf(1), "max": math.Inf(-1)}[kind]
			for k := int64(0); k < m; k++ {
				x := a.F64[i*m+k]
				switch kind {
				case "add":
					if f32 {
						s = float64(float32(s) + float32(x))
					} else {
						s += x
					}
				case "min", "max":
					s = ieeeMinMax(s, x, kind == "max")
				}
			}
			out.F64[i] = s
		}
		return out
	}
	bits := 32
	if elem == "i64" {
		bits = 64
	}
	lo, hi := int64(-1)<<(bits-1), int64(uint64(1)<<(bits-1)-1)
	out.I64 = make([]int64, n)
	for i := int64(0); i < n; i++ {
		s := map[string]int64{"add": 0, "min": hi, "max": lo}[kind]
		for k := int64(0); k < m; k++ {
			x := a.I64[i*m+k]
			switch kind {
			case "add":
				s += x
				if bits == 32 {
					s = int64(int32(s))
				}
			case "min":
				s = min(s, x)
			case "max":
				s = max(s, x)
			}
		}
		out.I64[i] = s
	}
	return out
}

// ieeeMinMax is IEEE 754's maximum (or minimum), written out: a NaN
// operand gives NaN, and -0 is less than +0.
func ieeeMinMax(x, y float64, isMax bool) float64 {
	switch {
	case math.IsNaN(x) || math.IsNaN(y):
		return math.NaN()
	case x == y: // equal values, or zeros of both signs
		if math.Signbit(x) == isMax {
			return y
		}
		return x
	case (x > y) == isMax:
		return x
	}
	return y
}

// sameBits compares results bit for bit (any NaN matches a NaN; -0 and
// +0 differ).
func sameBits(got, want *interp.Tensor) string {
	if want.F64 != nil {
		for i, w := range want.F64 {
			g := got.F64[i]
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				return fmt.Sprintf("row %d: got %v (%#x), want %v (%#x)", i, g, math.Float64bits(g), w, math.Float64bits(w))
			}
		}
		return ""
	}
	for i, w := range want.I64 {
		if got.I64[i] != w {
			return fmt.Sprintf("row %d: got %d, want %d", i, got.I64[i], w)
		}
	}
	return ""
}

// withinSumError checks a sum computed in another order: NaN and
// infinities as in order, finite values within m * eps * sum |x| of the
// ordered sum (the bound on both errors).
func withinSumError(got, want, a *interp.Tensor, elem string) string {
	eps := math.Pow(2, -52)
	if elem == "f32" {
		eps = math.Pow(2, -23)
	}
	m := a.Dims[1].Extent()
	for i, w := range want.F64 {
		g := got.F64[i]
		if math.IsNaN(w) || math.IsInf(w, 0) {
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				return fmt.Sprintf("row %d: got %v, want %v", i, g, w)
			}
			continue
		}
		var abs float64
		for k := int64(0); k < m; k++ {
			abs += math.Abs(a.F64[int64(i)*m+k])
		}
		if d := math.Abs(g - w); !(d <= float64(m)*eps*abs) {
			return fmt.Sprintf("row %d: got %v, want %v within %g", i, g, w, float64(m)*eps*abs)
		}
	}
	return ""
}

// TestFPReassociateCLI checks tc-opt's --fp-reassociate: a float row sum
// becomes a vector loop folded by a reassoc llvm.vector.reduce.fadd;
// without it, it is vectorized across rows (transposed blocks of rows,
// no horizontal sum); the flag is refused where it does not apply.
func TestFPReassociateCLI(t *testing.T) {
	src := reduceProgram{name: "rowsum", elem: "f32", kinds: []string{"add"}}.source()
	code, out, errs := runBin(t, src, "-O2", "--fp-reassociate", "-")
	if code != 0 || !strings.Contains(out, "call reassoc float @llvm.vector.reduce.fadd.v8f32") || !strings.Contains(out, "fadd <8 x float>") {
		t.Errorf("-O2 --fp-reassociate: exit %d, no vector sum folded with reassoc\n%s", code, errs)
	}
	code, out, _ = runBin(t, src, "-O2", "-")
	if code != 0 || strings.Contains(out, "vector.reduce") || !strings.Contains(out, "shufflevector <8 x float>") || !strings.Contains(out, "fadd <8 x float>") {
		t.Errorf("-O2: exit %d, or the float sum was not vectorized across rows, in order, without --fp-reassociate", code)
	}
	code, _, errs = runBin(t, src, "--fp-reassociate", "--cse", "-")
	if want := "--fp-reassociate goes with -O0..-O3"; code != 2 || !strings.Contains(errs, want) {
		t.Errorf("--fp-reassociate --cse: exit %d, %q; want exit 2 and %q", code, errs, want)
	}
}
