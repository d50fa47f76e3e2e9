package tir_test

import (
	"strings"
	"testing"

	"tir/dialects/parser"
	"tir/dialects/tir"
)

// What shape inference requires of unknown argument extents, op by op:
// the hull of the reads through shifts, views, reductions and calls.
func TestInferExtents(t *testing.T) {
	cases := []struct {
		name, src string
		want      string // "arg dim needs" lines, "" for nothing
	}{
		{"stencil", `tir.func @f(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64, I[1:N - 1]> {
  %e = tir.shift %x [I + 1]
  %w = tir.shift %x [I - 1]
  %s = tir.add %e, %w
  tir.return %s : !tir.tensor<f64, I[1:N - 1]>
}`, "x I [0:N]"},
		{"view with stride", `tir.func @f(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64, i[0:M]> {
  %v = tir.view %x [I = 2*i + 1] : !tir.tensor<f64, i[0:M]>
  tir.return %v : !tir.tensor<f64, i[0:M]>
}`, "x I [1:2*M]"},
		{"reduction meets a known interval", `tir.func @f(%x: !tir.tensor<f64, I[?]>, %w: !tir.tensor<f64, I[0:10]>) -> !tir.tensor<f64> {
  %p = tir.mul %x, %w
  %s = tir.reduce add %p over [I]
  tir.return %s : !tir.tensor<f64>
}`, "x I [0:10] at limit"},
		{"2-d, one dimension unknown", `tir.func @f(%x: !tir.tensor<f64, I[0:N], J[?]>) -> !tir.tensor<f64, I[0:N], J[0:M]> {
  %e = tir.shift %x [J + 2]
  tir.return %e : !tir.tensor<f64, I[0:N], J[0:M]>
}`, "x J [2:M + 2]"},
		{"through a call", `tir.func @lap(%u: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N - 1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %s = tir.add %e, %w
  tir.return %s : !tir.tensor<f64, I[1:N - 1]>
}
tir.func @f(%x: !tir.tensor<f64, I[?]>) -> !tir.tensor<f64, I[3:M]> {
  %l = tir.call @lap(%x)
  tir.return %l : !tir.tensor<f64, I[3:M]>
}`, "x I [2:M + 1]"},
		{"unconstrained", `tir.func @f(%x: !tir.tensor<f64, I[?]>) {
  %e = tir.shift %x [I + 1]
  tir.return %e
}`, ""},
		{"read through a gather", `tir.func @f(%x: !tir.tensor<f64, V[?]>, %t: !tir.tensor<i32, E[0:N]>) -> !tir.tensor<f64, E[0:N]> {
  %g = tir.gather %x [V = %t]
  tir.return %g : !tir.tensor<f64, E[0:N]>
}`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, diags := parser.Parse("f.tir", c.src)
			if len(diags) > 0 {
				t.Fatal(diags)
			}
			fn := m.Lookup("f")
			var got []string
			for _, x := range tir.InferExtents(fn, nil) {
				s := x.ArgName + " " + x.Dim + " " + x.Needs.String()
				if x.AtLimit {
					s += " at limit"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, "; "); g != c.want {
				t.Errorf("got %q, want %q", g, c.want)
			}
		})
	}
}
