package cf

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The ops of the cf dialect are Go values, one per op, so that code names
// an op by value (op.Is(cf.Br), ir.NewOpOf(cf.Assert, ...)) and a misspelt
// op does not compile. Naming rule: the op's name after "cf.", in
// CamelCase, each word after an underscore capitalised: cf.assert →
// Assert, cf.br → Br, cf.cond_br → CondBr, cf.switch → Switch.
var allOps = []*ir.OpDef{Assert, Br, CondBr, Switch}

// Ops returns every op of the cf dialect (a fresh slice).
func Ops() []*ir.OpDef { return append([]*ir.OpDef(nil), allOps...) }

func init() {
	ir.Register(Assert) // without arith.Register's guard, as it always was
	arith.Register(Br, CondBr, Switch)
}

// AttrMsg is cf.assert's message.
const AttrMsg = "msg"
