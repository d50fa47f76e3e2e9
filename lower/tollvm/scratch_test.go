package tollvm

import (
	"os"
	"testing"
	"fmt"

	"tir/dialects/parser"
	"tir/dialects/ir"
)

func TestScratch(t *testing.T) {
	src, _ := os.ReadFile("/tmp/tl/a.gen.mlir")
	m, diags := parser.Parse("a.mlir", string(src))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	m.Op.Walk(func(o *ir.Operation) bool {
		for _, a := range o.Attrs {
			fmt.Printf("%s %s: %T %v\n", o.Name, a.Name, a.Value, a.Value)
		}
		return true
	})
}
