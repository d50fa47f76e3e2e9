package main

import (
	"io"
	"math"
	"strings"
	"testing"
)

// TestSmoke runs the whole harness in smoke mode: every kernel at its
// small check size, every variant built and called once, results compared
// with the interpreter; no timing. It keeps the benchmark from rotting
// (it is not a benchmark itself: `make bench` is).
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
	rep, err := runAll(config{smoke: true, log: io.Discard})
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
			optional := blasVariant(v) || ((v == vMLIR || v == vMLIRJIT) && tools.mlirError != nil)
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
	for _, k := range kernels {
		if !strings.Contains(md, "| "+k.name+" |") {
			t.Errorf("the table has no row for %s", k.name)
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
// class present, every source embedded.
func TestKernels(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range kernels {
		if seen[k.name] {
			t.Errorf("kernel %s appears twice", k.name)
		}
		seen[k.name] = true
		if k.l3 == nil || k.dram == nil || k.check == nil {
			t.Errorf("%s lacks a size class", k.name)
		}
		for _, f := range []string{"kernels/" + k.file, "ref/" + k.ref} {
			if _, err := sources.ReadFile(f); err != nil {
				t.Errorf("%s: %v", k.name, err)
			}
		}
	}
}
