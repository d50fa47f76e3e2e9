package test

import (
	"fmt"
	"math"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tc"
	"tir/dialects/tir/interp"
	"tir/lower/tollvm"
	"tir/tools/native"
)

// Math functions in CPU code built for a processor with FMA instructions
// (x86-64-v3), where convert-to-llvm computes them with expand-math's
// expansions in vector registers (lower/tollvm/cpumath.go), and for
// generic x86-64, where it expands exp without fma and calls libm for the
// others, compiled from TC at -O2 (a vector body of 8 lanes and a scalar
// remainder) and at -O0 (scalar loops only), and run on special values (signed zeros,
// infinities, NaN, subnormals, the largest values, the edges of exp's
// range) and random ones, rotated so that every value lands both in
// vector lanes and in the remainder:
//
//   - an element's result depends on its value only, not on its position:
//     every occurrence of a value gives the same bits, in both builds;
//   - sqrt and rsqrt are bitwise the interpreter's (a correctly rounded
//     square root, and a division of it), and so is nextafter (integer
//     operations on the bits);
//   - the others are within 4 ulp of the interpreter's (Go's math in
//     float64, rounded once), sin, cos and tan only within [-1, 1] (or
//     finite) beyond the range of their argument reduction
//     (docs/gpu-math.md). In f64 the interpreter is no reference for
//     subnormal arguments and arguments beyond 700 in magnitude: Go's
//     amd64 math.Log takes a subnormal for the smallest normal number and
//     math.Exp overflows from about 709.0 on (TestCPUMathAccuracy measures
//     f64 against glibc's long double functions instead).

// cpuMathFuncs are the results of the test program, each applying one
// function to A.
var cpuMathFuncs = []struct{ name, expr string }{
	{"E", "exp(A(i))"}, {"L", "log(A(i))"}, {"T", "tanh(A(i))"}, {"S", "sigmoid(A(i))"},
	{"Q", "sqrt(A(i))"}, {"R", "rsqrt(A(i))"}, {"SN", "sin(A(i))"}, {"CS", "cos(A(i))"},
	{"TN", "tan(A(i))"}, {"P", "pow(A(i), 2.5)"}, {"PI", "pow(A(i), -3.0)"}, {"E2", "exp2(A(i))"},
	{"LG", "log10(A(i))"}, {"ER", "erf(A(i))"},
	{"NU", "nextafter(A(i), 1.0)"}, {"ND", "nextafter(A(i), -A(i))"},
}

// cpuMathExact are the functions compiled exactly: bitwise the
// interpreter's on every value.
var cpuMathExact = map[string]bool{"Q": true, "R": true, "NU": true, "ND": true}

// hostRunsV3 skips a test unless this machine executes x86-64-v3 code.
func hostRunsV3(t *testing.T) {
	if level, _, err := tollvm.ResolveCPU("x86_64", "native"); err != nil || (level != "x86-64-v3" && level != "x86-64-v4") {
		t.Skipf("this machine does not run x86-64-v3 code (%s %v)", level, err)
	}
}

func TestCPUMathEndToEnd(t *testing.T) {
	needToolchain(t)
	for _, c := range []struct{ cpu, elem string }{{"x86-64-v3", "float"}, {"x86-64-v3", "double"}, {"", "float"}, {"", "double"}} {
		cpu, elem := c.cpu, c.elem
		name := cpu
		if name == "" {
			name = "generic"
		}
		t.Run(name+" "+elem, func(t *testing.T) {
			if cpu != "" {
				hostRunsV3(t)
			}
			t.Parallel()
			var outs, defs []string
			for _, f := range cpuMathFuncs {
				outs = append(outs, f.name)
				defs = append(defs, fmt.Sprintf("  %s(i) = %s", f.name, f.expr))
			}
			src := fmt.Sprintf("def f(%s(N) A) -> (%s) {\n%s\n}\n", elem, strings.Join(outs, ", "), strings.Join(defs, "\n"))
			m, diags := tc.Import("m.tc", src)
			if m == nil || diags.HasErrors() {
				t.Fatal(diags)
			}
			text := printer.Module(m, printer.Options{})
			path := filepath.Join(t.TempDir(), "m.tir")
			fn := tcFunc(t, src, "f")
			ft := ir.F32
			if elem == "double" {
				ft = ir.F64
			}
			progs := map[int]*native.Program{}
			for _, level := range []int{0, 2} {
				llvm, err := native.CompileWith(path, text, optPipelineFor(t, level, cpu))
				if err != nil {
					t.Fatalf("-O%d: %v", level, err)
				}
				if strings.Contains(llvm, "@expf") || strings.Contains(llvm, "llvm.exp.") || (cpu != "") == strings.Contains(llvm, "@tanh") {
					t.Errorf("-O%d: exp is a libm call, or tanh is one with FMA instructions or not one without", level)
				}
				vec := fmt.Sprintf("<8 x %s>", map[string]string{"float": "float", "double": "double"}[elem])
				if level == 2 && !strings.Contains(llvm, vec) {
					t.Errorf("-O2: not vectorized (no %s)", vec)
				}
				if progs[level], err = native.Build(llvm, fn, t.TempDir()); err != nil {
					t.Fatalf("-O%d: build: %v", level, err)
				}
			}
			values := cpuMathValues(ft)
			// first maps each function and value to the bits of its
			// first result.
			first := map[[2]uint64]uint64{}
			n := int64(8*5 + 7) // five vectors and a remainder of 7
			for rot := 0; rot < len(values); rot += 3 {
				a, err := interp.NewTensor(ft, []interp.Dim{{Name: "A_0", Lo: 0, Hi: n}})
				if err != nil {
					t.Fatal(err)
				}
				for i := range a.F64 {
					a.F64[i] = values[(i+rot)%len(values)]
				}
				syms := map[string]int64{"N": n}
				want, err := interp.Run(fn, []*interp.Tensor{a}, syms)
				if err != nil {
					t.Fatal(err)
				}
				for _, level := range []int{0, 2} {
					got, _, err := progs[level].Run([]*interp.Tensor{a}, syms, 1)
					if err != nil {
						t.Fatalf("-O%d: %v", level, err)
					}
					for r, f := range cpuMathFuncs {
						for i, x := range a.F64 {
							g, w := got[r].F64[i], want[r].F64[i]
							key := [2]uint64{uint64(r), math.Float64bits(x)}
							if b, ok := first[key]; !ok {
								first[key] = math.Float64bits(g)
							} else if b != math.Float64bits(g) && !(math.IsNaN(g) && math.IsNaN(math.Float64frombits(b))) {
								t.Fatalf("-O%d %s at %v (element %d): %v, elsewhere %v", level, f.expr, x, i, g, math.Float64frombits(b))
							}
							if msg := cpuMathClose(ft, f.name, x, g, w); msg != "" {
								t.Errorf("-O%d %s at %v: got %v, interpreter %v: %s", level, f.expr, x, g, w, msg)
							}
						}
					}
				}
			}
		})
	}
}

// cpuMathValues are the inputs: special values and random ones of every
// magnitude, in format ft.
func cpuMathValues(ft ir.Type) []float64 {
	f32 := ir.TypeEqual(ft, ir.F32)
	pick := func(a, b float64) float64 {
		if f32 {
			return a
		}
		return b
	}
	vs := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		pick(math.SmallestNonzeroFloat32, math.SmallestNonzeroFloat64), pick(1e-40, 1e-310), pick(0x1p-126, 0x1p-1022),
		pick(math.MaxFloat32, math.MaxFloat64), -pick(math.MaxFloat32, math.MaxFloat64),
		1, -1, 0.5, 2, 3, -2.5, 10, 100, -100, pick(88.72, 709.78), pick(88.73, 709.79), pick(-87.3, -708.3),
		pick(-103.9, -745.1), pick(-110, -800), 1e-3, 1e-20, 3.14159265, 1.5707963, 1e6, 1e7, 1e20, -1e20,
		9.5, 20, -0.25, 0.999, 1.001, 0.7, -0.7}
	rng := rand.New(rand.NewSource(21))
	for len(vs)%8 == 0 || len(vs) < 97 {
		vs = append(vs, math.Ldexp(rng.Float64()*2-1, rng.Intn(40)-20))
	}
	for i := range vs {
		vs[i] = interp.RoundTo(ft, vs[i])
	}
	return vs
}

// cpuMathClose compares a compiled result with the interpreter's.
func cpuMathClose(ft ir.Type, name string, x, got, want float64) string {
	f := mxF64
	if ir.TypeEqual(ft, ir.F32) {
		f = mxF32
	}
	if name == "SN" || name == "CS" || name == "TN" {
		if limit := pick(f, 0x1p22*math.Pi, 0x1p51*math.Pi); math.Abs(x) >= limit && !math.IsInf(x, 0) {
			if name != "TN" && !(math.Abs(got) <= 1) || math.IsNaN(got) || math.IsInf(got, 0) {
				return "out of range beyond the argument reduction"
			}
			return ""
		}
	}
	if f.p == 53 && !cpuMathExact[name] && (math.Abs(x) < 0x1p-1022 && x != 0 || math.Abs(x) > 700 && !math.IsInf(x, 0)) {
		return ""
	}
	if cpuMathExact[name] {
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			return "not bitwise the interpreter's"
		}
		return ""
	}
	e, bad := mxError(f, got, want, 0)
	if bad != "" {
		return bad
	}
	if e > 4 {
		return fmt.Sprintf("%.3g ulp apart", e)
	}
	return ""
}
