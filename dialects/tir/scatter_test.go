package tir_test

import (
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
)

// TestScatterAddOf: the dense scatter-adds the gather's adjoint writes
// (and their variants a user may write) are recognized, with their table,
// destination and values; near misses are not.
func TestScatterAddOf(t *testing.T) {
	const head = `tir.func @f(%g: !tir.tensor<f64, E[0:5], K2[0:2]>, %t: !tir.tensor<i32, E[0:5], K2[0:2]>,
            %t64: !tir.tensor<i64, E[0:5], K2[0:2]>, %x: !tir.tensor<f64, V[0:4]>,
            %gk: !tir.tensor<f64, E[0:5], L[0:3]>, %tk: !tir.tensor<i32, E[0:5], L[0:3]>, %xk: !tir.tensor<f64, V[0:4], L[0:3]>) -> RESULT {
  %z = tir.constant 0.0 : f64
  %one = tir.constant 1.0 : f64
`
	cases := []struct {
		name, body string
		want       string // "table dim over" of the recognized scatter-add, "" when not one
	}{
		{"pos cast to the table's type", `
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, K2]`, "t V E,K2"},
		{"i64 table, pos as is, operands swapped", `
  %p = tir.pos V of %x
  %h = tir.cmp eq %p, %t64
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [K2, E]`, "t64 V K2,E"},
		{"a dimension shared by table and result", `
  %p = tir.pos V of %xk
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %h = tir.cmp eq %tk, %c
  %s = tir.select %h, %gk, %z
  %r = tir.reduce add %s over [E]`, "tk V E"},
		{"not equality", `
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %h = tir.cmp ne %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, K2]`, ""},
		{"the other branch is not 0", `
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %one
  %r = tir.reduce add %s over [E, K2]`, ""},
		{"not a sum", `
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce max %s over [E, K2]`, ""},
		{"an init", `
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, K2] init %one`, ""},
		{"a coordinate narrowed below 32 bits", `
  %p = tir.pos V of %x
  %c = tir.cast %p : !tir.tensor<i16, V[0:4]>
  %c16 = tir.cast %t : !tir.tensor<i16, E[0:5], K2[0:2]>
  %h = tir.cmp eq %c16, %c
  %s = tir.select %h, %g, %z
  %r = tir.reduce add %s over [E, K2]`, ""},
		{"a reduced dimension the table lacks", `
  %p = tir.pos V of %xk
  %c = tir.cast %p : !tir.tensor<i32, V[0:4]>
  %t1 = tir.subset %tk [L[0:1]]
  %h = tir.cmp eq %t, %c
  %s = tir.select %h, %gk, %z
  %r = tir.reduce add %s over [E, K2, L]`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			result := "!tir.tensor<f64, V[0:4]>"
			if c.want == "tk V E" {
				result = "!tir.tensor<f64, V[0:4], L[0:3]>"
			}
			src := strings.ReplaceAll(head+c.body+"\n  tir.return %r : RESULT\n}", "RESULT", result)
			m, diags := parser.Parse("scatter.tir", src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			var r *ir.Operation
			m.Lookup("f").Walk(func(op *ir.Operation) bool {
				if len(op.Results) == 1 && op.Results[0].NameHint == "r" {
					r = op
				}
				return true
			})
			sa, ok := tir.ScatterAddOf(r)
			got := ""
			if ok {
				got = sa.Table.NameHint + " " + sa.Dim + " " + strings.Join(sa.Over, ",")
				if sa.Reduce != r || sa.Values.NameHint == "" || sa.Interval.String() != "[0:4]" {
					t.Errorf("reduce %v, values %q, interval %s", sa.Reduce == r, sa.Values.NameHint, sa.Interval)
				}
			}
			if got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
