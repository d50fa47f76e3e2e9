package tiraffine

import (
	"tir/dialects/affine"
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// builder appends ops at the end of a block; every op the lowering creates
// goes through it, in MLIR's generic representation (operand order and
// attribute names as upstream MLIR 16 stores them). Ops are named by value
// (arith.AddI, affine.For), which also links in every dialect the lowering
// builds, so that their verifiers run on its output wherever it is used.
type builder struct {
	block *ir.Block
	loc   ir.Location
}

func (b builder) op(k ir.OpKind, operands []*ir.Value, results []ir.Type, attrs ir.DictAttr) *ir.Operation {
	// Float arith/math ops carry their (empty) fast-math flags, as MLIR 16
	// stores them.
	if arith.HasFastMath(k.Def().Name) && attrs.Get(arith.AttrFastmath) == nil {
		attrs = attrs.With(arith.AttrFastmath, arith.FastNone)
	}
	return b.block.Append(ir.NewOpOf(k, b.loc, operands, results, attrs))
}

func (b builder) value(k ir.OpKind, operands []*ir.Value, result ir.Type, attrs ir.DictAttr) *ir.Value {
	return b.op(k, operands, []ir.Type{result}, attrs).Results[0]
}

// affineFor creates `affine.for %iv = lb to ub` and returns it and its body
// builder; the caller finishes the body with yield().
func (b builder) affineFor(lb ir.AffineMap, lbOps []*ir.Value, ub ir.AffineMap, ubOps []*ir.Value) (*ir.Operation, builder) {
	attrs := ir.DictAttr{}.
		With(affine.AttrLowerBound, ir.AffineMapAttr{Map: lb}).
		With(affine.AttrUpperBound, ir.AffineMapAttr{Map: ub}).
		With(affine.AttrStep, ir.IntegerAttr{Value: 1, Type: ir.Index})
	operands := append(append([]*ir.Value(nil), lbOps...), ubOps...)
	op := b.op(affine.For, operands, nil, attrs)
	body := op.AddRegion().AddBlock(ir.Index)
	return op, builder{block: body, loc: b.loc}
}

// affineForIter is affineFor with loop-carried values: the body block has
// the induction variable then one argument per init, and the loop's results
// are the final values.
func (b builder) affineForIter(lb ir.AffineMap, lbOps []*ir.Value, ub ir.AffineMap, ubOps []*ir.Value, inits []*ir.Value) (*ir.Operation, builder) {
	attrs := ir.DictAttr{}.
		With(affine.AttrLowerBound, ir.AffineMapAttr{Map: lb}).
		With(affine.AttrUpperBound, ir.AffineMapAttr{Map: ub}).
		With(affine.AttrStep, ir.IntegerAttr{Value: 1, Type: ir.Index})
	operands := append(append(append([]*ir.Value(nil), lbOps...), ubOps...), inits...)
	var types []ir.Type
	for _, v := range inits {
		types = append(types, v.Type)
	}
	op := b.op(affine.For, operands, types, attrs)
	body := op.AddRegion().AddBlock(append([]ir.Type{ir.Index}, types...)...)
	return op, builder{block: body, loc: b.loc}
}

func (b builder) yield() { b.op(affine.Yield, nil, nil, nil) }

func (b builder) load(mem *ir.Value, m ir.AffineMap, operands []*ir.Value) *ir.Value {
	elem := mem.Type.(ir.MemRefType).Elem
	return b.value(affine.Load, append([]*ir.Value{mem}, operands...), elem, ir.DictAttr{}.With(affine.AttrMap, ir.AffineMapAttr{Map: m}))
}

func (b builder) store(v, mem *ir.Value, m ir.AffineMap, operands []*ir.Value) {
	b.op(affine.Store, append([]*ir.Value{v, mem}, operands...), nil, ir.DictAttr{}.With(affine.AttrMap, ir.AffineMapAttr{Map: m}))
}

func (b builder) constant(a ir.Attribute, t ir.Type) *ir.Value {
	return b.value(arith.Constant, nil, t, ir.DictAttr{}.With(arith.AttrValue, a))
}

// affineMap turns expressions over loop variables (sizeexpr Dim vars) and
// size symbols (Sym vars) into a map plus its operands: dims first, then
// symbols, each in order of first use.
func affineMap(exprs []sizeexpr.Expr, lookup func(v sizeexpr.Var) *ir.Value) (ir.AffineMap, []*ir.Value) {
	var dims, syms []sizeexpr.Var
	index := map[sizeexpr.Var]int{}
	for _, e := range exprs {
		for _, v := range e.Vars() {
			if _, ok := index[v]; ok {
				continue
			}
			if v.Kind == sizeexpr.DimVar {
				index[v] = len(dims)
				dims = append(dims, v)
			} else {
				index[v] = len(syms)
				syms = append(syms, v)
			}
		}
	}
	m := ir.AffineMap{NumDims: len(dims), NumSyms: len(syms)}
	for _, e := range exprs {
		m.Results = append(m.Results, e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			if v.Kind == sizeexpr.DimVar {
				return ir.MapDim(index[v]), true
			}
			return ir.MapSym(index[v]), true
		}))
	}
	var operands []*ir.Value
	for _, v := range dims {
		operands = append(operands, lookup(v))
	}
	for _, v := range syms {
		operands = append(operands, lookup(v))
	}
	return m, operands
}
