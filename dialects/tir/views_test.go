package tir_test

import (
	"strings"
	"testing"

	"tir/dialects/ir"
	"tir/dialects/parser"
	"tir/dialects/tir"
)

// The typed views read what the custom syntax wrote.
func TestTypedViews(t *testing.T) {
	src := `tir.func @f(%x: !tir.tensor<f64, I[0:8], K[0:4]>, %t: !tir.tensor<i64, E[0:3]>, %c0: !tir.tensor<f64>) -> !tir.tensor<f64, I[1:7]> {
  %s = tir.shift %x [I + 1, K - 2]
  %u = tir.subset %x [I[1:7]]
  %r = tir.reduce max %u over [K] init %c0
  %p = tir.pos I of %r
  %q = tir.cmp lt %r, %c0 : !tir.tensor<i1, I[1:7]>
  %g = tir.gather %x [I = %t]
  %k = tir.constant 2.5 : f64
  tir.return %r : !tir.tensor<f64, I[1:7]>
}`
	m, diags := parser.Parse("views.tir", src)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	byName := map[*tir.Op]*ir.Operation{}
	m.Lookup("f").Walk(func(op *ir.Operation) bool {
		if o := tir.OpOf(op); o != nil {
			byName[o] = op
		}
		return true
	})
	if got := (tir.ShiftOp{byName[tir.Shift]}).Offsets().Text(); got != "[I + 1, K - 2]" {
		t.Errorf("shift offsets: %s", got)
	}
	if got := (tir.SubsetOp{byName[tir.Subset]}).Bounds().Text(); got != "[I[1:7]]" {
		t.Errorf("subset bounds: %s", got)
	}
	r := tir.ReduceOp{byName[tir.Reduce]}
	if r.Kind() != "max" || strings.Join(r.Dims(), ",") != "K" || r.Init() == nil || len(r.Inputs()) != 1 || r.Interval("K").String() != "[0:4]" {
		t.Errorf("reduce: kind %q dims %v init %v inputs %d interval %s", r.Kind(), r.Dims(), r.Init(), len(r.Inputs()), r.Interval("K"))
	}
	if got := (tir.PosOp{byName[tir.Pos]}).Dim(); got != "I" {
		t.Errorf("pos dim: %s", got)
	}
	if got := (tir.CmpOp{byName[tir.Cmp]}).Predicate(); got != "lt" {
		t.Errorf("cmp predicate: %s", got)
	}
	g := tir.GatherOp{byName[tir.Gather]}
	if g.Dim() != "I" || g.Table().NameHint != "t" || g.Source().NameHint != "x" {
		t.Errorf("gather: dim %s table %s source %s", g.Dim(), g.Table().NameHint, g.Source().NameHint)
	}
	if v, ok := (tir.ConstantOp{byName[tir.Constant]}).Value().(ir.FloatAttr); !ok || v.Value != 2.5 {
		t.Errorf("constant value: %v", tir.ConstantOp{byName[tir.Constant]}.Value())
	}
}
