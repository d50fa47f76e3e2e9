package tir

import (
	"sort"
	"strings"

	"tir/dialects/ir"
	"tir/dialects/sizeexpr"
)

// Access rules: for every op, which point of each operand a point of its
// result reads. This table is the one place an op's data movement is
// written; the reference interpreter (for the ops that only move data),
// convert-tir-to-affine, the needed-domain and unknown-extent analyses,
// the extent analysis (--emit=extents), the dataflow graph (--emit=dot)
// and tir-temporaries read it. Each op value names its rule (Op.reads). Of
// the type rules only tir.shift's takes its domain from it; the others
// compute theirs in their Infer.
//
// A result point is written with the variables of the result's dimensions
// (DimVar).

// Read is how one operand is read at a point of the result.
type Read struct {
	// Operand is the index of the operand read.
	Operand int
	// At gives, for each dimension of the operand, the coordinate read: an
	// expression of the result point (DimVar) and of size symbols. The
	// dimensions in Over map to their own variable; Gathered has no entry.
	At map[string]sizeexpr.Expr
	// Over lists the dimensions of the operand a result point reads
	// entirely (the reduced dimensions of a reduction, the compacted one
	// of a compress: ReducedInterval gives the interval).
	Over []string
	// Gathered, when not empty, is the operand dimension whose coordinate
	// is data: the value of operand Table at the same result point. A
	// coordinate outside the operand's interval is a masked read.
	Gathered string
	Table    int
	// Along, when not empty, restricts the read to the result points whose
	// coordinate along Along lies in Within (a piece of a concat).
	Along  string
	Within sizeexpr.Interval
}

// Access is the list of an op's reads, one per operand read at points of
// the result (a gather reads its table too).
type Access []Read

// accessRule states the reads of an op from its operand types.
type accessRule func(op *ir.Operation, operands []TensorType) Access

// MovesData reports whether op only moves data: its result is nothing but
// the elements its access rule reads (no arithmetic), so the interpreter
// and the lowering evaluate it from the rule alone.
func MovesData(op *ir.Operation) bool {
	o := OpOf(op)
	return o != nil && o.movesData
}

// DataMovementOps lists the ops that only move data, sorted by name.
func DataMovementOps() []string {
	var out []string
	for _, o := range allOps {
		if o.movesData {
			out = append(out, o.Name)
		}
	}
	sort.Strings(out)
	return out
}

// The access rules of the ops whose reads are not simply every operand at
// the result point (each op value names its rule; elementwise ops have
// none and read every operand at the result point).

func shiftReads(op *ir.Operation, in []TensorType) Access {
	offs, _ := op.Attr("offsets").(OffsetsAttr)
	r := identityRead(0, in[0])
	for d := range r.At {
		r.At[d] = sizeexpr.Add(DimVar(d), offs.Offset(d))
	}
	return Access{r}
}

func viewReads(op *ir.Operation, in []TensorType) Access {
	m, _ := op.Attr("map").(ViewAttr)
	r := identityRead(0, in[0])
	for i, d := range m.Dims {
		r.At[d] = m.Exprs[i]
	}
	return Access{r}
}

func gatherReads(op *ir.Operation, in []TensorType) Access {
	dim := DimAttr(op)
	x := identityRead(0, in[0])
	delete(x.At, dim)
	x.Gathered, x.Table = dim, 1
	return Access{x, identityRead(1, in[1])}
}

func concatReads(op *ir.Operation, in []TensorType) Access {
	dim := DimAttr(op)
	var a Access
	for i, t := range in {
		r := identityRead(i, t)
		if d, ok := t.Dim(dim); ok {
			r.Along, r.Within = dim, d.Interval
		}
		a = append(a, r)
	}
	return a
}

// noReads: pos reads no element, only its operand's interval; a constant
// has no operand.
func noReads(*ir.Operation, []TensorType) Access { return nil }

// reduceReads: a reduction reads its inputs over the reduced dimensions,
// its init at the result point (a scan reads its operands at the result
// point too: its state carries the rest).
func reduceReads(op *ir.Operation, in []TensorType) Access {
	ins, init := ReduceOperands(op)
	reduced := ReduceDims(op)
	var a Access
	for i, v := range op.Operands {
		r := identityRead(i, in[i])
		if v != init && contains(ins, v) {
			for _, d := range reduced {
				if _, ok := r.At[d]; ok {
					r.Over = append(r.Over, d)
				}
			}
		}
		a = append(a, r)
	}
	return a
}

// compressReads: compress may read any point of the interval it compacts,
// of the values and of the mask (which says which): it ranges over it.
func compressReads(op *ir.Operation, in []TensorType) Access {
	dim := DimAttr(op)
	var a Access
	for i, t := range in {
		r := identityRead(i, t)
		if _, ok := r.At[dim]; ok {
			r.Over = []string{dim}
		}
		a = append(a, r)
	}
	return a
}

// readsAtResultPoint: every operand is read at the result point.
func readsAtResultPoint(_ *ir.Operation, in []TensorType) Access {
	a := make(Access, len(in))
	for i, t := range in {
		a[i] = identityRead(i, t)
	}
	return a
}

func identityRead(operand int, t TensorType) Read {
	r := Read{Operand: operand, At: map[string]sizeexpr.Expr{}}
	for _, d := range t.Dims {
		r.At[d.Name] = DimVar(d.Name)
	}
	return r
}

func contains(vs []*ir.Value, v *ir.Value) bool {
	for _, w := range vs {
		if w == v {
			return true
		}
	}
	return false
}

// Gathered reports whether some gather among v's users reads v through a
// neighbor table (whose entries may revisit or skip its elements).
func Gathered(uses ir.UseLists, v *ir.Value) bool {
	for _, u := range uses.Users(v) {
		acc, _ := AccessOf(u)
		for _, r := range acc {
			if r.Gathered != "" && u.Operands[r.Operand] == v {
				return true
			}
		}
	}
	return false
}

// AccessOf returns the reads of op; ok is false for ops without an access
// rule (functions, calls, terminators) or whose operands are not typed yet.
func AccessOf(op *ir.Operation) (Access, bool) {
	var rule accessRule
	if o := OpOf(op); o != nil {
		rule = o.reads
	}
	if rule == nil {
		if !op.HasTrait(ir.TraitElementwise) {
			return nil, false
		}
		rule = readsAtResultPoint
	}
	in := make([]TensorType, len(op.Operands))
	for i, v := range op.Operands {
		t, ok := AsTensor(v.Type)
		if !ok {
			return nil, false
		}
		in[i] = t
	}
	return rule(op, in), true
}

// Point returns the operand point a result point reads, the coordinates
// of the result point given by pt (dimension name → expression); the
// dimensions of Over keep their own variable and Gathered is left out.
// Dimensions of the result that pt lacks stay variables.
func (r Read) Point(pt map[string]sizeexpr.Expr) map[string]sizeexpr.Expr {
	out := make(map[string]sizeexpr.Expr, len(r.At))
	for d, e := range r.At {
		if r.ranges(d) {
			out[d] = e
			continue
		}
		out[d] = e.Subst(func(v sizeexpr.Var) (sizeexpr.Expr, bool) {
			if v.Kind != sizeexpr.DimVar {
				return sizeexpr.Expr{}, false
			}
			x, ok := pt[v.Name]
			return x, ok
		})
	}
	return out
}

// ranges reports whether the read ranges over operand dimension d.
func (r Read) ranges(d string) bool {
	for _, o := range r.Over {
		if o == d {
			return true
		}
	}
	return false
}

// Offset returns c when the read's coordinate along operand dimension d
// is result dimension d plus the constant or symbolic offset c (an
// identity, a shift); ok is false for other coordinates.
func (r Read) Offset(d string) (sizeexpr.Expr, bool) {
	e, ok := r.At[d]
	if !ok || r.ranges(d) {
		return sizeexpr.Expr{}, false
	}
	rest := sizeexpr.Sub(e, DimVar(d))
	for _, v := range rest.Vars() {
		if v.Kind == sizeexpr.DimVar {
			return sizeexpr.Expr{}, false
		}
	}
	return rest, true
}

// Describe prints the coordinates of a read for people (dataflow graph
// labels): "I+1", "d0=i+k", "Vertex=table", "over K"; "" for a plain
// read at the result point.
func (r Read) Describe() string {
	var parts []string
	names := make([]string, 0, len(r.At))
	for d := range r.At {
		names = append(names, d)
	}
	sort.Strings(names)
	for _, d := range names {
		if r.ranges(d) {
			continue
		}
		if off, ok := r.Offset(d); ok {
			if c, isC := off.Const(); isC && c == 0 {
				continue
			}
			parts = append(parts, sizeexpr.Add(DimVar(d), off).String())
			continue
		}
		parts = append(parts, d+"="+r.At[d].String())
	}
	if r.Gathered != "" {
		parts = append(parts, r.Gathered+"=table")
	}
	if len(r.Over) > 0 {
		parts = append(parts, "over "+strings.Join(r.Over, ","))
	}
	return strings.Join(parts, " ")
}

// domainOfRead is the domain of the result points whose reads of operand
// x stay inside x, for a read whose coordinates are offsets of the result
// point (identity, shift): reading at +off moves the domain by -off.
func domainOfRead(r Read, x TensorType) []Dim {
	dims := append([]Dim(nil), x.Dims...)
	for k, d := range dims {
		if off, ok := r.Offset(d.Name); ok {
			dims[k].Interval = d.Translate(sizeexpr.Neg(off))
		}
	}
	return dims
}

// MayBeMasked reports whether some element of v can be masked (spec 2.3):
// a gather masks where its table points outside its operand, and masks
// travel with every read and through elementwise ops; a reduction or a scan
// skips masked points and is masked only where its init is, and can_deref,
// pos and constants are never masked. A function argument is never masked.
func MayBeMasked(v *ir.Value) bool { return mayBeMasked(v, map[*ir.Value]bool{}) }

// MayBeMaskedMemo is MayBeMasked remembering its answers in memo, for a
// caller that asks about many values of one function.
func MayBeMaskedMemo(v *ir.Value, memo map[*ir.Value]bool) bool { return mayBeMasked(v, memo) }

func mayBeMasked(v *ir.Value, seen map[*ir.Value]bool) bool {
	if m, ok := seen[v]; ok {
		return m
	}
	seen[v] = false
	op := v.DefiningOp()
	if op == nil {
		return false
	}
	operandMasked := func(o *ir.Value) bool { return mayBeMasked(o, seen) }
	var m bool
	if o := OpOf(op); o != nil && o.masked != nil {
		m = o.masked(op, operandMasked)
	} else {
		m = anyOperandMasked(op, operandMasked)
	}
	seen[v] = m
	return m
}

// maskRule says whether an op's result may be masked, given whether each
// operand may be.
type maskRule func(op *ir.Operation, operandMasked func(*ir.Value) bool) bool

// anyOperandMasked is the rule of elementwise and data-movement ops: a
// masked point travels with every read.
func anyOperandMasked(op *ir.Operation, operandMasked func(*ir.Value) bool) bool {
	m := false
	for _, o := range op.Operands {
		if operandMasked(o) {
			m = true
		}
	}
	return m
}

// neverMasked: can_deref, pos and constants define every point.
func neverMasked(*ir.Operation, func(*ir.Value) bool) bool { return false }

// gatherMasks: a table entry may name no neighbour.
func gatherMasks(*ir.Operation, func(*ir.Value) bool) bool { return true }

// reduceMasks: masked operands are skipped; an accumulator that starts
// masked stays masked.
func reduceMasks(op *ir.Operation, operandMasked func(*ir.Value) bool) bool {
	_, init := ReduceOperands(op)
	return init != nil && operandMasked(init)
}

// scanMasks: a step whose inputs are masked leaves the state as it was, so
// only a masked init masks the result (its whole column).
func scanMasks(op *ir.Operation, operandMasked func(*ir.Value) bool) bool {
	return len(op.Operands) > 0 && operandMasked(op.Operands[0])
}
