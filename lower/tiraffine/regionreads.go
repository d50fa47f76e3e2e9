package tiraffine

import (
	"sort"

	"tir/dialects/ir"
	"tir/dialects/tir"
)

// The body of a scan or of a region reduction is evaluated at one point
// (scanStep, reduction): the state and the accumulator are bound to their
// value at that point, the inputs at any point (bindAt). An op of the body
// that reads the state or the accumulator, or a value computed from one,
// at another point of a dimension it has (a view at J = 0, a shift along
// J, a reduction over J, a value captured by a nested reduction over J)
// needs it at points the body was not given. otherPointReads finds such
// reads: a scan whose step has one runs level by level (levelscan.go), a
// reduction whose body has one is refused, never read at the wrong point.

// otherPointRead is a read of a body's block argument at another point.
type otherPointRead struct {
	op  *ir.Operation // the op that reads
	arg *ir.Value     // the block argument it reads, directly or not
	dim string        // a dimension along which it reads other points
}

// otherPointReads walks the body of op (a tir.scan or a region
// tir.reduce) and returns the first op that reads one of args (block
// arguments of the body) or a value computed from them at a point other
// than its own along a dimension of that argument; ok is false when there
// is none.
func otherPointReads(op *ir.Operation, args []*ir.Value) (otherPointRead, bool) {
	w := &readWalk{from: map[*ir.Value]map[*ir.Value]bool{}, depth: map[*ir.Value]int{}}
	for _, a := range args {
		w.from[a] = map[*ir.Value]bool{a: true}
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			w.block(b, nil)
		}
	}
	return w.found, w.hit
}

type readWalk struct {
	// from gives, for each value computed from the arguments, the
	// arguments it is computed from.
	from map[*ir.Value]map[*ir.Value]bool
	// depth is the number of nested region ops a value is defined in.
	depth map[*ir.Value]int
	found otherPointRead
	hit   bool
}

// running is the set of dimensions a region op's body runs along: points
// of the body differ along them (a reduction's reduced dimensions, a
// scan's dimension).
func running(op *ir.Operation) []string {
	if op.Is(tir.Scan) {
		return []string{tir.DimAttr(op)}
	}
	return tir.ReduceDims(op)
}

func hasDim(v *ir.Value, dim string) bool {
	t, ok := tir.AsTensor(v.Type)
	if !ok {
		return false
	}
	_, ok = t.Dim(dim)
	return ok
}

func (w *readWalk) report(op *ir.Operation, v *ir.Value, dim string) {
	if w.hit {
		return
	}
	// The first argument in block order, for a deterministic message.
	var args []*ir.Value
	for a := range w.from[v] {
		if hasDim(a, dim) {
			args = append(args, a)
		}
	}
	if len(args) == 0 {
		return
	}
	sort.Slice(args, func(i, j int) bool { return args[i].ArgIndex() < args[j].ArgIndex() })
	w.found, w.hit = otherPointRead{op: op, arg: args[0], dim: dim}, true
}

// block walks the ops of b; frames are the region ops enclosing b inside
// the body walked (outermost first).
func (w *readWalk) block(b *ir.Block, frames []*ir.Operation) {
	for _, op := range b.Ops {
		if w.hit {
			return
		}
		w.op(op, frames)
	}
}

func (w *readWalk) op(op *ir.Operation, frames []*ir.Operation) {
	// A value computed outside a nested region op, read inside it, is
	// read at every point its body runs along.
	for _, v := range op.Operands {
		args, ok := w.from[v]
		if !ok {
			continue
		}
		for f := w.depth[v]; f < len(frames); f++ {
			for _, d := range running(frames[f]) {
				if hasDimFrom(args, d) {
					w.report(op, v, d)
				}
			}
		}
	}
	if acc, ok := tir.AccessOf(op); ok {
		for _, r := range acc {
			v := op.Operands[r.Operand]
			args, ok := w.from[v]
			if !ok {
				continue
			}
			t, _ := tir.AsTensor(v.Type)
			for _, d := range t.Dims {
				if !hasDimFrom(args, d.Name) {
					continue
				}
				if r.Gathered == d.Name || !ownPoint(r, d.Name) {
					w.report(op, v, d.Name)
				}
			}
		}
	}
	if op.Is(tir.Scan) {
		// A scan reads its operands at its result point, but its state
		// carries the earlier steps along its dimension.
		for _, v := range op.Operands {
			if args, ok := w.from[v]; ok && hasDimFrom(args, tir.DimAttr(op)) {
				w.report(op, v, tir.DimAttr(op))
			}
		}
	}
	// What the op computes from the arguments: its operands', and what
	// its regions read from outside them.
	union := map[*ir.Value]bool{}
	for _, v := range op.Operands {
		for a := range w.from[v] {
			union[a] = true
		}
	}
	if len(op.Regions) > 0 {
		inner := append(append([]*ir.Operation(nil), frames...), op)
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args {
					if len(union) > 0 {
						w.from[a] = union
						w.depth[a] = len(inner)
					}
				}
				w.block(b, inner)
			}
		}
		op.Walk(func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				if w.depth[v] <= len(frames) {
					for a := range w.from[v] {
						union[a] = true
					}
				}
			}
			return true
		})
	}
	if len(union) == 0 {
		return
	}
	for _, res := range op.Results {
		w.from[res] = union
		w.depth[res] = len(frames)
	}
}

// hasDimFrom reports whether one of args has dimension dim.
func hasDimFrom(args map[*ir.Value]bool, dim string) bool {
	for a := range args {
		if hasDim(a, dim) {
			return true
		}
	}
	return false
}

// ownPoint reports whether r reads its operand's dimension d at the
// result's own coordinate along d.
func ownPoint(r tir.Read, d string) bool {
	off, ok := r.Offset(d)
	if !ok {
		return false
	}
	c, isC := off.Const()
	return isC && c == 0
}

// checkBodyReads refuses, at the op that reads, a region reduction's body
// that reads its accumulator at another point of one of its dimensions:
// the accumulator exists at the body's own point only.
func checkBodyReads(fn *ir.Operation) error {
	var err error
	fn.Walk(func(op *ir.Operation) bool {
		if err != nil || len(op.Regions) == 0 || !op.Is(tir.Reduce) {
			return err == nil
		}
		r, ok := otherPointReads(op, op.Regions[0].Entry().Args[:1])
		if !ok {
			return true
		}
		err = ir.Errorf(r.op.Loc, "'%s' reads the accumulator at other points of %s than its own: convert-tir-to-affine does not support it yet", r.op.Name, r.dim).
			AddNote(op.Loc, "in the body of this reduction")
		return false
	})
	return err
}
