package gpu

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// Func is gpu.func: the entry block's arguments are the parameters, then
// the workgroup attributions (buffers shared by a block), then the private
// ones (per thread); workgroup_attributions counts the former and the
// private ones are the rest. Unlike func.func there is no declaration form
// and no visibility keyword, and the body has no implicit terminator.
var Func = &ir.OpDef{
	Name:    "gpu.func",
	Summary: "a kernel (with `kernel`) or device function inside a gpu.module",
	Syntax: "gpu.func @k(%a: T, ...) [-> R | -> (R, ...)] [workgroup(%w : memref<..>, ...)] [private(%p : memref<..>, ...)]" +
		" [kernel] [attributes {...}] { ... gpu.return }",
	Traits:      ir.TraitIsolated | ir.TraitSymbol,
	NumOperands: 0, NumResults: 0, NumRegions: 1,
	Parse:        parseFunc,
	Print:        printFunc,
	NeedsGeneric: funcNeedsGeneric,
	Verify:       verifyFunc,
}

// funcAttrs are the attributes the custom form spells by its syntax.
var funcAttrs = []string{"sym_name", "function_type", "workgroup_attributions", KernelAttr}

// FuncType returns the signature of a gpu.func (parameters only: the
// attributions are not part of it).
func FuncType(op *ir.Operation) (ir.FunctionType, bool) {
	ta, ok := op.Attr("function_type").(ir.TypeAttr)
	if !ok {
		return ir.FunctionType{}, false
	}
	ft, ok := ta.Type.(ir.FunctionType)
	return ft, ok
}

// numWorkgroup reads workgroup_attributions; ok is false when it is not an
// integer (a missing one counts as 0, as in MLIR).
func numWorkgroup(op *ir.Operation) (n int, ok bool) {
	switch a := op.Attr("workgroup_attributions").(type) {
	case nil:
		return 0, true
	case ir.IntegerAttr:
		return int(a.Value), a.Value >= 0 && ir.TypeEqual(a.Type, ir.I64)
	}
	return 0, false
}

// attributionGroup reads `(%w : T, ...)` after the keyword kw, if present.
func attributionGroup(p *ir.OpParser, kw string, args *[]ir.RegionArg) (int, error) {
	if !p.Word(kw) {
		return 0, nil
	}
	g, err := p.Group()
	if err != nil {
		return 0, err
	}
	n := 0
	for !g.AtEnd() {
		name, loc, err := g.ValueName()
		if err != nil {
			return 0, err
		}
		if err := g.ExpectPunct(":"); err != nil {
			return 0, err
		}
		t, err := g.Type()
		if err != nil {
			return 0, err
		}
		*args = append(*args, ir.RegionArg{Name: name, Type: t, Loc: loc})
		n++
		if !g.Punct(",") {
			break
		}
	}
	return n, g.ExpectEnd()
}

func parseFunc(p *ir.OpParser, st *ir.OpState) error {
	name, err := p.Symbol()
	if err != nil {
		return err
	}
	g, err := p.Group()
	if err != nil {
		return err
	}
	args := []ir.RegionArg{}
	var ins []ir.Type
	for !g.AtEnd() {
		n, loc, err := g.ValueName()
		if err != nil {
			return err
		}
		if err := g.ExpectPunct(":"); err != nil {
			return err
		}
		t, err := g.Type()
		if err != nil {
			return err
		}
		args = append(args, ir.RegionArg{Name: n, Type: t, Loc: loc})
		ins = append(ins, t)
		if !g.Punct(",") {
			break
		}
	}
	if err := g.ExpectEnd(); err != nil {
		return err
	}
	var outs []ir.Type
	if p.Punct("->") {
		if outs, err = p.ResultTypeList(); err != nil {
			return err
		}
	}
	nw, err := attributionGroup(p, "workgroup", &args)
	if err != nil {
		return err
	}
	if _, err := attributionGroup(p, "private", &args); err != nil {
		return err
	}
	kernel := p.Word("kernel")
	extra, err := p.OptionalAttrDict()
	if err != nil {
		return err
	}
	st.Attrs = extra
	body, err := p.Region(args, nil)
	if err != nil {
		return err
	}
	st.Regions = []*ir.Region{body}
	if kernel {
		st.Attrs = st.Attrs.With(KernelAttr, ir.UnitAttr{})
	}
	st.Attrs = st.Attrs.With("sym_name", ir.StringAttr(name))
	st.Attrs = st.Attrs.With("function_type", ir.TypeAttr{Type: ir.FunctionType{Inputs: ins, Results: outs}})
	st.Attrs = st.Attrs.With("workgroup_attributions", ir.IntegerAttr{Value: int64(nw), Type: ir.I64})
	return p.ExpectEnd()
}

func printFunc(p ir.OpPrinter, op *ir.Operation) {
	ft, _ := FuncType(op)
	nw, _ := numWorkgroup(op)
	entry := op.Regions[0].Entry()
	p.Write(" " + ir.SymbolRefAttr(ir.SymbolName(op)).String() + "(")
	for i := range ft.Inputs {
		if i > 0 {
			p.Write(", ")
		}
		p.ArgDef(entry.Args[i])
	}
	p.Write(")")
	switch {
	case len(ft.Results) == 1 && !isFunctionType(ft.Results[0]):
		p.Write(" -> ")
		p.Type(ft.Results[0])
	case len(ft.Results) > 0:
		p.Write(" -> (")
		p.Types(ft.Results)
		p.Write(")")
	}
	// MLIR writes attributions as `%w : T`, with a blank before the colon.
	attributions := func(kw string, vs []*ir.Value) {
		if len(vs) == 0 {
			return
		}
		p.Write(" " + kw + "(")
		for i, v := range vs {
			if i > 0 {
				p.Write(", ")
			}
			p.ArgName(v)
			p.Write(" : ")
			p.Type(v.Type)
		}
		p.Write(")")
	}
	n := len(ft.Inputs)
	attributions("workgroup", entry.Args[n:n+nw])
	attributions("private", entry.Args[n+nw:])
	if hasKernelAttr(op) {
		p.Write(" kernel")
	}
	p.AttrDict(op.Attrs, funcAttrs...)
	p.Write(" ")
	p.Region(op.Regions[0], false)
}

func isFunctionType(t ir.Type) bool { _, ok := t.(ir.FunctionType); return ok }

// funcNeedsGeneric: the custom form cannot carry argument attributes, a
// gpu.kernel that is not a unit attribute, a missing or odd
// workgroup_attributions, or an entry block that does not hold the
// parameters and attributions.
func funcNeedsGeneric(op *ir.Operation) bool {
	ft, ok := FuncType(op)
	_, named := op.Attr("sym_name").(ir.StringAttr)
	nw, okW := numWorkgroup(op)
	if !ok || !named || !okW || op.Attr("workgroup_attributions") == nil {
		return true
	}
	if k := op.Attr(KernelAttr); k != nil {
		if _, unit := k.(ir.UnitAttr); !unit {
			return true
		}
	}
	for _, a := range []string{"arg_attrs", "res_attrs", "workgroup_attrib_attrs", "private_attrib_attrs"} {
		if op.Attr(a) != nil {
			return true
		}
	}
	entry := op.Regions[0].Entry()
	if entry == nil || len(entry.Args) < len(ft.Inputs)+nw {
		return true
	}
	for i, t := range ft.Inputs {
		if !ir.TypeEqual(entry.Args[i].Type, t) {
			return true
		}
	}
	return false
}

func verifyFunc(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if _, ok := op.Attr("sym_name").(ir.StringAttr); !ok {
		return arith.Errf(op, "needs a string sym_name attribute")
	}
	ft, ok := FuncType(op)
	if !ok {
		return arith.Errf(op, "needs a function_type attribute")
	}
	nw, ok := numWorkgroup(op)
	if !ok {
		return arith.Errf(op, "workgroup_attributions must be a non-negative i64 integer")
	}
	if par := op.ParentOp(); !par.Is(Module) {
		return arith.Errf(op, "expects parent op 'gpu.module'")
	}
	if k := op.Attr(KernelAttr); k != nil {
		if _, unit := k.(ir.UnitAttr); !unit {
			return arith.Errf(op, "'%s' must be a unit attribute", KernelAttr)
		}
		if len(ft.Results) > 0 {
			return arith.Errf(op, "expected void return type for kernel function")
		}
	}
	for _, name := range []string{KnownBlockSizeAttr, KnownGridSizeAttr} {
		a := op.Attr(name)
		if a == nil {
			continue
		}
		d, ok := a.(ir.DenseArrayAttr)
		if !ok || !ir.TypeEqual(d.Elem, ir.I32) {
			return arith.Errf(op, "%s must be a dense i32 array", name)
		}
		if len(d.Values) != 3 {
			return arith.Errf(op, "%s must contain exactly 3 elements", name)
		}
	}
	r := op.Regions[0]
	if len(r.Blocks) == 0 {
		return arith.Errf(op, "needs a body (a gpu.func has no declaration form)")
	}
	entry := r.Blocks[0]
	if len(entry.Args) < len(ft.Inputs)+nw {
		return arith.Errf(op, "entry block has %d arguments but the function has %d parameters and %d workgroup attributions",
			len(entry.Args), len(ft.Inputs), nw)
	}
	for i, t := range ft.Inputs {
		if !ir.TypeEqual(entry.Args[i].Type, t) {
			return arith.Errf(op, "argument #%d has type %s but the signature says %s", i, entry.Args[i].Type, t)
		}
	}
	for _, a := range entry.Args[len(ft.Inputs):] {
		if _, ok := a.Type.(ir.MemRefType); !ok {
			return arith.Errf(op, "expected memref type in attribution, got %s", a.Type)
		}
	}
	for _, b := range r.Blocks {
		if b.Terminator() == nil {
			return arith.Errf(op, "body must end with gpu.return")
		}
	}
	return nil
}

// Return is gpu.return.
var Return = &ir.OpDef{
	Name:        "gpu.return",
	Summary:     "return from a gpu.func",
	Syntax:      "gpu.return [%a, %b : T1, T2]",
	Traits:      ir.TraitTerminator | ir.TraitPure,
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format:       arith.Format("values-types($operands)"),
	NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		fn := op.ParentOp()
		if !fn.Is(Func) {
			return arith.Errf(op, "expects parent op 'gpu.func'")
		}
		ft, ok := FuncType(fn)
		if !ok {
			return nil
		}
		if len(op.Operands) != len(ft.Results) {
			if IsKernel(fn) && len(ft.Results) == 0 {
				return arith.Errf(op, "expected 0 result operands: kernel @%s returns nothing", ir.SymbolName(fn))
			}
			return arith.Errf(op, "expected %d result operands, got %d (function @%s)", len(ft.Results), len(op.Operands), ir.SymbolName(fn))
		}
		for i, v := range op.Operands {
			if !ir.TypeEqual(v.Type, ft.Results[i]) {
				return arith.Errf(op, "unexpected type '%s' for operand #%d: function @%s returns %s", v.Type, i, ir.SymbolName(fn), ft.Results[i])
			}
		}
		return nil
	},
}

// NewFunc builds `gpu.func @name` taking argTypes and returning nothing,
// marked as a kernel when kernel is set, with an entry block holding one
// argument per type (no terminator: the caller appends the body and a
// gpu.return). Name hints of the arguments may be set afterwards.
func NewFunc(loc ir.Location, name string, argTypes []ir.Type, kernel bool) *ir.Operation {
	attrs := ir.DictAttr{}.
		With("sym_name", ir.StringAttr(name)).
		With("function_type", ir.TypeAttr{Type: ir.FunctionType{Inputs: append([]ir.Type(nil), argTypes...)}}).
		With("workgroup_attributions", ir.IntegerAttr{Value: 0, Type: ir.I64})
	if kernel {
		attrs = attrs.With(KernelAttr, ir.UnitAttr{})
	}
	op := ir.NewOpOf(Func, loc, nil, nil, attrs)
	op.AddRegion().AddBlock(argTypes...)
	return op
}

// FuncBody is the entry block of a gpu.func.
func FuncBody(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }

// IsKernel reports whether op is a gpu.func marked as a kernel (the unit
// attribute gpu.kernel, as MLIR tests it).
func IsKernel(op *ir.Operation) bool { return op.Is(Func) && hasKernelAttr(op) }

// hasKernelAttr reports whether op carries the unit attribute gpu.kernel
// (IsKernel without its test of the op, for Func's own hooks: Go rejects a
// package-level initializer that refers to itself).
func hasKernelAttr(op *ir.Operation) bool {
	_, ok := op.Attr(KernelAttr).(ir.UnitAttr)
	return ok
}

// NewReturn builds `gpu.return` (with vals for a device function that
// returns values; a kernel returns none).
func NewReturn(loc ir.Location, vals ...*ir.Value) *ir.Operation {
	return ir.NewOpOf(Return, loc, vals, nil, nil)
}
