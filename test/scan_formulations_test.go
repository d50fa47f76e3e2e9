package test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/passes"
	"tir/tools/native"
)

// Issue 21: the tridiagonal solver runs alike however its state is spelled:
// the forward sweep's tuple read inside the backward scan, split by
// tir.tuple_get before it, or computed by two scalar scans (the second
// reading the first one level below). Each formulation, in each storage
// order of K, must give the interpreter's values in every mode, and the
// lowering must keep the forward sweep in columns (lanes, slabs) exactly
// as for the first formulation: no temporary of the whole domain.

// tridiagForms are the formulations; LAYOUT is the type's dimensions and
// ZEROS the same with K[0:1].
var tridiagForms = map[string]string{
	"in": `!col = !tir.tensor<f64, LAYOUT>
tir.func @solve(%a: !col, %b: !col, %c: !col, %d: !col) -> !col {
  %init = tir.constant (0.0, 0.0) : tuple<f64, f64>
  %cpdp = tir.scan forward along K init %init ins(%a, %b, %c, %d) {
  ^bb0(%st, %ak, %bk, %ck, %dk):
    %cp_prev = tir.tuple_get %st[0]
    %dp_prev = tir.tuple_get %st[1]
    %t   = tir.mul %ak, %cp_prev
    %den = tir.sub %bk, %t
    %cp  = tir.div %ck, %den
    %u   = tir.mul %ak, %dp_prev
    %num = tir.sub %dk, %u
    %dp  = tir.div %num, %den
    %nxt = tir.make_tuple %cp, %dp
    tir.yield %nxt
  }
  %zero = tir.constant 0.0 : f64
  %x = tir.scan backward along K init %zero ins(%cpdp) {
  ^bb0(%x_above, %cd):
    %cp = tir.tuple_get %cd[0]
    %dp = tir.tuple_get %cd[1]
    %m  = tir.mul %cp, %x_above
    %xk = tir.sub %dp, %m
    tir.yield %xk
  }
  tir.return %x : !col
}
`,
	"before": `!col = !tir.tensor<f64, LAYOUT>
tir.func @solve(%a: !col, %b: !col, %c: !col, %d: !col) -> !col {
  %init = tir.constant (0.0, 0.0) : tuple<f64, f64>
  %cpdp = tir.scan forward along K init %init ins(%a, %b, %c, %d) {
  ^bb0(%st, %ak, %bk, %ck, %dk):
    %cp_prev = tir.tuple_get %st[0]
    %dp_prev = tir.tuple_get %st[1]
    %t   = tir.mul %ak, %cp_prev
    %den = tir.sub %bk, %t
    %cp  = tir.div %ck, %den
    %u   = tir.mul %ak, %dp_prev
    %num = tir.sub %dk, %u
    %dp  = tir.div %num, %den
    %nxt = tir.make_tuple %cp, %dp
    tir.yield %nxt
  }
  %zero = tir.constant 0.0 : f64
  %cp = tir.tuple_get %cpdp[0]
  %dp = tir.tuple_get %cpdp[1]
  %x = tir.scan backward along K init %zero ins(%cp, %dp) {
  ^bb0(%x_above, %cpk, %dpk):
    %m  = tir.mul %cpk, %x_above
    %xk = tir.sub %dpk, %m
    tir.yield %xk
  }
  tir.return %x : !col
}
`,
	"2scans": `!col = !tir.tensor<f64, LAYOUT>
tir.func @solve(%a: !col, %b: !col, %c: !col, %d: !col) -> !col {
  %zero = tir.constant 0.0 : f64
  %cp = tir.scan forward along K init %zero ins(%a, %b, %c) {
  ^bb0(%cp_prev, %ak, %bk, %ck):
    %t   = tir.mul %ak, %cp_prev
    %den = tir.sub %bk, %t
    %cpk = tir.div %ck, %den
    tir.yield %cpk
  }
  %cp_below = tir.shift %cp [K - 1]
  %zeros = tir.broadcast %zero [ZEROS]
  %cp_prev = tir.concat %zeros, %cp_below along K
  %dp = tir.scan forward along K init %zero ins(%a, %b, %d, %cp_prev) {
  ^bb0(%dp_prev, %ak, %bk, %dk, %cpp):
    %t   = tir.mul %ak, %cpp
    %den = tir.sub %bk, %t
    %u   = tir.mul %ak, %dp_prev
    %num = tir.sub %dk, %u
    %dpk = tir.div %num, %den
    tir.yield %dpk
  }
  %x = tir.scan backward along K init %zero ins(%cp, %dp) {
  ^bb0(%x_above, %cpk, %dpk):
    %m  = tir.mul %cpk, %x_above
    %xk = tir.sub %dpk, %m
    tir.yield %xk
  }
  tir.return %x : !col
}
`,
}

var tridiagFormNames = []string{"in", "before", "2scans"}

// tridiagLayout is a storage order of the solver's arrays: K last
// (columns, lanes), in the middle, or first (rows, slabs).
type tridiagLayout struct {
	name, dims string
	// order gives the dimensions' names in storage order.
	order []string
}

var tridiagLayouts = []tridiagLayout{
	{"k-inner", "I[0:N], J[0:M], K[0:L]", []string{"I", "J", "K"}},
	{"k-middle", "I[0:N], K[0:L], J[0:M]", []string{"I", "K", "J"}},
	{"k-outer", "K[0:L], I[0:N], J[0:M]", []string{"K", "I", "J"}},
}

func tridiagSource(form string, l tridiagLayout) string {
	zeros := strings.Replace(l.dims, "K[0:L]", "K[0:1]", 1)
	return strings.NewReplacer("LAYOUT", l.dims, "ZEROS", zeros).Replace(tridiagForms[form])
}

// tridiagProblem builds diagonally dominant systems of n x nk x m points
// (I, K, J) stored in the layout's order and the Thomas algorithm's
// solution with the operations in the programs' order.
func tridiagProblem(t *testing.T, l tridiagLayout, n, nk, m int) ([]*interp.Tensor, []float64) {
	t.Helper()
	ext := map[string]int{"I": n, "J": m, "K": nk}
	var dims []interp.Dim
	for _, d := range l.order {
		dims = append(dims, dim(d, 0, int64(ext[d])))
	}
	at := func(i, k, j int) int {
		pos := map[string]int{"I": i, "J": j, "K": k}
		p := 0
		for _, d := range l.order {
			p = p*ext[d] + pos[d]
		}
		return p
	}
	size := n * nk * m
	var a, b, c, d []float64
	for p := 0; p < size; p++ {
		a = append(a, 0.25+float64(p%7)/16)
		b = append(b, 4+float64(p%5)/8)
		c = append(c, 0.5-float64(p%3)/16)
		d = append(d, float64(p%11)-3.5)
	}
	want := make([]float64, size)
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			cp, dp := make([]float64, nk), make([]float64, nk)
			cprev, dprev := 0.0, 0.0
			for k := 0; k < nk; k++ {
				p := at(i, k, j)
				den := b[p] - a[p]*cprev
				cprev = c[p] / den
				dprev = (d[p] - a[p]*dprev) / den
				cp[k], dp[k] = cprev, dprev
			}
			xk := 0.0
			for k := nk - 1; k >= 0; k-- {
				xk = dp[k] - cp[k]*xk
				want[at(i, k, j)] = xk
			}
		}
	}
	args := []*interp.Tensor{tensorOf(t, f64, dims, a), tensorOf(t, f64, dims, b), tensorOf(t, f64, dims, c), tensorOf(t, f64, dims, d)}
	return args, want
}

// runScanModes runs src in the interpreter and compiled at -O0, -O2, with
// every value read twice materialized, with --threads (three threads) and
// as GPU kernels under the CUDA driver emulator.
func runScanModes(t *testing.T, src string, args []*interp.Tensor, syms map[string]int64) map[string][]*interp.Tensor {
	t.Helper()
	all, err := passes.ParsePipeline(materializeAll)
	if err != nil {
		t.Fatal(err)
	}
	res := runPipelines(t, src, args, syms, map[string]func(path, src string) (string, error){
		"-O0":              func(path, src string) (string, error) { return native.Compile(path, src, 0, "x86_64") },
		"-O2":              func(path, src string) (string, error) { return native.Compile(path, src, 2, "x86_64") },
		"all materialized": compileWith(all),
		"-O2 --threads":    compileWith(threadsPipeline(t)),
	})
	out := map[string][]*interp.Tensor{}
	for mode, r := range res {
		if r.err != nil {
			t.Fatalf("%s: %v", mode, r.err)
		}
		out[mode] = r.out
	}
	path := filepath.Join(t.TempDir(), "prog.tir")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	m, diags := native.Load(path, src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	var fn *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			fn = op
		}
	}
	gm, err := native.CompileModule(path, src, 2, "nvptx64")
	if err != nil {
		t.Fatalf("compile for nvptx64: %v", err)
	}
	prog, err := native.BuildGPU(gm, fn, t.TempDir(), native.GPUOptions{Emulate: true})
	if err != nil {
		t.Fatalf("GPU build: %v", err)
	}
	if out["GPU (emulated)"], _, err = prog.Run(args, syms, 1); err != nil {
		t.Fatalf("GPU (emulated): %v", err)
	}
	return out
}

// expectInterpreter checks every mode's results against the
// interpreter's, element by element and bit for bit, masks included.
func expectInterpreter(t *testing.T, results map[string][]*interp.Tensor) {
	t.Helper()
	want := results["interpreter"]
	for mode, got := range results {
		if mode == "interpreter" {
			continue
		}
		d, err := native.Compare(got, want)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if d.Mismatch > 0 {
			t.Errorf("%s: %d of %d elements differ from the interpreter's (largest %.3g) at %s", mode, d.Mismatch, d.Compared, d.MaxAbs, d.Where)
		}
	}
}

func TestTridiagFormulationsEveryMode(t *testing.T) {
	needToolchain(t)
	for _, l := range tridiagLayouts {
		for _, form := range tridiagFormNames {
			l, form := l, form
			t.Run(l.name+"/"+form, func(t *testing.T) {
				t.Parallel()
				src := tridiagSource(form, l)
				// Lanes of four with a remainder (M = 6), an odd number of
				// levels, and a single level.
				for _, s := range [][3]int{{2, 7, 6}, {3, 1, 5}} {
					n, nk, m := s[0], s[1], s[2]
					args, want := tridiagProblem(t, l, n, nk, m)
					results := runScanModes(t, src, args, map[string]int64{"N": int64(n), "L": int64(nk), "M": int64(m)})
					expectAll(t, results, want)
					expectInterpreter(t, results)
				}
			})
		}
	}
}

// allocTypes lists the memref types a lowering allocates, sorted.
func allocTypes(ir string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`memref\.alloc\([^)]*\) : (memref<[^>]*>)`).FindAllStringSubmatch(ir, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestTridiagFormulationsInColumns: whichever formulation, the lowering
// allocates what it allocates for the tuple read inside the backward scan
// (two columns, per lane with scan-lanes, or two K x J slabs with
// scan-rows), never a temporary of the whole domain, and runs the forward
// sweep as one loop (the two scalar scans fused).
func TestTridiagFormulationsInColumns(t *testing.T) {
	for _, l := range tridiagLayouts {
		for _, opt := range []string{"", "=scan-lanes=4", "=scan-rows=true"} {
			ref := lowerToAffine(t, tridiagSource("in", l), "--convert-tir-to-affine"+opt)
			refAllocs := allocTypes(ref)
			for _, a := range refAllocs {
				if !strings.Contains(a, "memref<?xf64>") && !strings.Contains(a, "memref<?x?xf64>") {
					t.Errorf("%s %s: the tuple formulation allocates %s", l.name, opt, a)
				}
			}
			for _, form := range tridiagFormNames[1:] {
				got := lowerToAffine(t, tridiagSource(form, l), "--convert-tir-to-affine"+opt)
				if a := allocTypes(got); strings.Join(a, " ") != strings.Join(refAllocs, " ") {
					t.Errorf("%s %s %s: allocates %v, the tuple formulation %v:\n%s", l.name, opt, form, a, refAllocs, got)
				}
				if n, want := strings.Count(got, "affine.for %rk"), strings.Count(ref, "affine.for %rk"); n != want {
					t.Errorf("%s %s %s: %d loops over K, the tuple formulation %d:\n%s", l.name, opt, form, n, want, got)
				}
			}
		}
	}
}

// TestTridiagKOuterVectorized: with K outermost, -O2 sweeps every
// formulation in rows over the contiguous J and vectorizes them: the
// forward sweep's two divisions (first level and the others) and the
// backward substitution's stores to the result are vector ops.
func TestTridiagKOuterVectorized(t *testing.T) {
	p, err := passes.OptPipeline(2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	text := p.String()
	// The affine stage of -O2: everything before convert-to-llvm.
	i := strings.Index(text, ",convert-to-llvm")
	if i < 0 {
		t.Fatalf("no convert-to-llvm in %s", text)
	}
	affineO2 := text[:i] + ")"
	vdiv := regexp.MustCompile(`arith\.divf [^\n]*: vector<\d+xf64>`)
	vstore := regexp.MustCompile(`affine\.vector_store [^\n]*%result\[`)
	for _, form := range tridiagFormNames {
		out := lowerToAffine(t, tridiagSource(form, tridiagLayouts[2]), "--pass-pipeline", affineO2)
		if n := len(vdiv.FindAllString(out, -1)); n < 4 {
			t.Errorf("%s: %d vector divisions, want the forward sweep's two at the first level and at the others:\n%s", form, n, out)
		}
		if n := len(vstore.FindAllString(out, -1)); n < 2 {
			t.Errorf("%s: %d vector stores of the result, want the backward sweep's at the first level and at the others:\n%s", form, n, out)
		}
		if a := allocTypes(out); len(a) != 2 || a[0] != "memref<?x?xf64>" {
			t.Errorf("%s: want two K x J slabs, got %v", form, a)
		}
	}
}

// scanGroupCases are programs where scans of one dimension read each other
// in ways a column nest must not take for a column read: another column's
// state, a step the reader has not reached, a masked initial state. Each
// must give the interpreter's values in every mode.
var scanGroupCases = map[string]string{
	// b reads a at the next J: a is read by the group of s's readers, but
	// not at their own outer point, so it cannot be computed column by
	// column with them (it was, and b read columns of a not yet computed).
	"other column": `!t = !tir.tensor<f64, I[0:3], J[0:6], K[0:5]>
tir.func @f(%x: !t) -> !t {
  %z = tir.constant 0.0 : f64
  %s = tir.scan forward along K init %z ins(%x) {
  ^bb0(%acc, %xk):
    %n = tir.add %acc, %xk
    tir.yield %n
  }
  %a = tir.scan backward along K init %z ins(%s) {
  ^bb0(%acc, %sk):
    %n = tir.add %acc, %sk
    tir.yield %n
  }
  %ash = tir.shift %a [J + 1]
  %asub = tir.subset %ash [J[0:5]]
  %last = tir.subset %a [J[5:6]]
  %cat = tir.concat %asub, %last along J
  %b = tir.scan forward along K init %z ins(%s, %cat) {
  ^bb0(%acc, %sk, %ak):
    %m = tir.mul %sk, %ak
    %n = tir.add %acc, %m
    tir.yield %n
  }
  tir.return %b : !t
}
`,
	// b reads a one step ahead (forward): a's column is complete when b
	// runs, but a loop shared by both would read a step a has not taken.
	"step ahead": `!t = !tir.tensor<f64, I[0:N], K[0:L]>
tir.func @f(%x: !t) -> !t {
  %z = tir.constant 0.0 : f64
  %a = tir.scan forward along K init %z ins(%x) {
  ^bb0(%acc, %xk):
    %n = tir.add %acc, %xk
    tir.yield %n
  }
  %ahead = tir.shift %a [K + 1]
  %front = tir.subset %ahead [K[0:L - 1]]
  %top = tir.subset %x [K[L - 1:L]]
  %next = tir.concat %front, %top along K
  %b = tir.scan forward along K init %z ins(%next, %x) {
  ^bb0(%acc, %nk, %xk):
    %m = tir.mul %acc, %xk
    %n = tir.sub %nk, %m
    tir.yield %n
  }
  %c = tir.scan backward along K init %z ins(%b, %a) {
  ^bb0(%acc, %bk, %ak):
    %m = tir.mul %acc, %ak
    %n = tir.add %bk, %m
    tir.yield %n
  }
  tir.return %c : !t
}
`,
	// Two backward scans in step, the second reading the first at its own
	// step and at the step before (K + 1), then a forward one reading both.
	"backward in step": `!t = !tir.tensor<f64, I[0:N], K[0:L]>
tir.func @f(%x: !t, %y: !t) -> !t {
  %z = tir.constant 0.0 : f64
  %half = tir.constant 0.5 : f64
  %a = tir.scan backward along K init %z ins(%x) {
  ^bb0(%acc, %xk):
    %m = tir.mul %acc, %half
    %n = tir.add %m, %xk
    tir.yield %n
  }
  %above = tir.shift %a [K + 1]
  %zeros = tir.broadcast %z [I[0:N], K[L - 1:L]]
  %a_prev = tir.concat %above, %zeros along K
  %b = tir.scan backward along K init %z ins(%a, %a_prev, %y) {
  ^bb0(%acc, %ak, %apk, %yk):
    %m = tir.mul %acc, %yk
    %d = tir.sub %ak, %apk
    %n = tir.add %m, %d
    tir.yield %n
  }
  %c = tir.scan forward along K init %z ins(%a, %b) {
  ^bb0(%acc, %ak, %bk):
    %m = tir.mul %ak, %bk
    %n = tir.add %acc, %m
    tir.yield %n
  }
  tir.return %c : !t
}
`,
	// a's initial state is gathered, so a is masked along whole columns;
	// b, in step with it, reads it at its own step and must see the mask
	// (a masked input leaves b's state as it was).
	"masked in step": `!t = !tir.tensor<f64, I[0:N], K[0:L]>
tir.func @f(%x: !t, %v: !tir.tensor<f64, V[0:4]>, %tab: !tir.tensor<i32, I[0:N]>) -> (!t, !t) {
  %g = tir.gather %v [V = %tab]
  %a = tir.scan forward along K init %g ins(%x) {
  ^bb0(%acc, %xk):
    %n = tir.add %acc, %xk
    tir.yield %n
  }
  %z = tir.constant 0.0 : f64
  %half = tir.constant 0.5 : f64
  %b = tir.scan forward along K init %z ins(%a) {
  ^bb0(%acc, %ak):
    %m = tir.mul %acc, %half
    %n = tir.add %m, %ak
    tir.yield %n
  }
  %c = tir.scan backward along K init %z ins(%a, %b) {
  ^bb0(%acc, %ak, %bk):
    %m = tir.mul %acc, %ak
    %n = tir.sub %bk, %m
    tir.yield %n
  }
  tir.return %b, %c : !t, !t
}
`,
}

func TestScanGroupsAgainstInterpreter(t *testing.T) {
	needToolchain(t)
	for name, src := range scanGroupCases {
		name, src := name, src
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "prog.tir")
			if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			m, diags := native.Load(path, src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			var fn *ir.Operation
			for _, op := range m.Body().Ops {
				if op.Name == "tir.func" {
					fn = op
				}
			}
			for _, syms := range []map[string]int64{{"N": 6, "L": 7}, {"N": 1, "L": 1}} {
				results := runScanModes(t, src, randomArgs(t, fn, syms, 5), syms)
				expectInterpreter(t, results)
			}
		})
	}
}
