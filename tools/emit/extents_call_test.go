package emit

import (
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// The extents see through tir.call: the bilaplacian built from two calls
// of a laplacian reads two points on each side, as the inlined program
// does, and the module given is left with its calls.
func TestExtentsThroughCalls(t *testing.T) {
	src := `tir.func @lap(%u: !tir.tensor<f64, I[0:N]>) -> !tir.tensor<f64, I[1:N-1]> {
  %e = tir.shift %u [I + 1]
  %w = tir.shift %u [I - 1]
  %s = tir.add %e, %w
  tir.return %s : !tir.tensor<f64, I[1:N-1]>
}
tir.func @bilap(%u: !tir.tensor<f64, I[0:M]>) -> !tir.tensor<f64, I[2:M-2]> {
  %l  = tir.call @lap(%u)
  %ll = tir.call @lap(%l)
  tir.return %ll : !tir.tensor<f64, I[2:M-2]>
}`
	m := parse(t, src)
	got, err := Extents(m)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "@bilap  output I[2:M - 2]\n  u  I: -2 +2   reads I[0:M]") {
		t.Errorf("bilap's extents do not see through its calls:\n%s", got)
	}
	if strings.Contains(got, "unbounded") {
		t.Errorf("a call left unbounded:\n%s", got)
	}
	js, err := ExtentsJSON(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(js, `"unbounded"`) {
		t.Errorf("extents-json leaves a call unbounded:\n%s", js)
	}
	calls := 0
	m.Op.Walk(func(o *ir.Operation) bool {
		if o.Is(tir.Call) {
			calls++
		}
		return true
	})
	if calls != 2 {
		t.Errorf("the module given holds %d calls after the analysis, want its 2", calls)
	}

}
