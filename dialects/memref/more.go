package memref

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// The memref ops users meet in what mlir-opt prints, beyond those the
// affine stage uses: views (subview, reinterpret_cast, view, reshape,
// collapse_shape, expand_shape), globals, queries and atomics, with MLIR
// 16's syntax (one format string each, ir.Format; see format.go) and representation.
var (
	SubView = formatOp("memref.subview", "a strided view of a part of a memref",
		"$source mixed(offsets) mixed(sizes) mixed(strides) attr-dict : type($source) to type(res)", true, 1, ir.TraitPure, nil)
	ReinterpretCast = formatOp("memref.reinterpret_cast", "the buffer of a memref with another offset, sizes and strides",
		"$source to offset : mixed(offsets) , sizes : mixed(sizes) , strides : mixed(strides) attr-dict : type($source) to type(res)", true, 1, ir.TraitPure, nil)
	CollapseShape = formatOp("memref.collapse_shape", "merge groups of dimensions",
		"$src reassoc attr-dict : type($src) into type(res)", false, 1, ir.TraitPure, nil)
	ExpandShape = formatOp("memref.expand_shape", "split dimensions into groups",
		"$src reassoc attr-dict : type($src) into type(res)", false, 1, ir.TraitPure, nil)
	View = formatOp("memref.view", "a view of an i8 buffer at a byte shift",
		"$source indices($byte_shift) indices($sizes*) attr-dict : type($source) to type(res)", false, 1, ir.TraitPure, nil)
	Reshape = formatOp("memref.reshape", "a memref with the shape given by a 1-D memref",
		"$source ($shape*) attr-dict : fn($source,$shape)", false, 1, ir.TraitPure, nil)
	Realloc = formatOp("memref.realloc", "grow or shrink a 1-D buffer",
		"$source ($dynamicResultSize*)? attr-dict : type($source) to type(res)", false, 1, 0, nil)
	GetGlobal = formatOp("memref.get_global", "the memref of a memref.global",
		"sym(name) attr-dict : type(res)", false, 1, ir.TraitPure, nil)
	AssumeAlignment = formatOp("memref.assume_alignment", "assert that a memref's aligned pointer is aligned",
		"$memref , int(alignment:i32) attr-dict : type($memref)", false, 0, 0, nil)
	ExtractStridedMetadata = formatOp("memref.extract_strided_metadata", "the base buffer, offset, sizes and strides of a memref",
		"$source attr-dict : type($source) -> types(res)", false, -1, ir.TraitPure, nil)
	AtomicRMW = formatOp("memref.atomic_rmw", "atomically combine an element with a value; the old value is the result",
		"kind(kind) $value , $memref indices($indices*) attr-dict : fn($value,$memref)", false, 1, 0, nil)
	Rank = inferring(formatOp("memref.rank", "the rank of a memref", "$memref attr-dict : type($memref)", false, 1, ir.TraitPure, nil),
		func(op *ir.Operation) ([]ir.Type, error) { return []ir.Type{ir.Index}, nil })
	ExtractAlignedPointerAsIndex = formatOp("memref.extract_aligned_pointer_as_index", "the aligned pointer of a memref as an index",
		"$source attr-dict : type($source) -> type(res)", false, 1, ir.TraitPure, nil)
	GenericAtomicRMW = inferring(formatOp("memref.generic_atomic_rmw", "atomically replace an element by what the region computes from it",
		"$memref indices($indices*) : type($memref) region attr-dict", false, 1, 0, nil),
		func(op *ir.Operation) ([]ir.Type, error) {
			mt, ok := op.Operands[0].Type.(ir.MemRefType)
			if !ok {
				return nil, arith.Errf(op, "operand #0 must be a memref, got %s", op.Operands[0].Type)
			}
			return []ir.Type{mt.Elem}, nil
		})
	AllocaScope = formatOp("memref.alloca_scope", "a region whose stack allocations are freed at its end",
		"region attr-dict", false, 0, 0, nil)
	AllocaScopeReturn = valuesTerminator("memref.alloca_scope.return", "end a memref.alloca_scope region")
	AtomicYield       = valuesTerminator("memref.atomic_yield", "end a memref.generic_atomic_rmw region with the new value")
)

// inferring sets d's result type rule.
func inferring(d *ir.OpDef, infer func(op *ir.Operation) ([]ir.Type, error)) *ir.OpDef {
	d.Infer = infer
	return d
}

// valuesTerminator is `NAME [%a, %b : T1, T2]`.
func valuesTerminator(name, summary string) *ir.OpDef {
	return &ir.OpDef{
		Name: name, Summary: summary, Syntax: name + " %a : T",
		Traits:      ir.TraitTerminator,
		NumOperands: -1, NumResults: 0, NumRegions: 0,
		Format:       arith.Format("values-types($operands)"),
		NeedsGeneric: func(op *ir.Operation) bool { return len(op.Attrs) > 0 },
	}
}

// Prefetch is `memref.prefetch %m[%i], read|write, locality<0-3>, data|instr : T`.
var Prefetch = &ir.OpDef{
	Name:        "memref.prefetch",
	Summary:     "a prefetch hint for an element",
	Syntax:      "memref.prefetch %m[%i, %j], read, locality<3>, data : memref<...>",
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format: format("$memref indices($indices*) , flag(isWrite:write:read) , locality , flag(isDataCache:data:instr) memref-type($memref)"),
	NeedsGeneric: func(op *ir.Operation) bool {
		_, w := op.Attr("isWrite").(ir.BoolAttr)
		_, d := op.Attr("isDataCache").(ir.BoolAttr)
		_, l := op.Attr("localityHint").(ir.IntegerAttr)
		return !w || !d || !l || len(op.Operands) == 0 || !arith.OnlyAttrs(op, "isWrite", "isDataCache", "localityHint")
	},
}

// Global is `memref.global ["private"] [constant] @name : T [= dense<...> | = uninitialized] [{attrs}]`.
var Global = &ir.OpDef{
	Name:        "memref.global",
	Summary:     "a named global buffer",
	Syntax:      `memref.global "private" constant @g : memref<2xf32> = dense<[0.0, 1.0]>`,
	Traits:      ir.TraitSymbol,
	NumOperands: 0, NumResults: 0, NumRegions: 0,
	Parse: func(p *ir.OpParser, st *ir.OpState) error {
		if it := p.Peek(); it != nil && it.Kind == ir.ItemString {
			p.Next()
			st.Attrs = st.Attrs.With("sym_visibility", ir.StringAttr(it.Text))
		}
		if p.Word("constant") {
			st.Attrs = st.Attrs.With("constant", ir.UnitAttr{})
		}
		name, err := p.Symbol()
		if err != nil {
			return err
		}
		st.Attrs = st.Attrs.With("sym_name", ir.StringAttr(name))
		loc := p.CurLoc()
		t, err := arith.ColonType(p)
		if err != nil {
			return err
		}
		mt, ok := t.(ir.MemRefType)
		if !ok || mt.Unranked {
			return ir.Errorf(loc, "'memref.global' type must be a ranked memref, got %s", t)
		}
		st.Attrs = st.Attrs.With("type", ir.TypeAttr{Type: t})
		if p.Punct("=") {
			if p.Word("uninitialized") {
				st.Attrs = st.Attrs.With("initial_value", ir.UnitAttr{})
			} else {
				it := p.Next()
				if it == nil {
					return p.Errorf("expected 'uninitialized' or a dense<...> initial value")
				}
				d, ok := it.Attr.(ir.DenseElementsAttr)
				if !ok {
					return p.Errorf("expected 'uninitialized' or a dense<...> initial value")
				}
				td, err := ir.TypedDense(d, ir.RankedTensorType{Shape: mt.Shape, Elem: mt.Elem})
				if err != nil {
					return ir.Errorf(it.Loc, "%v", err)
				}
				st.Attrs = st.Attrs.With("initial_value", td)
			}
		}
		extra, err := arith.OptionalBareDict(p)
		if err != nil {
			return err
		}
		st.Attrs = append(st.Attrs, extra...)
		return p.ExpectEnd()
	},
	Print: func(p ir.OpPrinter, op *ir.Operation) {
		if v, ok := op.Attr("sym_visibility").(ir.StringAttr); ok {
			p.Write(" " + v.String())
		}
		if op.Attr("constant") != nil {
			p.Write(" constant")
		}
		p.Write(" ")
		p.Attr(ir.SymbolRef(ir.SymbolName(op)))
		p.Write(" : ")
		p.Type(op.Attr("type").(ir.TypeAttr).Type)
		switch v := op.Attr("initial_value").(type) {
		case ir.UnitAttr:
			p.Write(" = uninitialized")
		case ir.DenseElementsAttr:
			p.Write(" = " + v.Literal())
		}
		rest := op.Attrs.Without("sym_visibility").Without("constant").Without("sym_name").Without("type").Without("initial_value")
		if len(rest) > 0 {
			p.Write(" ")
			p.Attr(rest)
		}
	},
	NeedsGeneric: func(op *ir.Operation) bool {
		_, named := op.Attr("sym_name").(ir.StringAttr)
		ta, typed := op.Attr("type").(ir.TypeAttr)
		if !named || !typed {
			return true
		}
		if _, ok := ta.Type.(ir.MemRefType); !ok {
			return true
		}
		switch op.Attr("initial_value").(type) {
		case nil, ir.UnitAttr, ir.DenseElementsAttr:
			return false
		}
		return true
	},
}

// AttrAtomicKind is memref.atomic_rmw's combining kind: an i64 index into
// MLIR's arith::AtomicRMWKind, of which AtomicAddF and AtomicAddI are the
// ones the lowering emits.
const AttrAtomicKind = "kind"

// The atomic kinds the scatter-adds of GPU targets use.
const (
	AtomicAddF int64 = 0
	AtomicAddI int64 = 1
)
