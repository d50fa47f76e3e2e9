package fn

import (
	"tir/dialects/ir"
)

// NewFunc builds `func.func @name` of type ft with an entry block whose
// arguments are the parameters (no terminator: the caller appends the body
// and a func.return). Name hints of the arguments may be set afterwards.
func NewFunc(loc ir.Location, name string, ft ir.FunctionType) (*ir.Operation, *ir.Block) {
	op := ir.NewOpOf(Func, loc, nil, nil, ir.DictAttr{}.
		With("sym_name", ir.StringAttr(name)).
		With("function_type", ir.TypeAttr{Type: ft}))
	entry := op.AddRegion().AddBlock(ft.Inputs...)
	return op, entry
}

// NewDecl builds the declaration `func.func private @name(T, ...) -> R`.
func NewDecl(loc ir.Location, name string, ft ir.FunctionType) *ir.Operation {
	op := ir.NewOpOf(Func, loc, nil, nil, ir.DictAttr{}.
		With("sym_name", ir.StringAttr(name)).
		With("function_type", ir.TypeAttr{Type: ft}).
		With("sym_visibility", ir.StringAttr("private")))
	op.AddRegion()
	return op
}

// NewReturn builds `func.return %vals...`.
func NewReturn(loc ir.Location, vals ...*ir.Value) *ir.Operation {
	return ir.NewOpOf(Return, loc, vals, nil, nil)
}

// NewCall builds `func.call @callee(args) : (...) -> (results)`.
func NewCall(loc ir.Location, callee string, args []*ir.Value, results []ir.Type) *ir.Operation {
	return ir.NewOpOf(Call, loc, args, results, ir.DictAttr{}.With("callee", ir.SymbolRefAttr(callee)))
}
