package randprog

import (
	"fmt"
	"math"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/passes/derivatives"
	"tir/tools/native"
)

// TestRandomDerivatives is the derivatives mode of the random programs
// (docs/derivatives.md): each program, computed in f64 on inputs without
// special values, gets @p_jvp and @p_vjp, which must pass the dot-product
// test <J v, w> = <v, J^T w> through the interpreter. The difference is
// measured against the sum of the magnitudes of the products (or |v| |w|
// when larger), so that a sum or a Jacobian that cancels to near 0 does
// not count as an error.
func TestRandomDerivatives(t *testing.T) {
	// Many programs have nothing to differentiate (integer results,
	// empty domains): eight times the programs of the other modes.
	n := *flagN * 8
	if testing.Short() && n > 64 {
		n = 64
	}
	opts := DefaultOptions
	opts.Specials = false
	toF64 := strings.NewReplacer("f32", "f64", "bf16", "f64", "f16", "f64")
	checked, worst := 0, 0.0
	skipped := map[string]int{}
	for s := *flagSeed; s < *flagSeed+int64(n); s++ {
		p := Generate(s, opts)
		text := toF64.Replace(p.Text)
		m, diags := native.Load(p.Name+".tir", text)
		if diags.HasErrors() {
			skipped["does not load in f64"]++
			continue
		}
		fn := m.Lookup(p.Name)
		err := derivatives.Run(m, derivatives.Options{JVP: true, VJP: true, Functions: []string{p.Name}})
		switch {
		case err != nil && strings.Contains(err.Error(), "has no differentiable"):
			skipped["nothing to differentiate"]++
			continue
		case err != nil && strings.Contains(err.Error(), "cannot differentiate"):
			d := ir.AsDiagnostic(err, ir.UnknownLoc)
			skipped["not yet: "+d.Msg]++
			continue
		case err != nil:
			t.Errorf("seed %d: %v\n%s", s, err, text)
			continue
		}
		if err := ir.Verify(m.Op, nil); err != nil {
			t.Errorf("seed %d: the derivative functions do not verify: %v\n%s", s, err, text)
			continue
		}
		args, err := p.Args(fn)
		if err != nil {
			t.Fatalf("seed %d: %v", s, err)
		}
		rel, why, err := dotProductTest(fn, m.Lookup(p.Name+"_jvp"), m.Lookup(p.Name+"_vjp"), args, p.Syms, s)
		if err != nil {
			t.Errorf("seed %d: %v\n%s", s, err, text)
			continue
		}
		if why != "" {
			skipped[why]++
			continue
		}
		checked++
		worst = math.Max(worst, rel)
		if rel > 1e-12 {
			t.Errorf("seed %d: dot-product test: relative difference %.3g\n%s", s, rel, text)
		}
	}
	var kinds []string
	for k, c := range skipped {
		kinds = append(kinds, fmt.Sprintf("%s: %d", k, c))
	}
	sort.Strings(kinds)
	t.Logf("%d programs: %d checked (largest relative difference %.2g); left out: %s", n, checked, worst, strings.Join(kinds, "; "))
}

// dotProductTest returns |<J v, w> - <v, J^T w>| relative to the sum of
// the products' magnitudes (or |v| |w| when larger), or why the program
// was not measured (a run that fails a check, values that are not
// finite).
func dotProductTest(fn, fj, fv *ir.Operation, args []*interp.Tensor, syms map[string]int64, seed int64) (float64, string, error) {
	y0, err := interp.Run(fn, args, syms)
	if err != nil {
		return 0, "the program fails a run-time check", nil
	}
	rng := rand.New(rand.NewSource(seed))
	random := func(t *interp.Tensor) *interp.Tensor {
		out, _ := interp.NewTensor(t.Elem, t.Dims)
		for i := range out.F64 {
			out.F64[i] = rng.Float64()*2 - 1
		}
		return out
	}
	isFloat := func(ty ir.Type) bool {
		tt, ok := tir.AsTensor(ty)
		return ok && ir.IsFloat(tt.Elem)
	}
	ft, _ := tir.FuncType(fn)
	jargs := append([]*interp.Tensor(nil), args...)
	var v []*interp.Tensor
	for i, in := range ft.Inputs {
		if isFloat(in) {
			v = append(v, random(args[i]))
			jargs = append(jargs, v[len(v)-1])
		}
	}
	vargs := append([]*interp.Tensor(nil), args...)
	var w []*interp.Tensor
	for j, r := range ft.Results {
		if isFloat(r) {
			w = append(w, random(y0[j]))
			vargs = append(vargs, w[len(w)-1])
		}
	}
	jv, err := interp.Run(fj, jargs, syms)
	if err != nil {
		return 0, "", fmt.Errorf("@%s: %v", ir.SymbolName(fj), err)
	}
	ct, err := interp.Run(fv, vargs, syms)
	if err != nil {
		return 0, "", fmt.Errorf("@%s: %v", ir.SymbolName(fv), err)
	}
	a, b, scale := 0.0, 0.0, 0.0
	for k, tan := range jv[len(y0):] {
		for i, x := range tan.F64 {
			a += x * w[k].F64[i]
			scale += math.Abs(x * w[k].F64[i])
		}
	}
	for k, c := range ct {
		for i, x := range c.F64 {
			b += v[k].F64[i] * x
			scale += math.Abs(v[k].F64[i] * x)
		}
	}
	switch {
	case math.IsNaN(a) || math.IsInf(a, 0) || math.IsNaN(b) || math.IsInf(b, 0):
		return 0, "derivatives not finite (log or sqrt of a negative, a division by 0)", nil
	case scale == 0:
		return 0, "derivatives all 0", nil
	}
	// A Jacobian that is 0 but computed with roundings ((c/x)*x) has
	// products of rounding size: measured against |v| |w| too.
	norm := func(ts []*interp.Tensor) float64 {
		s := 0.0
		for _, t := range ts {
			for _, x := range t.F64 {
				s += x * x
			}
		}
		return math.Sqrt(s)
	}
	return math.Abs(a-b) / math.Max(scale, norm(v)*norm(w)), "", nil
}
