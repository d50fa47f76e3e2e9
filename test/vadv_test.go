package test

import (
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// Issue 24: the implicit vertical advection (GT4Py's
// vertical_advection_dycore) written with tir.piecewise for its boundary
// levels gives, bit for bit, what the same solver written with subset +
// broadcast + concat gives, in the interpreter and compiled in every mode
// (-O0, -O2, every value materialized, --threads, GPU kernels under the
// emulator), and the values GT4Py's three intervals compute, written out
// here level by level; and it has fewer ops.

var vadvForms = []string{"vadv_concat.tir", "vadv_piecewise.tir"}

func vadvSource(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "e2e", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vadvProblem draws the fields of an n x m x l grid (I, J, K, K
// contiguous; wcon has one more I) and computes utens_stage with GT4Py's
// intervals: interval(0, 1), interval(1, -1) and interval(-1, None) of the
// forward sweep, then the backward substitution.
func vadvProblem(t *testing.T, n, m, l int, seed int64) ([]*interp.Tensor, []float64) {
	t.Helper()
	rng := rand.New(rand.NewSource(seed))
	draw := func(size int) []float64 {
		v := make([]float64, size)
		for i := range v {
			v[i] = rng.Float64()*2 - 1
		}
		return v
	}
	size := n * m * l
	ustage, upos, utens, ustg := draw(size), draw(size), draw(size), draw(size)
	wcon := draw((n + 1) * m * l)
	dtr := 0.75
	at := func(i, j, k int) int { return (i*m+j)*l + k }
	const betM, betP = 0.5, 0.5
	want := make([]float64, size)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			ws := func(k int) float64 { return wcon[at(i+1, j, k)] + wcon[at(i, j, k)] }
			u := func(k int) float64 { return ustage[at(i, j, k)] }
			cc, dc := make([]float64, l), make([]float64, l)
			for k := 0; k < l; k++ {
				p := at(i, j, k)
				rhs := dtr*upos[p] + utens[p] + ustg[p]
				switch {
				case k == 0 && l > 1: // interval(0, 1)
					gcv := 0.25 * ws(k+1)
					cs, ccol := gcv*betM, gcv*betP
					bcol := dtr - ccol
					corr := -(cs * (u(k+1) - u(k)))
					div := 1 / bcol
					cc[k], dc[k] = ccol*div, (rhs+corr)*div
				case k < l-1: // interval(1, -1)
					gav, gcv := -0.25*ws(k), 0.25*ws(k+1)
					as, cs := gav*betM, gcv*betM
					acol, ccol := gav*betP, gcv*betP
					bcol := dtr - acol - ccol
					corr := -(as*(u(k-1)-u(k)) + cs*(u(k+1)-u(k)))
					div := 1 / (bcol - cc[k-1]*acol)
					cc[k], dc[k] = ccol*div, (rhs+corr-dc[k-1]*acol)*div
				case k > 0: // interval(-1, None)
					gav := -0.25 * ws(k)
					as, acol := gav*betM, gav*betP
					bcol := dtr - acol
					corr := -(as * (u(k-1) - u(k)))
					div := 1 / (bcol - cc[k-1]*acol)
					cc[k], dc[k] = 0, (rhs+corr-dc[k-1]*acol)*div
				default: // a single level: no neighbour
					cc[k], dc[k] = 0, rhs*(1/dtr)
				}
			}
			x := 0.0
			for k := l - 1; k >= 0; k-- {
				x = dc[k] - cc[k]*x
				want[at(i, j, k)] = dtr * (x - upos[at(i, j, k)])
			}
		}
	}
	col := []interp.Dim{dim("I", 0, int64(n)), dim("J", 0, int64(m)), dim("K", 0, int64(l))}
	wdims := []interp.Dim{dim("I", 0, int64(n+1)), dim("J", 0, int64(m)), dim("K", 0, int64(l))}
	args := []*interp.Tensor{
		tensorOf(t, f64, col, ustage), tensorOf(t, f64, col, upos), tensorOf(t, f64, col, utens),
		tensorOf(t, f64, col, ustg), tensorOf(t, f64, wdims, wcon), tensorOf(t, f64, nil, []float64{dtr}),
	}
	return args, want
}

func TestVerticalAdvectionBoundaries(t *testing.T) {
	needToolchain(t)
	// Lanes of four with a remainder, one and two levels (every level a
	// boundary), and a taller column.
	for _, s := range [][3]int{{3, 6, 7}, {2, 5, 1}, {2, 3, 2}, {4, 9, 33}} {
		n, m, l := s[0], s[1], s[2]
		args, want := vadvProblem(t, n, m, l, int64(n*100+l))
		syms := map[string]int64{"N": int64(n), "M": int64(m), "L": int64(l)}
		var byForm []map[string][]*interp.Tensor
		for _, f := range vadvForms {
			results := runScanModes(t, vadvSource(t, f), args, syms)
			expectInterpreter(t, results)
			vadvExpect(t, f, results, want)
			byForm = append(byForm, results)
		}
		for mode, got := range byForm[1] {
			d, err := native.Compare(got, byForm[0][mode])
			if err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
			if d.Mismatch > 0 {
				t.Errorf("N=%d M=%d L=%d %s: tir.piecewise and concat differ at %d of %d elements (%s)", n, m, l, mode, d.Mismatch, d.Compared, d.Where)
			}
		}
	}
}

// vadvExpect compares every mode's result with GT4Py's values. The
// programs compute the boundary levels with the missing neighbour's terms
// as products by 0, which add nothing: the values agree bit for bit
// (random data has no -0 for an added 0 to turn into +0).
func vadvExpect(t *testing.T, file string, results map[string][]*interp.Tensor, want []float64) {
	t.Helper()
	for mode, rs := range results {
		got := rs[0]
		if got.Len() != len(want) {
			t.Fatalf("%s %s: %d elements, want %d", file, mode, got.Len(), len(want))
		}
		bad := 0
		for i, w := range want {
			if got.Masked(i) || got.F64[i] != w {
				if bad++; bad <= 3 {
					t.Errorf("%s %s: element %d = %v, GT4Py's intervals give %v", file, mode, i, got.F64[i], w)
				}
			}
		}
	}
}

// TestVerticalAdvectionOpCount: tir.piecewise replaces each boundary
// condition's subset + broadcast + concat by one op.
func TestVerticalAdvectionOpCount(t *testing.T) {
	count := map[string]map[string]int{}
	for _, f := range vadvForms {
		m, diags := native.Load(f, vadvSource(t, f))
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		c := map[string]int{}
		m.Op.Walk(func(o *ir.Operation) bool {
			if tir.OpOf(o) != nil {
				c[o.Name]++
				c["all"]++
			}
			return true
		})
		count[f] = c
	}
	old, new := count["vadv_concat.tir"], count["vadv_piecewise.tir"]
	if new["tir.piecewise"] != 4 || new["tir.concat"]+new["tir.subset"]+new["tir.broadcast"] != 0 {
		t.Errorf("vadv_piecewise.tir: want 4 tir.piecewise and no concat, subset or broadcast, got %v", new)
	}
	if new["all"]+4 != old["all"] {
		t.Errorf("the piecewise form has %d ops, the concat form %d: want 4 fewer", new["all"], old["all"])
	}
	t.Logf("ops: concat form %d (%d concat, %d subset, %d broadcast), piecewise form %d", old["all"], old["tir.concat"], old["tir.subset"], old["tir.broadcast"], new["all"])
}
