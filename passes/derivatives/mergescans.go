package derivatives

import (
	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
	"tir/passes"
)

// mergeScans merges, in the copy of @f that its derivative functions
// start from, each scan S2 that reads the previous level of an earlier
// scan S1 along the same dimension and direction (S1 shifted one level
// back, S1's init at the first level: the Thomas algorithm's d' sweep
// reading c' one level below) into one scan whose state is the pair of
// theirs. S1's previous level is then the merged state's first component,
// what the two steps compute alike is computed once (cse), and the
// derivatives are those of the tuple scan: the adjoint walks the column
// once and divides by a denominator the two steps share once, however
// the solver was written. Each state is a scalar and each init a
// constant; no other operand of S2 is computed from S1 (the merged scan
// takes S2's place, what S1's readers computed in between follows it).
func mergeScans(block *ir.Block) {
	for merged := true; merged; {
		merged = false
		for _, s2 := range block.Ops {
			if !s2.Is(tir.Scan) {
				continue
			}
			for _, x := range s2.Operands[1:] {
				if s1 := previousLevelOf(x, s2); s1 != nil && mergeable(block, s1, s2) && mergePair(block, s1, s2) {
					merged = true
					break
				}
			}
			if merged {
				break
			}
		}
	}
}

// previousLevelOf returns the scan S1 whose previous level x is, as s2
// reads it: forward, concat(broadcast(init of S1) on S1's first level,
// shift(S1, [K - 1])) along K; backward, concat(shift(S1, [K + 1]),
// broadcast(init) on S1's last level).
func previousLevelOf(x *ir.Value, s2 *ir.Operation) *ir.Operation {
	cat := x.DefiningOp()
	dim := tir.DimAttr(s2)
	if cat == nil || !cat.Is(tir.Concat) || tir.DimAttr(cat) != dim || len(cat.Operands) != 2 {
		return nil
	}
	forward := tir.ScanDirection(s2) == "forward"
	fill, shifted, back := cat.Operands[0], cat.Operands[1], int64(-1)
	if !forward {
		fill, shifted, back = cat.Operands[1], cat.Operands[0], 1
	}
	sh := shifted.DefiningOp()
	if sh == nil || !sh.Is(tir.Shift) {
		return nil
	}
	offs := tir.ShiftOp{Operation: sh}.Offsets()
	if len(offs.Dims) != 1 || offs.Dims[0] != dim || !sizeexpr.ProveEQ(offs.Offsets[0], sizeexpr.Const(back)) {
		return nil
	}
	s1 := sh.Operands[0].DefiningOp()
	if s1 == nil || !s1.Is(tir.Scan) || tir.DimAttr(s1) != dim || tir.ScanDirection(s1) != tir.ScanDirection(s2) {
		return nil
	}
	bc := fill.DefiningOp()
	if bc == nil || !bc.Is(tir.Broadcast) || !sameConstant(bc.Operands[0], s1.Operands[0]) {
		return nil
	}
	iv, ok := tir.ScanInterval(s1)
	fd, ok2 := tensorType(fill).Dim(dim)
	if !ok || !ok2 {
		return nil
	}
	first := sizeexpr.Span(iv.Lo, sizeexpr.Add(iv.Lo, sizeexpr.Const(1)))
	if !forward {
		first = sizeexpr.Span(sizeexpr.Add(iv.Hi, sizeexpr.Const(-1)), iv.Hi)
	}
	if !fd.Interval.Equal(first) {
		return nil
	}
	return s1
}

// sameConstant reports whether a and b are 0-d tir.constants with one
// value.
func sameConstant(a, b *ir.Value) bool {
	da, db := a.DefiningOp(), b.DefiningOp()
	return scalarConstant(a) && scalarConstant(b) && ir.AttrEqual(da.Attr(tir.AttrValue), db.Attr(tir.AttrValue))
}

// scalarConstant reports whether v is a 0-d tir.constant of a scalar
// (not a tuple).
func scalarConstant(v *ir.Value) bool {
	d := v.DefiningOp()
	if d == nil || !d.Is(tir.Constant) {
		return false
	}
	t := tensorType(v)
	_, tuple := t.Elem.(ir.TupleType)
	return len(t.Dims) == 0 && !tuple
}

// mergeable reports whether s1 and s2 (s1 first, both in block) can be
// merged: scalar states, constant inits, equal domains, bodies rebuild
// can copy, no input that may be masked, and no operand of s2 computed
// from s1 other than s1 itself and its previous level.
func mergeable(block *ir.Block, s1, s2 *ir.Operation) bool {
	i1, i2 := block.IndexOf(s1), block.IndexOf(s2)
	if i1 < 0 || i2 <= i1 || !scalarConstant(s1.Operands[0]) || !scalarConstant(s2.Operands[0]) {
		return false
	}
	t1, t2 := tensorType(s1.Results[0]), tensorType(s2.Results[0])
	if !sameDims(t1, t2) {
		return false
	}
	for _, s := range []*ir.Operation{s1, s2} {
		for _, op := range s.Regions[0].Entry().Ops {
			if tir.OpOf(op) == nil || len(op.Regions) > 0 || op.Is(tir.View, tir.AssumeShape) {
				return false
			}
		}
	}
	// A step with a masked input keeps its state: merged, a mask of one
	// scan's inputs would hold the other's state too.
	for _, v := range append(append([]*ir.Value(nil), s1.Operands...), s2.Operands...) {
		if tir.MayBeMasked(v) {
			return false
		}
	}
	dep := dependents(block, s1, s2)
	for _, v := range s2.Operands {
		if v == s1.Results[0] || previousLevelOf(v, s2) == s1 {
			continue
		}
		if d := v.DefiningOp(); d != nil && dep[d] {
			return false
		}
	}
	return true
}

// dependents are the ops of block between s1 and s2 that read s1,
// directly or not.
func dependents(block *ir.Block, s1, s2 *ir.Operation) map[*ir.Operation]bool {
	i1, i2 := block.IndexOf(s1), block.IndexOf(s2)
	reads := map[*ir.Value]bool{s1.Results[0]: true}
	dep := map[*ir.Operation]bool{}
	for _, op := range block.Ops[i1+1 : i2] {
		op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				dep[op] = dep[op] || reads[v]
			}
			return true
		})
		if dep[op] {
			for _, r := range op.Results {
				reads[r] = true
			}
		}
	}
	return dep
}

// sameDims reports whether a and b have the same dimensions in the same
// order over the same intervals.
func sameDims(a, b tir.TensorType) bool {
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i := range a.Dims {
		if a.Dims[i].Name != b.Dims[i].Name || !a.Dims[i].Interval.Equal(b.Dims[i].Interval) {
			return false
		}
	}
	return true
}

// mergePair replaces s1 and s2 by one scan with state (s1's, s2's); it
// reports whether it did (the block is unchanged when it did not).
func mergePair(block *ir.Block, s1, s2 *ir.Operation) bool {
	c1, c2 := s1.Operands[0].DefiningOp(), s2.Operands[0].DefiningOp()
	state := ir.TupleType{Elems: []ir.Type{tensorType(s1.Results[0]).Elem, tensorType(s2.Results[0]).Elem}}
	init := ir.NewOpOf(tir.Constant, c1.Loc, nil, []ir.Type{tir.Scalar(state)},
		ir.DictAttr{}.With(tir.AttrValue, ir.ArrayAttr{c1.Attr(tir.AttrValue), c2.Attr(tir.AttrValue)}))
	// The inputs: s1's, then those of s2 that s1 does not read already;
	// s2's reads of s1 (its previous level, or its own level) come from
	// the merged step.
	ins := append([]*ir.Value(nil), s1.Operands[1:]...)
	slot := map[*ir.Value]int{}
	for i, v := range ins {
		if _, ok := slot[v]; !ok {
			slot[v] = i
		}
	}
	for _, v := range s2.Operands[1:] {
		if v == s1.Results[0] || previousLevelOf(v, s2) == s1 {
			continue
		}
		if _, ok := slot[v]; !ok {
			slot[v] = len(ins)
			ins = append(ins, v)
		}
	}
	scratch := &ir.Block{}
	b := newBuilder(scratch)
	b.loc = s1.Loc
	scratch.Append(init)
	m, err := b.BuildScan(init.Results[0], ins, s1.Attrs, func(db tir.DerivativeBuilder, args []*ir.Value) (*ir.Value, error) {
		bb := db.(*builder)
		parts, err := bb.components(args[0], state)
		if err != nil {
			return nil, err
		}
		// The step's values keep the names the two bodies gave them.
		parts[0].NameHint, parts[1].NameHint = s1.Regions[0].Entry().Args[0].NameHint, s2.Regions[0].Entry().Args[0].NameHint
		for i, a := range s1.Regions[0].Entry().Args[1:] {
			args[1+i].NameHint = a.NameHint
		}
		for i, v := range s2.Operands[1:] {
			if j, ok := slot[v]; ok && args[1+j].NameHint == "" {
				args[1+j].NameHint = s2.Regions[0].Entry().Args[1+i].NameHint
			}
		}
		a1 := append([]*ir.Value{parts[0]}, args[1:1+len(s1.Operands)-1]...)
		_, y1, err := bb.rebuild(s1.Regions[0].Entry(), a1, nil)
		if err != nil {
			return nil, err
		}
		a2 := []*ir.Value{parts[1]}
		for _, v := range s2.Operands[1:] {
			switch {
			case v == s1.Results[0]:
				a2 = append(a2, y1)
			case previousLevelOf(v, s2) == s1:
				a2 = append(a2, parts[0])
			default:
				a2 = append(a2, args[1+slot[v]])
			}
		}
		_, y2, err := bb.rebuild(s2.Regions[0].Entry(), a2, nil)
		if err != nil {
			return nil, err
		}
		return bb.Build(tir.MakeTuple, []*ir.Value{y1, y2}, nil, nil)
	})
	if err != nil || !sameDims(tensorType(m), tensorType(s1.Results[0])) {
		return false
	}
	passes.CSE(m.DefiningOp())
	r1, err1 := b.Build(tir.TupleGet, []*ir.Value{m}, ir.DictAttr{}.With(tir.AttrIndex, ir.IntegerAttr{Value: 0, Type: ir.I64}), nil)
	r2, err2 := b.Build(tir.TupleGet, []*ir.Value{m}, ir.DictAttr{}.With(tir.AttrIndex, ir.IntegerAttr{Value: 1, Type: ir.I64}), nil)
	if err1 != nil || err2 != nil {
		return false
	}
	r1.NameHint, r2.NameHint = s1.Results[0].NameHint, s2.Results[0].NameHint
	// The merged scan takes s2's place; the ops between the two that read
	// s1 follow it.
	dep := dependents(block, s1, s2)
	i1, i2 := block.IndexOf(s1), block.IndexOf(s2)
	ops := append([]*ir.Operation(nil), block.Ops...)
	var order []*ir.Operation
	order = append(order, ops[:i1]...)
	for _, op := range ops[i1+1 : i2] {
		if !dep[op] {
			order = append(order, op)
		}
	}
	order = append(order, scratch.Ops...)
	for _, op := range ops[i1+1 : i2] {
		if dep[op] {
			order = append(order, op)
		}
	}
	order = append(order, ops[i2+1:]...)
	for _, op := range ops {
		block.Remove(op)
	}
	for _, op := range append([]*ir.Operation(nil), scratch.Ops...) {
		scratch.Remove(op)
	}
	for _, op := range order {
		if op != s1 && op != s2 {
			block.Append(op)
		}
	}
	root := block.ParentOp()
	ir.ReplaceAllUsesWith(root, s1.Results[0], r1)
	ir.ReplaceAllUsesWith(root, s2.Results[0], r2)
	removeDead(root)
	return true
}
