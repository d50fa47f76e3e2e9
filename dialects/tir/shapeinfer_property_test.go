package tir_test

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
)

// Property tests of shape inference (issue 9, item 5): what inference
// concludes does not depend on the order of independent ops, and
// requirements that contradict each other end in an error, never a loop.

// randOp is one generated op: its text (after "%vK = ") and the values
// it reads.
type randOp struct {
	name string
	text string
	deps []string
}

// randArgs are the argument types the generator draws from: unknown
// extents, symbolic and static intervals, 1-d and 2-d.
var randArgs = []string{
	"!tir.tensor<f64, I[?]>",
	"!tir.tensor<f64, I[?]>",
	"!tir.tensor<f64, I[0:N]>",
	"!tir.tensor<f64, I[1:N + 2]>",
	"!tir.tensor<f64, I[0:12]>",
	"!tir.tensor<f64, I[?], J[0:M]>",
	"!tir.tensor<f64, I[0:N], J[?]>",
	"!tir.tensor<f64, J[0:M]>",
}

// genProgram draws a function: a few arguments, ops that shift, combine
// and reduce earlier values, and a return of the last value (and maybe
// another one), with the result types left to inference or declared as
// a subset of them.
func genProgram(r *rand.Rand) (args []string, ops []randOp, rets []string) {
	nargs := 2 + r.Intn(3)
	var vals []string
	has2d := map[string]bool{}
	for i := 0; i < nargs; i++ {
		t := randArgs[r.Intn(len(randArgs))]
		args = append(args, fmt.Sprintf("%%a%d: %s", i, t))
		vals = append(vals, fmt.Sprintf("a%d", i))
		has2d[vals[i]] = strings.Contains(t, "J[")
	}
	nops := 3 + r.Intn(8)
	for k := 0; k < nops; k++ {
		name := fmt.Sprintf("v%d", k)
		pick := func() string { return vals[r.Intn(len(vals))] }
		var op randOp
		switch r.Intn(5) {
		case 0, 1:
			x := pick()
			off := r.Intn(5) - 2
			if off == 0 {
				off = 1
			}
			op = randOp{name, fmt.Sprintf("tir.shift %%%s [I %+d]", x, off), []string{x}}
			op.text = strings.Replace(op.text, "+-", "- ", 1)
			op.text = strings.Replace(op.text, "[I +", "[I + ", 1)
			op.text = strings.Replace(op.text, "[I -", "[I - ", 1)
			op.text = strings.ReplaceAll(op.text, "  ", " ")
			has2d[name] = has2d[x]
		case 2, 3:
			x, y := pick(), pick()
			kind := []string{"add", "mul", "max"}[r.Intn(3)]
			op = randOp{name, fmt.Sprintf("tir.%s %%%s, %%%s", kind, x, y), []string{x, y}}
			has2d[name] = has2d[x] || has2d[y]
		case 4:
			x := pick()
			if !has2d[x] {
				op = randOp{name, fmt.Sprintf("tir.neg %%%s", x), []string{x}}
				has2d[name] = false
				break
			}
			op = randOp{name, fmt.Sprintf("tir.reduce add %%%s over [J]", x), []string{x}}
		}
		ops = append(ops, op)
		vals = append(vals, name)
	}
	rets = []string{ops[len(ops)-1].name}
	if r.Intn(2) == 0 && len(ops) > 1 {
		rets = append(rets, ops[r.Intn(len(ops)-1)].name)
	}
	return args, ops, rets
}

// render writes the function with its ops in the given order.
func render(args []string, ops []randOp, order []int, rets []string, results string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tir.func @p(%s)%s {\n", strings.Join(args, ", "), results)
	for _, i := range order {
		fmt.Fprintf(&b, "  %%%s = %s\n", ops[i].name, ops[i].text)
	}
	var rs []string
	for _, r := range rets {
		rs = append(rs, "%"+r)
	}
	fmt.Fprintf(&b, "  tir.return %s\n}\n", strings.Join(rs, ", "))
	return b.String()
}

// shuffledOrder is a random topological order of the ops.
func shuffledOrder(r *rand.Rand, ops []randOp) []int {
	index := map[string]int{}
	for i, o := range ops {
		index[o.name] = i
	}
	done := make([]bool, len(ops))
	var order []int
	for len(order) < len(ops) {
		var ready []int
		for i, o := range ops {
			if done[i] {
				continue
			}
			ok := true
			for _, d := range o.deps {
				if j, isOp := index[d]; isOp && !done[j] {
					ok = false
				}
			}
			if ok {
				ready = append(ready, i)
			}
		}
		i := ready[r.Intn(len(ready))]
		done[i] = true
		order = append(order, i)
	}
	return order
}

// summary is everything inference concluded about a program, by name:
// every value's type, the signature, the inferred extents and the
// run-time checks.
func summary(src string) (string, bool) {
	m, diags := parser.Parse("p.tir", src)
	if len(diags) > 0 {
		return diags.Error(), false
	}
	if err := ir.Verify(m.Op, nil); err != nil {
		return err.Error(), false
	}
	fn := m.Body().Ops[0]
	var lines []string
	ft, _ := tir.FuncType(fn)
	lines = append(lines, "signature "+ft.String())
	for _, op := range fn.Regions[0].Entry().Ops {
		for _, v := range op.Results {
			lines = append(lines, fmt.Sprintf("%s : %s", v.NameHint, v.Type))
		}
	}
	for _, x := range tir.InferExtents(fn, nil) {
		lines = append(lines, "inferred "+x.String())
	}
	for _, c := range tir.RuntimeChecks(fn, nil) {
		lines = append(lines, "check "+c.Msg)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n"), true
}

func TestInferenceIndependentOfOpOrder(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	programs, inferred := 0, 0
	for programs < 300 {
		args, ops, rets := genProgram(r)
		natural := make([]int, len(ops))
		for i := range natural {
			natural[i] = i
		}
		results := ""
		if r.Intn(3) == 0 {
			// Declared outputs: the ones inference gives the program.
			m, diags := parser.Parse("p.tir", render(args, ops, natural, rets, ""))
			if len(diags) > 0 {
				continue
			}
			ft, _ := tir.FuncType(m.Body().Ops[0])
			var outs []string
			for _, res := range ft.Results {
				outs = append(outs, res.String())
			}
			results = " -> (" + strings.Join(outs, ", ") + ")"
		}
		base := render(args, ops, natural, rets, results)
		want, ok := summary(base)
		if !ok {
			continue // an empty intersection and the like: draw again
		}
		programs++
		if strings.Contains(want, "inferred ") {
			inferred++
		}
		for k := 0; k < 4; k++ {
			src := render(args, ops, shuffledOrder(r, ops), rets, results)
			got, ok := summary(src)
			if !ok || got != want {
				t.Fatalf("reordering changes inference\n--- program\n%s\n--- reordered\n%s\n--- before\n%s\n--- after\n%s", base, src, want, got)
			}
		}
	}
	if inferred < 20 {
		t.Errorf("only %d of %d programs inferred an extent: the generator does not exercise inference", inferred, programs)
	}
}

// A ring of unknown extents, each argument returned on an interval that
// the next one's extent fixes: x_i must cover [0:?_x_{i+1} + c_i]. The
// ring is consistent when the c_i add up to at most 0 and contradictory
// otherwise; either way inference ends, quickly.
func TestCyclicRequirementsTerminate(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for trial := 0; trial < 200; trial++ {
		n := 2 + r.Intn(5)
		var args, outs, vals []string
		sum := 0
		for i := 0; i < n; i++ {
			args = append(args, fmt.Sprintf("%%x%d: !tir.tensor<f64, I[?]>", i))
			c := r.Intn(3) - 1
			sum += c
			next := fmt.Sprintf("?_x%d_I", (i+1)%n)
			hi := next
			switch {
			case c > 0:
				hi = fmt.Sprintf("%s + %d", next, c)
			case c < 0:
				hi = fmt.Sprintf("%s - %d", next, -c)
			}
			outs = append(outs, fmt.Sprintf("!tir.tensor<f64, I[0:%s]>", hi))
			vals = append(vals, fmt.Sprintf("%%x%d", i))
		}
		src := fmt.Sprintf("tir.func @ring(%s) -> (%s) {\n  tir.return %s : %s\n}\n",
			strings.Join(args, ", "), strings.Join(outs, ", "), strings.Join(vals, ", "), strings.Join(outs, ", "))
		done := make(chan error, 1)
		go func() {
			m, diags := parser.Parse("ring.tir", src)
			if len(diags) > 0 {
				done <- diags
				return
			}
			done <- ir.Verify(m.Op, nil)
		}()
		select {
		case err := <-done:
			contradiction := err != nil && strings.Contains(err.Error(), "contradictory extents")
			if sum > 0 && !contradiction {
				t.Fatalf("offsets adding up to %d: got %v, want contradictory extents\n%s", sum, err, src)
			}
			if sum <= 0 && err != nil {
				t.Fatalf("offsets adding up to %d: %v\n%s", sum, err, src)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("inference does not end on\n%s", src)
		}
	}
}
