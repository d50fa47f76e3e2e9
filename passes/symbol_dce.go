package passes

import (
	"strings"

	"tir/dialects/ir"
)

// symbol-dce: erase private symbols (sym_visibility = "private") of the
// module that no live op references, as MLIR's symbol-dce does. Public
// symbols (the default) are roots.
func init() {
	Register(&Def{
		Name:    "symbol-dce",
		Title:   "SymbolDCE",
		Summary: "Erase private symbols (functions) that nothing live references",
		Anchor:  AnchorModule,
		New: func(Options) Pass {
			return PassFunc(func(op *ir.Operation, ctx *Context) error {
				SymbolDCE(op)
				return nil
			})
		},
	})
}

// SymbolDCE erases unreferenced private symbols directly inside module and
// reports whether it erased any.
func SymbolDCE(module *ir.Operation) bool {
	symbols := map[string]*ir.Operation{}
	live := map[*ir.Operation]bool{}
	var work []*ir.Operation
	for _, r := range module.Regions {
		for _, b := range r.Blocks {
			for _, op := range b.Ops {
				name := ir.SymbolName(op)
				if name != "" {
					symbols[name] = op
				}
				if name == "" || !isPrivate(op) {
					live[op] = true
					work = append(work, op)
				}
			}
		}
	}
	for len(work) > 0 {
		op := work[len(work)-1]
		work = work[:len(work)-1]
		op.Walk(func(o *ir.Operation) bool {
			for _, a := range o.Attrs {
				forEachSymbolRef(a.Value, func(ref string) {
					if t := symbols[ref]; t != nil && !live[t] {
						live[t] = true
						work = append(work, t)
					}
				})
			}
			return true
		})
	}
	changed := false
	for _, r := range module.Regions {
		for _, b := range r.Blocks {
			for _, op := range append([]*ir.Operation(nil), b.Ops...) {
				if !live[op] {
					op.Erase()
					changed = true
				}
			}
		}
	}
	return changed
}

func isPrivate(op *ir.Operation) bool {
	v, ok := op.Attr(ir.AttrSymVisibility).(ir.StringAttr)
	return ok && (v == "private" || v == "nested")
}

func forEachSymbolRef(a ir.Attribute, f func(string)) {
	switch a := a.(type) {
	case ir.SymbolRefAttr:
		root, _, _ := strings.Cut(strings.TrimPrefix(string(a), "@"), "::")
		f(strings.TrimPrefix(root, "@"))
	case ir.ArrayAttr:
		for _, e := range a {
			forEachSymbolRef(e, f)
		}
	case ir.DictAttr:
		for _, e := range a {
			forEachSymbolRef(e.Value, f)
		}
	}
}
