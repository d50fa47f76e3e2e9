package derivatives

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
)

// chained is a scan %s2 that reads %s1 through %prev, and %SAME (%s1
// itself at its own level, or another value); the cases vary how %prev
// is made.
const chained = `tir.func @f(%a: !tir.tensor<f64, I[0:3], K[0:5]>, %b: !tir.tensor<f64, I[0:3], K[0:5]>) -> (!tir.tensor<f64, I[0:3], K[0:5]>, !tir.tensor<f64, I[0:3], K[0:5]>) {
  %zero = tir.constant 0.0 : f64
  %one = tir.constant 1.0 : f64
  %s1 = tir.scan %DIR along K init %zero ins(%a) {
  ^bb0(%p: !tir.tensor<f64, I[0:3]>, %ak: !tir.tensor<f64, I[0:3]>):
    %q = tir.mul %p, %ak
    %n = tir.add %q, %ak
    tir.yield %n
  }
  %PREV
  %s2 = tir.scan %DIR along K init %one ins(%b, %prev, %SAME) {
  ^bb0(%r: !tir.tensor<f64, I[0:3]>, %bk: !tir.tensor<f64, I[0:3]>, %pk: !tir.tensor<f64, I[0:3]>, %sk: !tir.tensor<f64, I[0:3]>):
    %u = tir.mul %pk, %bk
    %v = tir.sub %r, %u
    %w = tir.add %v, %sk
    tir.yield %w
  }
  tir.return %s1, %s2 : !tir.tensor<f64, I[0:3], K[0:5]>, !tir.tensor<f64, I[0:3], K[0:5]>
}`

func TestMergeScans(t *testing.T) {
	forward := `%sh = tir.shift %s1 [K - 1]
  %fill = tir.broadcast %FILL [I[0:3], K[0:1]]
  %prev = tir.concat %fill, %sh along K
  %other = tir.mul %a, %one
  %dep = tir.mul %s1, %one`
	backward := `%sh = tir.shift %s1 [K + 1]
  %fill = tir.broadcast %FILL [I[0:3], K[4:5]]
  %prev = tir.concat %sh, %fill along K
  %other = tir.mul %a, %one
  %dep = tir.mul %s1, %one`
	cases := []struct {
		name, dir, prev, fill, same string
		scans                       int // in the function once merged
	}{
		{"forward", "forward", forward, "zero", "s1", 1},
		{"backward", "backward", backward, "zero", "s1", 1},
		{"an input computed between the two", "forward", forward, "zero", "other", 1},
		// s1's own level read through a value computed from it.
		{"s1 read through another value", "forward", forward, "zero", "dep", 2},
		// Not S1's previous level: another fill than S1's init, a shift
		// by two, the wrong end.
		{"other fill", "forward", forward, "one", "s1", 2},
		{"shift by two", "forward", `%sh = tir.shift %s1 [K - 2]
  %fill = tir.broadcast %FILL [I[0:3], K[0:2]]
  %prev = tir.concat %fill, %sh along K
  %other = tir.mul %a, %one
  %dep = tir.mul %s1, %one`, "zero", "s1", 2},
		{"fill at the wrong end", "backward", forward, "zero", "s1", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			prev := c.prev
			src := chained
			for _, r := range [][2]string{{"%PREV", prev}, {"%DIR", c.dir}, {"%FILL", "%" + c.fill}, {"%SAME", "%" + c.same}} {
				src = strings.ReplaceAll(src, r[0], r[1])
			}
			m := parse(t, src)
			fn := m.Lookup("f")
			merged := fn.Clone(map[*ir.Value]*ir.Value{})
			merged.SetAttr(ir.AttrSymName, ir.StringAttr("g"))
			m.Body().Append(merged)
			mergeScans(merged.Regions[0].Entry())
			if err := ir.Verify(m.Op, nil); err != nil {
				t.Fatalf("the merged function does not verify: %v", err)
			}
			scans := 0
			merged.Walk(func(op *ir.Operation) bool {
				if op.Is(tir.Scan) {
					scans++
				}
				return true
			})
			if scans != c.scans {
				t.Errorf("%d scans after merging, want %d", scans, c.scans)
			}
			args := randomArgs(t, fn)
			want, err := interp.Run(fn, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := interp.Run(merged, args, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i := range want {
				if fmt.Sprint(got[i].F64) != fmt.Sprint(want[i].F64) {
					t.Errorf("result %d: merged %v, as written %v", i, got[i].F64, want[i].F64)
				}
			}
		})
	}
}

// randomArgs fills fn's float arguments with values in [-1, 1).
func randomArgs(t *testing.T, fn *ir.Operation) []*interp.Tensor {
	t.Helper()
	ft, _ := tir.FuncType(fn)
	rng := rand.New(rand.NewSource(1))
	var args []*interp.Tensor
	for _, in := range ft.Inputs {
		tt, _ := tir.AsTensor(in)
		dims, err := interp.EvalDims(tt, nil)
		if err != nil {
			t.Fatal(err)
		}
		a, err := interp.NewTensor(tt.Elem, dims)
		if err != nil {
			t.Fatal(err)
		}
		for i := range a.F64 {
			a.F64[i] = rng.Float64()*2 - 1
		}
		args = append(args, a)
	}
	return args
}

// TestMergeScansMasked: a step with a masked input keeps its state, so a
// scan reading values through a table is not merged with another.
func TestMergeScansMasked(t *testing.T) {
	m := parse(t, `tir.func @f(%x: !tir.tensor<f64, V[0:5]>, %t: !tir.tensor<i32, C[0:3], K[0:6]>, %b: !tir.tensor<f64, C[0:3], K[0:6]>) -> !tir.tensor<f64, C[0:3], K[0:6]> {
  %zero = tir.constant 0.0 : f64
  %g = tir.gather %x [V = %t]
  %s1 = tir.scan forward along K init %zero ins(%g) {
  ^bb0(%p, %gk):
    %n = tir.add %p, %gk
    tir.yield %n
  }
  %sh = tir.shift %s1 [K - 1]
  %fill = tir.broadcast %zero [C[0:3], K[0:1]]
  %prev = tir.concat %fill, %sh along K
  %s2 = tir.scan forward along K init %zero ins(%b, %prev) {
  ^bb0(%r, %bk, %pk):
    %u = tir.mul %pk, %bk
    %w = tir.add %r, %u
    tir.yield %w
  }
  tir.return %s2 : !tir.tensor<f64, C[0:3], K[0:6]>
}`)
	fn := m.Lookup("f")
	mergeScans(fn.Regions[0].Entry())
	scans := 0
	fn.Walk(func(op *ir.Operation) bool {
		if op.Is(tir.Scan) {
			scans++
		}
		return true
	})
	if scans != 2 {
		t.Errorf("%d scans after merging, want the two as written", scans)
	}
}
