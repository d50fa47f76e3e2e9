package test

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// TestNextAfterCompiled: tir.nextafter compiled at -O0 and -O2 (vector
// lanes and a scalar remainder) in every float type gives the
// interpreter's bits on every pair of special values (zeros of both signs,
// infinities, NaN, the smallest subnormal and normal, the largest finite
// value, powers of two from both sides), as its lowering to integer
// operations promises (docs/tir.md); the interpreter's values are checked
// against the formats in dialects/tir/interp (TestNextAfter).
func TestNextAfterCompiled(t *testing.T) {
	needToolchain(t)
	for _, c := range []struct {
		elem             string
		tiny, minNormal  float64
		maxFinite, power float64
	}{
		{"f64", math.SmallestNonzeroFloat64, 0x1p-1022, math.MaxFloat64, 0x1p300},
		{"f32", math.SmallestNonzeroFloat32, 0x1p-126, math.MaxFloat32, 0x1p100},
		{"f16", 0x1p-24, 0x1p-14, 65504, 0x1p10},
		{"bf16", 0x1p-133, 0x1p-126, math.Ldexp(255, 120), 0x1p100},
	} {
		t.Run(c.elem, func(t *testing.T) {
			t.Parallel()
			elem := ir.BuiltinScalar(c.elem)
			vals := []float64{0, math.Copysign(0, -1), 1, -1, 2, 0.75, -3, c.tiny, -c.tiny, c.minNormal, -c.minNormal,
				c.maxFinite, -c.maxFinite, c.power, math.Inf(1), math.Inf(-1), math.NaN()}
			n := int64(len(vals) * len(vals))
			src := fmt.Sprintf(`tir.func @f(%%a: !tir.tensor<%[1]s, I[0:N]>, %%b: !tir.tensor<%[1]s, I[0:N]>) -> !tir.tensor<%[1]s, I[0:N]> {
  %%r = tir.nextafter %%a, %%b
  tir.return %%r : !tir.tensor<%[1]s, I[0:N]>
}
`, c.elem)
			path := filepath.Join(t.TempDir(), "f.tir")
			m, diags := native.Load(path, src)
			if m == nil || diags.HasErrors() {
				t.Fatal(diags)
			}
			fn := m.Lookup("f")
			a, _ := interp.NewTensor(elem, []interp.Dim{{Name: "I", Lo: 0, Hi: n}})
			b, _ := interp.NewTensor(elem, []interp.Dim{{Name: "I", Lo: 0, Hi: n}})
			for i := range a.F64 {
				a.F64[i] = interp.RoundTo(elem, vals[i/len(vals)])
				b.F64[i] = interp.RoundTo(elem, vals[i%len(vals)])
			}
			syms := map[string]int64{"N": n}
			want, err := interp.Run(fn, []*interp.Tensor{a, b}, syms)
			if err != nil {
				t.Fatal(err)
			}
			for _, level := range []int{0, 2} {
				llvm, err := native.CompileWith(path, src, optPipelineFor(t, level, ""))
				if err != nil {
					t.Fatalf("-O%d: %v", level, err)
				}
				prog, err := native.Build(llvm, fn, t.TempDir())
				if err != nil {
					t.Fatalf("-O%d: build: %v", level, err)
				}
				got, _, err := prog.Run([]*interp.Tensor{a, b}, syms, 1)
				if err != nil {
					t.Fatalf("-O%d: %v", level, err)
				}
				for i := range a.F64 {
					g, w := got[0].F64[i], want[0].F64[i]
					if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
						t.Errorf("-O%d nextafter(%g, %g) : %s = %g, interpreter %g", level, a.F64[i], b.F64[i], c.elem, g, w)
					}
				}
			}
		})
	}
}
