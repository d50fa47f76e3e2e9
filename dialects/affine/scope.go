package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/sizeexpr"
)

var errf = arith.Errf

// MLIR's rules for what may be a map operand (mlir/Dialect/Affine/IR), so
// that the verifier rejects what mlir-opt would. The affine scope is the
// enclosing function (an op isolated from above).

func definingBlock(v *ir.Value) *ir.Block {
	if op := v.DefiningOp(); op != nil {
		return op.ParentBlock()
	}
	return v.OwnerBlock()
}

// IsTopLevel reports whether v is defined directly in a function body (an
// argument of the function or the result of an op not nested in a loop).
func IsTopLevel(v *ir.Value) bool {
	b := definingBlock(v)
	if b == nil {
		return false
	}
	scope := b.ParentOp()
	return scope != nil && scope.HasTrait(ir.TraitIsolated)
}

// IsValidSymbol reports whether v may be a symbol operand of an affine map:
// an index value defined at the top level of the function, a constant, an
// affine.apply of symbols, or a memref.dim of a top-level memref.
func IsValidSymbol(v *ir.Value) bool {
	if !ir.TypeEqual(v.Type, ir.Index) {
		return false
	}
	if IsTopLevel(v) {
		return true
	}
	op := v.DefiningOp()
	if op == nil {
		return false
	}
	switch {
	case op.HasTrait(ir.TraitConstantLike):
		return true
	case op.Is(applyOps...):
		for _, o := range op.Operands {
			if !IsValidSymbol(o) {
				return false
			}
		}
		return true
	case op.Is(memref.Dim):
		return IsTopLevel(op.Operands[0]) || isViewSizeSymbol(op)
	}
	return false
}

// isViewSizeSymbol: a memref.dim of a subview, view or alloc is a valid
// symbol when the size it reads is static or a valid symbol (MLIR's
// isMemRefSizeValidSymbol).
func isViewSizeSymbol(dim *ir.Operation) bool {
	src := dim.Operands[0].DefiningOp()
	c := dim.Operands[1].DefiningOp()
	if src == nil || c == nil || !c.HasTrait(ir.TraitConstantLike) {
		return false
	}
	idx, ok := c.Attr("value").(ir.IntegerAttr)
	mt, isMem := dim.Operands[0].Type.(ir.MemRefType)
	if !ok || !isMem || idx.Value < 0 || int(idx.Value) >= len(mt.Shape) {
		return false
	}
	i := int(idx.Value)
	if mt.Shape[i] != ir.Dynamic {
		return true
	}
	// The k-th dynamic size of the result is the k-th size operand.
	k := 0
	for _, d := range mt.Shape[:i] {
		if d == ir.Dynamic {
			k++
		}
	}
	first := -1
	switch {
	case src.Is(memref.Alloc, memref.Alloca):
		first = 0
	case src.Is(memref.View):
		first = 2
	case src.Is(memref.SubView):
		seg, ok := src.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
		sizes, ok2 := src.Attr("static_sizes").(ir.DenseArrayAttr)
		if !ok || !ok2 || len(seg.Values) != 4 || len(sizes.Values) != len(mt.Shape) {
			return false
		}
		first = 1 + int(seg.Values[1])
	}
	if first < 0 || first+k >= len(src.Operands) {
		return false
	}
	return IsValidSymbol(src.Operands[first+k])
}

// IsValidDim reports whether v may be a dimension operand of an affine map:
// a valid symbol, an argument of an affine.for or affine.parallel body, or
// an affine.apply of valid dimensions.
func IsValidDim(v *ir.Value) bool {
	if !ir.TypeEqual(v.Type, ir.Index) {
		return false
	}
	if IsValidSymbol(v) {
		return true
	}
	op := v.DefiningOp()
	if op == nil {
		parent := v.OwnerBlock().ParentOp()
		return parent.Is(loopOps...)
	}
	if op.Is(applyOps...) {
		for _, o := range op.Operands {
			if !IsValidDim(o) {
				return false
			}
		}
		return true
	}
	return false
}

// checkMapOperands verifies that ops are index values usable as the dims
// (the first numDims) and symbols of a map, with MLIR's messages.
func checkMapOperands(op *ir.Operation, what string, m ir.AffineMap, ops []*ir.Value) error {
	if len(ops) != m.NumDims+m.NumSyms {
		return errf(op, "%s map has %d dims and %d symbols but %d operands", what, m.NumDims, m.NumSyms, len(ops))
	}
	for i, v := range ops {
		if !ir.TypeEqual(v.Type, ir.Index) {
			return errf(op, "%s operand #%d has type %s, expected index", what, i, v.Type)
		}
		if i < m.NumDims && !IsValidDim(v) {
			return errf(op, "%s operand #%d cannot be used as a dimension id", what, i)
		}
		if i >= m.NumDims && !IsValidSymbol(v) {
			return errf(op, "%s operand #%d cannot be used as a symbol", what, i)
		}
	}
	return checkAffine(op, what, m)
}

// checkIndexOperands is the rule of loads and stores: each operand must be
// a valid dim or symbol, whatever its position.
func checkIndexOperands(op *ir.Operation, m ir.AffineMap, ops []*ir.Value) error {
	if len(ops) != m.NumDims+m.NumSyms {
		return errf(op, "map has %d dims and %d symbols but %d index operands", m.NumDims, m.NumSyms, len(ops))
	}
	for i, v := range ops {
		if !ir.TypeEqual(v.Type, ir.Index) {
			return errf(op, "index operand #%d has type %s, expected index", i, v.Type)
		}
		if !IsValidDim(v) && !IsValidSymbol(v) {
			return errf(op, "index operand #%d must be a dimension or symbol identifier", i)
		}
	}
	return checkAffine(op, "subscript", m)
}

func checkAffine(op *ir.Operation, what string, m ir.AffineMap) error {
	for _, r := range m.Results {
		if !r.IsAffine() {
			return errf(op, "%s map result %s is not affine", what, r)
		}
		for _, v := range r.Vars() {
			if !isMapVar(v, m) {
				return errf(op, "%s map uses %s, which is not one of its dims or symbols", what, v.Name)
			}
		}
	}
	return nil
}

func isMapVar(v sizeexpr.Var, m ir.AffineMap) bool {
	for i := 0; i < m.NumDims; i++ {
		if x, _ := ir.MapDim(i).AsVar(); x == v {
			return true
		}
	}
	for i := 0; i < m.NumSyms; i++ {
		if x, _ := ir.MapSym(i).AsVar(); x == v {
			return true
		}
	}
	return false
}
