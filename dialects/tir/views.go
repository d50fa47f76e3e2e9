package tir

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Typed views: an operation seen as the op it is, with accessors for its
// attributes and operands instead of attribute names spelled at every use
// (tir.ShiftOp{op}.Offsets()). A view does not check the op's kind; build
// one after op.Is(tir.Shift) or a switch on tir.OpOf.

// Attribute names of tir ops, for code that builds ops (a derivative, a
// lowering) or reads one no view covers.
const (
	AttrOffsets   = "offsets"   // tir.shift
	AttrMap       = "map"       // tir.view
	AttrDim       = "dim"       // gather, pos, concat, piecewise, scan, iota, compress
	AttrDims      = "dims"      // tir.broadcast's added dimensions, tir.reduce's reduced ones
	AttrBounds    = "bounds"    // tir.subset
	AttrIndex     = "index"     // tir.tuple_get
	AttrKind      = "kind"      // tir.reduce's combiner
	AttrValue     = "value"     // tir.constant
	AttrCallee    = "callee"    // tir.call
	AttrPredicate = "predicate" // tir.cmp
	AttrDirection = "direction" // tir.scan
	AttrInterval  = "interval"  // tir.scan's named interval, tir.piecewise's whole one
	AttrPieces    = "pieces"    // tir.piecewise's intervals

	AttrFunctionType = "function_type" // tir.func's signature
)

// ShiftOp is a tir.shift.
type ShiftOp struct{ *ir.Operation }

// Offsets are the offsets per dimension, `[I + 1, J - 2]`.
func (o ShiftOp) Offsets() OffsetsAttr {
	a, _ := o.Attr(AttrOffsets).(OffsetsAttr)
	return a
}

// ViewOp is a tir.view.
type ViewOp struct{ *ir.Operation }

// Map is the view's re-indexing, one expression per operand dimension.
func (o ViewOp) Map() ViewAttr {
	a, _ := o.Attr(AttrMap).(ViewAttr)
	return a
}

// GatherOp is a tir.gather.
type GatherOp struct{ *ir.Operation }

// Dim is the gathered dimension of the source.
func (o GatherOp) Dim() string { return DimAttr(o.Operation) }

// Source is the value gathered from; Table the neighbour table.
func (o GatherOp) Source() *ir.Value { return o.Operands[0] }

// Table is the integer table whose entries index Dim.
func (o GatherOp) Table() *ir.Value { return o.Operands[1] }

// SubsetOp is a tir.subset.
type SubsetOp struct{ *ir.Operation }

// Bounds are the intervals the subset restricts to.
func (o SubsetOp) Bounds() DomainAttr {
	a, _ := o.Attr(AttrBounds).(DomainAttr)
	return a
}

// BroadcastOp is a tir.broadcast.
type BroadcastOp struct{ *ir.Operation }

// Dims are the dimensions the broadcast adds.
func (o BroadcastOp) Dims() DomainAttr {
	a, _ := o.Attr(AttrDims).(DomainAttr)
	return a
}

// PosOp is a tir.pos.
type PosOp struct{ *ir.Operation }

// Dim is the dimension whose index the op gives.
func (o PosOp) Dim() string { return DimAttr(o.Operation) }

// ConcatOp is a tir.concat.
type ConcatOp struct{ *ir.Operation }

// Dim is the dimension the pieces are joined along.
func (o ConcatOp) Dim() string { return DimAttr(o.Operation) }

// CmpOp is a tir.cmp.
type CmpOp struct{ *ir.Operation }

// Predicate is lt, le, gt, ge, eq or ne.
func (o CmpOp) Predicate() string {
	p, _ := o.Attr(AttrPredicate).(ir.StringAttr)
	return string(p)
}

// ConstantOp is a tir.constant.
type ConstantOp struct{ *ir.Operation }

// Value is the constant's attribute (a typed scalar, or an array of them
// for a tuple).
func (o ConstantOp) Value() ir.Attribute { return o.Attr(AttrValue) }

// TupleGetOp is a tir.tuple_get.
type TupleGetOp struct{ *ir.Operation }

// Index is the position of the element taken.
func (o TupleGetOp) Index() int { return TupleIndex(o.Operation) }

// ReduceOp is a tir.reduce.
type ReduceOp struct{ *ir.Operation }

// Kind is add, mul, min, max, and, or; empty for the region form.
func (o ReduceOp) Kind() string { return ReduceKind(o.Operation) }

// Dims are the reduced dimensions.
func (o ReduceOp) Dims() []string { return ReduceDims(o.Operation) }

// Inputs are the reduced operands; Init the initial value, or nil.
func (o ReduceOp) Inputs() []*ir.Value {
	ins, _ := ReduceOperands(o.Operation)
	return ins
}

// Init is the initial value, nil for the identity of the kind.
func (o ReduceOp) Init() *ir.Value {
	_, init := ReduceOperands(o.Operation)
	return init
}

// Interval is the interval a reduced dimension runs over.
func (o ReduceOp) Interval(dim string) sizeexpr.Interval { return ReducedInterval(o.Operation, dim) }

// ScanOp is a tir.scan.
type ScanOp struct{ *ir.Operation }

// Dim is the dimension scanned along.
func (o ScanOp) Dim() string { return DimAttr(o.Operation) }

// Direction is forward or backward.
func (o ScanOp) Direction() string { return ScanDirection(o.Operation) }

// Interval is the interval the scan names (`along K[0:9]`), if it does.
func (o ScanOp) Interval() (sizeexpr.Interval, bool) { return ScanInterval(o.Operation) }

// Init is the initial state; Inputs the values read at each step.
func (o ScanOp) Init() *ir.Value { return o.Operands[0] }

// Inputs are the values the scan reads at each step.
func (o ScanOp) Inputs() []*ir.Value { return o.Operands[1:] }

// CallOp is a tir.call.
type CallOp struct{ *ir.Operation }

// Callee is the called function's name, without '@'.
func (o CallOp) Callee() string { return Callee(o.Operation) }

// IotaOp is a tir.iota.
type IotaOp struct{ *ir.Operation }

// Dim is the dimension the sequence runs along.
func (o IotaOp) Dim() string { return DimAttr(o.Operation) }

// CompressOp is a tir.compress.
type CompressOp struct{ *ir.Operation }

// Dim is the dimension compacted.
func (o CompressOp) Dim() string { return DimAttr(o.Operation) }
