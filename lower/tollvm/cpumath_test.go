package tollvm

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	_ "tir/dialects/affine"
	_ "tir/dialects/fn"
	_ "tir/dialects/mathd"
	_ "tir/dialects/memref"
	"tir/dialects/printer"
)

func TestHasFMA(t *testing.T) {
	for _, c := range []struct {
		target, cpu string
		want        bool
	}{
		{"x86_64", "", false},
		{"x86_64", "x86-64-v2", false},
		{"x86_64", "sandybridge", false}, // AVX without FMA
		{"x86_64", "bdver1", false},      // FMA4 only
		{"x86_64", "x86-64-v3", true},
		{"x86_64", "haswell", true},
		{"x86_64", "znver3", true},
		{"x86_64", "skylake-avx512", true},
		{"aarch64", "", true},
		{"aarch64", "neoverse-n1", true},
	} {
		got, err := HasFMA(c.target, c.cpu)
		if err != nil || got != c.want {
			t.Errorf("HasFMA(%s, %q) = %v, %v; want %v", c.target, c.cpu, got, err, c.want)
		}
	}
	for _, m := range []string{"", "auto", "expand", "libm"} {
		if _, _, err := ExpandsCPUMath("x86_64", m, ""); err != nil {
			t.Errorf("math=%s: %v", m, err)
		}
	}
	if _, _, err := ExpandsCPUMath("x86_64", "libdevice", ""); err == nil {
		t.Error("math=libdevice on x86_64: no error")
	}
}

// cpuMathModule applies the functions without an instruction and sqrt,
// scalar and on vectors, in f32 and f64.
const cpuMathModule = `func.func @f(%x: f32, %y: f64, %v: vector<8xf32>, %w: vector<4xf64>, %o: memref<8xf32>, %p: memref<4xf64>, %q: memref<f32>, %r: memref<f64>) {
  %a = math.exp %x : f32
  %b = math.tanh %a : f32
  %c = math.powf %b, %x : f32
  %d = math.sqrt %c : f32
  %e = math.roundeven %d : f32
  memref.store %e, %q[] : memref<f32>
  %f = math.log %y : f64
  %g = math.sin %f : f64
  %h = math.erf %g : f64
  memref.store %h, %r[] : memref<f64>
  %i = math.exp %v : vector<8xf32>
  %j = math.rsqrt %i : vector<8xf32>
  %k = math.cos %j : vector<8xf32>
  vector.store %k, %o[%c0] : memref<8xf32>, vector<8xf32>
  %l = math.atan %w : vector<4xf64>
  %m = math.log1p %l : vector<4xf64>
  vector.store %m, %p[%c0] : memref<4xf64>, vector<4xf64>
  func.return
}
`

// declared lists the functions an LLVM module declares.
func declared(llvm string) []string {
	var out []string
	for _, d := range regexp.MustCompile(`(?m)^declare .*?@([\w.]+)\(`).FindAllStringSubmatch(llvm, -1) {
		out = append(out, d[1])
	}
	sort.Strings(out)
	return out
}

// TestCPUMath checks which math functions CPU code computes itself: with
// FMA instructions (x86-64-v3, every aarch64) the expansions, scalars and
// vectors alike, leaving only intrinsics llc selects; without (generic
// x86-64) exp only, by its expansion without fma, the others libm as
// before; with math=libm, libm.
func TestCPUMath(t *testing.T) {
	src := strings.ReplaceAll(cpuMathModule, "  %a = math.exp", "  %c0 = arith.constant 0 : index\n  %a = math.exp")
	src = strings.ReplaceAll(src, "vector.store", "affine.vector_store")
	src = strings.ReplaceAll(src, "[%c0] :", "[0] :")
	native := regexp.MustCompile(`^(llvm\.(fma|fabs|floor|sqrt|copysign|roundeven)\.(v8|v4)?f(32|64)|snprintf)$`)
	libm := regexp.MustCompile(`^(llvm\.(exp|log|sin|cos|pow)\.|tanhf$|erf$|atan$|log1p$)`)
	const all = "atan erf llvm.cos.v8f32 llvm.exp.f32 llvm.exp.v8f32 llvm.log.f64 llvm.pow.f32 llvm.sin.f64 log1p tanhf"
	const butExp = "atan erf llvm.cos.v8f32 llvm.log.f64 llvm.pow.f32 llvm.sin.f64 log1p tanhf"
	for _, c := range []struct {
		opts Options
		libm string // the functions still called
		fma  bool   // llvm.fma is used
	}{
		{Options{Target: "x86_64"}, butExp, false},
		{Options{Target: "x86_64", Math: "auto", CPU: "x86-64-v2"}, butExp, false},
		{Options{Target: "x86_64", CPU: "x86-64-v3"}, "", true},
		{Options{Target: "x86_64", CPU: "znver3", Math: "auto"}, "", true},
		{Options{Target: "x86_64", CPU: "x86-64-v3", Math: "libm"}, all, false},
		{Options{Target: "x86_64", Math: "expand"}, "", true},
		{Options{Target: "aarch64"}, "", true},
		{Options{Target: "aarch64", Math: "libm"}, all, false},
	} {
		m := parseMLIR(t, "cpumath.mlir", src)
		before := printer.Module(m, printer.Options{})
		llvm, err := Emit(m, c.opts)
		if err != nil {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		if after := printer.Module(m, printer.Options{}); after != before {
			t.Errorf("%+v: emitting changed the module", c.opts)
		}
		var calls, other []string
		for _, d := range declared(llvm) {
			switch {
			case libm.MatchString(d):
				calls = append(calls, d)
			case !native.MatchString(d):
				other = append(other, d)
			}
		}
		if got := strings.Join(calls, " "); got != c.libm {
			t.Errorf("%+v: libm calls %q, want %q", c.opts, got, c.libm)
		}
		if c.libm == "" && len(other) > 0 {
			t.Errorf("%+v: unexpected declarations %v", c.opts, other)
		}
		if got := strings.Contains(llvm, "@llvm.fma."); got != c.fma {
			t.Errorf("%+v: llvm.fma used: %v, want %v", c.opts, got, c.fma)
		}
		if strings.Contains(llvm, "@llvm.floor.") && !c.fma {
			t.Errorf("%+v: llvm.floor is a call to floorf without SSE4.1", c.opts)
		}
		if !strings.Contains(llvm, "llvm.sqrt.f32") || !strings.Contains(llvm, "llvm.sqrt.v8f32") {
			t.Errorf("%+v: sqrt and rsqrt are llvm.sqrt (one instruction)", c.opts)
		}
	}
	if _, err := Emit(parseMLIR(t, "cpumath.mlir", src), Options{Target: "x86_64", Math: "libdevice"}); err == nil {
		t.Error("math=libdevice on x86_64: no error")
	}
}
