package interp

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// evalFunc computes the results of one op from its operand tensors. Each op
// of the dialect is one entry of the table (ops as data): adding an op to
// the interpreter is adding one function and one register call. Result
// domains come from the op's result types (ev.result), never from the
// operands: the interpreter checks what inference concluded.
type evalFunc func(ev *evaluator, op *ir.Operation, in []*Tensor) ([]*Tensor, error)

var table = map[*tir.Op]evalFunc{}

func register(o *tir.Op, f evalFunc) {
	if _, dup := table[o]; dup {
		panic("interp: op registered twice: " + o.Name)
	}
	table[o] = f
}

// Implemented lists the ops the interpreter evaluates, in the dialect's
// order: those of the table and those it evaluates from their access rule
// alone (tir.func and the terminators are run by Run and block).
func Implemented() []*tir.Op {
	var out []*tir.Op
	for _, o := range tir.Ops() {
		if _, ok := table[o]; ok || movesData(o) {
			out = append(out, o)
		}
	}
	return out
}

// movesData reports whether o only moves data (tir.MovesData), so that
// access.go evaluates it from its access rule.
func movesData(o *tir.Op) bool {
	return tir.MovesData(ir.NewOpOf(o, ir.Location{}, nil, nil, nil))
}

// maxCallDepth bounds tir.call recursion so a recursive program fails with
// a message instead of exhausting the stack.
const maxCallDepth = 256

// evaluator holds one function activation: the symbol values and the
// tensors of the SSA values computed so far.
type evaluator struct {
	fn    *ir.Operation
	syms  map[string]int64
	vals  map[*ir.Value]*Tensor
	depth int
	// done marks the top-level ops evaluated ahead of the others, for the
	// extents computed from data (dataExtents).
	done map[*ir.Operation]bool
	// scatterInfo caches the scatter-adds of each block run (scatter.go),
	// found with the uses of fn.
	scatterInfo map[*ir.Block]*blockScatters
	uses        ir.UseLists
}

// result returns the element type and concrete domain of result i of op.
func (ev *evaluator) result(op *ir.Operation, i int) (ir.Type, []Dim, error) {
	return typeDomain(op.Results[i].Type, ev.syms)
}

// terminators end a block; their operands are the block's results.
var terminators = map[*tir.Op]bool{tir.Return: true, tir.Yield: true}

// block runs the ops of b with its arguments bound to args and returns the
// operands of its terminator.
func (ev *evaluator) block(b *ir.Block, args []*Tensor) ([]*Tensor, error) {
	if len(args) != len(b.Args) {
		return nil, fmt.Errorf("block takes %d arguments, got %d", len(b.Args), len(args))
	}
	for i, a := range b.Args {
		ev.vals[a] = args[i]
	}
	s := ev.scatters(b)
	for _, op := range b.Ops {
		if ev.done[op] || s.deferred[op] {
			continue
		}
		if c, ok := s.chains[op]; ok {
			done, err := ev.scatterAdd(op, c, s)
			if err != nil {
				return nil, err
			}
			if done {
				continue
			}
		}
		in := make([]*Tensor, len(op.Operands))
		for i, v := range op.Operands {
			t, ok, err := ev.value(v, s)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, ir.Errorf(op.Loc, "'%s' operand #%d has no value (not computed before its use)", op.Name, i)
			}
			in[i] = t
		}
		if terminators[tir.OpOf(op)] {
			return in, nil
		}
		if err := ev.op(op, in); err != nil {
			return nil, err
		}
	}
	return nil, fmt.Errorf("block has no terminator (tir.return or tir.yield)")
}

// op evaluates one op and records its results, checking that each has the
// element type and domain of its result type.
func (ev *evaluator) op(op *ir.Operation, in []*Tensor) error {
	f, ok := table[tir.OpOf(op)]
	if !ok && tir.MovesData(op) {
		f, ok = evalAccess, true
	}
	if !ok {
		return ir.Errorf(op.Loc, "the interpreter does not implement '%s'", op.Name)
	}
	outs, err := f(ev, op, in)
	if err != nil {
		return located(op, err)
	}
	if len(outs) != len(op.Results) {
		return ir.Errorf(op.Loc, "interpreter bug: '%s' produced %d values for %d results", op.Name, len(outs), len(op.Results))
	}
	for i, r := range op.Results {
		elem, dims, err := ev.result(op, i)
		if err != nil {
			return located(op, err)
		}
		if !ir.TypeEqual(outs[i].Elem, elem) || !sameDims(outs[i].Dims, dims) {
			return ir.Errorf(op.Loc, "interpreter bug: '%s' produced %s for result type %s", op.Name, outs[i], r.Type)
		}
		ev.vals[r] = outs[i]
	}
	return nil
}

// located gives an error the op's location unless it already has one.
func located(op *ir.Operation, err error) error {
	switch err.(type) {
	case *ir.Diagnostic, ir.DiagList:
		return err
	}
	return ir.Errorf(op.Loc, "'%s': %v", op.Name, err)
}

// moduleOf finds the module op above a function (for tir.call).
func moduleOf(op *ir.Operation) *ir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Is(ir.BuiltinModule) {
			return p
		}
	}
	return nil
}

// lookupFunc finds a top-level op by symbol name in fn's module.
func lookupFunc(fn *ir.Operation, name string) *ir.Operation {
	m := moduleOf(fn)
	if m == nil || len(m.Regions) == 0 || m.Regions[0].Entry() == nil {
		return nil
	}
	for _, o := range m.Regions[0].Entry().Ops {
		if ir.SymbolName(o) == name {
			return o
		}
	}
	return nil
}
