package main

import (
	"fmt"
	"io"
	"math"
	"math/rand"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/passes/derivatives"
	"tir/tools/native"
)

// TestSmoke runs the whole harness in smoke mode: every classic and ML
// kernel, the adjoints of the derivatives table (the hand-written C
// adjoints against the interpreter's @f_vjp) and the softmax family
// (several defs, tir.call) at their small
// check sizes, every variant built and called once, results compared with
// the interpreter; no timing. It keeps the benchmark from rotting (it is
// not a benchmark itself: `make bench` is). The other families add only
// kernel files, which TestKernels checks, and would double its time.
func TestSmoke(t *testing.T) {
	tools := findTools()
	if tools.llcErr != nil {
		t.Skipf("the benchmark harness needs LLVM 14's llc (make deps): %v", tools.llcErr)
	}
	if tools.gccErr != nil {
		t.Skipf("the benchmark harness needs gcc (make deps): %v", tools.gccErr)
	}
	if tools.mlirError != nil {
		t.Logf("%v: the MLIR variants are expected to be n/a", tools.mlirError)
	}
	only := map[string]bool{}
	for _, k := range allKernels {
		if k.classic() || k.ml || k.family == "softmax" || k.of != "" {
			only[k.name] = true
		}
	}
	rep, err := runAll(config{smoke: true, only: only, log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	md := rep.markdown()
	if bad := rep.failures(); len(bad) > 0 {
		t.Fatalf("%s\n\n%s", strings.Join(bad, "\n"), md)
	}
	for _, r := range rep.results {
		for v, c := range r.check.cells {
			if c.absent {
				continue
			}
			optional := blasVariant(v) || v == vNumPy || ((v == vMLIR || v == vMLIRJIT) && tools.mlirError != nil)
			if c.na != "" && !optional {
				t.Errorf("%s/%s was not run although its tools are installed: %s", r.k.name, variantTitles[v], c.na)
			}
			if c.na != "" && optional {
				t.Logf("%s/%s: %s", r.k.name, variantTitles[v], c.na)
			}
			if c.na == "" && c.check.compared == 0 {
				t.Errorf("%s/%s: nothing was compared", r.k.name, variantTitles[v])
			}
		}
	}
	for name := range only {
		if !strings.Contains(md, "| "+name+" |") {
			t.Errorf("the tables have no row for %s", name)
		}
	}
	if t.Failed() {
		t.Log(md)
	}
}

// TestCompare checks that a wrong or unwritten element is caught.
func TestCompare(t *testing.T) {
	want := [][]float64{{1, 2, math.NaN(), 4}}
	if v, err := compare([][]float64{{1, 2, math.NaN(), 4}}, want, [][]bool{nil}); err != nil || v.mismatch != 0 || v.compared != 4 {
		t.Errorf("equal results: %+v, %v", v, err)
	}
	v, err := compare([][]float64{{1, 2 + 1e-9, math.NaN(), math.NaN()}}, want, [][]bool{nil})
	if err != nil || v.mismatch != 2 || v.maxRel <= 1e-12 || !math.IsNaN(v.maxRel) {
		t.Errorf("a wrong and an unwritten (NaN) element: %+v, %v", v, err)
	}
	if v, _ := compare([][]float64{{0, 2, 0, 4}}, want, [][]bool{{true, false, true, false}}); v.mismatch != 0 || v.compared != 2 {
		t.Errorf("masked points must be skipped: %+v", v)
	}
	if _, err := compare([][]float64{{1, 2}}, want, [][]bool{nil}); err == nil {
		t.Error("a result of the wrong length must be an error")
	}
}

// TestKernels checks the kernel table itself: distinct names, every size
// class present, every source embedded and every kernel file read without
// diagnostics, NumPy functions defined, a family's formulations on the
// same sizes and the same results' shapes.
func TestKernels(t *testing.T) {
	seen := map[string]bool{}
	mlPy, err := sources.ReadFile("ref/ml.py")
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]*kernel{}
	for i := range allKernels {
		k := &allKernels[i]
		if seen[k.name] {
			t.Errorf("kernel %s appears twice", k.name)
		}
		seen[k.name] = true
		if k.l3 == nil || k.check == nil || (k.classic() && k.dram == nil) {
			t.Errorf("%s lacks a size class", k.name)
		}
		files := []string{"kernels/" + k.file}
		if k.ref != "" {
			files = append(files, "ref/"+k.ref)
		}
		if k.blas != "" {
			files = append(files, "ref/"+k.blas)
		}
		for _, f := range files {
			if _, err := sources.ReadFile(f); err != nil {
				t.Errorf("%s: %v", k.name, err)
			}
		}
		if k.numpy != "" && !strings.Contains(string(mlPy), "\ndef "+k.numpy+"(") {
			t.Errorf("%s: ref/ml.py has no function %s", k.name, k.numpy)
		}
		if (k.numpyRef || k.ml) && k.numpy == "" {
			t.Errorf("%s: an ML kernel or one checked against NumPy needs kernel.numpy", k.name)
		}
		if k.classic() && (k.ref == "" || k.form != "") {
			t.Errorf("%s: a classic kernel has a C reference and no formulation", k.name)
		}
		if k.of != "" && (k.ml || k.family != "" && k.family != k.of+"_vjp") {
			t.Errorf("%s: an adjoint is no ML kernel, and a member of its kernel's adjoint family (%s_vjp) only", k.name, k.of)
		}
		if k.family == "" {
			continue
		}
		if k.form == "" {
			t.Errorf("%s: a family member says how it is written (kernel.form)", k.name)
		}
		if f, ok := first[k.family]; !ok {
			first[k.family] = k
		} else if fmt.Sprint(f.l3, f.dram) != fmt.Sprint(k.l3, k.dram) {
			t.Errorf("%s: family %s is timed at %v %v, this formulation at %v %v", k.name, k.family, f.l3, f.dram, k.l3, k.dram)
		}
	}
	// Every file loads, and a family's formulations take the same sizes
	// and return results of the same shapes.
	shapes := map[string]string{}
	for i := range allKernels {
		k := &allKernels[i]
		src, err := sources.ReadFile("kernels/" + k.file)
		if err != nil {
			continue
		}
		m, diags := native.Load(k.file, string(src))
		if len(diags) > 0 {
			t.Errorf("%s: %v", k.name, diags)
			continue
		}
		if k.family == "" {
			continue
		}
		var fn *ir.Operation
		for _, op := range m.Body().Ops {
			if op.Name == "tir.func" {
				fn = op
			}
		}
		ft, _ := tir.FuncType(fn)
		var outs []string
		for _, r := range ft.Results {
			out, err := newArg(r, k.check)
			if err != nil {
				t.Errorf("%s: %v", k.name, err)
				continue
			}
			outs = append(outs, fmt.Sprint(out.Shape()))
		}
		got := fmt.Sprint(interp.Symbols(fn), outs)
		if want, ok := shapes[k.family]; ok && got != want {
			t.Errorf("%s: sizes and result shapes %s, its family's first formulation %s", k.name, got, want)
		}
		shapes[k.family] = got
	}
}

// TestHandWrittenAdjoints proves the hand-written C adjoints of ref/
// right independently of the generated ones (TestSmoke compares them
// with the interpreter's @f_vjp): the dot-product test <J v, w> =
// <v, J^T w> for random x, v and w at the check size, J v from the
// interpreter's @f_jvp, J^T w from the C adjoint (gcc generic, called
// through the benchmark driver), within 1e-12 of the sum of the
// products' magnitudes.
func TestHandWrittenAdjoints(t *testing.T) {
	tools := findTools()
	if tools.llcErr != nil || tools.gccErr != nil {
		t.Skipf("the benchmark harness needs LLVM 14's llc and gcc (make deps): %v %v", tools.llcErr, tools.gccErr)
	}
	tested := 0
	for i := range derivKernels {
		k := &derivKernels[i]
		if k.ref == "" {
			continue
		}
		tested++
		t.Run(k.name, func(t *testing.T) {
			b, err := compileKernel(k, tools, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if b.failed[vGCCGeneric] != nil {
				t.Fatalf("the C adjoint was not built: %v", b.failed[vGCCGeneric])
			}
			const seed = 7
			ds, err := prepare(b, k.check, "dot", seed, true)
			if err != nil {
				t.Fatal(err)
			}
			ct, err := b.run(vGCCGeneric, ds, 0, 1, 1)
			if err != nil {
				t.Fatal(err)
			}
			// x and w: the inputs prepare drew for @f_vjp (the same seed).
			args, err := randomArgs(k, b.fn, k.check, seed)
			if err != nil {
				t.Fatal(err)
			}
			// @f_jvp, from the kernel's file.
			src, err := sources.ReadFile("kernels/" + k.file)
			if err != nil {
				t.Fatal(err)
			}
			m, diags := native.Load(k.file, string(src))
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			name := strings.TrimSuffix(ir.SymbolName(b.fn), "_vjp")
			if err := derivatives.Run(m, derivatives.Options{JVP: true, Functions: []string{name}}); err != nil {
				t.Fatal(err)
			}
			f, jvp := m.Lookup(name), m.Lookup(name+"_jvp")
			ft, _ := tir.FuncType(f)
			x, w := args[:len(ft.Inputs)], args[len(ft.Inputs):]
			rng := rand.New(rand.NewSource(seed + 1))
			var v []*interp.Tensor
			for _, in := range ft.Inputs {
				if tt, ok := tir.AsTensor(in); !ok || !ir.IsFloat(tt.Elem) {
					continue
				}
				d, err := newArg(in, k.check)
				if err != nil {
					t.Fatal(err)
				}
				for j := range d.F64 {
					d.F64[j] = rng.Float64()*2 - 1
				}
				v = append(v, d)
			}
			outs, err := interp.Run(jvp, append(append([]*interp.Tensor(nil), x...), v...), k.check)
			if err != nil {
				t.Fatal(err)
			}
			jv := outs[len(ft.Results):]
			if len(jv) != len(w) || len(v) != len(ct.outs) {
				t.Fatalf("%d tangents of results for %d cotangents, %d tangents of arguments for %d C results", len(jv), len(w), len(v), len(ct.outs))
			}
			dot := func(a [][]float64, b [][]float64) (sum, mag float64) {
				for i := range a {
					if len(a[i]) != len(b[i]) {
						t.Fatalf("tensors of %d and %d elements", len(a[i]), len(b[i]))
					}
					for j := range a[i] {
						sum += a[i][j] * b[i][j]
						mag += math.Abs(a[i][j] * b[i][j])
					}
				}
				return sum, mag
			}
			var jvF, wF, vF [][]float64
			for i := range jv {
				jvF, wF = append(jvF, jv[i].F64), append(wF, w[i].F64)
			}
			for _, d := range v {
				vF = append(vF, d.F64)
			}
			lhs, m1 := dot(jvF, wF)
			rhs, m2 := dot(vF, ct.outs)
			rel := math.Abs(lhs-rhs) / math.Max(m1, m2)
			t.Logf("<J v, w> = %.17g, <v, J^T w> = %.17g (C adjoint): relative difference %.3g", lhs, rhs, rel)
			if !(rel <= 1e-12) {
				t.Errorf("dot-product test of %s: <J v, w> = %.17g, <v, J^T w> = %.17g by the C adjoint: relative difference %.3g > 1e-12", k.ref, lhs, rhs, rel)
			}
		})
	}
	if tested < 2 {
		t.Errorf("%d hand-written adjoints tested, expected lap3d's and tridiag's", tested)
	}
}
