package interp

import (
	"math"
	"math/rand/v2"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
)

// scatterSrc holds scatter-adds written densely (tir.ScatterAddOf) in the
// forms a gather's adjoint or a user writes them: the position cast to
// the table's type or compared as is, the operands in either order, the
// reduced dimensions in either order, a dimension K the table and the
// result share, f32 and integer values, a table and values masked by the
// gathers that produce them, a comparison two scatter-adds share, and a
// select something else reads too (then evaluated densely, the sweep
// reading it all the same).
const scatterSrc = `
tir.func @cast32(%g: !tir.tensor<f64, E[0:NE], S[0:3]>, %t: !tir.tensor<i32, E[0:NE], S[0:3]>, %x: !tir.tensor<f64, V[0:NV]>) -> !tir.tensor<f64, V[0:NV]> {
  %z = tir.constant 0.0 : f64
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:NV]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, S]
  tir.return %r : !tir.tensor<f64, V[0:NV]>
}
tir.func @swapped(%g: !tir.tensor<f32, E[0:NE], S[0:3]>, %t: !tir.tensor<i64, E[0:NE], S[0:3]>, %x: !tir.tensor<f32, V[0:NV]>) -> !tir.tensor<f32, V[0:NV]> {
  %z = tir.constant 0.0 : f32
  %p = tir.pos V of %x
  %h = tir.cmp eq %p, %t
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [S, E]
  tir.return %r : !tir.tensor<f32, V[0:NV]>
}
tir.func @vertical(%g: !tir.tensor<f64, K[0:4], E[0:NE]>, %t: !tir.tensor<i32, K[0:4], E[0:NE]>, %x: !tir.tensor<f64, V[0:NV], K[0:4]>) -> !tir.tensor<f64, V[0:NV], K[0:4]> {
  %z = tir.constant 0.0 : f64
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:NV]>
  %h = tir.cmp eq %c, %t
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E]
  tir.return %r : !tir.tensor<f64, V[0:NV], K[0:4]>
}
tir.func @ints(%n: !tir.tensor<i32, E[0:NE], S[0:3]>, %t: !tir.tensor<i32, E[0:NE], S[0:3]>, %x: !tir.tensor<f64, V[0:NV]>) -> !tir.tensor<i32, V[0:NV]> {
  %z = tir.constant 0 : i32
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:NV]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %n, %z
  %r = tir.reduce add %s over [E, S]
  tir.return %r : !tir.tensor<i32, V[0:NV]>
}
tir.func @masked(%src: !tir.tensor<f64, F[0:NE]>, %t0: !tir.tensor<i32, F[0:NE]>, %i: !tir.tensor<i32, E[0:NE], S[0:3]>,
                 %j: !tir.tensor<i32, E[0:NE], S[0:3]>, %x: !tir.tensor<f64, V[0:NV]>) -> !tir.tensor<f64, V[0:NV]> {
  %z = tir.constant 0.0 : f64
  %t = tir.gather %t0 [F = %i]
  %g = tir.gather %src [F = %j]
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:NV]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, S]
  tir.return %r : !tir.tensor<f64, V[0:NV]>
}
tir.func @shared(%g: !tir.tensor<f64, E[0:NE], S[0:3]>, %k: !tir.tensor<f64, E[0:NE], S[0:3]>, %t: !tir.tensor<i32, E[0:NE], S[0:3]>,
                 %x: !tir.tensor<f64, V[0:NV]>) -> (!tir.tensor<f64, V[0:NV]>, !tir.tensor<f64, V[0:NV]>, !tir.tensor<f64, V[0:NV], E[0:NE], S[0:3]>) {
  %z = tir.constant 0.0 : f64
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:NV]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, S]
  %gk = tir.mul %g, %k
  %s2 = tir.select %h, %gk, %z
  %r2 = tir.reduce add %s2 over [E, S]
  %back = tir.gather %r [V = %t]
  %s3 = tir.select %h, %back, %z
  %r3 = tir.reduce add %s3 over [E, S]
  tir.return %r2, %r3, %s : !tir.tensor<f64, V[0:NV]>, !tir.tensor<f64, V[0:NV]>, !tir.tensor<f64, V[0:NV], E[0:NE], S[0:3]>
}
`

// TestScatterAddSweepIsDense: the sweep (scatter.go) and the dense
// definition give the same bits (and masks) on random tables whose entries
// repeat destinations, fall outside the destination's interval (-1,
// negative, past the end) or are masked, with masked values too; and the
// sweep is what ran.
func TestScatterAddSweepIsDense(t *testing.T) {
	m, diags := parser.Parse("scatter.tir", scatterSrc)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	syms := map[string]int64{"NV": 11, "NE": 37}
	for _, fn := range m.Body().Ops {
		name := ir.SymbolName(fn)
		for seed := uint64(1); seed <= 5; seed++ {
			args := scatterArgs(t, fn, syms, seed)
			before := sweepsRun.Load()
			sparse, err := Run(fn, args, syms)
			if err != nil {
				t.Fatalf("@%s: %v", name, err)
			}
			if sweepsRun.Load() == before {
				t.Fatalf("@%s: no scatter-add was computed by a sweep", name)
			}
			sparseScatterAdds = false
			dense, err := Run(fn, args, syms)
			sparseScatterAdds = true
			if err != nil {
				t.Fatalf("@%s (dense): %v", name, err)
			}
			for k := range dense {
				if diff := bitsDiffer(sparse[k], dense[k]); diff != "" {
					t.Fatalf("@%s seed %d result #%d: the sweep and the dense form differ: %s", name, seed, k, diff)
				}
			}
		}
	}
}

// scatterArgs draws a function's arguments: integer tensors hold
// coordinates in [-3, NV+3) (repeated, -1, out of range), float tensors
// values of mixed magnitudes (sums whose order shows in the last bits).
func scatterArgs(t *testing.T, fn *ir.Operation, syms map[string]int64, seed uint64) []*Tensor {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 23))
	var args []*Tensor
	for _, a := range fn.Regions[0].Entry().Args {
		tt, _ := tir.AsTensor(a.Type)
		dims, err := EvalDims(tt, syms)
		if err != nil {
			t.Fatal(err)
		}
		x := mustTensor(tt.Elem, dims)
		for i := range x.I64 {
			x.I64[i] = rng.Int64N(syms["NV"]+6) - 3
		}
		for i := range x.F64 {
			x.F64[i] = RoundTo(tt.Elem, (rng.Float64()*2-1)*math.Pow(10, float64(rng.IntN(9)-4)))
		}
		args = append(args, x)
	}
	return args
}

// bitsDiffer describes the first difference of two tensors, bit for bit
// (data and masks), or "".
func bitsDiffer(a, b *Tensor) string {
	if !sameDims(a.Dims, b.Dims) || !ir.TypeEqual(a.Elem, b.Elem) {
		return a.String() + " against " + b.String()
	}
	for i := 0; i < a.Len(); i++ {
		switch {
		case a.Masked(i) != b.Masked(i):
			return "mask" + pointText(a.Dims, i)
		case a.F64 != nil && !sameBits(a.F64[i], b.F64[i]):
			return "value" + pointText(a.Dims, i)
		case a.I64 != nil && a.I64[i] != b.I64[i]:
			return "value" + pointText(a.Dims, i)
		}
	}
	return ""
}
