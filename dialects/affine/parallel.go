package affine

import (
	"tir/dialects/arith"
	"tir/dialects/ir"
	"tir/dialects/scf"
	"tir/dialects/sizeexpr"
)

// affine.parallel (%i, %j) = (0, max(0, %N - 2)) to (%N, 10) step (1, 2)
// reduce ("addf") -> (f32) { ... }
//
// MLIR 16 representation: operands are the lower bound map operands then the
// upper bound map operands; lowerBoundsMap/upperBoundsMap hold the bound
// expressions of all dimensions concatenated, lowerBoundsGroups /
// upperBoundsGroups (dense<...> : tensor<Nxi32>) how many expressions each
// dimension has (the max of the lower ones, the min of the upper ones),
// steps and reductions are arrays of i64 (reductions hold
// arith::AtomicRMWKind values); the entry block has one index argument per
// dimension.

// ReductionKinds are the affine.parallel reductions by enum value.
var ReductionKinds = []string{"addf", "addi", "assign", "maxf", "maxs", "maxu", "minf", "mins", "minu", "mulf", "muli", "ori", "andi"}

// Parallel is affine.parallel.
var Parallel = &ir.OpDef{
	Name:    "affine.parallel",
	Summary: "a multi-dimensional parallel loop with affine bounds and optional reductions",
	Syntax: "[%r = ] affine.parallel (%i, ...) = (LB, ...) to (UB, ...) [step (s, ...)] [reduce (\"addf\", ...) -> (T, ...)] { ... }\n" +
		"  LB: expression of %dims and symbol(%syms), or max(e, ...); UB likewise with min",
	NumOperands: -1, NumResults: -1, NumRegions: 1,
	Parse: parseParallel,
	Print: printParallel,
	NeedsGeneric: func(op *ir.Operation) bool {
		return parallelShapeError(op) != nil || !arith.OnlyAttrs(op, "lowerBoundsMap", "lowerBoundsGroups",
			"upperBoundsMap", "upperBoundsGroups", "steps", "reductions")
	},
	Verify: verifyParallel,
}

// parseParallelBounds reads `(e, max(e, e), ...)`.
func parseParallelBounds(p *ir.OpParser, keyword string) (ParallelBounds, error) {
	g, err := p.Group()
	if err != nil {
		return ParallelBounds{}, err
	}
	nodes, err := ir.ItemExprList(g)
	if err != nil {
		return ParallelBounds{}, err
	}
	m := &ssaMap{host: p.Host}
	var b ParallelBounds
	var results []sizeexpr.Expr
	for _, n := range nodes {
		group := []*ir.ExprNode{n}
		if n.Kind == ir.ExprCall && (n.Name == "max" || n.Name == "min") {
			if n.Name != keyword {
				return b, ir.Errorf(n.Loc, "expected '%s' in these bounds, found '%s'", keyword, n.Name)
			}
			group = n.Args
		}
		for _, x := range group {
			e, err := m.expr(x)
			if err != nil {
				return b, err
			}
			results = append(results, e)
		}
		b.Groups = append(b.Groups, int64(len(group)))
	}
	b.Map = ir.AffineMap{NumDims: len(m.dims), NumSyms: len(m.syms), Results: results}
	b.Operands = m.operands()
	return b, nil
}

func parseParallel(p *ir.OpParser, st *ir.OpState) error {
	g, err := p.Group()
	if err != nil {
		return err
	}
	var args []ir.RegionArg
	for !g.AtEnd() {
		n, loc, err := g.ValueName()
		if err != nil {
			return err
		}
		args = append(args, ir.RegionArg{Name: n, Type: ir.Index, Loc: loc})
		if !g.Punct(",") {
			break
		}
	}
	if err := g.ExpectEnd(); err != nil {
		return err
	}
	if err := p.ExpectPunct("="); err != nil {
		return err
	}
	loc := p.CurLoc()
	lb, err := parseParallelBounds(p, "max")
	if err != nil {
		return err
	}
	if err := p.ExpectWord("to"); err != nil {
		return err
	}
	ub, err := parseParallelBounds(p, "min")
	if err != nil {
		return err
	}
	if len(lb.Groups) != len(args) || len(ub.Groups) != len(args) {
		return ir.Errorf(loc, "%d induction variables but %d lower and %d upper bounds", len(args), len(lb.Groups), len(ub.Groups))
	}
	steps := make([]int64, len(args))
	for i := range steps {
		steps[i] = 1
	}
	if p.Word("step") {
		sg, err := p.Group()
		if err != nil {
			return err
		}
		for i := range steps {
			if i > 0 {
				if err := sg.ExpectPunct(","); err != nil {
					return err
				}
			}
			if steps[i], err = sg.Integer(); err != nil {
				return err
			}
		}
		if err := sg.ExpectEnd(); err != nil {
			return err
		}
	}
	var reductions []int64
	var types []ir.Type
	if p.Word("reduce") {
		rg, err := p.Group()
		if err != nil {
			return err
		}
		for !rg.AtEnd() {
			it := rg.Next()
			k := -1
			if it.Kind == ir.ItemString {
				k = indexOfString(ReductionKinds, it.Text)
			}
			if k < 0 {
				return ir.Errorf(it.Loc, "expected a reduction kind string (%s)", joinQuoted(ReductionKinds))
			}
			reductions = append(reductions, int64(k))
			if !rg.Punct(",") {
				break
			}
		}
		if err := rg.ExpectEnd(); err != nil {
			return err
		}
		if err := p.ExpectPunct("->"); err != nil {
			return err
		}
		if types, err = p.ResultTypeList(); err != nil {
			return err
		}
		if len(types) != len(reductions) {
			return p.Errorf("%d reductions but %d result types", len(reductions), len(types))
		}
	}
	body, err := p.Region(args, nil)
	if err != nil {
		return err
	}
	if len(types) == 0 {
		arith.EnsureTerminator(body, newYield(st.Loc))
	}
	st.Operands = append(lb.Operands, ub.Operands...)
	st.ResultTypes = types
	st.Regions = []*ir.Region{body}
	st.Attrs = parallelAttrs(lb, ub, steps, reductions)
	return p.ExpectEnd()
}

func parallelAttrs(lb, ub ParallelBounds, steps, reductions []int64) ir.DictAttr {
	return ir.DictAttr{}.
		With("lowerBoundsMap", ir.AffineMapAttr{Map: lb.Map}).
		With("lowerBoundsGroups", groupsAttr(lb.Groups)).
		With("upperBoundsMap", ir.AffineMapAttr{Map: ub.Map}).
		With("upperBoundsGroups", groupsAttr(ub.Groups)).
		With("steps", i64Array(steps)).
		With("reductions", i64Array(reductions))
}

func indexOfString(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

func joinQuoted(list []string) string {
	s := ""
	for i, x := range list {
		if i > 0 {
			s += ", "
		}
		s += `"` + x + `"`
	}
	return s
}

func printParallelBounds(p ir.OpPrinter, b ParallelBounds, keyword string) {
	results, dims, syms := canonicalSSA(b.Map.Results, b.Map.NumDims, b.Operands)
	p.Write("(")
	k := 0
	for i, g := range b.Groups {
		if i > 0 {
			p.Write(", ")
		}
		if g > 1 {
			p.Write(keyword + "(")
		}
		for j := int64(0); j < g; j++ {
			if j > 0 {
				p.Write(", ")
			}
			printSSAExpr(p, results[k], dims, syms)
			k++
		}
		if g > 1 {
			p.Write(")")
		}
	}
	p.Write(")")
}

func printParallel(p ir.OpPrinter, op *ir.Operation) {
	lb, ub, steps, reductions := ParallelParts(op)
	body := op.Regions[0].Blocks[0]
	p.Write(" (")
	for i, a := range body.Args {
		if i > 0 {
			p.Write(", ")
		}
		p.ArgName(a)
	}
	p.Write(") = ")
	printParallelBounds(p, lb, "max")
	p.Write(" to ")
	printParallelBounds(p, ub, "min")
	unit := true
	for _, s := range steps {
		unit = unit && s == 1
	}
	if !unit {
		p.Write(" step (")
		for i, s := range steps {
			if i > 0 {
				p.Write(", ")
			}
			p.Write(itoa(s))
		}
		p.Write(")")
	}
	if len(reductions) > 0 {
		p.Write(" reduce (" + joinQuoted(reductions) + ") -> (")
		p.Types(arith.ResultTypes(op))
		p.Write(")")
	}
	p.Write(" ")
	ir.PrintRegion(p, op.Regions[0], false, len(op.Results) > 0)
}

func verifyParallel(op *ir.Operation, _ func(*ir.Diagnostic)) error {
	if err := parallelShapeError(op); err != nil {
		return err
	}
	lb, ub, steps, reductions := ParallelParts(op)
	if len(lb.Groups) != len(steps) || len(ub.Groups) != len(steps) {
		return errf(op, "%d dimensions but %d lower and %d upper bound groups", len(steps), len(lb.Groups), len(ub.Groups))
	}
	for _, s := range steps {
		if s <= 0 {
			return errf(op, "steps must be positive")
		}
	}
	if err := checkMapOperands(op, "lower bounds", lb.Map, lb.Operands); err != nil {
		return err
	}
	if err := checkMapOperands(op, "upper bounds", ub.Map, ub.Operands); err != nil {
		return err
	}
	for i, k := range reductions {
		t := op.Results[i].Type
		float := k == "addf" || k == "mulf" || k == "maxf" || k == "minf"
		if k != "assign" && float != arith.IsFloatLike(t) {
			return errf(op, "result type %s cannot match reduction attribute \"%s\"", t, k)
		}
	}
	return scf.CheckYield(op, op.Regions[0], Yield, arith.ResultTypes(op))
}

// NewParallel builds an affine.parallel over len(steps) dimensions with a
// body block holding the induction variables and no terminator (the caller
// appends the body and an affine.yield of the values to reduce, an empty
// one without reductions). reductions are kind names ("addf", ...), one per
// result type.
func NewParallel(loc ir.Location, lb, ub ParallelBounds, steps []int64, reductions []string, resultTypes []ir.Type) *ir.Operation {
	var kinds []int64
	for _, r := range reductions {
		k := indexOfString(ReductionKinds, r)
		if k < 0 {
			panic("affine: unknown reduction kind " + r)
		}
		kinds = append(kinds, int64(k))
	}
	op := ir.NewOpOf(Parallel, loc, append(append([]*ir.Value(nil), lb.Operands...), ub.Operands...),
		resultTypes, parallelAttrs(lb, ub, steps, kinds))
	ivs := make([]ir.Type, len(steps))
	for i := range ivs {
		ivs[i] = ir.Index
	}
	op.AddRegion().AddBlock(ivs...)
	return op
}

// ParallelBody is the body block of an affine.parallel.
func ParallelBody(op *ir.Operation) *ir.Block { return op.Regions[0].Entry() }
