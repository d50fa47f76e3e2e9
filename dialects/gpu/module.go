package gpu

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// Module is `gpu.module @name [attributes {...}] { ops }`: the body is one
// block whose terminator, gpu.module_end, the custom form leaves out (MLIR's
// SingleBlockImplicitTerminator), so the parser adds it back.
var Module = &ir.OpDef{
	Name:        "gpu.module",
	Summary:     "a module of GPU kernels and device functions, compiled for the device",
	Syntax:      "gpu.module @m [attributes {...}] { gpu.func ... }",
	Traits:      ir.TraitIsolated | ir.TraitSymbol,
	NumOperands: 0, NumResults: 0, NumRegions: 1,
	Format: format("sym-name attr-dict-with-keyword module-body"),
	NeedsGeneric: func(op *ir.Operation) bool {
		_, named := op.Attr("sym_name").(ir.StringAttr)
		r := op.Regions[0]
		if !named || len(r.Blocks) != 1 || len(r.Blocks[0].Args) != 0 {
			return true
		}
		t := r.Blocks[0].Terminator()
		return !t.Is(ModuleEnd) || !arith.IsEmptyTerminator(r.Blocks[0])
	},
	Verify: verifyModule,
}

func verifyModule(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if _, ok := op.Attr("sym_name").(ir.StringAttr); !ok {
		return arith.Errf(op, "needs a string sym_name attribute")
	}
	// MLIR 16 accepts a gpu.module anywhere; gpu.launch_func looks its
	// kernels up among the ops of the closest builtin.module, so a
	// gpu.module elsewhere could never be launched from.
	if par := op.ParentOp(); !par.Is(ir.BuiltinModule) {
		return arith.Errf(op, "expects parent op 'builtin.module' (gpu.launch_func finds kernels in the gpu.modules of its closest module)")
	}
	r := op.Regions[0]
	if len(r.Blocks) != 1 || len(r.Blocks[0].Args) != 0 {
		return arith.Errf(op, "body must be one block without arguments")
	}
	if t := r.Blocks[0].Terminator(); !t.Is(ModuleEnd) {
		return arith.Errf(op, "body must end with 'gpu.module_end'")
	}
	return nil
}

// ModuleEnd is gpu.module_end.
var ModuleEnd = &ir.OpDef{
	Name:        "gpu.module_end",
	Summary:     "the implicit terminator of a gpu.module body",
	Syntax:      "gpu.module_end (left out in gpu.module's custom form)",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: 0, NumResults: 0, NumRegions: 0,
	Format:       arith.Format(""), // nothing after the name
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if par := op.ParentOp(); !par.Is(moduleEndParents...) {
			return arith.Errf(op, "expects parent op 'gpu.module'")
		}
		return nil
	},
}

// NewModule builds `gpu.module @name` with a body block ending in
// gpu.module_end; add functions with AppendToModule.
func NewModule(loc ir.Location, name string) *ir.Operation {
	op := ir.NewOpOf(Module, loc, nil, nil, ir.DictAttr{}.With("sym_name", ir.StringAttr(name)))
	op.AddRegion().AddBlock().Append(NewModuleEnd(loc))
	return op
}

// NewModuleEnd builds the terminator of a gpu.module body.
func NewModuleEnd(loc ir.Location) *ir.Operation {
	return ir.NewOpOf(ModuleEnd, loc, nil, nil, nil)
}

// ModuleBody is the block of a gpu.module.
func ModuleBody(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }

// AppendToModule adds op at the end of a gpu.module's body, before its
// gpu.module_end.
func AppendToModule(mod, op *ir.Operation) {
	b := ModuleBody(mod)
	if t := b.Terminator(); t.Is(ModuleEnd) {
		b.InsertAt(b.IndexOf(t), op)
		return
	}
	b.Append(op)
}
