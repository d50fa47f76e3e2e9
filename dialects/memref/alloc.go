package memref

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// memref.alloc(%d0, ...)[%s0, ...] : memref<...>: the dynamic sizes fill the
// '?' extents in order; symbol operands bind layout-map symbols (always none
// here, as TIR's memrefs have identity or strided layouts). MLIR 16's
// generic form records both counts in operand_segment_sizes.
var (
	Alloc  = allocDef("memref.alloc", "allocate a buffer on the heap")
	Alloca = allocDef("memref.alloca", "allocate a buffer on the stack (freed at function exit)")
)

func allocDef(name, summary string) *ir.OpDef {
	return &ir.OpDef{
		Name:        name,
		Summary:     summary,
		Syntax:      "%m = " + name + "(%n, ...) : memref<?x4xf32>",
		NumOperands: -1, NumResults: 1, NumRegions: 0,
		Format: formatWithSegments("index-group($dynamicSizes) alloc-symbols($symbolOperands) attr-dict memref-type(res)"),
		NeedsGeneric: func(op *ir.Operation) bool {
			s, ok := op.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
			return !ok || len(s.Values) != 2 || s.Values[0]+s.Values[1] != int64(len(op.Operands))
		},
		Verify: verifyAlloc,
	}
}

func verifyAlloc(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	s, ok := op.Attr("operand_segment_sizes").(ir.DenseArrayAttr)
	if !ok || !ir.TypeEqual(s.Elem, ir.I32) || len(s.Values) != 2 || s.Values[0]+s.Values[1] != int64(len(op.Operands)) {
		return arith.Errf(op, "needs operand_segment_sizes = array<i32: %d, 0>", len(op.Operands))
	}
	mt, ok := op.Results[0].Type.(ir.MemRefType)
	if !ok {
		return arith.Errf(op, "result must be a memref, got %s", op.Results[0].Type)
	}
	if mt.Layout != nil {
		return arith.Errf(op, "cannot allocate %s: only identity layouts are allocated", mt)
	}
	dyn := 0
	for _, d := range mt.Shape {
		if d == ir.Dynamic {
			dyn++
		}
	}
	if int64(dyn) != s.Values[0] {
		return arith.Errf(op, "dimension operand count does not equal memref dynamic dimension count (%d vs %d)", s.Values[0], dyn)
	}
	syms := 0
	if mt.Map != nil {
		syms = mt.Map.NumSyms
	}
	if s.Values[1] != int64(syms) {
		return arith.Errf(op, "symbol operand count does not equal memref symbol count (%d vs %d)", s.Values[1], syms)
	}
	for i, v := range op.Operands {
		if !ir.TypeEqual(v.Type, ir.Index) {
			return arith.Errf(op, "operand #%d has type %s, expected index", i, v.Type)
		}
	}
	return nil
}

// Dealloc is memref.dealloc.
var Dealloc = &ir.OpDef{
	Name:        "memref.dealloc",
	Summary:     "free a buffer from memref.alloc",
	Syntax:      "memref.dealloc %m : memref<?xf32>",
	NumOperands: 1, NumResults: 0, NumRegions: 0,
	Format:       format("$memref memref-type($memref)"),
	NeedsGeneric: hasAttrs,
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		_, err := memrefOf(op, op.Operands[0], "operand")
		return err
	},
}

// Dim is memref.dim.
var Dim = &ir.OpDef{
	Name:        "memref.dim",
	Summary:     "the extent of a memref dimension",
	Syntax:      "%n = memref.dim %m, %c0 : memref<?xf32>",
	Traits:      ir.TraitPure,
	NumOperands: 2, NumResults: 1, NumRegions: 0,
	Format:       format("$source , $index memref-type($source) index($index) index(res)"),
	NeedsGeneric: hasAttrs,
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if _, err := memrefOf(op, op.Operands[0], "operand #0"); err != nil {
			return err
		}
		if !ir.TypeEqual(op.Operands[1].Type, ir.Index) || !ir.TypeEqual(op.Results[0].Type, ir.Index) {
			return arith.Errf(op, "index operand and result must have type index")
		}
		return nil
	},
}

// Cast is memref.cast.
var Cast = &ir.OpDef{
	Name:        "memref.cast",
	Summary:     "convert between compatible memref types (static <-> dynamic extents)",
	Syntax:      "%r = memref.cast %m : memref<4xf32> to memref<?xf32>",
	Traits:      ir.TraitPure,
	NumOperands: 1, NumResults: 1, NumRegions: 0,
	Format:       format("$source memref-type($source) to type(res)"),
	NeedsGeneric: hasAttrs,
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		a, err := memrefOf(op, op.Operands[0], "operand")
		if err != nil {
			return err
		}
		b, ok := op.Results[0].Type.(ir.MemRefType)
		if !ok || !compatible(a, b) {
			return arith.Errf(op, "operand type %s and result type %s are cast incompatible", a, op.Results[0].Type)
		}
		return nil
	},
}

func compatible(a, b ir.MemRefType) bool {
	if a.Unranked || b.Unranked {
		// Ranked to unranked and back; not unranked to unranked.
		return ir.TypeEqual(a.Elem, b.Elem) && a.Unranked != b.Unranked
	}
	if !ir.TypeEqual(a.Elem, b.Elem) || len(a.Shape) != len(b.Shape) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] && a.Shape[i] != ir.Dynamic && b.Shape[i] != ir.Dynamic {
			return false
		}
	}
	if (a.Layout == nil) != (b.Layout == nil) {
		return a.Layout == nil && isDynamicLayout(b.Layout) || b.Layout == nil && isDynamicLayout(a.Layout)
	}
	return true
}

func isDynamicLayout(l *ir.StridedLayout) bool {
	return l.Offset == ir.Dynamic || l.Offset == 0
}

// Copy is memref.copy.
var Copy = &ir.OpDef{
	Name:        "memref.copy",
	Summary:     "copy the elements of one memref into another of the same shape",
	Syntax:      "memref.copy %src, %dst : memref<?xf32> to memref<?xf32>",
	NumOperands: 2, NumResults: 0, NumRegions: 0,
	Format:       format("$source , $target memref-type($source) to use-type($target)"),
	NeedsGeneric: hasAttrs,
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		a, err := memrefOf(op, op.Operands[0], "source")
		if err != nil {
			return err
		}
		b, err := memrefOf(op, op.Operands[1], "target")
		if err != nil {
			return err
		}
		if !ir.TypeEqual(a.Elem, b.Elem) || len(a.Shape) != len(b.Shape) {
			return arith.Errf(op, "source %s and target %s must have the same element type and rank", a, b)
		}
		return nil
	},
}

// NewAlloc builds `memref.alloc(dynSizes) : t`; dynSizes fill t's '?'
// extents in order.
func NewAlloc(loc ir.Location, t ir.MemRefType, dynSizes []*ir.Value) *ir.Operation {
	return newAlloc(Alloc, loc, t, dynSizes)
}

// NewAlloca is NewAlloc on the stack.
func NewAlloca(loc ir.Location, t ir.MemRefType, dynSizes []*ir.Value) *ir.Operation {
	return newAlloc(Alloca, loc, t, dynSizes)
}

func newAlloc(k *ir.OpDef, loc ir.Location, t ir.MemRefType, dynSizes []*ir.Value) *ir.Operation {
	return ir.NewOpOf(k, loc, dynSizes, []ir.Type{t},
		ir.DictAttr{}.With("operand_segment_sizes", ir.SegmentSizes(len(dynSizes), 0)))
}

// NewDealloc builds `memref.dealloc %m`.
func NewDealloc(loc ir.Location, m *ir.Value) *ir.Operation {
	return ir.NewOpOf(Dealloc, loc, []*ir.Value{m}, nil, nil)
}

// NewLoad builds `memref.load %m[indices]`.
func NewLoad(loc ir.Location, m *ir.Value, indices []*ir.Value) *ir.Operation {
	mt := m.Type.(ir.MemRefType)
	return ir.NewOpOf(Load, loc, append([]*ir.Value{m}, indices...), []ir.Type{mt.Elem}, nil)
}

// NewStore builds `memref.store %v, %m[indices]`.
func NewStore(loc ir.Location, v, m *ir.Value, indices []*ir.Value) *ir.Operation {
	return ir.NewOpOf(Store, loc, append([]*ir.Value{v, m}, indices...), nil, nil)
}

// NewDim builds `memref.dim %m, %index`.
func NewDim(loc ir.Location, m, index *ir.Value) *ir.Operation {
	return ir.NewOpOf(Dim, loc, []*ir.Value{m, index}, []ir.Type{ir.Index}, nil)
}

// NewCast builds `memref.cast %m : T to t`.
func NewCast(loc ir.Location, m *ir.Value, t ir.MemRefType) *ir.Operation {
	return ir.NewOpOf(Cast, loc, []*ir.Value{m}, []ir.Type{t}, nil)
}

// NewCopy builds `memref.copy %src, %dst`.
func NewCopy(loc ir.Location, src, dst *ir.Value) *ir.Operation {
	return ir.NewOpOf(Copy, loc, []*ir.Value{src, dst}, nil, nil)
}
