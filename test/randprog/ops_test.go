package randprog

import (
	"sort"
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/tools/native"
)

// notGenerated are the tir ops the generator deliberately never writes,
// each with the reason. Every other op of tir.Ops() must appear in the
// programs of the first seeds (TestEveryOpIsGenerated), so that a new op
// is either generated or listed here with its reason.
var notGenerated = map[*tir.Op]string{
	// The differential test compares compiled code with the interpreter
	// bit for bit, and these are math library functions: compiled code
	// calls libm, libdevice or mathexpand's polynomials, the interpreter
	// Go's math package, which differ in the last bits (sqrt, floor, ceil
	// and round are exact and generated; so is pow on integers). They are
	// compared within tolerances by test/cpu_math_test.go and
	// test/mathexpand_accuracy_test.go.
	tir.Exp:     "math library function: not bitwise equal to the interpreter",
	tir.Log:     "math library function: not bitwise equal to the interpreter",
	tir.Rsqrt:   "math library function: not bitwise equal to the interpreter",
	tir.Sin:     "math library function: not bitwise equal to the interpreter",
	tir.Cos:     "math library function: not bitwise equal to the interpreter",
	tir.Tan:     "math library function: not bitwise equal to the interpreter",
	tir.Tanh:    "math library function: not bitwise equal to the interpreter",
	tir.Erf:     "math library function: not bitwise equal to the interpreter",
	tir.Sigmoid: "math library function: not bitwise equal to the interpreter",
	// Extents computed from data: the result's extent is a new size symbol
	// defined by the op, which the generator's bookkeeping of intervals
	// (near, broadcastDims, the arguments' sizes in Syms) does not model,
	// and compiled code refuses some uses (reading a scan's result, a call
	// returning one). test/dataextent_test.go covers them.
	tir.Iota:     "extent computed from data: not modelled by the generator",
	tir.Compress: "extent computed from data: not modelled by the generator",
	// The generator's intervals are exact: an assumption would either
	// restate the type (a no-op) or give a symbolic interval a constant
	// one, which later reductions and concatenations could no longer prove
	// equal to their other operands' and refuse. Its checks are covered by
	// test/testdata/e2e/symbolic_checks.tir and the diagnostics tests.
	tir.AssumeShape: "would restate a type or make intervals unprovable",
}

// TestEveryOpIsGenerated generates the programs of the first seeds as
// TestRandomPrograms does (tir programs, and TC programs every tcEvery
// seeds), and names every tir op none of them holds that notGenerated does
// not list, and every op it lists that they hold.
func TestEveryOpIsGenerated(t *testing.T) {
	seen := map[*tir.Op]bool{}
	for seed := int64(1); seed <= 400; seed++ {
		ps := []*Program{Generate(seed, DefaultOptions)}
		if seed%tcEvery == 0 {
			ps = append(ps, GenerateTC(seed))
		}
		for _, p := range ps {
			m, diags := native.Load(p.Name+".tir", p.Text)
			if diags.HasErrors() {
				t.Fatalf("seed %d: the generated program does not load: %v", seed, diags)
			}
			m.Op.Walk(func(o *ir.Operation) bool {
				if k := tir.OpOf(o); k != nil {
					seen[k] = true
				}
				return true
			})
		}
	}
	var missing, listed []string
	for _, k := range tir.Ops() {
		_, skipped := notGenerated[k]
		switch {
		case !seen[k] && !skipped:
			missing = append(missing, k.Name)
		case seen[k] && skipped:
			listed = append(listed, k.Name)
		}
	}
	sort.Strings(missing)
	sort.Strings(listed)
	if len(missing) > 0 {
		t.Errorf("the random-program generator never writes %s: generate each (gen.go) or list it in notGenerated with the reason", strings.Join(missing, ", "))
	}
	if len(listed) > 0 {
		t.Errorf("notGenerated lists %s, which the generator writes: take each off the list", strings.Join(listed, ", "))
	}
}
