package tiraffine

import (
	"slices"

	"tir/dialects/affine"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Temporaries kept in a result's buffer.
//
// A temporary that the nest computing a result reads only at the point it
// stores the result, and that nothing reads after that nest, can live in
// the result's buffer: the nest loads the temporary's element at p, then
// overwrites it with the result's. An adjoint's scatter-add is the usual
// case: nabla's cotangents of the edge values are summed by the sweep
// through V2E, then the edge nest reads each one at its edge to compute
// the cotangents of s_mxx and s_myy (and what it scatters to the
// vertices); summed into those results' buffers, the sums need no memory
// of their own and no second stream of reads, as a hand-written adjoint
// has it.
//
// The decision is made on the lowered function, from its memory accesses
// alone, whatever nest computes the result (a nest of its own, a rider of
// a temporary's nest or of a sweep, a version's arm): for a temporary T
// this lowering allocated (not padded, without a mask buffer) holding
// exactly a result's domain, with a rank of at most 1, and that result's
// buffer R (keptInResult):
//
//   - R is stored once in T's block (one affine.store, S), and touched
//     nowhere else but in the other arm of a test (the other version);
//   - the loops around S are affine.for loops whose variables S's
//     subscripts take one each (each subscript one variable, times a
//     constant, plus loop-invariant symbols): S writes each element once,
//     at a point of its own;
//   - inside the outermost of those loops (the nest), T is only loaded,
//     at S's subscripts (the same map and operands), before S in the
//     nest's order: each load of the element at p runs before the store
//     at p, and no other point's store touches it;
//   - outside the nest, T is accessed only before it (its zeroing and its
//     sweep, earlier readers) and freed.
//
// T's accesses then use R, and its allocation and deallocation go; a
// result that is T as it is loses its copy (S stores what a load of the
// same element read), and the nest with it when nothing else is left. A
// result of several dimensions keeps its temporaries: the ABI lets a
// result's outer strides make elements share memory (docs/abi.md), which
// would mix the temporary's elements.

// heldTemporary is a temporary this lowering allocated and the type of what
// it holds, a candidate for a result's buffer.
type heldTemporary struct {
	buf *ir.Value
	t   tir.TensorType
}

// hold records a temporary that could live in a result's buffer.
func (fl *funcLowering) hold(buf *ir.Value, t tir.TensorType) {
	if len(t.Dims) <= 1 {
		fl.held = append(fl.held, heldTemporary{buf: buf, t: t})
	}
}

// keepInResults moves the held temporaries that qualify into result
// buffers (outs, of types results), at most one per result buffer and one
// buffer per temporary, and reports whether it moved any.
func (fl *funcLowering) keepInResults(f *ir.Operation, outs []*ir.Value, results []ir.Type) bool {
	moved := false
	for _, h := range fl.held {
		alloc := h.buf.DefiningOp()
		if !alloc.Is(memref.Alloc) || alloc.ParentBlock() == nil {
			continue
		}
		uses := ir.UsesIn(f)
		for i, rt := range results {
			t, ok := tir.AsTensor(rt)
			if !ok || domainKey(t) != domainKey(h.t) || !ir.TypeEqual(t.Elem, h.t.Elem) {
				continue
			}
			s, ok := keptInResult(uses, h.buf, outs[i])
			if !ok {
				continue
			}
			for _, u := range uses.Users(h.buf) {
				if u.Is(memref.Dealloc) {
					u.ParentBlock().Remove(u)
				}
			}
			alloc.ParentBlock().Remove(alloc)
			ir.ReplaceAllUsesWith(f, h.buf, outs[i])
			if copied(s) {
				// The result is the temporary as it is: the copy is
				// its own element (the nest, then dead, goes).
				s.ParentBlock().Remove(s)
			}
			moved = true
			break
		}
	}
	return moved
}

// keptInResult reports whether temporary a can live in result buffer r
// (the conditions above), and returns the store of r.
func keptInResult(uses ir.UseLists, a, r *ir.Value) (*ir.Operation, bool) {
	alloc := a.DefiningOp()
	if !ir.TypeEqual(a.Type, r.Type) {
		return nil, false
	}
	scope := alloc.ParentBlock()
	var s *ir.Operation
	for _, u := range uses.Users(r) {
		if scope.FindAncestor(u) == nil {
			continue
		}
		if _, mem, _, _ := affine.AccessParts(u); s != nil || !u.Is(affine.Store) || mem != r || u.Operands[0] == r {
			return nil, false
		}
		s = u
	}
	if s == nil {
		return nil, false
	}
	for _, u := range uses.Users(r) {
		if u != s && !exclusive(u, s) {
			return nil, false
		}
	}
	nest := scope.FindAncestor(s)
	_, _, m, operands := affine.AccessParts(s)
	if !onePointEach(s, nest, m, operands) {
		return nil, false
	}
	order := map[*ir.Operation]int{}
	nest.Walk(func(o *ir.Operation) bool {
		order[o] = len(order)
		return true
	})
	for _, u := range uses.Users(a) {
		if at, in := order[u]; in {
			_, _, um, uops := affine.AccessParts(u)
			if !u.Is(affine.Load) || at > order[s] || um.String() != m.String() || !slices.Equal(uops, operands) {
				return nil, false
			}
			continue
		}
		if u.Is(memref.Dealloc) {
			continue
		}
		x := scope.FindAncestor(u)
		if !u.Is(affine.Load, affine.Store, memref.Load, memref.Store, memref.AtomicRMW) || x == nil || scope.IndexOf(x) > scope.IndexOf(nest) {
			return nil, false
		}
	}
	return s, true
}

// copied reports whether store s stores what a load of the same element
// read.
func copied(s *ir.Operation) bool {
	_, mem, m, operands := affine.AccessParts(s)
	l := s.Operands[0].DefiningOp()
	if !l.Is(affine.Load) {
		return false
	}
	_, lmem, lm, lops := affine.AccessParts(l)
	return lmem == mem && lm.String() == m.String() && slices.Equal(lops, operands)
}

// onePointEach reports whether store s, inside nest, writes each element
// at most once: every op around s up to nest is an affine.for or a test,
// and the subscripts (map m over operands) take the loops' variables one
// each, times a constant, plus symbols defined outside the nest.
func onePointEach(s, nest *ir.Operation, m ir.AffineMap, operands []*ir.Value) bool {
	var ivs []*ir.Value
	for o := s; o != nest; {
		o = o.ParentOp()
		switch {
		case o.Is(affine.For):
			ivs = append(ivs, affine.InductionVar(o))
		case o.Is(scf.If, affine.If):
		default:
			return false
		}
	}
	dims := operands[:m.NumDims]
	if len(dims) != len(ivs) {
		return false
	}
	for _, v := range ivs {
		if !slices.Contains(dims, v) {
			return false
		}
	}
	for _, v := range operands[m.NumDims:] {
		if ir.DefinedInside(v, nest) {
			return false
		}
	}
	used := make([]bool, m.NumDims)
	for _, e := range m.Results {
		terms, _ := e.Terms()
		dim := -1
		for _, t := range terms {
			a := t.Atom
			if a.Op() == sizeexpr.OpVar && a.Var().Kind == sizeexpr.DimVar {
				if dim >= 0 {
					return false
				}
				dim = a.Var().Order
				continue
			}
			for _, v := range a.Expr().Vars() {
				if v.Kind == sizeexpr.DimVar {
					return false
				}
			}
		}
		if dim >= 0 {
			if dim >= len(used) || used[dim] {
				return false
			}
			used[dim] = true
		}
	}
	return !slices.Contains(used, false)
}

// exclusive reports whether x and y lie in different regions of a test
// (scf.if, affine.if): no run executes both.
func exclusive(x, y *ir.Operation) bool {
	region := map[*ir.Operation]*ir.Region{}
	for o := x; o.ParentOp() != nil; o = o.ParentOp() {
		region[o.ParentOp()] = o.ParentBlock().ParentRegion()
	}
	for o := y; o.ParentOp() != nil; o = o.ParentOp() {
		p := o.ParentOp()
		if r, ok := region[p]; ok {
			return r != o.ParentBlock().ParentRegion() && p.Is(scf.If, affine.If)
		}
	}
	return false
}
