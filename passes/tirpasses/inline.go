// Package tirpasses holds the passes that work on the tir dialect and need
// more than one op at a time: inlining and the choice of temporaries.
package tirpasses

import (
	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/passes"
)

func init() {
	passes.Register(&passes.Def{
		Name:    "tir-inline",
		Title:   "TIRInline",
		Summary: "Inline every tir.call (callee size symbols bound by unification)",
		Anchor:  passes.AnchorModule,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return tir.InlineAll(ctx.Module)
			})
		},
	})
}
