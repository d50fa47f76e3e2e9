package test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/printer"
	"tir/dialects/tir/interp"
	"tir/passes"
	"tir/tools/native"
)

// The affine passes' differential tests: every example and every program
// of testdata/e2e and testdata/affine is lowered with the -O2 prefix up to
// the affine stage, transformed by each pass with a few option values,
// checked by upstream mlir-opt (when installed), compiled with llc and gcc
// and run. The results must be bit-identical to those of the untransformed
// program (none of the passes reassociates floating-point arithmetic), and
// agree with the interpreter (exactly, or within the file's tolerance for
// transcendental functions, where libm and Go's math differ).

// affinePrelude is the -O2 pipeline up to the affine stage.
const affinePrelude = "tir-inline,canonicalize,cse,tir.func(tir-temporaries),convert-tir-to-affine"

var affineVariants = []struct{ name, passes string }{
	{"tile-4x4", "affine-loop-tile{sizes=4,4}"},
	{"tile-32x8", "affine-loop-tile{sizes=32,8}"},
	{"tile-3x5", "affine-loop-tile{sizes=3,5}"},
	{"unroll-2", "affine-loop-unroll{factor=2}"},
	{"unroll-3", "affine-loop-unroll{factor=3}"},
	{"unroll-4", "affine-loop-unroll{factor=4}"},
	{"unroll-full-8", "affine-loop-unroll{factor=1 unroll-full-threshold=8}"},
	{"unswitch", "affine-licm,affine-loop-unswitch"},
	{"vectorize-4", "affine-vectorize{width=4}"},
	{"vectorize-8", "affine-vectorize{width=8}"},
	{"fusion", "affine-loop-fusion"},
	{"fusion-shifted", "affine-loop-fusion{max-shift=2},affine-scalar-replace"},
	{"licm", "affine-licm"},
	{"scalar-replace", "affine-scalar-replace"},
	{"fuse-tile-vectorize-unroll", "affine-loop-fusion,affine-scalar-replace,affine-licm,affine-loop-tile{sizes=4,8},affine-vectorize{width=4},affine-loop-unroll{factor=2}"},
	{"o3-like", "affine-licm,affine-loop-unswitch,affine-scalar-replace,affine-vectorize{width=8},affine-loop-unroll{factor=2 unroll-full-threshold=8},affine-licm"},
	{"contraction", "affine-contraction-tile"},
	{"contraction-blocked-o3", "affine-contraction-tile{vector-bits=256 rows=3 vectors=2 k-block=5 n-block=16},affine-licm,affine-scalar-replace,affine-vectorize{width=8},affine-loop-unroll{factor=2}"},
}

type affineProgram struct {
	path string
	syms map[string]int64
	tol  float64
}

// affinePrograms lists the shared examples (with the symbols the other
// end-to-end tests use) and the programs of testdata/e2e and
// testdata/affine (with their `// SYMS:` and `// TOL:` lines).
func affinePrograms(t *testing.T) []affineProgram {
	var out []affineProgram
	seen := map[string]bool{}
	for _, c := range e2eCases {
		p := filepath.Join("..", "..", "shared", "examples", c.file)
		if _, err := os.Stat(p); err != nil || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, affineProgram{path: p, syms: c.syms, tol: c.tol})
	}
	for _, dir := range []string{"e2e", "affine"} {
		files, _ := filepath.Glob(filepath.Join("testdata", dir, "*.tir"))
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			p := affineProgram{path: f, syms: map[string]int64{}}
			for _, line := range strings.Split(string(src), "\n") {
				if rest, ok := strings.CutPrefix(line, "// SYMS:"); ok {
					for _, kv := range strings.Fields(rest) {
						k, v, _ := strings.Cut(kv, "=")
						n, err := strconv.ParseInt(v, 10, 64)
						if err != nil {
							t.Fatalf("%s: bad SYMS line %q", f, line)
						}
						p.syms[k] = n
					}
				}
				if rest, ok := strings.CutPrefix(line, "// TOL:"); ok {
					fmt.Sscan(rest, &p.tol)
				}
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		t.Fatal("no programs")
	}
	return out
}

// runPipeline loads src (.tir or .tc) and runs a pipeline on it (verifying after every
// pass).
func runPipeline(path, src, pipeline string) (*ir.Module, error) {
	m, diags := native.Load(path, src)
	if len(diags) > 0 {
		return nil, diags
	}
	p, err := passes.ParsePipeline(pipeline)
	if err != nil {
		return nil, err
	}
	if err := passes.NewManager(p).Run(m); err != nil {
		var pe interface{ Diagnostics() ir.DiagList }
		if errors.As(err, &pe) {
			return nil, pe.Diagnostics()
		}
		return nil, err
	}
	return m, nil
}

// emitLLVM runs convert-to-llvm on an affine-stage module.
func emitLLVM(m *ir.Module) (string, error) {
	p, err := passes.ParsePipeline("convert-to-llvm")
	if err != nil {
		return "", err
	}
	if err := passes.NewManager(p).Run(m); err != nil {
		return "", err
	}
	text, ok := m.Op.Attr("llvm.ir").(ir.StringAttr)
	if !ok {
		return "", fmt.Errorf("convert-to-llvm produced no LLVM IR")
	}
	return string(text), nil
}

func tirFunc(t *testing.T, path, src string) *ir.Operation {
	m, diags := native.Load(path, src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	for _, op := range m.Body().Ops {
		if op.Name == "tir.func" {
			return op
		}
	}
	t.Fatal("no tir.func")
	return nil
}

// sameResults compares compiled results bit for bit, at the points the
// interpreter does not mask.
func sameResults(got, base, ref []*interp.Tensor) error {
	for r := range base {
		g, b := got[r], base[r]
		for i := 0; i < b.Len(); i++ {
			if ref[r].Masked(i) {
				continue
			}
			if b.F64 != nil {
				if math.Float64bits(g.F64[i]) != math.Float64bits(b.F64[i]) && !(math.IsNaN(g.F64[i]) && math.IsNaN(b.F64[i])) {
					return fmt.Errorf("result #%d element %d: got %v, untransformed code gives %v", r, i, g.F64[i], b.F64[i])
				}
			} else if g.I64[i] != b.I64[i] {
				return fmt.Errorf("result #%d element %d: got %d, untransformed code gives %d", r, i, g.I64[i], b.I64[i])
			}
		}
	}
	return nil
}

func TestAffinePassesEndToEnd(t *testing.T) {
	needToolchain(t)
	_, haveMLIR := os.Stat(mlirOpt)
	for _, p := range affinePrograms(t) {
		p := p
		t.Run(filepath.Base(p.path), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(p.path)
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			fn := tirFunc(t, p.path, src)
			const seeds = 2
			var args, want [seeds][]*interp.Tensor
			for s := range args {
				args[s] = randomArgs(t, fn, p.syms, int64(s+1))
				if want[s], err = interp.Run(fn, args[s], p.syms); err != nil {
					t.Fatalf("interpreter: %v", err)
				}
			}
			build := func(m *ir.Module) [seeds][]*interp.Tensor {
				t.Helper()
				llvm, err := emitLLVM(m)
				if err != nil {
					t.Fatalf("convert-to-llvm: %v", err)
				}
				prog, err := native.Build(llvm, fn, t.TempDir())
				if err != nil {
					t.Fatalf("build: %v", err)
				}
				var out [seeds][]*interp.Tensor
				for s := range out {
					if out[s], _, err = prog.Run(args[s], p.syms, 1); err != nil {
						t.Fatalf("run: %v", err)
					}
				}
				return out
			}
			m, err := runPipeline(p.path, src, "builtin.module("+affinePrelude+")")
			if err != nil {
				t.Fatal(err)
			}
			baseText := printer.Module(m, printer.Options{})
			base := build(m)
			for s := range base {
				d, err := native.Compare(base[s], want[s])
				if err != nil {
					t.Fatal(err)
				}
				if d.Mismatch > 0 && (p.tol == 0 || d.MaxRel > p.tol) {
					t.Fatalf("untransformed code, seed %d: %d elements differ from the interpreter (%s)", s+1, d.Mismatch, d.Where)
				}
			}
			seen := map[string]string{baseText: "untransformed"}
			for _, v := range affineVariants {
				m, err := runPipeline(p.path, src, "builtin.module("+affinePrelude+",func.func("+v.passes+"))")
				if err != nil {
					t.Errorf("%s: %v", v.name, err)
					continue
				}
				text := printer.Module(m, printer.Options{})
				if same, ok := seen[text]; ok {
					t.Logf("%s: same IR as %s", v.name, same)
					continue
				}
				seen[text] = v.name
				if haveMLIR == nil {
					cmd := exec.Command(mlirOpt)
					cmd.Stdin = strings.NewReader(text)
					if out, err := cmd.CombinedOutput(); err != nil {
						t.Errorf("%s: mlir-opt rejects the output: %v\n%s\n%s", v.name, err, out, text)
						continue
					}
				}
				got := build(m)
				for s := range got {
					if err := sameResults(got[s], base[s], want[s]); err != nil {
						t.Errorf("%s, seed %d: %v\n%s", v.name, s+1, err, text)
						break
					}
				}
			}
		})
	}
}

// TestAffineGoldensUpstream feeds every output of the affine pass goldens
// (testdata/golden/affine) to upstream mlir-opt 16: it must parse and
// verify, and MLIR's own lowering to the LLVM dialect must accept it.
func TestAffineGoldensUpstream(t *testing.T) {
	if _, err := os.Stat(mlirOpt); err != nil {
		t.Skipf("upstream MLIR 16 not installed (%s)", mlirOpt)
	}
	files, _ := filepath.Glob(filepath.Join(goldenDir, "affine", "*.golden"))
	if len(files) == 0 {
		t.Fatal("no affine goldens")
	}
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range strings.Split(string(data), "// -----\n") {
				if strings.Contains(chunk, "// stderr:") || strings.Contains(chunk, "// exit:") {
					t.Fatalf("the golden records an error:\n%s", chunk)
				}
				pipe(t, chunk, mlirOpt)
				pipe(t, chunk, mlirOpt, "--lower-affine", "--convert-scf-to-cf", "--convert-vector-to-llvm", "--convert-arith-to-llvm",
					"--convert-math-to-llvm", "--convert-memref-to-llvm", "--convert-func-to-llvm", "--reconcile-unrealized-casts")
			}
		})
	}
}
