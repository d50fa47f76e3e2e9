// Package fn is MLIR's func dialect (ops func.func, func.return,
// func.call), with MLIR 16's custom syntax and generic representation:
// func.func has sym_name (a string), function_type (a function type),
// optionally sym_visibility ("private"), and one region whose entry block
// arguments are the parameters; a declaration has an empty region.
package fn

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// Func is func.func.
var Func = &ir.OpDef{
	Name:    "func.func",
	Summary: "a function (or, without a body, a declaration)",
	Syntax: "func.func [private] @f(%a: T, ...) [-> R | -> (R, ...)] [attributes {...}] { ... }\n" +
		"func.func private @g(T, ...) -> R",
	Traits:      ir.TraitIsolated | ir.TraitSymbol,
	NumOperands: 0, NumResults: 0, NumRegions: 1,
	Parse: parseFunc,
	Print: printFunc,
	NeedsGeneric: func(op *ir.Operation) bool {
		_, okName := op.Attr("sym_name").(ir.StringAttr)
		if _, ok := FuncType(op); !ok || !okName {
			return true
		}
		if v := op.Attr("sym_visibility"); v != nil {
			if s, ok := v.(ir.StringAttr); !ok || (s != "private" && s != "public" && s != "nested") {
				return true
			}
		}
		// Argument and result attributes have no custom spelling here.
		return op.Attr("arg_attrs") != nil || op.Attr("res_attrs") != nil
	},
	Infer: func(op *ir.Operation) ([]ir.Type, error) {
		arith.DropEmptyBlock(op.Regions[0])
		return nil, nil
	},
	Verify: verifyFunc,
}

// FuncType returns the signature of a func.func.
func FuncType(op *ir.Operation) (ir.FunctionType, bool) {
	ta, ok := op.Attr("function_type").(ir.TypeAttr)
	if !ok {
		return ir.FunctionType{}, false
	}
	ft, ok := ta.Type.(ir.FunctionType)
	return ft, ok
}

// IsDeclaration reports whether a func.func has no body.
func IsDeclaration(op *ir.Operation) bool { return len(op.Regions[0].Blocks) == 0 }

func parseFunc(p *ir.OpParser, st *ir.OpState) error {
	if p.IsWord("private") || p.IsWord("public") || p.IsWord("nested") {
		w, _, _ := p.Keyword("visibility")
		if w != "public" {
			st.Attrs = st.Attrs.With("sym_visibility", ir.StringAttr(w))
		}
	}
	name, err := p.Symbol()
	if err != nil {
		return err
	}
	g, err := p.Group()
	if err != nil {
		return err
	}
	var args []ir.RegionArg
	var ins []ir.Type
	named := g.IsValue()
	for !g.AtEnd() {
		if named {
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
		} else {
			t, err := g.Type()
			if err != nil {
				return err
			}
			ins = append(ins, t)
		}
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
	extra, err := p.OptionalAttrDict()
	if err != nil {
		return err
	}
	for _, e := range extra {
		st.Attrs = st.Attrs.With(e.Name, e.Value)
	}
	body := &ir.Region{}
	if p.IsRegion() {
		if !named && len(ins) > 0 {
			// `@f(T, U) { ^bb0(%a: T, %b: U): ... }`: the entry label
			// names the arguments, as MLIR also reads.
			if body, err = p.Region(nil, ins); err != nil {
				return err
			}
			if e := body.Entry(); e == nil || len(e.Args) != len(ins) {
				return ir.Errorf(st.Loc, "a function with a body needs named arguments (%%a: T) or an entry block ^bb0(%%a: T, ...)")
			}
		} else {
			if args == nil {
				args = []ir.RegionArg{}
			}
			if body, err = p.Region(args, nil); err != nil {
				return err
			}
		}
	} else if named && len(ins) > 0 {
		return p.Errorf("expected the function body '{ ... }'")
	}
	st.Regions = append(st.Regions, body)
	st.Attrs = st.Attrs.With("sym_name", ir.StringAttr(name))
	st.Attrs = st.Attrs.With("function_type", ir.TypeAttr{Type: ir.FunctionType{Inputs: ins, Results: outs}})
	return p.ExpectEnd()
}

func printFunc(p ir.OpPrinter, op *ir.Operation) {
	ft, _ := FuncType(op)
	if v, ok := op.Attr("sym_visibility").(ir.StringAttr); ok && v != "public" {
		p.Write(" " + string(v))
	}
	p.Write(" " + ir.SymbolRefAttr(ir.SymbolName(op)).String() + "(")
	entry := op.Regions[0].Entry()
	for i, t := range ft.Inputs {
		if i > 0 {
			p.Write(", ")
		}
		if entry != nil && i < len(entry.Args) {
			p.ArgDef(entry.Args[i])
		} else {
			p.Type(t)
		}
	}
	p.Write(")")
	if len(ft.Results) == 1 {
		if _, isFn := ft.Results[0].(ir.FunctionType); !isFn {
			p.Write(" -> ")
			p.Type(ft.Results[0])
		}
	}
	if len(ft.Results) > 1 || len(ft.Results) == 1 && isFunctionType(ft.Results[0]) {
		p.Write(" -> (")
		p.Types(ft.Results)
		p.Write(")")
	}
	p.AttrDict(op.Attrs, "sym_name", "function_type", "sym_visibility")
	if entry != nil {
		p.Write(" ")
		p.Region(op.Regions[0], false)
	}
}

func isFunctionType(t ir.Type) bool { _, ok := t.(ir.FunctionType); return ok }

func verifyFunc(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if _, ok := op.Attr("sym_name").(ir.StringAttr); !ok {
		return arith.Errf(op, "needs a string sym_name attribute")
	}
	ft, ok := FuncType(op)
	if !ok {
		return arith.Errf(op, "needs a function_type attribute")
	}
	if v := op.Attr("sym_visibility"); v != nil {
		if s, ok := v.(ir.StringAttr); !ok || (s != "private" && s != "public" && s != "nested") {
			return arith.Errf(op, "sym_visibility must be \"private\", \"public\" or \"nested\"")
		}
	}
	r := op.Regions[0]
	if len(r.Blocks) == 0 {
		if v, _ := op.Attr("sym_visibility").(ir.StringAttr); v == "" || v == "public" {
			return arith.Errf(op, "symbol declaration cannot have public visibility")
		}
		return nil
	}
	entry := r.Blocks[0]
	if len(entry.Args) != len(ft.Inputs) {
		return arith.Errf(op, "entry block has %d arguments but the type has %d inputs", len(entry.Args), len(ft.Inputs))
	}
	for i, a := range entry.Args {
		if !ir.TypeEqual(a.Type, ft.Inputs[i]) {
			return arith.Errf(op, "argument #%d has type %s but the signature says %s", i, a.Type, ft.Inputs[i])
		}
	}
	for _, b := range r.Blocks {
		// An op of an unregistered dialect may be a terminator, as MLIR
		// assumes.
		if b.Terminator() == nil && !(len(b.Ops) > 0 && b.Ops[len(b.Ops)-1].Def == nil) {
			return arith.Errf(op, "body must end with func.return")
		}
	}
	return nil
}
