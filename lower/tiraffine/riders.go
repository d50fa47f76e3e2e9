package tiraffine

import (
	"slices"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Results computed in a temporary's nest.
//
// A result over a domain inside a temporary's, that reads nothing the
// temporary's nest has not already computed, is computed in that nest
// (split-pieces pipelines only) instead of a nest of its own: what the two
// share is computed once per point. An adjoint is the usual case: hdiff's
// cotangent of coeff is the update's cotangent times the fluxes' sum,
// which the nest of the Laplacian's cotangent computes anyway (the limiters
// select the fluxes' cotangents), on a domain one point larger. Each
// point stores the result only where it lies in the result's domain; the
// test compares loop variables with bounds a constant away from the
// nest's, so split-pieces decides it everywhere but on the edges.

// rider is a result still to compute, and its domain.
type rider struct {
	output
	t tir.TensorType
}

// riders returns the results to compute in the nest of group, over dom,
// and marks them computed.
func (fl *funcLowering) riders(group []output, dom tir.TensorType) []output {
	return fl.ridersOf(group, dom, false)
}

// ridersOf is riders; in a temporary's nest (sweep false) it leaves the
// results that a later sweep over a table computes better (awaitsSweep).
func (fl *funcLowering) ridersOf(group []output, dom tir.TensorType, sweep bool) []output {
	if !fl.splitPieces {
		return nil
	}
	pending := map[*ir.Value]bool{}
	for _, o := range group {
		pending[o.v] = true
	}
	var out []output
	for _, r := range fl.results {
		if fl.rode[r.out] || !insideDomain(r.t, dom) || !fl.computable(r.v, pending) || !sweep && fl.awaitsSweep(r) {
			continue
		}
		t := r.t
		o := r.output
		o.dom = &t
		out = append(out, o)
		fl.rode[r.out] = true
	}
	return out
}

// insideDomain reports whether t has dom's dimensions in dom's order and
// provably lies inside it.
func insideDomain(t, dom tir.TensorType) bool {
	if len(t.Dims) != len(dom.Dims) || len(t.Dims) == 0 {
		return false
	}
	for i, d := range t.Dims {
		o := dom.Dims[i]
		if d.Name != o.Name || !sizeexpr.ProveLE(o.Lo, d.Lo) || !sizeexpr.ProveLE(d.Hi, o.Hi) {
			return false
		}
	}
	return true
}

// computable reports whether v can be evaluated now: every temporary and
// scan it reads, directly or fused, is stored already (none of pending,
// the values the nest is about to store).
func (fl *funcLowering) computable(v *ir.Value, pending map[*ir.Value]bool) bool {
	seen := map[*ir.Value]bool{}
	var walk func(v *ir.Value) bool
	walk = func(v *ir.Value) bool {
		if seen[v] {
			return true
		}
		seen[v] = true
		if pending[v] {
			return false
		}
		if _, ok := fl.buffers[v]; ok {
			return true
		}
		op := v.DefiningOp()
		if op == nil || op.Is(tir.Constant) {
			return true
		}
		if op.Is(tir.Scan, tir.Compress) || op.Attr(tir.MaterializeAttr) != nil && !fl.recomputed[op] {
			return false // not stored yet, or stored in a way only its own nests read
		}
		if _, scatter := fl.scatterAdd(op); scatter {
			return false // a scatter-add is computed by a sweep, and not yet
		}
		ok := true
		op.Walk(func(o *ir.Operation) bool {
			for _, x := range o.Operands {
				ok = ok && walk(x)
			}
			return ok
		})
		return ok
	}
	return walk(v)
}

// within returns the evaluator that computes a result over dom at pt,
// inside the nest of a larger domain: this one where the loops' ranges
// put pt inside dom, nil and false where they put it outside, and else
// one in the then block of a test (done closes it).
func (ev *evaluator) within(dom tir.TensorType, pt point) (c *evaluator, inside bool, done func()) {
	var conds []*ir.Value
	for _, d := range dom.Dims {
		x := pt[d.Name]
		if below, known := ev.nest.below(x, d.Lo); !known {
			conds = append(conds, cmpi(ev.b, cmpiSGE, ev.index(x), ev.index(d.Lo)))
		} else if below {
			return nil, false, nil
		}
		if below, known := ev.nest.below(x, d.Hi); !known {
			conds = append(conds, cmpi(ev.b, cmpiSLT, ev.index(x), ev.index(d.Hi)))
		} else if !below {
			return nil, false, nil
		}
	}
	if len(conds) == 0 {
		return ev, true, func() {}
	}
	cond := conds[0]
	for _, x := range conds[1:] {
		cond = ev.b.value(arith.AndI, []*ir.Value{cond, x}, ir.I1, nil)
	}
	ifOp := ev.b.op(scf.If, []*ir.Value{cond}, nil, nil)
	then := builder{block: ifOp.AddRegion().AddBlock(), loc: ev.b.loc}
	ifOp.AddRegion()
	return ev.child(then), true, func() { then.op(scf.Yield, nil, nil, nil) }
}

// resultBuffer returns the buffer of a function result still to compute
// that is v as it is, over exactly t (the same dimensions in the same
// order, no mask), and marks it computed, for v to be computed straight
// into it; nil when there is none. (r.t is the domain of the results'
// group, with the element type of the first one: the buffer's is the
// result's.)
func (fl *funcLowering) resultBuffer(v *ir.Value, t tir.TensorType) *ir.Value {
	for _, r := range fl.results {
		if r.v == v && r.mask == nil && !fl.rode[r.out] && domainKey(r.t) == domainKey(t) && ir.TypeEqual(r.out.Type.(ir.MemRefType).Elem, t.Elem) {
			fl.rode[r.out] = true
			return r.out
		}
	}
	return nil
}

// awaitsSweep reports whether a result is better computed in the sweep of
// a scatter-add still to compute (sweepRiders) than in a temporary's nest: its
// domain is the first dimensions of the sweep's, it gathers through the
// sweep's table (what the sweep reads anyway), and it reads no
// scatter-add, so that the sweep can compute it.
func (fl *funcLowering) awaitsSweep(r rider) bool {
	for _, sa := range fl.sweeps {
		if fl.buffers[sa.Reduce.Results[0]] != nil {
			continue // swept already
		}
		table, dims := sa.Table, fl.sweepDims(sa)
		if len(r.t.Dims) > len(dims) || !insideDomain(r.t, tir.TensorType{Dims: dims[:len(r.t.Dims)]}) {
			continue
		}
		gathers, scatters := false, false
		seen := map[*ir.Value]bool{}
		var walk func(v *ir.Value)
		walk = func(v *ir.Value) {
			if seen[v] || fl.buffers[v] != nil {
				return
			}
			seen[v] = true
			op := v.DefiningOp()
			if op == nil || op.Attr(tir.MaterializeAttr) != nil && !fl.recomputed[op] {
				return
			}
			if _, ok := fl.scatterAdd(op); ok {
				scatters = true
				return
			}
			if op.Is(tir.Gather) && slices.Contains(op.Operands[1:], table) {
				gathers = true
			}
			op.Walk(func(o *ir.Operation) bool {
				for _, x := range o.Operands {
					walk(x)
				}
				return true
			})
		}
		walk(r.v)
		if gathers && !scatters {
			return true
		}
	}
	return false
}
