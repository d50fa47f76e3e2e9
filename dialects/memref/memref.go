// Package memref is MLIR's memref dialect with MLIR 16's syntax and
// representation: the ops the affine stage uses, alloc/alloca (generic form
// with `operand_segment_sizes = array<i32: dynamic sizes, symbols>`),
// dealloc, load, store, dim, cast and copy, and those users meet in what
// mlir-opt prints (more.go: views, globals, queries and atomics, each
// defined by a format string, format.go).
package memref

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
)

// memrefOf returns the memref type of a value, or an error naming what.
func memrefOf(op *ir.Operation, v *ir.Value, what string) (ir.MemRefType, error) {
	t, ok := v.Type.(ir.MemRefType)
	if !ok {
		return t, arith.Errf(op, "%s must be a memref, got %s", what, v.Type)
	}
	return t, nil
}

// parseMemRefType reads `: memref<...>` and checks it against v.
func parseMemRefType(p *ir.OpParser, v *ir.Value, loc ir.Location) (ir.MemRefType, error) {
	tloc := p.CurLoc()
	if err := p.ExpectPunct(":"); err != nil {
		return ir.MemRefType{}, err
	}
	t, err := p.Type()
	if err != nil {
		return ir.MemRefType{}, err
	}
	mt, ok := t.(ir.MemRefType)
	if !ok {
		return mt, ir.Errorf(tloc, "expected a memref type, got %s", t)
	}
	if v != nil {
		if err := arith.CheckType(v, loc, t); err != nil {
			return mt, err
		}
	}
	return mt, nil
}

func checkIndices(op *ir.Operation, idx []*ir.Value, rank int) error {
	if len(idx) != rank {
		return arith.Errf(op, "has %d indices for a memref of rank %d", len(idx), rank)
	}
	for i, v := range idx {
		if !ir.TypeEqual(v.Type, ir.Index) {
			return arith.Errf(op, "index #%d has type %s, expected index", i, v.Type)
		}
	}
	return nil
}

// parseIndexList reads `[%i, %j]` (plain SSA values, no expressions).
func parseIndexList(p *ir.OpParser) ([]*ir.Value, error) {
	entries, _, err := p.Brackets()
	if err != nil {
		return nil, err
	}
	var vs []*ir.Value
	for _, e := range entries {
		if e.Form != ir.EntryExpr || e.E.Kind != ir.ExprValue {
			return nil, ir.Errorf(e.Loc, "expected an SSA value of type index")
		}
		v, err := p.Host.ResolveValue(e.E.Name, e.E.Loc)
		if err != nil {
			return nil, err
		}
		if err := arith.CheckType(v, e.E.Loc, ir.Index); err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	return vs, nil
}

func hasAttrs(op *ir.Operation) bool { return len(op.Attrs) > 0 }

// Load is memref.load.
var Load = &ir.OpDef{
	Name:        "memref.load",
	Traits:      ir.TraitReadOnly,
	Summary:     "load an element",
	Syntax:      "%v = memref.load %m[%i, %j] : memref<?x?xf32>",
	NumOperands: -1, NumResults: 1, NumRegions: 0,
	Format:       format("$memref indices($indices*) memref-type($memref) elem($memref)"),
	NeedsGeneric: func(op *ir.Operation) bool { return hasAttrs(op) || len(op.Operands) < 1 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if len(op.Operands) == 0 {
			return arith.Errf(op, "needs a memref operand")
		}
		mt, err := memrefOf(op, op.Operands[0], "operand #0")
		if err != nil {
			return err
		}
		if err := checkIndices(op, op.Operands[1:], len(mt.Shape)); err != nil {
			return err
		}
		if !ir.TypeEqual(op.Results[0].Type, mt.Elem) {
			return arith.Errf(op, "result type %s does not match the element type %s", op.Results[0].Type, mt.Elem)
		}
		return nil
	},
}

// Store is memref.store.
var Store = &ir.OpDef{
	Name:        "memref.store",
	Summary:     "store an element",
	Syntax:      "memref.store %v, %m[%i, %j] : memref<?x?xf32>",
	NumOperands: -1, NumResults: 0, NumRegions: 0,
	Format:       format("$value , $memref indices($indices*) memref-type($memref) elem($memref,$value)"),
	NeedsGeneric: func(op *ir.Operation) bool { return hasAttrs(op) || len(op.Operands) < 2 },
	Verify: func(op *ir.Operation, _ func(*ir.Diagnostic)) error {
		if len(op.Operands) < 2 {
			return arith.Errf(op, "needs a value and a memref")
		}
		mt, err := memrefOf(op, op.Operands[1], "operand #1")
		if err != nil {
			return err
		}
		if err := checkIndices(op, op.Operands[2:], len(mt.Shape)); err != nil {
			return err
		}
		if !ir.TypeEqual(op.Operands[0].Type, mt.Elem) {
			return arith.Errf(op, "stored value has type %s, but the element type is %s", op.Operands[0].Type, mt.Elem)
		}
		return nil
	},
}
