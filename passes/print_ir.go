package passes

import (
	"fmt"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/printer"
)

// print-ir: dump the IR where the pass sits in the pipeline (to stderr in
// tc-opt), like MLIR's print-ir pass.
func init() {
	Register(&Def{
		Name:    "print-ir",
		Title:   "PrintIRPass",
		Summary: "Print the IR to stderr at this point of the pipeline",
		Anchor:  AnchorAny,
		Options: []OptionSpec{
			{Name: "label", Type: OptString, Default: "", Help: "label printed in the header"},
		},
		New: func(o Options) Pass {
			label := o.String("label")
			return PassFunc(func(op *ir.Operation, ctx *Context) error {
				header := "// -----// IR Dump"
				if label != "" {
					header += " " + label
				}
				var text string
				if ctx.Module != nil && op == ctx.Module.Op {
					text = printer.Module(ctx.Module, ctx.PrintOptions)
				} else {
					text = printer.Op(op, ctx.PrintOptions)
					if !strings.HasSuffix(text, "\n") {
						text += "\n"
					}
				}
				_, err := fmt.Fprintf(ctx.IROut, "%s //----- //\n%s\n", header, text)
				return err
			})
		},
	})
}
