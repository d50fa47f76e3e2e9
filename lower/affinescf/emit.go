package affinescf

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Emitter builds index arithmetic, either before an anchor op (through the
// rewriter) or at the end of a block. The kernel outlining uses it for the
// launch bounds it computes on the host and the indices it computes in a
// kernel.
type Emitter struct {
	Rewriter *ir.Rewriter
	// Anchor, when set, is the op new ops are inserted before; otherwise
	// they are appended to Block (before its terminator).
	Anchor *ir.Operation
	Block  *ir.Block
	// consts are the index constants made at this position, reused.
	consts map[int64]*ir.Value
}

func (e *Emitter) loc() ir.Location {
	if e.Anchor != nil {
		return e.Anchor.Loc
	}
	if op := e.Block.ParentOp(); op != nil {
		return op.Loc
	}
	return ir.Location{}
}

// Append inserts op at the emitter's position: before Anchor, or at the
// end of Block (before its terminator, if it has one already).
func (e *Emitter) Append(op *ir.Operation) *ir.Operation {
	if e.Anchor != nil {
		return e.Rewriter.InsertBefore(e.Anchor, op)
	}
	if t := e.Block.Terminator(); t != nil {
		e.Block.InsertAt(e.Block.IndexOf(t), op)
		return op
	}
	return e.Block.Append(op)
}

// Value inserts op and returns its (first) result.
func (e *Emitter) Value(op *ir.Operation) *ir.Value { return e.Append(op).Results[0] }

// Index is the index constant c (one per emitter).
func (e *Emitter) Index(c int64) *ir.Value {
	if v, ok := e.consts[c]; ok {
		return v
	}
	if e.consts == nil {
		e.consts = map[int64]*ir.Value{}
	}
	v := e.Value(arith.NewConstantIndex(e.loc(), c))
	e.consts[c] = v
	return v
}

// Binary emits `arith.<name> a, b` on index values, folding what is
// obviously constant or neutral so that static shapes stay constants.
func (e *Emitter) Binary(name string, a, b *ir.Value) *ir.Value {
	ca, oka := constIndex(a)
	cb, okb := constIndex(b)
	if oka && okb {
		if c, ok := foldIndex(name, ca, cb); ok {
			return e.Index(c)
		}
	}
	switch {
	case name == "addi" && oka && ca == 0, name == "muli" && oka && ca == 1:
		return b
	case (name == "addi" || name == "subi") && okb && cb == 0,
		(name == "muli" || name == "floordivsi" || name == "ceildivsi" || name == "divsi") && okb && cb == 1:
		return a
	case name == "addi" && okb:
		// (x + c0) + c1 is x + (c0 + c1): a point reached by two paths
		// (i + 2 in one copy of a coarsened GPU kernel's body, (i + 1)
		// + 1 in the next) gets the same op, which cse merges; llc does
		// not reassociate, and merges the loads only at equal addresses.
		if d := a.DefiningOp(); d != nil && d.Is(arith.AddI) {
			for k, x := range d.Operands {
				if c0, ok := constIndex(x); ok {
					return e.Binary("addi", d.Operands[1-k], e.Index(c0+cb))
				}
			}
		}
	}
	return e.Value(arith.NewBinary(e.loc(), name, a, b))
}

// constIndex returns the value of an index constant.
func constIndex(v *ir.Value) (int64, bool) {
	op := v.DefiningOp()
	if op == nil || !op.Is(arith.Constant) {
		return 0, false
	}
	a, ok := op.Attr(arith.AttrValue).(ir.IntegerAttr)
	if !ok || !ir.TypeEqual(a.Type, ir.Index) {
		return 0, false
	}
	return a.Value, true
}

func foldIndex(name string, a, b int64) (int64, bool) {
	switch name {
	case "addi":
		return a + b, true
	case "subi":
		return a - b, true
	case "muli":
		return a * b, true
	case "maxsi":
		return max(a, b), true
	case "minsi":
		return min(a, b), true
	case "floordivsi":
		if b > 0 {
			return floorDiv(a, b), true
		}
	case "ceildivsi":
		if b > 0 {
			return -floorDiv(-a, b), true
		}
	}
	return 0, false
}

// Map evaluates every result of m on operands (dims then symbols).
func (e *Emitter) Map(m ir.AffineMap, operands []*ir.Value) []*ir.Value {
	out := make([]*ir.Value, len(m.Results))
	for i, r := range m.Results {
		out[i] = e.Expr(r, func(v sizeexpr.Var) *ir.Value { return mapOperand(m, operands, v) })
	}
	return out
}

// Bound is the max (lower bound) or min (upper bound) of m's results.
func (e *Emitter) Bound(m ir.AffineMap, operands []*ir.Value, lower bool) *ir.Value {
	name := "minsi"
	if lower {
		name = "maxsi"
	}
	var acc *ir.Value
	for _, v := range e.Map(m, operands) {
		if acc == nil {
			acc = v
		} else {
			acc = e.Binary(name, acc, v)
		}
	}
	return acc
}

// mapOperand resolves ir.MapDim(i) and ir.MapSym(i) to the map's operands.
func mapOperand(m ir.AffineMap, operands []*ir.Value, v sizeexpr.Var) *ir.Value {
	if v.Kind == sizeexpr.DimVar {
		return operands[v.Order]
	}
	return operands[m.NumDims+v.Order-1000]
}

// Expr emits e with its variables resolved by lookup.
func (e *Emitter) Expr(x sizeexpr.Expr, lookup func(sizeexpr.Var) *ir.Value) *ir.Value {
	if c, ok := x.Const(); ok {
		return e.Index(c)
	}
	terms, c := x.Terms()
	var acc *ir.Value
	for _, t := range terms {
		a := e.atom(t.Atom, lookup)
		if t.Coef != 1 && t.Coef != -1 {
			a = e.Binary("muli", a, e.Index(t.Coef))
		}
		switch {
		case acc == nil && t.Coef == -1:
			acc = e.Binary("subi", e.Index(0), a)
		case acc == nil:
			acc = a
		case t.Coef == -1:
			acc = e.Binary("subi", acc, a)
		default:
			acc = e.Binary("addi", acc, a)
		}
	}
	if c != 0 {
		acc = e.Binary("addi", acc, e.Index(c))
	}
	return acc
}

func (e *Emitter) atom(a sizeexpr.Atom, lookup func(sizeexpr.Var) *ir.Value) *ir.Value {
	switch a.Op() {
	case sizeexpr.OpVar:
		return lookup(a.Var())
	case sizeexpr.OpMin, sizeexpr.OpMax:
		name := "minsi"
		if a.Op() == sizeexpr.OpMax {
			name = "maxsi"
		}
		var acc *ir.Value
		for _, x := range a.Args() {
			v := e.Expr(x, lookup)
			if acc == nil {
				acc = v
			} else {
				acc = e.Binary(name, acc, v)
			}
		}
		return acc
	}
	x := e.Expr(a.Operand(), lookup)
	d := e.Index(a.Divisor())
	switch a.Op() {
	case sizeexpr.OpFloorDiv:
		return e.Binary("floordivsi", x, d)
	case sizeexpr.OpCeilDiv:
		return e.Binary("ceildivsi", x, d)
	}
	// mod: the truncated remainder, moved up by the divisor when negative.
	r := e.Binary("remsi", x, d)
	neg := e.Value(arith.NewCmpI(e.loc(), "slt", r, e.Index(0)))
	return e.Value(arith.NewSelect(e.loc(), neg, e.Binary("addi", r, d), r))
}

// floorDiv rounds toward negative infinity (b > 0).
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
