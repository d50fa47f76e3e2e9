package test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir/interp"
	"tir/tools/native"
)

// Data-dependent result extents (issue 9): tir.iota and tir.compress have
// results whose extent is known only from values. Every case runs in the
// interpreter and compiled three ways (runModes: -O2, everything
// materialized, -O2 --threads), whose results and messages must agree,
// and is compared with values computed here, in Go, from the inputs.

// vec is a 1-d f64 tensor on I[0:len(vs)].
func vec(t *testing.T, vs ...float64) *interp.Tensor {
	return tensorOf(t, f64, []interp.Dim{dim("I", 0, int64(len(vs)))}, vs)
}

// scalarI64 is a 0-d i64 tensor.
func scalarI64(t *testing.T, v int64) *interp.Tensor {
	return tensorOf(t, i64, nil, []float64{float64(v)})
}

// expectResults checks every result of every mode: its domain and its
// values (none masked).
func expectResults(t *testing.T, results map[string][]*interp.Tensor, want [][]float64, dims [][]interp.Dim) {
	t.Helper()
	for mode, rs := range results {
		if len(rs) != len(want) {
			t.Fatalf("%s: %d results, want %d", mode, len(rs), len(want))
		}
		for k, got := range rs {
			if fmt.Sprint(got.Dims) != fmt.Sprint(dims[k]) {
				t.Errorf("%s: result #%d on %v, want %v", mode, k, got.Dims, dims[k])
				continue
			}
			for i, w := range want[k] {
				g := float64(0)
				if got.F64 != nil {
					g = got.F64[i]
				} else {
					g = float64(got.I64[i])
				}
				if got.Masked(i) || g != w {
					t.Errorf("%s: result #%d element %d = %v, want %v", mode, k, i, g, w)
				}
			}
		}
	}
}

// tir.compress keeps the rows of x where the mask holds, in order, on
// I[0:count]; the reduction over the compressed dimension adds exactly
// those rows, and the count itself is the extent of the result.
func TestCompressRows(t *testing.T) {
	const src = `tir.func @pos(%x: !tir.tensor<f64, I[0:N], J[0:3]>, %y: !tir.tensor<f64, I[0:N]>) -> (!tir.tensor<f64, I[0:?_r_I], J[0:3]>, !tir.tensor<f64, J[0:3]>) {
  %zero = tir.constant 0.0 : f64
  %m = tir.cmp gt %y, %zero
  %r = tir.compress %x, %m along I
  %s = tir.reduce add %r over [I]
  tir.return %r, %s : !tir.tensor<f64, I[0:?_r_I], J[0:3]>, !tir.tensor<f64, J[0:3]>
}
`
	for _, ys := range [][]float64{
		{1, -2, 3, 0, 5, -1, 7},
		{-1, -2, -3},  // nothing kept: an empty result
		{4, 4, 4, 4},  // everything kept
		{0.5, -1, -1}, // the first row only
	} {
		n := int64(len(ys))
		var xs []float64
		for i := int64(0); i < n; i++ {
			for j := int64(0); j < 3; j++ {
				xs = append(xs, float64(10*i+j))
			}
		}
		x := tensorOf(t, f64, []interp.Dim{dim("I", 0, n), dim("J", 0, 3)}, xs)
		var rows []float64
		sums := []float64{0, 0, 0}
		kept := int64(0)
		for i, y := range ys {
			if y > 0 {
				for j := 0; j < 3; j++ {
					rows = append(rows, xs[3*i+j])
					sums[j] += xs[3*i+j]
				}
				kept++
			}
		}
		results := runAllModes(t, src, []*interp.Tensor{x, vec(t, ys...)}, nil)
		expectResults(t, results, [][]float64{rows, sums},
			[][]interp.Dim{{dim("I", 0, kept), dim("J", 0, 3)}, {dim("J", 0, 3)}})
	}
}

// arange(start, stop, step) for i64 and i32, in both directions, empty
// and not a multiple of the step; the result feeds elementwise ops and a
// reduction.
func TestIotaArange(t *testing.T) {
	for _, elem := range []string{"i64", "i32"} {
		src := strings.ReplaceAll(`tir.func @ar(%a: !tir.tensor<ELT>, %b: !tir.tensor<ELT>, %c: !tir.tensor<ELT>) -> (!tir.tensor<ELT, I[0:?_r_I]>, !tir.tensor<ELT>) {
  %r = tir.iota %a, %b, %c along I
  %three = tir.constant 3 : ELT
  %t = tir.mul %r, %three
  %s = tir.reduce add %r over [I]
  tir.return %t, %s : !tir.tensor<ELT, I[0:?_r_I]>, !tir.tensor<ELT>
}
`, "ELT", elem)
		et := ir.IntegerType{Width: 64}
		if elem == "i32" {
			et = i32
		}
		for _, c := range [][3]int64{{2, 11, 3}, {0, 5, 1}, {20, -11, -3}, {5, 5, 1}, {7, 2, 1}, {-4, 4, 100}, {3, -3, -7}} {
			var vals, tripled []float64
			sum := 0.0
			for v := c[0]; (c[2] > 0 && v < c[1]) || (c[2] < 0 && v > c[1]); v += c[2] {
				vals = append(vals, float64(v))
				tripled = append(tripled, float64(3*v))
				sum += float64(v)
			}
			args := []*interp.Tensor{}
			for _, v := range c {
				args = append(args, tensorOf(t, et, nil, []float64{float64(v)}))
			}
			results := runAllModes(t, src, args, nil)
			expectResults(t, results, [][]float64{tripled, {sum}},
				[][]interp.Dim{{dim("I", 0, int64(len(vals)))}, nil})
		}
	}
}

// A step of 0 would make an infinite range, and a count beyond int64
// cannot be an extent: every mode refuses both with the same message.
func TestIotaFailures(t *testing.T) {
	const src = `tir.func @ar(%a: !tir.tensor<i64>, %b: !tir.tensor<i64>, %c: !tir.tensor<i64>) -> !tir.tensor<i64, I[0:?_r_I]> {
  %r = tir.iota %a, %b, %c along I
  tir.return %r : !tir.tensor<i64, I[0:?_r_I]>
}
`
	expectFailure(t, src, []*interp.Tensor{scalarI64(t, 0), scalarI64(t, 10), scalarI64(t, 0)}, nil, "tir.iota value 'r': the step is 0")
	lo, hi, one := scalarI64(t, 0), scalarI64(t, 0), scalarI64(t, 1)
	lo.I64[0], hi.I64[0] = math.MinInt64, math.MaxInt64
	expectFailure(t, src, []*interp.Tensor{lo, hi, one}, nil, "tir.iota value 'r': the extent does not fit in 64 bits")
}

// Extents computed from data meet everything downstream: a compress of a
// compress (whose mask is computed from the first), a scan along the
// compressed dimension, a shift and a difference (a domain that depends
// on the count), tir.pos over it, a concat after it of a value shifted by
// the count, a gather through a table into it (entries beyond the count
// are masked), a broadcast onto it and an iota whose stop is a count.
func TestDataExtentsDownstream(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, I[0:N]>, %t: !tir.tensor<i32, E[0:5]>) -> (!tir.tensor<f64, I[0:?_q_I]>, !tir.tensor<f64, I[0:?_r_I]>, !tir.tensor<f64, I[1:?_r_I]>, !tir.tensor<i64, I[0:?_r_I]>, !tir.tensor<f64, I[0:N + ?_r_I]>, !tir.tensor<f64, E[0:5]>, !tir.tensor<i64, K[0:?_k_K]>) {
  %z = tir.constant 0.0 : f64
  %m = tir.cmp gt %x, %z
  %r = tir.compress %x, %m along I
  %big = tir.constant 0.5 : f64
  %m2 = tir.cmp gt %r, %big
  %q = tir.compress %r, %m2 along I
  %c = tir.scan forward along I init %z ins(%r) {
  ^bb0(%s: !tir.tensor<f64>, %a: !tir.tensor<f64>):
    %n = tir.add %s, %a
    tir.yield %n : !tir.tensor<f64>
  } : !tir.tensor<f64, I[0:?_r_I]>
  %d = tir.shift %r [I - 1]
  %e = tir.sub %r, %d
  %p = tir.pos I of %r
  %sh = tir.shift %x [I - ?_r_I]
  %cat = tir.concat %r, %sh along I
  %g = tir.gather %r [I = %t]
  %ok = tir.can_deref %g
  %g0 = tir.select %ok, %g, %z
  %one = tir.constant 1 : i64
  %zero = tir.constant 0 : i64
  %ones = tir.broadcast %one [I[0:?_r_I]]
  %cnt = tir.reduce add %ones over [I]
  %k = tir.iota %zero, %cnt, %one along K
  tir.return %q, %c, %e, %p, %cat, %g0, %k : !tir.tensor<f64, I[0:?_q_I]>, !tir.tensor<f64, I[0:?_r_I]>, !tir.tensor<f64, I[1:?_r_I]>, !tir.tensor<i64, I[0:?_r_I]>, !tir.tensor<f64, I[0:N + ?_r_I]>, !tir.tensor<f64, E[0:5]>, !tir.tensor<i64, K[0:?_k_K]>
}
`
	xs := []float64{0.25, -1, 0.75, 2, -0.5, 0, 1.5, 0.125}
	table := []float64{0, 3, -1, 4, 1}
	var r, q, scan, diff, pos []float64
	acc := 0.0
	for _, v := range xs {
		if v > 0 {
			r = append(r, v)
		}
	}
	for i, v := range r {
		if v > 0.5 {
			q = append(q, v)
		}
		acc += v
		scan = append(scan, acc)
		pos = append(pos, float64(i))
		if i > 0 {
			diff = append(diff, v-r[i-1])
		}
	}
	cat := append(append([]float64(nil), r...), xs...)
	var gathered []float64
	for _, e := range table {
		if e >= 0 && int(e) < len(r) {
			gathered = append(gathered, r[int(e)])
		} else {
			gathered = append(gathered, 0)
		}
	}
	n, nr := int64(len(xs)), int64(len(r))
	x := vec(t, xs...)
	tt := tensorOf(t, i32, []interp.Dim{dim("E", 0, 5)}, table)
	var ks []float64
	for i := int64(0); i < nr; i++ {
		ks = append(ks, float64(i))
	}
	results := runAllModes(t, src, []*interp.Tensor{x, tt}, nil)
	expectResults(t, results, [][]float64{q, scan, diff, pos, cat, gathered, ks}, [][]interp.Dim{
		{dim("I", 0, int64(len(q)))}, {dim("I", 0, nr)}, {dim("I", 1, nr)}, {dim("I", 0, nr)},
		{dim("I", 0, nr+n)}, {dim("E", 0, 5)}, {dim("K", 0, nr)},
	})
}

// A compressed extent that meets a known interval before a reduction must
// equal it (an unknown extent is never narrowed), checked once the count
// is known, with the same message in every mode; a mask on another
// interval than the values is refused the same way.
func TestDataExtentChecks(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, I[0:N]>, %y: !tir.tensor<f64, I[0:M]>, %w: !tir.tensor<f64, I[0:3]>) -> !tir.tensor<f64> {
  %z = tir.constant 0.0 : f64
  %m = tir.cmp gt %y, %z
  %r = tir.compress %x, %m along I
  %p = tir.mul %r, %w
  %s = tir.reduce add %p over [I]
  tir.return %s : !tir.tensor<f64>
}
`
	w := vec(t, 1, 10, 100)
	x := vec(t, 1, 2, 3, 4, 5)
	// Three rows kept: x[0], x[2], x[4].
	expectAll(t, runAllModes(t, src, []*interp.Tensor{x, vec(t, 1, -1, 1, -1, 1), w}, nil), []float64{1*1 + 3*10 + 5*100})
	expectFailure(t, src, []*interp.Tensor{x, vec(t, 1, -1, 1, -1, -1), w}, nil,
		"reduction over I: the extent of value 'r' along I (?_r_I, from data) and 3 must be equal (an unknown extent is never narrowed)")
	expectFailure(t, src, []*interp.Tensor{x, vec(t, 1, 1, 1, 1), w}, nil,
		"tir.compress along I: the mask is on [0:M] = [0:4] but argument 'x' on [0:N] = [0:5]")
}

// The ABI of a function whose result extent depends on data, used from C
// with nothing but the header: f_result_shape says it cannot tell (1,
// -1), f_result_shape_data computes the extent from the inputs, the
// function fills a result allocated that large, and refuses one of
// another size with a message that names the shape function.
func TestResultShapeDataFromC(t *testing.T) {
	needToolchain(t)
	needCompilers(t)
	const src = `tir.func @pos(%x: !tir.tensor<f32, I[0:N]>) -> !tir.tensor<f32, I[0:?_r_I]> {
  %zero = tir.constant 0.0 : f32
  %m = tir.cmp gt %x, %zero
  %r = tir.compress %x, %m along I
  tir.return %r : !tir.tensor<f32, I[0:?_r_I]>
}
`
	dir := t.TempDir()
	path := writeFile(t, dir, "pos.tir", src)
	hdr := header(t, path)
	if !strings.Contains(hdr, "int32_t pos_result_shape_data(const tir_desc_f32_1 *x,") {
		t.Fatalf("the header does not declare pos_result_shape_data:\n%s", hdr)
	}
	compileHeader(t, dir, hdr)
	llvm, err := native.Compile(path, src, 2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	llc, _ := native.Tool("llc")
	ll, obj := filepath.Join(dir, "module.ll"), filepath.Join(dir, "module.o")
	if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, llc, "-O3", "-filetype=obj", "-relocation-model=pic", ll, "-o", obj)
	const prog = `#include <stdio.h>
#include <stdlib.h>
#include "tir_module.h"
int main(void) {
  float in[7] = {1.5f, -2.0f, 3.0f, 0.0f, 5.0f, -1.0f, 7.0f};
  tir_desc_f32_1 x = {in, in, 0, {7}, {1}};
  int64_t sizes[1] = {0};
  int32_t st = pos_result_shape(7, sizes);
  printf("static %d %lld\n", (int)st, (long long)sizes[0]);
  int32_t rc = pos_result_shape_data(&x, 7, sizes);
  printf("data %d %lld\n", (int)rc, (long long)sizes[0]);
  float *out = malloc(sizeof(float) * (size_t)(sizes[0] + 1));
  tir_desc_f32_1 r = {out, out, 0, {sizes[0]}, {1}};
  rc = pos(&x, &r, 7);
  printf("call %d:", (int)rc);
  for (int64_t i = 0; i < sizes[0]; i++) printf(" %g", out[i]);
  printf("\n");
  r.sizes[0] = sizes[0] + 1;
  rc = pos(&x, &r, 7);
  printf("wrong %d %s\n", rc != 0, pos_error(rc));
  x.sizes[0] = 6;
  rc = pos_result_shape_data(&x, 7, sizes);
  printf("bad input %d %s\n", rc != 0, pos_error(rc));
  return 0;
}
`
	main := writeFile(t, dir, "main.c", prog)
	exe := filepath.Join(dir, "main")
	run(t, "gcc", "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", dir, main, obj, "-o", exe, "-lm")
	got := run(t, exe)
	want := `static 1 -1
data 0 4
call 0: 1.5 3 5 7
wrong 1 argument 'result' dimension I: expected extent ?_r_I (computed from the inputs: pos_result_shape_data gives it), got 5
bad input 1 argument 'x' dimension I: expected extent N = 7, got 6
`
	if got != want {
		t.Errorf("the C program printed\n%s\nwant\n%s", got, want)
	}
}

// GPU targets refuse extents computed from data at the op that computes
// them, with exit status 1, never a crash.
func TestDataExtentGPURefused(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "ar.tir", `tir.func @ar(%a: !tir.tensor<i64>, %b: !tir.tensor<i64>, %c: !tir.tensor<i64>) -> !tir.tensor<i64, I[0:?_r_I]> {
  %r = tir.iota %a, %b, %c along I
  tir.return %r : !tir.tensor<i64, I[0:?_r_I]>
}
`)
	for _, emit := range []string{"llvm", "cuda-host", "launch-json"} {
		code, _, stderr := runTool(t, []string{"-O2", "--target=nvptx64", "--emit=" + emit, path}, "")
		if code != 1 || !strings.Contains(stderr, path+":2:3: error: gpu-kernel-outlining: the extent ?_r_I is computed from data") {
			t.Errorf("--emit=%s: exit %d, stderr:\n%s", emit, code, stderr)
		}
	}
}

// The program of testdata/lower/data_extents_random.tir on random inputs
// (three seeds), compiled with -O2 and interpreted (GPU targets refuse it,
// so it is not among testdata/e2e's programs).
func TestDataExtentsRandomInputs(t *testing.T) {
	needToolchain(t)
	path := filepath.Join("testdata", "lower", "data_extents_random.tir")
	runE2E(t, path, readE2ECase(t, path))
}

// A result on I[0:?_r_I - 1] is empty both when nothing and when one
// element is kept; the caller learns its domain from the sizes the
// function gives (compiled) without mistaking the count.
func TestCompressedShiftEmpty(t *testing.T) {
	const src = `tir.func @f(%x: !tir.tensor<f64, I[0:N]>) {
  %z = tir.constant 0.0 : f64
  %m = tir.cmp gt %x, %z
  %r = tir.compress %x, %m along I
  %s = tir.shift %r [I + 1]
  %d = tir.sub %s, %r
  tir.return %d, %r
}
`
	for _, c := range []struct {
		xs   []float64
		kept []float64
	}{
		{[]float64{-1, -2, -3}, nil},
		{[]float64{-1, 2, -3}, []float64{2}},
		{[]float64{1, -2, 4, 8}, []float64{1, 4, 8}},
	} {
		n := int64(len(c.kept))
		var diffs []float64
		for i := int64(1); i < n; i++ {
			diffs = append(diffs, c.kept[i]-c.kept[i-1])
		}
		results := runAllModes(t, src, []*interp.Tensor{vec(t, c.xs...)}, nil)
		expectResults(t, results, [][]float64{diffs, c.kept}, [][]interp.Dim{{dim("I", 0, n-1)}, {dim("I", 0, n)}})
	}
}
