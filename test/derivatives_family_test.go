package test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/printer"
	"tir/dialects/scf"
	"tir/dialects/tir"
	"tir/dialects/tir/interp"
	"tir/passes"
	"tir/tools/native"
)

// adjointFamilies are programs of test/bench/kernels written several
// equivalent ways (issue 23: performance must not depend on how a program
// is written, adjoints included): the first is the way the benchmark
// times, the others the formulations of test/bench (kernels.go's adjoint
// families).
var adjointFamilies = []struct {
	name    string
	files   []string
	syms    map[string]int64
	prepare func(args []*interp.Tensor) // makes the inputs well posed
}{
	{
		name:  "hdiff",
		files: []string{"hdiff.tir", "hdiff_call.tir", "hdiff_split.tir"},
		syms:  map[string]int64{"N": 11, "M": 9},
	},
	{
		name:  "tridiag",
		files: []string{"tridiag.tir", "tridiag_before.tir", "tridiag_2scans.tir"},
		syms:  tridiagSyms,
		// b in [3, 5): diagonally dominant systems.
		prepare: func(args []*interp.Tensor) {
			for i := range args[1].F64 {
				args[1].F64[i] += 4
			}
		},
	},
}

// familyVJP differentiates a kernel of test/bench/kernels and returns the
// module and its last function's @f_vjp.
func familyVJP(t *testing.T, file string) (*ir.Module, *ir.Operation) {
	t.Helper()
	m, _ := differentiateFile(t, filepath.Join("bench", "kernels", file))
	var last *ir.Operation
	for _, op := range m.Body().Ops {
		if op.Is(tir.Func) && !isDerivName(ir.SymbolName(op)) {
			last = op
		}
	}
	if last == nil {
		t.Fatalf("%s: no tir.func", file)
	}
	vjp := m.Lookup(ir.SymbolName(last) + "_vjp")
	if vjp == nil {
		t.Fatalf("%s: no @%s_vjp", file, ir.SymbolName(last))
	}
	return m, vjp
}

func isDerivName(s string) bool {
	n := len(s)
	return n > 4 && (s[n-4:] == "_jvp" || s[n-4:] == "_vjp")
}

// adjointShape counts what the adjoint's cost follows once the tir
// pipeline of -O2 has run (inline, canonicalize, cse, temporaries): its
// scans, its divisions and its materialized temporaries.
func adjointShape(t *testing.T, m *ir.Module, vjp string) string {
	t.Helper()
	one, diags := parser.Parse("family.tir", printer.Module(m, printer.Options{}))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	p, err := passes.ParsePipeline("builtin.module(tir-inline,canonicalize,cse,tir.func(tir-temporaries))")
	if err != nil {
		t.Fatal(err)
	}
	if err := passes.NewManager(p).Run(one); err != nil {
		t.Fatal(err)
	}
	scans, divs, temps := 0, 0, 0
	one.Lookup(vjp).Walk(func(op *ir.Operation) bool {
		switch {
		case op.Is(tir.Scan):
			scans++
		case op.Is(tir.Div):
			divs++
		}
		if op.Attr("tir.materialize") != nil {
			temps++
		}
		return true
	})
	return fmt.Sprintf("%d scans, %d divisions, %d temporaries", scans, divs, temps)
}

// TestAdjointFamilies checks that the formulations of a family have one
// adjoint: the interpreter's @f_vjp of each agrees with the first's (to
// the rounding of the different orders of operations), each compiled at
// -O2 gives the interpreter's values, and each has the first's scans,
// divisions and temporaries (the tridiagonal solver's two scalar forward
// scans are differentiated as its tuple scan: tir-derivatives merges a
// scan that reads another's previous level).
func TestAdjointFamilies(t *testing.T) {
	needToolchain(t)
	for _, fam := range adjointFamilies {
		fam := fam
		t.Run(fam.name, func(t *testing.T) {
			var want []*interp.Tensor
			var wantShape string
			for i, file := range fam.files {
				m, vjp := familyVJP(t, file)
				name := ir.SymbolName(vjp)
				shape := adjointShape(t, m, name)
				args := randomIntRange(t, vjp, fam.syms, 7, -1, 5)
				if fam.prepare != nil {
					fam.prepare(args)
				}
				got, err := interp.Run(vjp, args, fam.syms)
				if err != nil {
					t.Fatalf("%s: @%s: interpreter: %v", file, name, err)
				}
				if i == 0 {
					want, wantShape = got, shape
				} else {
					if shape != wantShape {
						t.Errorf("%s: @%s has %s, %s's adjoint %s", file, name, shape, fam.files[0], wantShape)
					}
					d, err := native.Compare(got, want)
					if err != nil {
						t.Fatalf("%s: %v", file, err)
					}
					if d.MaxNorm > 1e-12 {
						t.Errorf("%s: @%s differs from %s's adjoint by %.3g (relative to the result) at %s",
							file, name, fam.files[0], d.MaxNorm, d.Where)
					}
				}
				// Compiled at -O2, the function alone, against the
				// interpreter: bit for bit.
				one, diags := parser.Parse("family.tir", printer.Module(m, printer.Options{}))
				if len(diags) > 0 {
					t.Fatal(diags)
				}
				for _, op := range append([]*ir.Operation(nil), one.Body().Ops...) {
					if ir.SymbolName(op) != name {
						one.Body().Remove(op)
					}
				}
				llvm, err := native.Compile(file, printer.Module(one, printer.Options{}), 2, "x86_64")
				if err != nil {
					t.Fatalf("%s: -O2 @%s: %v", file, name, err)
				}
				prog, err := native.Build(llvm, vjp, t.TempDir())
				if err != nil {
					t.Fatalf("%s: -O2 @%s: build: %v", file, name, err)
				}
				res, _, err := prog.Run(args, fam.syms, 1)
				if err != nil {
					t.Fatalf("%s: -O2 @%s: %v", file, name, err)
				}
				d, err := native.Compare(res, got)
				if err != nil {
					t.Fatal(err)
				}
				if d.Mismatch > 0 {
					t.Errorf("%s: -O2 @%s: %d of %d elements differ from the interpreter's (largest %.3g) at %s",
						file, name, d.Mismatch, d.Compared, d.MaxAbs, d.Where)
				}
			}
		})
	}
}

// TestAdjointEdgeRowsVectorized: at -O2 on a CPU every row of the padded
// cotangents' nests has a vector loop, the rows of the padding (the
// split nests' edge pieces) included. Only the arm for domains narrower
// than their edges (the else arm of split-pieces' width test) keeps the
// tests in its edge rows.
func TestAdjointEdgeRowsVectorized(t *testing.T) {
	text, err := passes.OptPipelineText(2, "x86_64")
	if err != nil {
		t.Fatal(err)
	}
	cut := strings.Index(text, ",convert-to-llvm")
	if cut < 0 {
		t.Fatalf("no convert-to-llvm in %s", text)
	}
	// affine-loop-unswitch may hoist the width test out of the loops
	// around it; the scf.if it makes keeps the test's tir.split_width.
	text = text[:cut] + ")"
	p, err := passes.ParsePipeline(text)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"hdiff.tir", "hdiff_call.tir", "hdiff_split.tir", "lap3d_f64.tir"} {
		m, vjp := familyVJP(t, file)
		name := ir.SymbolName(vjp)
		lowered, err := native.RunPipeline(file, printer.Module(m, printer.Options{}), p)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		fn := lowered.Lookup(name)
		if fn == nil {
			t.Fatalf("%s: no @%s after lowering", file, name)
		}
		rows, scalar := 0, 0
		fn.Walk(func(o *ir.Operation) bool {
			if !o.Is(affine.For) || narrowArm(o) {
				return true
			}
			inner := innermostLoops(o)
			if len(inner) == 0 {
				return true
			}
			rows++
			for _, c := range inner {
				if _, _, _, _, step := affine.ForBounds(c); step > 1 {
					return true
				}
			}
			scalar++
			t.Errorf("%s: @%s has a row loop without a vector loop:\n%s", file, name, printer.Op(o, printer.Options{}))
			return true
		})
		if rows < 5 || scalar > 0 {
			t.Errorf("%s: %d row loops, %d of them scalar", file, rows, scalar)
		} else {
			t.Logf("%s: @%s: %d row loops, each vectorized", file, name, rows)
		}
	}
}

// innermostLoops returns the innermost loops directly inside the loop o:
// those without a loop inside, reached through tests but no other loop.
func innermostLoops(o *ir.Operation) []*ir.Operation {
	var inner []*ir.Operation
	for _, r := range o.Regions {
		for _, b := range r.Blocks {
			for _, c := range b.Ops {
				switch {
				case !c.Is(affine.For):
					inner = append(inner, innermostLoops(c)...)
				case !hasLoop(c):
					inner = append(inner, c)
				}
			}
		}
	}
	return inner
}

// hasLoop reports whether an op holds an affine.for.
func hasLoop(o *ir.Operation) bool {
	found := false
	o.Walk(func(x *ir.Operation) bool {
		found = found || x != o && x.Is(affine.For)
		return !found
	})
	return found
}

// narrowArm reports whether o lies in the second arm of split-pieces'
// width test (tir.split_width): the nest for domains narrower than their
// edges, which keeps the tests in its edge rows.
func narrowArm(o *ir.Operation) bool {
	for b := o.ParentBlock(); b != nil; {
		p := b.ParentOp()
		if p == nil {
			return false
		}
		if p.Is(scf.If) && p.Attr(tir.SplitWidthAttr) != nil && len(p.Regions) > 1 && slices.Contains(p.Regions[1].Blocks, b) {
			return true
		}
		b = p.ParentBlock()
	}
	return false
}
