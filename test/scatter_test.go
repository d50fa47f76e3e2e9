package test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tir/dialects/affine"
	"tir/dialects/fn"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/lower"
	"tir/passes"
	"tir/tools/emit"
	"tir/tools/native"
)

// The adjoint of a gather is a scatter-add, which the lowering computes by
// one sweep over the table (lower/tiraffine/scatter.go) instead of the
// O(points x entries) its dense form spells. These tests check that the
// sweep is what runs, and that it gives the interpreter's sums bit for bit
// in every compiled mode, on random tables and on tables with -1,
// negative, huge and out-of-range entries.

// scatterPrograms are the programs whose adjoints scatter, with their
// size symbols and the tolerance of their comparison with the
// interpreter (exp: the compiled expansion and Go's math differ in the
// last bit; the sums themselves are bitwise the interpreter's).
var scatterPrograms = []struct {
	path string
	syms map[string]int64
	tol  map[string]float64
}{
	{"nabla.tir", map[string]int64{"NV": 23, "NE": 31}, nil},
	{filepath.Join("testdata", "derivatives", "gather.tir"), map[string]int64{"NV": 6, "NE": 7}, map[string]float64{"vertical_vjp": 1e-12}},
}

// oneFunction is the module text with only the named function.
func oneFunction(t *testing.T, text, name string) string {
	t.Helper()
	one, diags := parser.Parse("scatter.tir", text)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, op := range append([]*ir.Operation(nil), one.Body().Ops...) {
		if ir.SymbolName(op) != name {
			one.Body().Remove(op)
		}
	}
	return printer.Module(one, printer.Options{})
}

// TestScatterAddSweep: with and without tir-temporaries, every vjp of the
// scatter programs computes each scatter-add into a temporary (or, one
// returned as it is or kept in a result's buffer, lower/tiraffine/inplace.go,
// into a result's buffer that the sweep adds into), and has no
// reduction loop over a dimension of symbolic extent (the dense form sums
// over the table's mesh dimension, Edge[0:NE], at every destination
// point; the programs' own reductions run over neighbours, E2V[0:2]).
func TestScatterAddSweep(t *testing.T) {
	for _, c := range scatterPrograms {
		m, _ := differentiateFile(t, c.path)
		text := printer.Module(m, printer.Options{})
		for _, name := range derivFunctions(m) {
			name += "_vjp"
			var scatters []string
			m.Lookup(name).Walk(func(op *ir.Operation) bool {
				if _, ok := tir.ScatterAddOf(op); ok {
					scatters = append(scatters, op.Results[0].NameHint)
				}
				return true
			})
			if len(scatters) == 0 {
				t.Errorf("@%s: no scatter-add recognized", name)
			}
			for _, level := range []string{"", "tir.func(tir-temporaries),"} {
				p, err := passes.ParsePipeline("builtin.module(tir-inline,canonicalize,cse," + level + "convert-tir-to-affine)")
				if err != nil {
					t.Fatal(err)
				}
				lowered, err := native.RunPipeline("scatter.tir", oneFunction(t, text, name), p)
				if err != nil {
					t.Fatalf("@%s: %v", name, err)
				}
				dense, allocs, swept := 0, map[string]bool{}, map[*ir.Value]bool{}
				for _, op := range lowered.Body().Ops {
					if !op.Is(fn.Func) {
						continue
					}
					op.Walk(func(o *ir.Operation) bool {
						// A sweep adds at subscripts read from the
						// table: a memref.store.
						if o.Is(memref.Store) && o.Operands[1].DefiningOp() == nil && strings.HasPrefix(o.Operands[1].NameHint, "result") {
							swept[o.Operands[1]] = true
						}
						if o.Is(affine.For) && len(o.Results) > 0 {
							if _, _, _, ubOps, _ := affine.ForBounds(o); len(ubOps) > 0 {
								dense++
							}
						}
						if len(o.Results) == 1 {
							allocs[o.Results[0].NameHint] = true
						}
						return true
					})
				}
				if dense > 0 {
					t.Errorf("@%s (%s): %d reduction loops over a symbolic extent: a scatter-add is computed densely", name, p, dense)
				}
				inResults := 0
				for _, s := range scatters {
					if !allocs[s] {
						inResults++
					}
				}
				if inResults > len(swept) {
					t.Errorf("@%s (%s): %d scatter-adds have no temporary, but sweeps add into %d result buffers", name, p, inResults, len(swept))
				}
			}
		}
	}
}

// TestScatterAddCompiled runs the vjps compiled at -O0 and -O2, with three
// threads and as emulated GPU kernels, against the interpreter, on random
// tables and on tables with -1, negative, huge and out-of-range entries;
// the threaded results are the serial ones bit for bit, and the CPU code
// has no atomic operation.
func TestScatterAddCompiled(t *testing.T) {
	needToolchain(t)
	for _, c := range scatterPrograms {
		c := c
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			m, _ := differentiateFile(t, c.path)
			text := printer.Module(m, printer.Options{})
			threaded, err := native.CompileWith("scatter.tir", text, threadsPipeline(t))
			if err != nil {
				t.Fatal(err)
			}
			gm, err := native.CompileModule("scatter.tir", text, 2, "nvptx64")
			if err != nil {
				t.Fatalf("compile for nvptx64: %v", err)
			}
			for _, n := range derivFunctions(m) {
				name := n + "_vjp"
				fnOp := m.Lookup(name)
				progs := map[string]*native.Program{}
				for _, level := range []int{0, 2} {
					llvm, err := native.Compile("scatter.tir", oneFunction(t, text, name), level, "x86_64")
					if err != nil {
						t.Fatalf("-O%d @%s: %v", level, name, err)
					}
					if body := llvmFunction(llvm, name+".body"); strings.Contains(body, "atomicrmw") || strings.Contains(body, "cmpxchg") {
						t.Errorf("-O%d @%s uses atomic operations", level, name)
					}
					if progs[fmt.Sprintf("-O%d", level)], err = native.Build(llvm, fnOp, t.TempDir()); err != nil {
						t.Fatal(err)
					}
				}
				if progs["threads"], err = native.Build(threaded, fnOp, t.TempDir()); err != nil {
					t.Fatal(err)
				}
				progs["threads"].Env = []string{"OMP_NUM_THREADS=3"}
				if progs["gpu"], err = native.BuildGPU(gm, fnOp, t.TempDir(), native.GPUOptions{Emulate: true}); err != nil {
					t.Fatal(err)
				}
				inputs := map[string][]*interp.Tensor{
					"random tables": randomIntRange(t, fnOp, c.syms, 11, -2, 40),
					"tables with -1, negative, huge, out-of-range":   specialIntArgs(t, fnOp, c.syms, 12),
					"tables with every entry naming the first point": firstPointArgs(t, fnOp, c.syms),
				}
				for what, args := range inputs {
					want, err := interp.Run(fnOp, args, c.syms)
					if err != nil {
						t.Fatalf("@%s: interpreter: %v", name, err)
					}
					got := map[string][]*interp.Tensor{}
					for mode, prog := range progs {
						out, _, err := prog.Run(args, c.syms, 1)
						if err != nil {
							t.Fatalf("%s @%s: %v", mode, name, err)
						}
						got[mode] = out
						d, err := native.Compare(out, want)
						if err != nil {
							t.Fatal(err)
						}
						tol := c.tol[name]
						if mode == "gpu" {
							// Atomic adds: the order of a sum's terms is the
							// threads' (docs/derivatives.md), and the emulator's
							// thread order is not the table's.
							tol = max(tol, 1e-14)
						}
						if d.Mismatch > 0 && d.MaxNorm > tol {
							t.Errorf("%s @%s, %s: %d of %d elements differ from the interpreter (largest %.3g) at %s", mode, name, what, d.Mismatch, d.Compared, d.MaxAbs, d.Where)
						}
					}
					if d, _ := native.Compare(got["threads"], got["-O2"]); d.Mismatch > 0 {
						t.Errorf("@%s, %s: 3 threads and 1 differ in %d of %d elements (largest %.3g) at %s", name, what, d.Mismatch, d.Compared, d.MaxAbs, d.Where)
					}
				}
			}
		})
	}
}

// firstPointArgs are random floats and tables whose every entry is 0:
// every entry names the same point (the longest sums).
func firstPointArgs(t *testing.T, fn *ir.Operation, syms map[string]int64) []*interp.Tensor {
	return randomIntRange(t, fn, syms, 13, 0, 1)
}

// TestScatterAddIndependent checks the compiled adjoint of a gather
// through an edge-to-vertex table against the scatter-add computed here
// by a plain loop over the entries, bit for bit: serial, threaded and on
// the emulated GPU, with repeated, -1, negative, huge and out-of-range
// entries.
func TestScatterAddIndependent(t *testing.T) {
	needToolchain(t)
	path := filepath.Join("testdata", "derivatives", "gather.tir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := differentiate(t, path, string(src))
	text := oneFunction(t, printer.Module(m, printer.Options{}), "edges_vjp")
	fnOp := m.Lookup("edges_vjp")
	const NV, NE = 9, 12
	syms := map[string]int64{"NV": NV, "NE": NE}
	e2v := []int64{0, 1, 1, 2, -1, 3, 5, 5, 4, 9, 2, 0, 3, 3, math.MaxInt32, math.MinInt32, 8, -9, NV, 7, 8, 8, 6, -2}
	args := randomIntRange(t, fnOp, syms, 21, 0, 1)
	pp, w, ds := args[0].F64, args[1].F64, args[3].F64
	for i := range args[2].I64 {
		args[2].I64[i] = e2v[i]
	}
	// dpp(v) = sum over the entries (e, k) naming v of w(e, k) ds(e), in
	// entry order; dw(e, k) = pp(e2v(e, k)) ds(e), 0 where the entry names
	// no vertex.
	dpp, dw := make([]float64, NV), make([]float64, NE*2)
	for e := 0; e < NE; e++ {
		for k := 0; k < 2; k++ {
			v := e2v[e*2+k]
			if v < 0 || v >= NV {
				continue
			}
			dpp[v] += ds[e] * w[e*2+k]
			dw[e*2+k] = ds[e] * pp[v]
		}
	}
	llvm, err := native.Compile("scatter.tir", text, 2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	threaded, err := native.CompileWith("scatter.tir", text, threadsPipeline(t))
	if err != nil {
		t.Fatal(err)
	}
	gm, err := native.CompileModule("scatter.tir", text, 2, "nvptx64")
	if err != nil {
		t.Fatal(err)
	}
	progs := map[string]*native.Program{}
	if progs["-O2"], err = native.Build(llvm, fnOp, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if progs["threads"], err = native.Build(threaded, fnOp, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	progs["threads"].Env = []string{"OMP_NUM_THREADS=3"}
	if progs["gpu"], err = native.BuildGPU(gm, fnOp, t.TempDir(), native.GPUOptions{Emulate: true}); err != nil {
		t.Fatal(err)
	}
	for mode, prog := range progs {
		out, _, err := prog.Run(args, syms, 1)
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		for i := range dpp {
			if math.Float64bits(out[0].F64[i]) != math.Float64bits(dpp[i]) {
				t.Errorf("%s: dpp[%d] = %v, want %v", mode, i, out[0].F64[i], dpp[i])
			}
		}
		for i := range dw {
			if math.Float64bits(out[1].F64[i]) != math.Float64bits(dw[i]) {
				t.Errorf("%s: dw[%d] = %v, want %v", mode, i, out[1].F64[i], dw[i])
			}
		}
	}
}

// TestScatterAddGPUAtomic: for nvptx64, the sweep of every vjp's
// scatter-adds is a kernel over the table's entries whose updates are
// atomic adds (tiraffine.Options.AtomicScatters), not a one-thread
// kernel; a buffer added to atomically is not a readonly kernel
// parameter; llc (sm_80) and, where it exists, ptxas (sm_90) accept the
// kernels. (TestScatterAddCompiled runs them on the emulated GPU.)
func TestScatterAddGPUAtomic(t *testing.T) {
	needToolchain(t)
	rmw := regexp.MustCompile(`%([A-Za-z_][\w]*)\.\d+ = atomicrmw fadd`)
	for _, c := range scatterPrograms {
		c := c
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			m, _ := differentiateFile(t, c.path)
			gm, err := native.CompileModule("scatter.tir", printer.Module(m, printer.Options{}), 2, "nvptx64")
			if err != nil {
				t.Fatalf("compile for nvptx64: %v", err)
			}
			llvm, ok := gm.Op.Attr(lower.LLVMAttr).(ir.StringAttr)
			if !ok {
				t.Fatal("no kernels' LLVM IR")
			}
			text, err := emit.LaunchJSON(gm)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Functions []struct {
					Name    string
					Kernels []struct {
						Name  string
						Grid  []string
						Block []int
					}
				}
			}
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatal(err)
			}
			for _, f := range doc.Functions {
				if !strings.HasSuffix(f.Name, "_vjp") {
					continue
				}
				atomics := 0
				for _, k := range f.Kernels {
					if strings.Join(k.Grid, ",") == "1,1,1" && k.Block[0]*k.Block[1]*k.Block[2] == 1 {
						t.Errorf("@%s: kernel %s runs in one thread", f.Name, k.Name)
					}
					body := llvmFunction(string(llvm), k.Name)
					def, _, _ := strings.Cut(body, "\n")
					for _, mm := range rmw.FindAllStringSubmatch(body, -1) {
						atomics++
						if strings.Contains(def, "readonly %"+mm[1]+",") {
							t.Errorf("@%s: kernel %s adds to %%%s atomically but marks it readonly: %s", f.Name, k.Name, mm[1], def)
						}
					}
				}
				if atomics == 0 {
					t.Errorf("@%s: no kernel adds atomically (atomicrmw fadd)", f.Name)
				}
			}
			dir := t.TempDir()
			ll := filepath.Join(dir, "kernels.ll")
			if err := os.WriteFile(ll, []byte(llvm), 0o644); err != nil {
				t.Fatal(err)
			}
			llc, err := native.Tool("llc")
			if err != nil {
				t.Fatal(err)
			}
			ptx := filepath.Join(dir, "kernels.ptx")
			if out, err := exec.Command(llc, "-march=nvptx64", "-mcpu=sm_80", ll, "-o", ptx).CombinedOutput(); err != nil {
				t.Fatalf("llc -mcpu=sm_80: %v\n%s", err, out)
			}
			checkPTX(t, gm, ptx)
		})
	}
}
