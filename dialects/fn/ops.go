package fn

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the func dialect are Go values, one per op, so that code names
// an op by value (op.Is(fn.Func), ir.NewOpOf(fn.Return, ...)) and a
// misspelt op does not compile. Naming rule: the op's name after "func.",
// capitalised: func.func → Func, func.return → Return, func.call → Call.
var allOps = []*ir.OpDef{Func, Return, Call}

// Ops returns every op of the func dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

func init() { arith.Register(allOps...) }

// Attribute names of func ops, for code outside the dialect that reads or
// builds them.
const (
	AttrFunctionType = "function_type" // func.func's type
	AttrCallee       = "callee"        // func.call's callee
)
