// Package lower registers the conversion passes (tir -> affine -> LLVM IR)
// and the tir-level passes that need the whole module, in the one pass
// table tc-opt reads. Tools import it for its side effect.
package lower

import (
	"tir/dialects/ir"
	"tir/lower/tiraffine"
	"tir/lower/tollvm"
	"tir/passes"
	_ "tir/passes/affine"    // affine loop passes
	_ "tir/passes/tirpasses" // tir-inline, tir-temporaries
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
}

// LLVMAttr is the module attribute that carries the emitted LLVM IR.
const LLVMAttr = "llvm.ir"
