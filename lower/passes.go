// Package lower registers the conversion passes (tir -> affine -> LLVM IR)
// and the tir-level passes that need the whole module, in the one pass
// table tc-opt reads. Tools import it for its side effect.
package lower

import (
	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/lower/tiraffine"
	"tir/lower/tollvm"
	"tir/passes"
)

func init() {
	passes.Register(&passes.Def{
		Name:    "convert-tir-to-affine",
		Title:   "ConvertTIRToAffine",
		Summary: "Lower tir.func to func.func with affine loop nests over memrefs (destination-passing style, fused)",
		Anchor:  passes.AnchorModule,
		New: func(passes.Options) passes.Pass {
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				return tiraffine.Convert(ctx.Module)
			})
		},
	})
	passes.Register(&passes.Def{
		Name:    "convert-to-llvm",
		Title:   "ConvertToLLVM",
		Summary: "Emit LLVM 14 IR for the affine-stage module (C ABI of spec 5.1); tc-opt then prints it",
		Anchor:  passes.AnchorModule,
		Options: []passes.OptionSpec{
			{Name: "target", Type: passes.OptString, Default: "x86_64", Help: "x86_64, aarch64 or nvptx64", Choices: []string{"x86_64", "aarch64", "nvptx64"}},
		},
		New: func(o passes.Options) passes.Pass {
			target := o.String("target")
			return passes.PassFunc(func(op *ir.Operation, ctx *passes.Context) error {
				text, err := tollvm.Emit(ctx.Module, tollvm.Options{Target: target})
				if err != nil {
					return err
				}
				// The LLVM text rides on the module; tc-opt prints it.
				ctx.Module.Op.SetAttr(LLVMAttr, ir.StringAttr(text))
				return nil
			})
		},
	})
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

// LLVMAttr is the module attribute that carries the emitted LLVM IR.
const LLVMAttr = "llvm.ir"

// maxInlineRounds bounds inlining so a recursive call chain is an error
// instead of a hang.
const maxInlineRounds = 64

func inlineAll(m *ir.Module) error {
	for round := 0; ; round++ {
		var calls []*ir.Operation
		m.Op.Walk(func(o *ir.Operation) bool {
			if o.Name == "tir.call" {
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
			for rw.Root.ParentOp() != nil && rw.Root.Name != "tir.func" {
				rw.Root = rw.Root.ParentOp()
			}
			if err := tir.InlineCall(c, callee, rw); err != nil {
				return err
			}
		}
	}
}
