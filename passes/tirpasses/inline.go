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
				return inlineAll(ctx.Module)
			})
		},
	})
}

// maxInlineRounds bounds inlining so a recursive call chain is an error
// instead of a hang.
const maxInlineRounds = 64

func inlineAll(m *ir.Module) error {
	for round := 0; ; round++ {
		var calls []*ir.Operation
		m.Op.Walk(func(o *ir.Operation) bool {
			if o.Is(tir.Call) {
				calls = append(calls, o)
			}
			return true
		})
		if len(calls) == 0 {
			return nil
		}
		if round == maxInlineRounds {
			return ir.Errorf(calls[0].Loc, "tir-inline: calls are still left after %d rounds (recursive functions cannot be inlined)", maxInlineRounds)
		}
		for _, c := range calls {
			callee := m.Lookup(tir.Callee(c))
			if callee == nil {
				return ir.Errorf(c.Loc, "call to unknown function @%s", tir.Callee(c))
			}
			rw := &ir.Rewriter{Root: c.ParentOp()}
			for rw.Root.ParentOp() != nil && !rw.Root.Is(tir.Func) {
				rw.Root = rw.Root.ParentOp()
			}
			if err := tir.InlineCall(c, callee, rw); err != nil {
				return err
			}
		}
	}
}
