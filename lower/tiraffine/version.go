package tiraffine

import (
	"maps"

	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/memref"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
	"tir/dialects/tir"
)

// Versions on the size of temporaries.
//
// tir-temporaries marks some materialized values to be recomputed instead
// when their temporaries are large (tir.RecomputeAboveAttr): values whose
// points cost loads only, for which keeping the temporary pays while it
// stays in cache. When the temporaries' sizes are constants the choice is
// made here; when they depend on size symbols the function computes its
// results in two versions under one test of those sizes:
//
//	scf.if %fits {   // the temporaries hold at most the limit
//	  temporaries and result nests, as marked
//	} else {
//	  the same, the versioned values fused into their readers
//	}
//
// Checks, scans and what the data phase computes come before the test and
// serve both arms; each arm frees the temporaries it allocates.

// inVersions runs compute, which appends the nests of the temporaries and
// the results at fl.entry: once, or once in each arm of the test.
func (fl *funcLowering) inVersions(body *ir.Block, compute func() error) error {
	var versioned []*ir.Value
	limit := int64(-1)
	for _, op := range body.Ops {
		a, ok := op.Attr(tir.RecomputeAboveAttr).(ir.IntegerAttr)
		if !ok || op.Attr(tir.MaterializeAttr) == nil || len(op.Results) != 1 {
			continue
		}
		if _, read := fl.needs.Of(op.Results[0]); !read {
			continue // not materialized either
		}
		versioned = append(versioned, op.Results[0])
		if limit < 0 || a.Value < limit {
			limit = a.Value
		}
	}
	if len(versioned) == 0 {
		return compute()
	}
	recompute := map[*ir.Operation]bool{}
	for _, v := range versioned {
		recompute[v.DefiningOp()] = true
	}
	terms := fl.temporaryBytes(versioned)
	if n, ok := constantBytes(terms); ok {
		if n > limit {
			fl.recomputed = recompute
			defer func() { fl.recomputed = nil }()
		}
		return compute()
	}
	outer := fl.entry
	ev := fl.newEvaluator(newNest(fl), outer)
	var total *ir.Value
	for _, t := range terms {
		x := ev.index(t[0])
		for _, f := range t[1:] {
			x = outer.value(arith.MulI, []*ir.Value{x, ev.index(f)}, ir.Index, nil)
		}
		if total == nil {
			total = x
		} else {
			total = outer.value(arith.AddI, []*ir.Value{total, x}, ir.Index, nil)
		}
	}
	fits := cmpi(outer, cmpiULE, total, fl.indexConst(limit))
	ifOp := outer.op(scf.If, []*ir.Value{fits}, nil, ir.DictAttr{}.With(tir.VersionsAttr, ir.UnitAttr{}))
	saved := fl.save()
	for _, arm := range []map[*ir.Operation]bool{nil, recompute} {
		fl.restore(saved)
		fl.recomputed = arm
		fl.entry = builder{block: ifOp.AddRegion().AddBlock(), loc: outer.loc}
		if err := compute(); err != nil {
			return err
		}
		for _, a := range fl.allocs[len(saved.allocs):] {
			fl.entry.op(memref.Dealloc, []*ir.Value{a}, nil, nil)
		}
		fl.entry.op(scf.Yield, nil, nil, nil)
	}
	fl.restore(saved)
	fl.recomputed = nil
	fl.entry = outer
	return nil
}

// temporaryBytes returns the sizes in bytes of the temporaries of vs (and
// of their masks), each a product of factors: the element size and the
// extent of each dimension of the points the readers need.
func (fl *funcLowering) temporaryBytes(vs []*ir.Value) [][]sizeexpr.Expr {
	var terms [][]sizeexpr.Expr
	for _, v := range vs {
		t, _ := tir.AsTensor(v.Type)
		t = fl.needed(v, t)
		var extents []sizeexpr.Expr
		for _, d := range t.Dims {
			extents = append(extents, sizeexpr.Max(d.Size(), sizeexpr.Const(0)))
		}
		terms = append(terms, append([]sizeexpr.Expr{sizeexpr.Const(ir.StorageBytes(t.Elem))}, extents...))
		if tir.MayBeMaskedMemo(v, fl.maskMemo) {
			terms = append(terms, append([]sizeexpr.Expr{sizeexpr.Const(1)}, extents...))
		}
	}
	return terms
}

// constantBytes is the total of terms when every factor is a constant.
func constantBytes(terms [][]sizeexpr.Expr) (int64, bool) {
	total := int64(0)
	for _, t := range terms {
		p := int64(1)
		for _, f := range t {
			c, ok := f.Const()
			if !ok {
				return 0, false
			}
			p *= c
		}
		total += p
	}
	return total, true
}

// loweringState is what lowering the temporaries and results adds to a
// funcLowering; each version starts from the state before the test.
type loweringState struct {
	buffers map[*ir.Value][]*ir.Value
	masks   map[*ir.Value]*ir.Value
	storage map[*ir.Value]tir.TensorType
	padded  map[*ir.Value]bool
	allocs  []*ir.Value
}

func (fl *funcLowering) save() loweringState {
	return loweringState{buffers: maps.Clone(fl.buffers), masks: maps.Clone(fl.masks), storage: maps.Clone(fl.storage), padded: maps.Clone(fl.padded),
		allocs: append([]*ir.Value(nil), fl.allocs...)}
}

func (fl *funcLowering) restore(s loweringState) {
	fl.buffers, fl.masks, fl.storage, fl.padded = maps.Clone(s.buffers), maps.Clone(s.masks), maps.Clone(s.storage), maps.Clone(s.padded)
	fl.allocs = append([]*ir.Value(nil), s.allocs...)
}
