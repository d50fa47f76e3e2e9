package tc

import (
	"fmt"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Value expressions become elementwise tir ops. Types follow C: the
// operands of an operator are converted to their common type (types.go),
// comparisons and logical operators give i1 (bool), and an expression is
// converted to the type its context wants with tir.cast. Index variables
// and sizes read as data are i64 (tir.pos), integer division rounds
// toward negative infinity and % has the sign of the divisor (tir.div,
// tir.rem: TC's convention).

// stmtCtx is one statement being lowered.
type stmtCtx struct {
	b    *body
	info *stmtInfo
	rs   ranges
	acc  map[*CallExpr]*access
	// pos caches index variables read as data, reads the accesses by
	// tensor and index expressions: a statement that reads X(i) twice
	// builds one view.
	pos   map[string]*ir.Value
	reads map[string]*ir.Value
	// emitted caches what emit built per expression node and type: the
	// expression of a where binding is shared by its uses (let.go) and
	// computed once.
	emitted map[emitKey]*ir.Value
}

type emitKey struct {
	e    Expr
	want string
}

var arithOps = map[string]string{"+": "tir.add", "-": "tir.sub", "*": "tir.mul", "/": "tir.div", "%": "tir.rem"}
var cmpPreds = map[string]string{"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}

func (sc *stmtCtx) typeOf(e Expr) etype { return sc.b.typeOf(e) }

// typeOf is the static type of an expression.
//
// Types are remembered per node until a tensor is (re)defined (define):
// emit asks for the type of every subexpression, which would otherwise
// take time quadratic in the length of a chain `a + b + c + ...`.
func (b *body) typeOf(e Expr) etype {
	if t, ok := b.types[e]; ok {
		return t
	}
	t := b.typeOfNode(e)
	if b.types == nil {
		b.types = map[Expr]etype{}
	}
	b.types[e] = t
	return t
}

func (b *body) typeOfNode(e Expr) etype {
	switch e := e.(type) {
	case *Num:
		if e.Float {
			return etype{lit: floatLit}
		}
		return etype{lit: intLit}
	case *Name:
		if t, ok := b.vals[e.ID]; ok {
			return etype{t: t.typ().Elem}
		}
		return etype{t: ir.I64} // a size or an index variable
	case *DimSize:
		return etype{t: ir.I64}
	case *CallExpr:
		if t, ok := b.vals[e.Fn.Name]; ok {
			return etype{t: t.typ().Elem}
		}
		if t, ok := isCast(e); ok {
			return etype{t: t}
		}
		bi := builtins[e.Fn.Name]
		t := b.typeOf(e.Args[0])
		for _, a := range e.Args[1:] {
			t = unify(t, b.typeOf(a))
		}
		if bi.floatOnly {
			return floating(t)
		}
		return arith(t)
	case *Unary:
		if e.Op == "!" {
			return etype{t: ir.I1}
		}
		return arith(b.typeOf(e.X))
	case *Binary:
		if _, ok := arithOps[e.Op]; ok {
			return arith(unify(b.typeOf(e.X), b.typeOf(e.Y)))
		}
		return etype{t: ir.I1}
	case *Cond:
		return unify(b.typeOf(e.T), b.typeOf(e.F))
	}
	return etype{t: ir.I32}
}

// emit lowers e and converts the result to want.
func (sc *stmtCtx) emit(e Expr, want ir.Type) (*ir.Value, error) {
	b := sc.b
	if n, ok := e.(*Num); ok {
		// A literal converts exactly (or rounds) at compile time.
		return b.constant(n, want, n.Loc)
	}
	key := emitKey{e, fmt.Sprint(want)}
	if v, ok := sc.emitted[key]; ok {
		return v, nil
	}
	v, err := sc.emitNatural(e, sc.typeOf(e).concrete(want))
	if err != nil {
		return nil, err
	}
	if v, err = b.cast(v, want, e.Pos()); err != nil {
		return nil, err
	}
	if sc.emitted == nil {
		sc.emitted = map[emitKey]*ir.Value{}
	}
	sc.emitted[key] = v
	return v, nil
}

// emitNatural lowers e computing in type t (its own type made concrete);
// the result may still have another element type (a comparison gives i1):
// emit converts it.
func (sc *stmtCtx) emitNatural(e Expr, t ir.Type) (*ir.Value, error) {
	b := sc.b
	loc := e.Pos()
	switch e := e.(type) {
	case *Name:
		if v, ok := b.vals[e.ID]; ok {
			return v.v, nil
		}
		if s, ok := b.sizes[e.ID]; ok {
			return sc.size(s, loc)
		}
		return sc.index(e.ID, loc)
	case *DimSize:
		x, err := b.dimSize(e)
		if err != nil {
			return nil, err
		}
		return sc.size(x, loc)
	case *CallExpr:
		if _, ok := b.vals[e.Fn.Name]; ok {
			return sc.read(sc.acc[e])
		}
		return sc.call(e, t)
	case *Unary:
		switch e.Op {
		case "+":
			return sc.emit(e.X, t)
		case "-":
			x, err := sc.emit(e.X, t)
			if err != nil {
				return nil, err
			}
			return b.build("tir.neg", loc, []*ir.Value{x}, nil, nil)
		}
		x, err := sc.emitBool(e.X)
		if err != nil {
			return nil, err
		}
		return b.build("tir.not", loc, []*ir.Value{x}, nil, nil)
	case *Binary:
		return sc.binary(e, t)
	case *Cond:
		c, err := sc.emitBool(e.C)
		if err != nil {
			return nil, err
		}
		x, err := sc.emit(e.T, t)
		if err != nil {
			return nil, err
		}
		y, err := sc.emit(e.F, t)
		if err != nil {
			return nil, err
		}
		return b.build("tir.select", loc, []*ir.Value{c, x, y}, nil, nil)
	}
	return nil, errorf(loc, "unsupported expression %s", e.Text())
}

func (sc *stmtCtx) binary(e *Binary, t ir.Type) (*ir.Value, error) {
	b := sc.b
	switch e.Op {
	case "&&", "||":
		x, err := sc.emitBool(e.X)
		if err != nil {
			return nil, err
		}
		y, err := sc.emitBool(e.Y)
		if err != nil {
			return nil, err
		}
		op := "tir.and"
		if e.Op == "||" {
			op = "tir.or"
		}
		return b.build(op, e.Loc, []*ir.Value{x, y}, nil, nil)
	}
	if pred, ok := cmpPreds[e.Op]; ok {
		t = unify(sc.typeOf(e.X), sc.typeOf(e.Y)).concrete(nil)
		x, y, err := sc.pair(e.X, e.Y, t)
		if err != nil {
			return nil, err
		}
		return b.build("tir.cmp", e.Loc, []*ir.Value{x, y}, ir.DictAttr{}.With("predicate", ir.StringAttr(pred)), nil)
	}
	x, y, err := sc.pair(e.X, e.Y, t)
	if err != nil {
		return nil, err
	}
	return b.build(arithOps[e.Op], e.Loc, []*ir.Value{x, y}, nil, nil)
}

func (sc *stmtCtx) pair(x, y Expr, t ir.Type) (*ir.Value, *ir.Value, error) {
	vx, err := sc.emit(x, t)
	if err != nil {
		return nil, nil, err
	}
	vy, err := sc.emit(y, t)
	return vx, vy, err
}

// emitBool lowers a condition: i1 as is, anything else compared with 0.
func (sc *stmtCtx) emitBool(e Expr) (*ir.Value, error) {
	t := sc.typeOf(e).concrete(nil)
	v, err := sc.emit(e, t)
	if err != nil || ir.TypeEqual(t, ir.I1) {
		return v, err
	}
	zero, err := sc.b.constant(&Num{}, t, e.Pos())
	if err != nil {
		return nil, err
	}
	return sc.b.build("tir.cmp", e.Pos(), []*ir.Value{v, zero}, ir.DictAttr{}.With("predicate", ir.StringAttr("ne")), nil)
}

// size reads a size as data (once per statement).
func (sc *stmtCtx) size(e sizeexpr.Expr, loc ir.Location) (*ir.Value, error) {
	key := "size " + e.String()
	if v, ok := sc.reads[key]; ok {
		return v, nil
	}
	v, err := sc.b.sizeValue(e, loc)
	if err == nil {
		sc.reads[key] = v
	}
	return v, err
}

// index reads an index variable as data (once per statement).
func (sc *stmtCtx) index(name string, loc ir.Location) (*ir.Value, error) {
	if v, ok := sc.pos[name]; ok {
		return v, nil
	}
	v, err := sc.b.indexValue(name, sc.rs[name], loc)
	if err == nil {
		sc.pos[name] = v
	}
	return v, err
}

// indexType is the type of a data-dependent index: an integer.
func (b *body) indexType(e Expr) (ir.Type, error) {
	et := b.typeOf(e)
	if et.lit == floatLit || et.lit == typed && !ir.IsInteger(et.t) {
		return nil, errorf(e.Pos(), "index %s has type %s: indices must be integers", e.Text(), et.concrete(nil))
	}
	return et.concrete(ir.I64), nil
}

// indexTable lowers a data-dependent index to an integer tensor.
func (sc *stmtCtx) indexTable(e Expr) (*ir.Value, error) {
	t, err := sc.b.indexType(e)
	if err != nil {
		return nil, err
	}
	if ir.TypeEqual(t, ir.I1) {
		t = ir.I32
	}
	return sc.emit(e, t)
}
