package tirpasses

import (
	"fmt"
	"strconv"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/tir"
	"tir/passes"
)

// tir-temporaries marks the values worth computing once into a buffer
// instead of recomputing them wherever they are read (the lowering fuses
// everything else, spec 4.4). A value is marked when computing one point
// of it costs at least `threshold` and its readers need it at more than one
// point per point they compute: read at several offsets (shifts, views) or
// through a neighbor table (gathers read every element from many places).
//
// Only work that costs more than the memory traffic of a temporary counts:
// transcendentals and divisions (8), gathers (4, a data-dependent load),
// reductions (their trip count times their body). Plain arithmetic and
// loads count 0: make bench showed that materializing a pure-arithmetic
// stencil (hdiff's Laplacian) wins in cache but loses 3x once the arrays
// live in DRAM, while fusing it never loses much.
func init() {
	passes.Register(&passes.Def{
		Name:    "tir-temporaries",
		Title:   "TIRTemporaries",
		Summary: "Mark expensive values read at several offsets (or through gathers) to be materialized in temporaries",
		Anchor:  passes.AnchorTIRFunc,
		Options: []passes.OptionSpec{
			{Name: "threshold", Type: passes.OptInt, Default: 8, Help: "cost per point (8 per transcendental or division, 4 per gather; arithmetic is free) from which a re-read value is materialized"},
			{Name: "max-fused", Type: passes.OptInt, Default: 64, Help: "evaluations per point (distinct value points, 1 per arithmetic op) above which fusing a re-read value into its readers is materialized instead (footprint.go)"},
			{Name: "recompute-above", Type: passes.OptInt, Default: 0, Help: "bytes: a temporary read through a neighbor table whose points cost loads only (gathers, arithmetic) is kept up to this size at run time and recomputed in its readers above it (0: always kept)"},
		},
		Check: func(o passes.Options) error {
			if o.Int("recompute-above") < 0 {
				return fmt.Errorf("recompute-above must not be negative")
			}
			return nil
		},
		New: func(o passes.Options) passes.Pass {
			m := marker{threshold: o.Int("threshold"), maxFused: o.Int("max-fused"), recomputeAbove: o.Int("recompute-above")}
			return passes.PassFunc(func(fn *ir.Operation, ctx *passes.Context) error {
				m.mark(fn)
				return nil
			})
		},
	})
}

// loaded reports whether a value defined by op (nil: an argument) is read
// from memory where it is used, not computed there: arguments, constants,
// and values stored anyway (scans, compressions, temporaries).
func loaded(op *ir.Operation) bool {
	return op == nil || op.Is(tir.Constant, tir.Scan, tir.Compress) || op.Attr(tir.MaterializeAttr) != nil
}

// cost estimates the work of computing one point of v by fusion.
func cost(v *ir.Value, memo map[*ir.Value]int) int {
	if c, ok := memo[v]; ok {
		return c
	}
	op := v.DefiningOp()
	if loaded(op) {
		return 0 // a load (or nothing): scans and compressions are stored anyway
	}
	memo[v] = 1 // cycles cannot happen in SSA, but be safe
	c := 0
	for _, o := range op.Operands {
		c += cost(o, memo)
	}
	switch tir.CostOf(op) {
	case tir.CostTranscendental:
		c += 8
	case tir.CostLoop:
		// The reduction loop runs over its interval; unknown trip counts
		// count as 8.
		trips := 1
		for _, d := range tir.ReduceDims(op) {
			iv := tir.ReducedInterval(op, d)
			if n, ok := iv.Extent().Const(); ok {
				trips *= int(max(n, 1))
			} else {
				trips *= 8
			}
		}
		body := 1
		if len(op.Regions) > 0 {
			for _, b := range op.Regions[0].Blocks {
				body += len(b.Ops)
			}
		}
		c = trips * (c + body)
	case tir.CostGather:
		c += 4
	}
	memo[v] = c
	return c
}

// readPoints estimates at how many points per point of its readers a value
// is evaluated, from its readers' access rules: distinct coordinates (the
// offsets of shifts, the maps of views) count separately, a gathered read
// counts twice (its table revisits elements), and so does a broadcast
// read (a reader that ranges over dimensions the value lacks evaluates
// each of its points once per point of them: softmax's row maximum, read
// at every column), unless the value is computed once per point all the
// same (onceAlong: a neighbour dimension run inside the value's); reads at
// the reader's own point count once in all. Readers that only relay the
// value (relays) are looked through: a cotangent padded with zeros,
// negated and shifted is read where the shift's readers read it. rank is
// the function's order of dimensions (tir.DimRanks). It also returns the
// reads, described.
func readPoints(uses ir.UseLists, v *ir.Value, rank map[string]int) (int, []string) {
	patterns := map[string]bool{}
	var seen []string
	n := 0
	count := func(key, desc string) {
		if !patterns[key] {
			patterns[key] = true
			n++
			seen = append(seen, desc)
		}
	}
	relayedReads(uses, v, func(u *ir.Operation, _ int, r *tir.Read, off string, depth int) {
		via := ""
		if depth > 0 {
			via = " through " + strconv.Itoa(depth) + " relays"
			if depth == 1 {
				via = " through a relay"
			}
		}
		if r == nil {
			desc := "at the reader's own point"
			if off != "" {
				desc = off
			}
			count("t:"+off, desc+via) // return, call: read in place
			return
		}
		switch {
		case r.Gathered != "":
			n += 2
			seen = append(seen, "gathered along "+r.Gathered+": a neighbour table revisits elements"+via)
		default:
			if along := broadcastAlong(u, *r); along != "" {
				if onceAlong(u, *r, v, rank) {
					count("t:"+off, "broadcast along "+along+", run inside its dimensions: computed once per point"+via)
					return
				}
				n += 2
				seen = append(seen, "broadcast along "+along+": each point is read at every point of "+along+via)
				return
			}
			desc := r.Describe()
			if t, ok := translationOf(*r); ok {
				t = addOffsets(off, t)
				if off != "" {
					desc = t
				}
				if desc == "" {
					desc = "at the reader's own point"
				}
				count("t:"+t, desc+via)
				return
			}
			if desc == "" {
				desc = "at the reader's own point"
			}
			count("d:"+off+"/"+r.Describe(), desc+via)
		}
	})
	return n, seen
}

// maxRelays bounds the chains of relays looked through.
const maxRelays = 16

// relay reports whether u only relays its operand v: a shift, subset or
// concat (the other pieces are other values), or an elementwise op whose
// other operands are loaded or constants broadcast (a negation, a product
// with a constant). u's readers then evaluate v wherever they evaluate u.
func relay(u *ir.Operation, v *ir.Value) bool {
	if len(u.Results) != 1 || len(u.Regions) > 0 || u.Attr(tir.MaterializeAttr) != nil {
		return false
	}
	if t, ok := tir.AsTensor(u.Results[0].Type); !ok || len(t.Dims) == 0 {
		return false
	}
	if u.Is(tir.Shift, tir.Subset, tir.Concat) {
		return true
	}
	if !u.HasTrait(ir.TraitElementwise) || tir.CostOf(u) != tir.CostArithmetic {
		return false
	}
	for _, o := range u.Operands {
		if o == v {
			continue
		}
		d := o.DefiningOp()
		if d != nil && d.Is(tir.Broadcast) {
			d = d.Operands[0].DefiningOp()
		}
		if !loaded(d) {
			return false
		}
	}
	return true
}

// relayedReads calls visit for each read of v by a reader that is not a
// relay, looking through relays (translations only): off is the offset
// the relays between add to the read (translationOf's form), depth the
// number of those that are not shifts (a shift is the read itself). A reader without an access rule (return, call) is visited with
// a nil read.
func relayedReads(uses ir.UseLists, v *ir.Value, visit func(u *ir.Operation, k int, r *tir.Read, off string, depth int)) {
	var walk func(v *ir.Value, off string, depth, hops int)
	walk = func(v *ir.Value, off string, depth, hops int) {
		for _, u := range uses.Users(v) {
			acc, ok := tir.AccessOf(u)
			if !ok || scatterValues(uses, u, v) {
				// A return or call reads in place, and so does a
				// scatter-add's sweep the values it adds.
				visit(u, -1, nil, off, hops)
				continue
			}
			for k := range acc {
				r := &acc[k]
				if u.Operands[r.Operand] != v {
					continue
				}
				if t, ok := translationOf(*r); ok && r.Gathered == "" && depth < maxRelays && relay(u, v) && broadcastAlong(u, *r) == "" {
					h := hops
					if !u.Is(tir.Shift) {
						h++
					}
					walk(u.Results[0], addOffsets(off, t), depth+1, h)
					continue
				}
				visit(u, k, r, off, hops)
			}
		}
	}
	walk(v, "", 0, 0)
}

// broadcastAlong names the dimensions of u's result that read r of an
// operand does not follow (no coordinate of the operand depends on them,
// and it does not range over them): the read repeats each element of the
// operand along them. It is "" when there are none, or when they hold a
// single point.
func broadcastAlong(u *ir.Operation, r tir.Read) string {
	var names []string
	for _, d := range broadcastDims(u, r) {
		names = append(names, d.Name)
	}
	return strings.Join(names, ",")
}

// maxLocalExtent bounds the local dimensions of onceAlong: a neighbour
// table's row (V2E[0:7], E2V[0:2]), a stencil's few components. It is
// affine-loop-unroll's full-unroll bound in the -O2 pipelines.
const maxLocalExtent = 8

// onceAlong reports whether v, read by u broadcast along some dimensions
// (broadcastDims), is computed once per point of its own all the same, so
// that the read is no re-read. That holds when each of those dimensions is
// local, a constant extent of at most maxLocalExtent points (a neighbour
// dimension such as V2E, which a gather or a reduction over a neighbour
// table brings), that the function's order of dimensions (rank, which the
// lowering's nests follow) puts inside every dimension of v; and when a
// point of v runs no loop (no reduction between it and what it loads).
// The loop over the local dimension then runs inside v's point, at least
// once: affine-licm hoists v's ops and loads out of it, full unrolling and
// cse leave one copy, and a scatter-add's sweep computes what its entries
// read at the outer level of the sweep (tiraffine's hoistValues). nabla's
// adjoint reads 1/vol(v) times the cotangent of each output broadcast
// along V2E, in the sweep over the vertices' edges: it is computed once
// per vertex, and a temporary of 1/vol was a pass over the vertices for
// nothing. A dimension with a run-time extent keeps counting: softmax's
// row maximum, read at every column, is a reduction (a loop that
// affine-licm does not hoist) and the column loop may run zero times, so
// that not even the loads of a value computed without loops may be hoisted
// out of it; it stays materialized. So does a value read along a local
// dimension that ranks outside its own (a component dimension stored
// outermost), which its nest would recompute at every component.
func onceAlong(u *ir.Operation, r tir.Read, v *ir.Value, rank map[string]int) bool {
	vt, ok := tir.AsTensor(v.Type)
	if !ok {
		return false
	}
	for _, b := range broadcastDims(u, r) {
		n, ok := b.Extent().Const()
		rb, ranked := rank[b.Name]
		if !ok || n > maxLocalExtent || !ranked {
			return false
		}
		for _, d := range vt.Dims {
			if rd, ok := rank[d.Name]; !ok || rd >= rb {
				return false
			}
		}
	}
	return straightLine(v, map[*ir.Value]bool{})
}

// straightLine reports whether computing a point of v by fusion runs no
// loop: no reduction, nor any op with a region, between v and the values
// it loads.
func straightLine(v *ir.Value, seen map[*ir.Value]bool) bool {
	op := v.DefiningOp()
	if seen[v] || loaded(op) {
		return true
	}
	seen[v] = true
	if tir.CostOf(op) == tir.CostLoop || len(op.Regions) > 0 {
		return false
	}
	for _, o := range op.Operands {
		if !straightLine(o, seen) {
			return false
		}
	}
	return true
}

// broadcastDims lists the dimensions of u's result that read r of an
// operand does not follow, those of a single point left out
// (broadcastAlong).
func broadcastDims(u *ir.Operation, r tir.Read) []tir.Dim {
	if len(u.Results) == 0 {
		return nil
	}
	t, ok := tir.AsTensor(u.Results[0].Type)
	if !ok {
		return nil
	}
	followed := map[string]bool{}
	for _, d := range r.Over {
		followed[d] = true
	}
	for _, x := range r.At {
		for _, v := range x.Vars() {
			followed[v.Name] = true
		}
	}
	var along []tir.Dim
	for _, d := range t.Dims {
		if followed[d.Name] {
			continue
		}
		if n, ok := d.Extent().Const(); ok && n <= 1 {
			continue
		}
		along = append(along, d)
	}
	return along
}

// marker holds tir-temporaries' options.
type marker struct {
	threshold, maxFused, recomputeAbove int
}

func (m marker) mark(fn *ir.Operation) {
	threshold, maxFused := m.threshold, m.maxFused
	memo := map[*ir.Value]int{}
	fs := &footprints{memo: map[*ir.Value]footprint{}, sums: map[[2]string]string{}, costs: memo, maxFused: maxFused}
	uses := ir.UsesIn(fn)
	rank := tir.DimRanks(fn)
	entry := fn.Regions[0].Entry()
	chain := scatterChain(uses, entry)
	for _, op := range entry.Ops {
		if len(op.Results) != 1 || op.Is(tir.Constant, tir.Scan, tir.Compress, tir.Return) || chain[op] {
			continue
		}
		if _, ok := tir.ScatterAddOf(op); ok {
			op.SetAttr(tir.RemarkAttr, ir.StringAttr("materialized: a scatter-add, computed into a temporary by one sweep over its table"))
			op.SetAttr(tir.MaterializeAttr, ir.UnitAttr{})
			memo[op.Results[0]] = 0
			fs.memo[op.Results[0]] = footprint{}
			continue
		}
		v := op.Results[0]
		t, ok := tir.AsTensor(v.Type)
		if !ok || len(t.Dims) == 0 {
			continue
		}
		if _, tuple := t.Elem.(ir.TupleType); tuple {
			continue
		}
		if readers := cheapRereaders(uses, v, memo, threshold, rank); readers != nil {
			remark := fmt.Sprintf("materialized: its %d readers (%s) are each re-read and cost a point of it and nothing more: computed once into one temporary instead of one per reader, which are then fused", len(readers), opNames(readers))
			op.SetAttr(tir.RemarkAttr, ir.StringAttr(remark+m.version(op, uses, readers)))
			op.SetAttr(tir.MaterializeAttr, ir.UnitAttr{})
			memo[v] = 0
			fs.memo[v] = footprint{}
			for _, u := range readers {
				delete(memo, u.Results[0]) // costed with v fused
				delete(fs.memo, u.Results[0])
			}
			continue
		}
		n, reads := readPoints(uses, v, rank)
		if n <= 1 {
			continue // read once per point: fusing costs nothing
		}
		c := cost(v, memo)
		how := fmt.Sprintf("read at %d points per point (%s)", n, strings.Join(reads, "; "))
		var why string
		switch fused := fs.fusedWeight(uses, v); {
		case c >= threshold:
			why = fmt.Sprintf("and a point costs %d (threshold %d)", c, threshold)
		case fused > maxFused:
			why = fmt.Sprintf("and fused, its readers would evaluate %d ops per point (max-fused %d)", fused, maxFused)
		default:
			op.SetAttr(tir.RemarkAttr, ir.StringAttr(fmt.Sprintf("fused: %s, but a point costs %d, under the threshold %d: recomputing is cheaper than a temporary's memory traffic", how, c, threshold)))
			continue
		}
		remark := fmt.Sprintf("materialized: %s, %s: computed once into a temporary", how, why)
		op.SetAttr(tir.RemarkAttr, ir.StringAttr(remark+m.version(op, uses, []*ir.Operation{op})))
		op.SetAttr(tir.MaterializeAttr, ir.UnitAttr{})
		// Readers now load it. Only v's own entries are stale: the memos
		// hold v and the values before it (both follow operands), and
		// the later ones are computed after this.
		memo[v] = 0
		fs.memo[v] = footprint{}
	}
}

// cheapRereaders returns v's readers when there are several and each
// would be materialized only for what v costs: elementwise ops whose other
// operands cost nothing (arguments, constants, temporaries), read at
// several points per point, costing at least the threshold. One buffer of
// v then serves them all, and they cost nothing more to fuse. (nabla's two
// edge fluxes are the edge average times a per-edge input: one temporary
// of the average instead of two of the fluxes halves the edge traffic.)
func cheapRereaders(uses ir.UseLists, v *ir.Value, memo map[*ir.Value]int, threshold int, rank map[string]int) []*ir.Operation {
	readers := uses.Users(v)
	if len(readers) < 2 {
		return nil
	}
	for _, u := range readers {
		if !u.HasTrait(ir.TraitElementwise) || len(u.Regions) > 0 || len(u.Results) != 1 {
			return nil
		}
		for _, o := range u.Operands {
			if o != v && cost(o, memo) != 0 {
				return nil
			}
		}
		if n, _ := readPoints(uses, u.Results[0], rank); n <= 1 || cost(u.Results[0], memo) < threshold {
			return nil
		}
	}
	return readers
}

// version marks op, which is being materialized, to be recomputed instead
// when its temporary is larger than recomputeAbove bytes at run time
// (tir.RecomputeAboveAttr), and returns what its remark adds. That is for
// values gathered (directly, or through readers materialized with it:
// gathered are the ops whose reads go through tables) whose points cost
// loads only. Both choices are then bound by memory: the temporary saves
// the loads of every re-read while it stays in cache, and once it does not
// its own traffic (written, read for ownership, read back) outweighs them.
// Measured on nabla's edge average (8 bytes an edge; docs/decisions.md),
// the temporary won by 10-15% up to 8 MB and lost by 20-28% from 9.8 MB
// on: the -O2 pipelines set the limit at 8 MiB.
func (m marker) version(op *ir.Operation, uses ir.UseLists, gathered []*ir.Operation) string {
	if m.recomputeAbove == 0 || !loadsOnly(op.Results[0], map[*ir.Value]bool{}) || readInPlace(uses, op.Results[0]) {
		return ""
	}
	for _, g := range gathered {
		if gatheredThroughRelays(uses, g.Results[0]) {
			op.SetAttr(tir.RecomputeAboveAttr, ir.IntegerAttr{Value: int64(m.recomputeAbove), Type: ir.I64})
			return fmt.Sprintf("; it is gathered and costs loads only: recomputed in its readers instead when the temporary would hold more than %d bytes (a run-time test on its size)", m.recomputeAbove)
		}
	}
	return ""
}

// readInPlace reports whether a reader reads v at its own points (through
// relays), not through a neighbour table: a nest of its own would
// recompute every point, where the temporary is read back in order. An
// adjoint reads nabla's edge average so (the cotangents of s_mxx and s_myy
// are the average times the edge's cotangent), beside the gathers of the
// forward computation it repeats: recomputed, the average cost the
// adjoint three passes of gathers through E2V.
func readInPlace(uses ir.UseLists, v *ir.Value) bool {
	found := false
	relayedReads(uses, v, func(_ *ir.Operation, _ int, r *tir.Read, _ string, _ int) {
		found = found || r == nil || r.Gathered == ""
	})
	return found
}

// gatheredThroughRelays reports whether v is read through a neighbour table, directly
// or through relays (nabla's edge sum, halved, times a per-edge normal).
func gatheredThroughRelays(uses ir.UseLists, v *ir.Value) bool {
	found := false
	relayedReads(uses, v, func(_ *ir.Operation, _ int, r *tir.Read, _ string, _ int) {
		found = found || r != nil && r.Gathered != ""
	})
	return found
}

// loadsOnly reports whether computing a point of v by fusion takes loads,
// gathers and arithmetic only: no transcendental or division, no
// reduction over more than a few points.
func loadsOnly(v *ir.Value, seen map[*ir.Value]bool) bool {
	op := v.DefiningOp()
	if seen[v] || loaded(op) {
		return true
	}
	seen[v] = true
	switch tir.CostOf(op) {
	case tir.CostTranscendental:
		return false
	case tir.CostLoop:
		for _, d := range tir.ReduceDims(op) {
			if n, ok := tir.ReducedInterval(op, d).Extent().Const(); !ok || n > 8 {
				return false
			}
		}
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				if tir.CostOf(o) == tir.CostTranscendental || len(o.Regions) > 0 {
					return false
				}
			}
		}
	}
	for _, o := range op.Operands {
		if !loadsOnly(o, seen) {
			return false
		}
	}
	return true
}

func opNames(ops []*ir.Operation) string {
	var names []string
	for _, op := range ops {
		names = append(names, op.Name)
	}
	return strings.Join(names, ", ")
}
