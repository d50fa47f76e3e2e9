package tollvm

import (
	"fmt"
	"strings"

	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/value"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// affineEnv gives the dimensions and symbols of an affine map their i64
// values (map operands: dims first, then symbols, as MLIR orders them).
type affineEnv struct {
	dims, syms []value.Value
}

// envFor splits the operands of a map into dims and symbols.
func envFor(m ir.AffineMap, operands []value.Value) (affineEnv, error) {
	if len(operands) != m.NumDims+m.NumSyms {
		return affineEnv{}, fmt.Errorf("affine map %s takes %d operands, got %d", m, m.NumDims+m.NumSyms, len(operands))
	}
	return affineEnv{dims: operands[:m.NumDims], syms: operands[m.NumDims:]}, nil
}

// lookup resolves a map variable. ir.MapDim(i) is the dim variable d<i>
// with Order i; ir.MapSym(i) is the symbol s<i> with Order 1000+i.
func (env affineEnv) lookup(v sizeexpr.Var) (value.Value, error) {
	if v.Kind == sizeexpr.DimVar {
		if v.Order >= 0 && v.Order < len(env.dims) {
			return env.dims[v.Order], nil
		}
		return nil, fmt.Errorf("affine dimension %s out of range (%d dims)", v.Name, len(env.dims))
	}
	if i := v.Order - 1000; i >= 0 && i < len(env.syms) {
		return env.syms[i], nil
	}
	return nil, fmt.Errorf("affine symbol %s out of range (%d symbols)", v.Name, len(env.syms))
}

// key identifies an expression with its operand values, for the per-block
// cache of lowered expressions.
func (env affineEnv) key(e sizeexpr.Expr) string {
	var b strings.Builder
	b.WriteString(e.String())
	for i, vs := range [][]value.Value{env.dims, env.syms} {
		if i > 0 {
			b.WriteString(";")
		}
		for _, v := range vs {
			b.WriteString("|" + valueKey(v))
		}
	}
	return b.String()
}

// valueKey identifies a value in cache keys. Constants are keyed by value:
// a dropped constant's address may be reused. Instructions and parameters
// stay alive in the function, so their address identifies them.
func valueKey(v value.Value) string {
	if c, ok := constInt(v); ok {
		return fmt.Sprintf("#%d", c)
	}
	return fmt.Sprintf("%p", v)
}

// cached returns the value built for key in the current block, building it
// on first use.
func (fe *fnEmitter) cached(key string, build func() value.Value) value.Value {
	cache := fe.exprCache[fe.cur]
	if v, ok := cache[key]; ok {
		return v
	}
	v := build()
	if cache == nil {
		cache = map[string]value.Value{}
		fe.exprCache[fe.cur] = cache
	}
	cache[key] = v
	return v
}

// splitConst returns e - c and c, where c is the constant term of e: the
// variable part of neighbouring subscripts (i + 1, i - 1) is then shared.
func splitConst(e sizeexpr.Expr) (sizeexpr.Expr, int64) {
	_, c := e.Terms()
	return sizeexpr.Add(e, sizeexpr.Const(-c)), c
}

// applyMap evaluates every result of m.
func (fe *fnEmitter) applyMap(m ir.AffineMap, operands []value.Value) ([]value.Value, error) {
	env, err := envFor(m, operands)
	if err != nil {
		return nil, err
	}
	out := make([]value.Value, len(m.Results))
	for i, r := range m.Results {
		if out[i], err = fe.lowerExpr(r, env); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lowerExpr emits e as i64 arithmetic with exact integer semantics: the
// canonical form sum(coef*atom) + c, where floordiv, ceildiv and mod by a
// positive constant round toward negative (positive for ceildiv) infinity,
// as MLIR and sizeexpr.Eval define them, unlike LLVM's truncating sdiv.
func (fe *fnEmitter) lowerExpr(e sizeexpr.Expr, env affineEnv) (value.Value, error) {
	if c, ok := e.Const(); ok {
		return i64(c), nil
	}
	key := env.key(e)
	if v, ok := fe.exprCache[fe.cur][key]; ok {
		return v, nil
	}
	terms, c := e.Terms()
	var acc value.Value
	for _, t := range terms {
		a, err := fe.lowerAtom(t.Atom, env)
		if err != nil {
			return nil, err
		}
		switch {
		case acc == nil && t.Coef == -1:
			acc = fe.sub(i64(0), a)
		case acc == nil:
			acc = fe.mul(a, i64(t.Coef))
		case t.Coef == -1:
			acc = fe.sub(acc, a)
		default:
			acc = fe.add(acc, fe.mul(a, i64(t.Coef)))
		}
	}
	acc = fe.add(acc, i64(c))
	return fe.cached(key, func() value.Value { return acc }), nil
}

// lowerAtom lowers one atom of the canonical form; non-variable atoms go
// through the block's cache, since the same division often appears in
// several expressions (x floordiv 3 - 4 and x floordiv 3).
func (fe *fnEmitter) lowerAtom(a sizeexpr.Atom, env affineEnv) (value.Value, error) {
	if a.Op() == sizeexpr.OpVar {
		return env.lookup(a.Var())
	}
	key := "atom|" + env.key(a.Expr())
	if v, ok := fe.exprCache[fe.cur][key]; ok {
		return v, nil
	}
	v, err := fe.lowerNonlinearAtom(a, env)
	if err != nil {
		return nil, err
	}
	return fe.cached(key, func() value.Value { return v }), nil
}

func (fe *fnEmitter) lowerNonlinearAtom(a sizeexpr.Atom, env affineEnv) (value.Value, error) {
	switch a.Op() {
	case sizeexpr.OpMin, sizeexpr.OpMax:
		var acc value.Value
		for _, x := range a.Args() {
			v, err := fe.lowerExpr(x, env)
			if err != nil {
				return nil, err
			}
			switch {
			case acc == nil:
				acc = v
			case a.Op() == sizeexpr.OpMin:
				acc = fe.smin(acc, v)
			default:
				acc = fe.smax(acc, v)
			}
		}
		return acc, nil
	}
	x, err := fe.lowerExpr(a.Operand(), env)
	if err != nil {
		return nil, err
	}
	d := a.Divisor()
	switch a.Op() {
	case sizeexpr.OpFloorDiv:
		return fe.floorDivConst(x, d), nil
	case sizeexpr.OpCeilDiv:
		return fe.ceilDivConst(x, d), nil
	case sizeexpr.OpMod:
		return fe.modConst(x, d), nil
	}
	return nil, fmt.Errorf("unknown affine atom %s", a)
}

// log2Exact returns k when d == 2^k.
func log2Exact(d int64) (int64, bool) {
	if d <= 0 || d&(d-1) != 0 {
		return 0, false
	}
	k := int64(0)
	for d > 1 {
		d >>= 1
		k++
	}
	return k, true
}

// floorDivConst is floor(x / d) for a constant d > 0. For a power of two it
// is an arithmetic shift; otherwise sdiv truncates toward zero, so the
// quotient is decremented when the remainder is negative.
func (fe *fnEmitter) floorDivConst(x value.Value, d int64) value.Value {
	if c, ok := constInt(x); ok {
		return i64(floorDiv(c, d))
	}
	if d == 1 {
		return x
	}
	if k, ok := log2Exact(d); ok {
		return fe.cur.NewAShr(x, i64(k))
	}
	q := fe.cur.NewSDiv(x, i64(d))
	r := fe.cur.NewSRem(x, i64(d))
	neg := fe.cur.NewICmp(enum.IPredSLT, r, i64(0))
	qm1 := fe.cur.NewAdd(q, i64(-1))
	qm1.OverflowFlags = nswFlags
	return fe.cur.NewSelect(neg, qm1, q)
}

// ceilDivConst is ceil(x / d) for a constant d > 0: the truncated quotient,
// incremented when the remainder is positive.
func (fe *fnEmitter) ceilDivConst(x value.Value, d int64) value.Value {
	if c, ok := constInt(x); ok {
		return i64(-floorDiv(-c, d))
	}
	if d == 1 {
		return x
	}
	if k, ok := log2Exact(d); ok {
		// ceil(x / 2^k) = -floor(-x / 2^k), and -x cannot overflow for
		// index values.
		nx := fe.sub(i64(0), x)
		return fe.sub(i64(0), fe.cur.NewAShr(nx, i64(k)))
	}
	q := fe.cur.NewSDiv(x, i64(d))
	r := fe.cur.NewSRem(x, i64(d))
	pos := fe.cur.NewICmp(enum.IPredSGT, r, i64(0))
	qp1 := fe.cur.NewAdd(q, i64(1))
	qp1.OverflowFlags = nswFlags
	return fe.cur.NewSelect(pos, qp1, q)
}

// modConst is x mod d in [0, d) for a constant d > 0: for a power of two a
// mask (two's complement makes it exact for negative x too), otherwise the
// C remainder plus d when negative.
func (fe *fnEmitter) modConst(x value.Value, d int64) value.Value {
	if c, ok := constInt(x); ok {
		return i64(c - d*floorDiv(c, d))
	}
	if d == 1 {
		return i64(0)
	}
	if _, ok := log2Exact(d); ok {
		return fe.cur.NewAnd(x, i64(d-1))
	}
	r := fe.cur.NewSRem(x, i64(d))
	neg := fe.cur.NewICmp(enum.IPredSLT, r, i64(0))
	rpd := fe.cur.NewAdd(r, i64(d))
	rpd.OverflowFlags = nswFlags
	return fe.cur.NewSelect(neg, rpd, r)
}

// floorDiv is Go-side floor division for constant folding (d > 0).
func floorDiv(a, d int64) int64 {
	q := a / d
	if a%d != 0 && a < 0 {
		q--
	}
	return q
}

var nswFlags = []enum.OverflowFlag{enum.OverflowFlagNSW}

// mapAttr reads an AffineMapAttr attribute.
func mapAttr(op *ir.Operation, name string) (ir.AffineMap, error) {
	a, ok := op.Attr(name).(ir.AffineMapAttr)
	if !ok {
		return ir.AffineMap{}, ir.Errorf(op.Loc, "tollvm: '%s' needs an affine map attribute '%s'", op.Name, name)
	}
	return a.Map, nil
}

// emitAffineApply lowers affine.apply, affine.min and affine.max: the map's
// results, reduced with min or max when there are several.
func emitAffineApply(fe *fnEmitter, op *ir.Operation) error {
	m, err := mapAttr(op, "map")
	if err != nil {
		return err
	}
	if len(op.Results) != 1 || len(m.Results) == 0 || (op.Is(affine.Apply) && len(m.Results) != 1) {
		return ir.Errorf(op.Loc, "tollvm: malformed '%s'", op.Name)
	}
	args, err := fe.vals2(op, op.Operands)
	if err != nil {
		return err
	}
	rs, err := fe.applyMap(m, args)
	if err != nil {
		return ir.Errorf(op.Loc, "tollvm: '%s': %v", op.Name, err)
	}
	v := rs[0]
	for _, r := range rs[1:] {
		if op.Is(affine.Max) {
			v = fe.smax(v, r)
		} else {
			v = fe.smin(v, r)
		}
	}
	fe.bind(op.Results[0], v, "")
	return nil
}
